import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, clearCaches, progressOf } from '../src/core/analyze';
import { hostStats } from '../src/core/frontends/triton/host';
import { interpretationStats } from '../src/core/frontends/triton/frontend';
import { findGpu } from '../src/core/gpus/catalog';
import { diffPipelines } from '../src/core/report/diff';
import { pipelineLens, pipelineRows, pipelineSummary } from '../src/core/report/pipelines';
import type { MultiGpuReport } from '../src/core/report/render';
import { loadParsers } from './check';

const gpu = findGpu('h100-sxm')!;
const FIXTURE = path.join(__dirname, 'fixtures', 'triton', 'pipeline_forward.py');

describe('pipelines', () => {
  it('the lens sums the launches, says how much is memory-bound and what fusing saves', async () => {
    const p = await loadParsers();
    const r = analyzeSource(fs.readFileSync(FIXTURE, 'utf8'), p, { gpu, path: FIXTURE });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.equal(pipelineLens(pl, gpu.name), 'pipeline: 3 launches · T ≥ 54.4 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 24.4 %');
  });

  it("Triton: a report's per-launch analyses share one host reader (what they read alike of the host code is read once)", async () => {
    const p = await loadParsers();
    clearCaches();
    hostStats.readers = 0;
    const r = analyzeSource(fs.readFileSync(FIXTURE, 'utf8'), p, { gpu, path: 'readers.py' });
    assert.equal(r.pipelines!.find((x) => x.name === 'forward')!.launches.length, 3);
    // One for the file's kernels, one for the three launches of `forward` (each analysed on its own: one reader each before).
    assert.equal(hostStats.readers, 2);
  });

  it("Triton: launches given the same values share the kernel's interpretation; launches given other values do not", async () => {
    const p = await loadParsers();
    const src = (blocks: [number, number, number]) =>
      [
        'import torch',
        'import triton',
        'import triton.language as tl',
        '',
        '',
        '@triton.jit',
        'def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):',
        '    pid = tl.program_id(0)',
        '    offs = pid * BLOCK + tl.arange(0, BLOCK)',
        '    mask = offs < n',
        '    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)',
        '',
        '',
        'def scale(x, out, block):',
        '    n = x.numel()',
        '    scale_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)',
        '',
        '',
        'def chain(x, out, y):',
        `    scale(x, out, ${blocks[0]})`,
        `    scale(out, y, ${blocks[1]})`,
        `    scale(y, x, ${blocks[2]})`,
        '',
      ].join('\n');
    const launches = (blocks: [number, number, number]) => {
      clearCaches();
      const before = interpretationStats.shared;
      const r = analyzeSource(src(blocks), p, { gpu, path: 'shared.py' });
      const chain = r.pipelines!.find((x) => x.name === 'chain')!;
      return { shared: interpretationStats.shared - before, launches: chain.launches };
    };
    // The sizes are the caller's (unknown here): the three launches differ only in their block.
    const same = launches([1024, 1024, 1024]);
    assert.equal(same.launches.length, 3);
    assert.equal(same.shared, 2);
    assert.deepEqual(
      same.launches.map((l) => l.bindings),
      [1, 2, 3].map(() => ({ BLOCK: 1024 })),
    );
    const other = launches([1024, 512, 256]);
    assert.equal(other.shared, 0);
    assert.deepEqual(
      other.launches.map((l) => l.bindings.BLOCK),
      [1024, 512, 256],
    );
    // One of three the same as the first: the third launch takes the first one's interpretation, and reports
    // what the same launch reports when it is the first of its values (interpreted on its own).
    const some = launches([1024, 512, 1024]);
    assert.equal(some.shared, 1);
    const alone = launches([256, 512, 1024]);
    assert.equal(alone.shared, 0);
    const what = (l: (typeof some.launches)[number]) => ({ ...l, share: null, time: null });
    assert.deepEqual(what(some.launches[2]), what(alone.launches[2]));
  });

  it('a host loop multiplies its launches; a fusion inside it saves once per trip', async () => {
    const p = await loadParsers();
    const src = fs.readFileSync(FIXTURE, 'utf8').replace('    h = rmsnorm(x, w_norm)\n    p = matmul(h, w_proj)\n', '    for _ in range(4):\n        h = rmsnorm(x, w_norm)\n        p = matmul(h, w_proj)\n');
    const r = analyzeSource(src, p, { gpu, path: 'loop.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.deepEqual(pl.launches.map((l) => l.repeat), [4, 4, 1]);
    assert.equal(pl.total.launches, 9);
    assert.equal(pl.total.flops, 4 * 16785408 + 4 * 8589934592 + 4194304);
    assert.equal(pl.fusion[0].bytesSaved, 4 * 33554432);
    // matmul (×4) and add (×1) run a different number of times: not a fusion pair.
    assert.equal(pl.fusion.length, 1);
  });

  it('Triton: the launches inside a `with` block are walked once each (a launcher around one launch is no pipeline)', async () => {
    const p = await loadParsers();
    const src = fs
      .readFileSync(FIXTURE, 'utf8')
      .replace('    rmsnorm_kernel[(M,)](', '    with torch.cuda.device(x.device):\n        rmsnorm_kernel[(M,)](')
      .replace('    h = rmsnorm(x, w_norm)\n    p = matmul(h, w_proj)\n', '    with torch.cuda.device(x.device):\n        h = rmsnorm(x, w_norm)\n        p = matmul(h, w_proj)\n');
    assert.match(src, /with torch\.cuda\.device\(x\.device\):\n        rmsnorm_kernel/);
    const r = analyzeSource(src, p, { gpu, path: 'with.py' });
    // Its body was walked twice: `rmsnorm` became a pipeline of one launch counted twice, `forward` had 5 launches.
    assert.deepEqual(
      r.pipelines!.map((x) => [x.name, x.launches.map((l) => l.kernel)]),
      [['forward', ['rmsnorm_kernel', 'matmul_kernel', 'add_kernel']]],
    );
  });

  it('a launch whose kernel has no numbers is listed with the reason, and the totals are lower bounds', async () => {
    const p = await loadParsers();
    const src = fs.readFileSync(FIXTURE, 'utf8').replace('add_kernel[(triton.cdiv(n, 1024),)](x, p, out, n, BLOCK=1024)', 'add_kernel[(triton.cdiv(n, 1024),)](x, p, out, n, BLOCK=unknown_block())');
    const r = analyzeSource(src, p, { gpu, path: 'unknown.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward')!;
    assert.equal(pl.launches.length, 3);
    assert.match(pl.launches[2].unresolved ?? '', /BLOCK/);
    assert.equal(pl.total.resolved, 2);
    assert.equal(pl.total.complete, false);
    assert.ok(pl.notes.some((n) => /lower bounds/.test(n)));
  });

  it('with no launch resolved, the totals are "?" — never a free pipeline of 0 ns', async () => {
    const p = await loadParsers();
    // The fixture's host sizes made unknown: no launch has numbers.
    const src = fs.readFileSync(FIXTURE, 'utf8').replace(/torch\.randn\(\([^)]*\)/g, 'torch.randn(unknown_shape()');
    const r = analyzeSource(src, p, { gpu, path: 'sizeless.py' });
    const pl = r.pipelines!.find((x) => x.name === 'forward' || x.name === 'main');
    assert.ok(pl, `pipelines: ${r.pipelines?.map((x) => x.name)}`);
    if (pl.total.resolved !== 0) return assert.fail(`expected no resolved launch: ${JSON.stringify(pl.launches.map((l) => l.unresolved))}`);
    assert.match(pipelineSummary(pl), /none with numbers yet/);
    assert.deepEqual(pipelineRows(pl).at(-1)!.slice(4, 8), ['?', '?', '?', 'no launch has numbers']);
    assert.match(pipelineLens(pl, gpu.name), /no launch has numbers/);
  });

  it('CUDA: a launcher called in an `if` condition launches before either arm runs (`if (rmsnorm(…) != 0) return;`)', async () => {
    const p = await loadParsers();
    const base = fs.readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'pipeline_layers.cu'), 'utf8');
    const src = base
      .replace('void rmsnorm(const float* x, const float* w, float* y, int rows, int C) {\n  rmsnorm_kernel<<<rows, 256>>>(x, w, y, C);\n}', 'int rmsnorm(const float* x, const float* w, float* y, int rows, int C) {\n  rmsnorm_kernel<<<rows, 256>>>(x, w, y, C);\n  return 0;\n}')
      .replace('    rmsnorm(x, wn, h, rows, C);\n', '    if (rmsnorm(x, wn, h, rows, C) != 0) return;\n');
    assert.notEqual(src, base);
    assert.match(src, /if \(rmsnorm\(x, wn, h, rows, C\) != 0\) return;/);
    const r = analyzeSource(src, p, { gpu: findGpu('h100-sxm')!, path: 'if-launch.cu' });
    const forward = r.pipelines!.find((x) => x.name === 'forward')!;
    // As the fixture's: 4 layers of rmsnorm → matmul → add, then the final rmsnorm.
    assert.equal(forward.total.launches, 13);
    assert.deepEqual(forward.launches.map((l) => l.kernel), ['rmsnorm_kernel', 'matmul_kernel', 'residual_add_kernel', 'rmsnorm_kernel']);
  });

  it("CUDA: a host `switch` runs one case (the host values', else its first that launches, said so); a loop's counter decides nothing inside it", async () => {
    const p = await loadParsers();
    const kernels = [
      'template <int B> __global__ void scale(float* y, const float* x, int n) { int i = blockIdx.x * B + threadIdx.x; if (i < n) y[i] = 2.0f * x[i]; }',
      '__global__ void shift(float* y, const float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + 1.0f; }',
      'template <class T> void dispatch(int threads, int n, T* y, const T* x) {',
      '  switch (threads) {',
      '    case 256: scale<256><<<n / 256, 256>>>(y, x, n); break;',
      '    case 128: { scale<128><<<n / 128, 128>>>(y, x, n); break; }',
      '    case 64:',
      '    default: shift<<<n / 64, 64>>>(y, x, n);',
      '  }',
      '}',
    ];
    const run = (main: string[]) => analyzeSource([...kernels, ...main].join('\n'), p, { gpu: findGpu('h100-sxm')!, path: 'switch.cu' });
    const launches = (r: ReturnType<typeof run>, name: string) => (r.pipelines ?? []).find((x) => x.name === name)?.launches.map((l) => `${l.kernel}:${l.repeatNote ?? ''}`);
    // A dispatcher alone is no pipeline (one launch), whatever its value.
    assert.equal(launches(run([]), 'dispatch'), undefined);
    // Decided by the caller's values: 128 takes its braced case, 64 falls through to the default, 512 takes the default.
    const decided = run(['int main() {', '  dispatch<float>(128, 4096, nullptr, nullptr);', '  dispatch<float>(64, 4096, nullptr, nullptr);', '  dispatch<float>(512, 4096, nullptr, nullptr);', '}']);
    assert.deepEqual(launches(decided, 'main'), ['scale:', 'shift:', 'shift:']);
    // In a loop over the sizes: the counter's first value decides nothing: the first case that launches, said so.
    const looped = run(['int main() {', '  for (int t = 64; t <= 256; t += 64) {', '    dispatch<float>(t, 4096, nullptr, nullptr);', '    dispatch<float>(128, 4096, nullptr, nullptr);', '  }', '}']);
    const l = launches(looped, 'main');
    assert.equal(l?.length, 2);
    assert.match(l![0], /^scale:.*`switch threads` \(line 4\), not decided: its first case that launches counted/);
    assert.ok(!/not decided/.test(l![1]), l![1]);
    assert.deepEqual(looped.pipelines!.find((x) => x.name === 'main')!.launches.map((x) => x.repeat), [4, 4]);
  });

  it('CUDA: each launch is analysed for the selected GPU (`__CUDA_ARCH__`), as the kernel itself is', async () => {
    const p = await loadParsers();
    const src = fs
      .readFileSync(path.join(__dirname, 'fixtures', 'cuda', 'pipeline_layers.cu'), 'utf8')
      .replace('  if (i < n) out[i] = a[i] + b[i];', '#if __CUDA_ARCH__ >= 900\n  if (i < n) out[i] = a[i] + b[i] + 1.0f;\n#else\n  if (i < n) out[i] = a[i] + b[i];\n#endif');
    // n = 4096 × 1024 elements; sm_90 takes two adds per element, sm_80 one.
    for (const [id, perElement] of [['h100-sxm', 2], ['a100-sxm', 1]] as const) {
      const g = findGpu(id)!;
      const r = analyzeSource(src, p, { gpu: g, path: `arch-${id}.cu` });
      assert.equal(r.kernels.find((k) => k.name === 'residual_add_kernel')!.perUnit!.flops, 256 * perElement, `${id}: the kernel`);
      const add = r.pipelines!.find((x) => x.name === 'forward')!.launches.find((l) => l.kernel === 'residual_add_kernel')!;
      assert.equal(add.flops, 4096 * 1024 * perElement, `${id}: its launch in the pipeline`);
    }
  });

  it('in time slices the launches follow one slice after another, and the last report equals an unsliced one', async () => {
    const p = await loadParsers();
    for (const f of [FIXTURE, path.join(__dirname, 'fixtures', 'cuda', 'pipeline_layers.cu')]) {
      const src = fs.readFileSync(f, 'utf8');
      clearCaches();
      const whole = analyzeSource(src, p, { gpu, path: `whole-${path.basename(f)}` });
      clearCaches();
      let last = -1;
      let launchesPending = 0;
      for (let calls = 1; ; calls++) {
        const r = analyzeSource(src, p, { gpu, path: `sliced-${path.basename(f)}`, sliceMs: 0 });
        const now = r.partial ? progressOf(r.partial) : Infinity;
        assert.ok(now > last, `${f}: call ${calls} made no progress`);
        last = now;
        if (r.partial?.launches) {
          assert.equal(r.kernels.length, whole.kernels.length, 'launches follow once every kernel is in');
          // Every kernel is in; the launches of the pipelines are being analysed.
          launchesPending++;
          assert.ok(r.diagnostics.some((d) => d.code === 'pipelinesPending'));
          assert.equal(r.pipelines, undefined, 'no pipeline shown before all its launches are in');
        }
        if (!r.partial) {
          assert.deepEqual(r.pipelines, whole.pipelines);
          break;
        }
        assert.ok(calls < 200, 'slices never finish');
      }
      assert.ok(launchesPending > 0, `${f}: the launches were split over slices`);
    }
  });

  it('diff reports a pipeline whose total time bound changed', async () => {
    const p = await loadParsers();
    const a = fs.readFileSync(FIXTURE, 'utf8');
    const b = a.replace('torch.randn((4096, 1024), device="cuda", dtype=torch.float32)', 'torch.randn((8192, 1024), device="cuda", dtype=torch.float32)');
    const rep = (src: string): MultiGpuReport => ({ schemaVersion: 1, gpu: { id: gpu.id, name: gpu.name, memoryBandwidth: gpu.memoryBandwidth, l2Bandwidth: gpu.l2Bandwidth, peaks: gpu.peaks }, files: [analyzeSource(src, p, { gpu, path: 'f.py' })] }) as MultiGpuReport;
    const d = diffPipelines(rep(a), rep(b), [{ status: 'modified', oldPath: 'f.py', newPath: 'f.py' }]);
    assert.equal(d.length, 1);
    assert.equal(d[0].change, 'changed');
    assert.ok(d[0].after! > d[0].before! * 1.5, `${d[0].before} → ${d[0].after}`);
    const same = diffPipelines(rep(a), rep(a), [{ status: 'modified', oldPath: 'f.py', newPath: 'f.py' }]);
    assert.equal(same[0].change, 'unchanged');
  });

  describe('WebGPU command encoders', () => {
    const WGSL = path.join(__dirname, 'fixtures', 'wgsl', 'pipeline_two_passes.ts');
    const run = async (src: string) => {
      const r = analyzeSource(src, await loadParsers(), { gpu, path: 'host.ts' });
      return r.pipelines?.find((x) => x.name === 'encodeLayers');
    };

    it('the lens of the encoder function: launches, time, memory-bound share, fusion', async () => {
      const pl = (await run(fs.readFileSync(WGSL, 'utf8')))!;
      assert.equal(pipelineLens(pl, gpu.name), 'pipeline: 6 launches · T ≥ 18.8 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 40 %');
      assert.deepEqual(pl.launches.map((l) => l.tensors.map((t) => `${t.param}=${t.name}`)), [['x=xBuf', 'h=hBuf'], ['h=hBuf', 'y=yBuf', 'out=outBuf']]);
    });

    it('a loop over an array literal repeats its length; an unknown loop counts once and says so', async () => {
      const src = fs.readFileSync(WGSL, 'utf8');
      const overArray = (await run(src.replace('for (let layer = 0; layer < LAYERS; layer++) {', 'for (const layer of [a, b]) {')))!;
      assert.deepEqual(overArray.launches.map((l) => l.repeat), [2, 2]);
      const unknown = (await run(src.replace('for (let layer = 0; layer < LAYERS; layer++) {', 'for (let layer = 0; layer < layers.length; layer++) {')))!;
      assert.deepEqual(unknown.launches.map((l) => l.repeat), [null, null]);
      assert.match(unknown.launches[0].repeatNote ?? '', /trip count of `for \(let layer = 0; layer < layers\.length; layer\+\+\)` \(line \d+\) is unknown/);
    });

    it('a dispatch whose pipeline cannot be followed is listed with the reason; the totals are lower bounds', async () => {
      const src = fs.readFileSync(WGSL, 'utf8');
      const pl = (await run(src.replace('b.setPipeline(squareAdd);', 'b.setPipeline(pipelines.get("square"));')))!;
      assert.equal(pl.launches.length, 2);
      assert.match(pl.launches[1].unresolved ?? '', /pipelines\.get\("square"\)|createComputePipeline/);
      assert.equal(pl.total.complete, false);
      const imported = (await run(src.replace('{ code: squareAddCode }', '{ code: importedCode }')))!;
      assert.match(imported.launches[1].unresolved ?? '', /not WGSL written in this file/);
      const noSize = (await run(src.replace('b.dispatchWorkgroups(N / WG);', 'b.dispatchWorkgroups(count);')))!;
      assert.match(noSize.launches[1].unresolved ?? '', /number of units unknown/);
    });

    it('a shader module created inside the pipeline descriptor, or two functions that both call theirs `module`', async () => {
      const src = fs.readFileSync(WGSL, 'utf8');
      const inline = src
        .replace("{ module: scaleShiftModule, entryPoint", "{ module: device.createShaderModule({ code: scaleShiftCode }), entryPoint")
        .replace("{ module: squareAddModule, entryPoint", "{ module: device.createShaderModule({ code: squareAddCode }), entryPoint");
      assert.deepEqual((await run(inline))!.launches.map((l) => [l.kernel, l.units]), [['scale_shift', 4096], ['square_add', 4096]]);
      // `module` names the scale_shift module in a function above, and the square_add module here: the nearest one before the pipeline wins.
      const shadowed = src
        .replace('export function encodeLayers(', 'function other(device) {\n  const module = device.createShaderModule({ code: scaleShiftCode });\n}\nexport function encodeLayers(')
        .replace('const squareAddModule = device.createShaderModule', 'const module = device.createShaderModule')
        .replace('{ module: squareAddModule, entryPoint', '{ module, entryPoint');
      assert.deepEqual((await run(shadowed))!.launches.map((l) => [l.kernel, l.unresolved ?? 'ok']), [['scale_shift', 'ok'], ['square_add', 'ok']]);
    });

    it('a shader in a file of its own (import code from "./x.wgsl") is analysed for the launches, not listed as a kernel of the host', async () => {
      const src = fs.readFileSync(WGSL, 'utf8');
      const m = /const squareAddCode = \/\* wgsl \*\/ `([\s\S]*?)`;\n/.exec(src)!;
      const host = src.replace(m[0], '').replace('const N = 1 << 20;', "import squareAddCode from './square_add.wgsl';\nconst N = 1 << 20;");
      const related = { './square_add.wgsl': { path: 'square_add.wgsl', text: m[1] } };
      const r = analyzeSource(host, await loadParsers(), { gpu, path: 'host.ts', related });
      assert.deepEqual(r.kernels.map((k) => k.name), ['scale_shift']);
      const pl = r.pipelines!.find((x) => x.name === 'encodeLayers')!;
      assert.deepEqual(pl.launches.map((l) => [l.kernel, l.compulsoryBytes]), [['scale_shift', 8388608], ['square_add', 12582912]]);
      assert.equal(pl.fusion[0].bytesSaved, 25165824);
      // Without the file's text: listed, with the reason.
      const alone = analyzeSource(host, await loadParsers(), { gpu, path: 'host.ts' });
      assert.match(alone.pipelines!.find((x) => x.name === 'encodeLayers')!.launches[1].unresolved ?? '', /not WGSL written in this file/);
    });

    it('one dispatch outside a loop is no pipeline', async () => {
      const src = fs.readFileSync(WGSL, 'utf8').replace(/    const b = encoder[\s\S]*?b\.end\(\);\n/, '').replace('for (let layer = 0; layer < LAYERS; layer++) {', 'if (LAYERS > 0) {');
      assert.equal(await run(src), undefined);
    });
  });
});

describe('pipelines and the wall-clock budget', () => {
  /** Runs `f` with `Date.now` moved by `step` ms at every look. */
  function onClock<T>(step: number, f: () => T): T {
    const real = Date.now;
    let t = real();
    Date.now = () => (t += step);
    try {
      return f();
    } finally {
      Date.now = real;
    }
  }

  it("a launch gets what is left of the analysis's budget, not one of its own", async () => {
    const { Budget } = await import('../src/core/budget');
    onClock(0, () => assert.equal(new Budget({}).remainingMs(), undefined));
    const left = onClock(100, () => {
      const b = new Budget({ hardMs: 1000 });
      return [b.remainingMs(), b.remainingMs(), b.remainingMs()];
    });
    // The clock moves 100 ms at each look (the constructor's one of them): 1000 − 100, − 200, − 300.
    assert.deepEqual(left, [900, 800, 700]);
    assert.equal(onClock(600, () => new Budget({ hardMs: 1000 }).remainingMs() && new Budget({ hardMs: 1000 }).remainingMs()), 400);
    assert.equal(onClock(2000, () => new Budget({ hardMs: 1000 }).remainingMs()), 0);
    // Each launch analysed asks the analysis's budget what is left.
    const p = await loadParsers();
    const remaining = Object.getOwnPropertyDescriptor(Budget.prototype, 'remainingMs')!.value as (this: InstanceType<typeof Budget>) => number | undefined;
    let asked = 0;
    Budget.prototype.remainingMs = function (this: InstanceType<typeof Budget>) {
      asked++;
      return remaining.call(this);
    };
    let r: ReturnType<typeof analyzeSource>;
    try {
      clearCaches();
      r = analyzeSource(fs.readFileSync(FIXTURE, 'utf8'), p, { gpu, path: 'budget-asked.py', budgetMs: 60_000 });
    } finally {
      Budget.prototype.remainingMs = remaining;
      clearCaches();
    }
    const launches = new Set((r.pipelines ?? []).flatMap((pl) => pl.launches.map((l) => `${l.kernel}@${l.line}:${l.callLine ?? ''}`))).size;
    assert.ok(launches >= 2 && asked >= launches, `${asked} asked for ${launches} launches`);
  });

  it('a launch the budget cut short says so, not "counts unknown"', async () => {
    const p = await loadParsers();
    const src = fs.readFileSync(FIXTURE, 'utf8');
    clearCaches();
    // A step budget too small for any kernel: each launch's analysis is truncated.
    const r = analyzeSource(src, p, { gpu, path: 'budget-launches.py', kernelSteps: 30 });
    clearCaches();
    const launches = (r.pipelines ?? []).flatMap((pl) => pl.launches).filter((l) => !l.unresolved?.startsWith('number of units unknown'));
    assert.ok(launches.length >= 2, `${launches.length} launches`);
    for (const l of launches) {
      assert.equal(l.complete, false);
      assert.equal(l.time, null);
      assert.match(l.unresolved ?? '', /cut short by the analysis budget/);
    }
  });

});
