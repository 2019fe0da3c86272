/**
 * Rule-major tests: one folder per counting rule under test/fixtures/rules/,
 * with a twin kernel in each language written the same way. Each twin must
 * match its own hand derivation (check()), and the twins must agree with each
 * other on per-unit FLOPs, bytes and completeness — one rule, three languages.
 *
 * Also here, the rules the driver applies for every language: a kernel whose
 * analysis throws is listed with an internal-error diagnostic (never the loss
 * of the file), and time slices make every call progress in every language.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource, clearCaches, progressOf } from '../src/core/analyze';
import { Budget, MAX_EXPRESSION_DEPTH } from '../src/core/budget';
import { KernelCache, runKernels } from '../src/core/engine/driver';
import type { FrontendContext } from '../src/core/frontend';
import { findGpu } from '../src/core/gpus/catalog';
import type { KernelIR, Language } from '../src/core/ir';
import type { KernelReport } from '../src/core/report/types';
import { num, ONE } from '../src/core/sym/expr';
import { countNested, type ThreadPred, type ThreadSpace } from '../src/core/engine/threads';
import { check, loadParsers } from './check';

const RULES = path.join(__dirname, 'fixtures', 'rules');
const H100 = findGpu('h100-sxm')!;

function ruleDirs(): string[] {
  return fs
    .readdirSync(RULES)
    .filter((d) => fs.statSync(path.join(RULES, d)).isDirectory())
    .sort();
}

describe('rules: one rule, three languages', () => {
  for (const rule of ruleDirs()) {
    it(rule, async () => {
      const files = fs.readdirSync(path.join(RULES, rule)).filter((f) => /\.(py|cu|wgsl)$/.test(f));
      assert.ok(files.length >= 2, `${rule}: a rule needs twins in at least two languages (got ${files.join(', ')})`);
      const byName = new Map<string, { file: string; k: KernelReport }[]>();
      for (const f of files) {
        const r = await check(path.join(RULES, rule, f));
        for (const k of r.kernels) byName.set(k.name, [...(byName.get(k.name) ?? []), { file: f, k }]);
      }
      const shared = [...byName].filter(([, ks]) => ks.length === files.length);
      assert.ok(shared.length > 0, `${rule}: no kernel name is defined in every language`);
      for (const [name, ks] of shared) {
        const [first, ...rest] = ks;
        for (const o of rest) {
          const close = (a: number | null | undefined, b: number | null | undefined) => a != null && b != null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
          for (const key of ['flops', 'loadBytes', 'storeBytes'] as const) {
            const a = first.k.perUnit[key];
            const b = o.k.perUnit[key];
            if (a === null && b === null) continue; // sizes unbound in every language: the intensities below must agree
            assert.ok(close(a, b), `${rule}/${name}: ${key} ${first.file} ${a} ≠ ${o.file} ${b}`);
          }
          if (first.k.perUnit.flops === null || first.k.perUnit.loadBytes === null || first.k.perUnit.storeBytes === null) {
            const s1 = first.k.arithmeticIntensitySteady;
            const s2 = o.k.arithmeticIntensitySteady;
            assert.ok(s1 && s2, `${rule}/${name}: counts unbound, and no size-free intensity in ${first.file} or ${o.file}`);
            assert.ok(close(s1.value, s2.value) && s1.scope === s2.scope && s1.bound === s2.bound, `${rule}/${name}: intensity ${first.file} ${s1.value} (${s1.scope}) ≠ ${o.file} ${s2.value} (${s2.scope})`);
            if (s1.range || s2.range) assert.ok(close(s1.range?.[0], s2.range?.[0]) && close(s1.range?.[1], s2.range?.[1]), `${rule}/${name}: range ${s1.range} ≠ ${s2.range}`);
          }
          assert.equal(o.k.complete, first.k.complete, `${rule}/${name}: complete differs between ${first.file} and ${o.file}`);
          assert.deepEqual(o.k.incompleteReasons ?? [], first.k.incompleteReasons ?? [], `${rule}/${name}: reasons differ`);
        }
      }
    });
  }
});

function fakeContext(): FrontendContext {
  return { source: '', parsers: undefined as never, user: { set: {}, dtypes: {} }, pragmas: [], budget: new Budget() };
}

function ir(name: string, line: number): KernelIR {
  return {
    name,
    line,
    language: 'cuda',
    unit: 'block',
    body: { kind: 'kernel', line, trips: ONE, label: name, events: [], children: [] },
    units: null,
    bindings: {},
    footprints: [],
    assumptions: [],
    diagnostics: [],
    needed: [],
  };
}

describe('driver: one set of rules for every frontend', () => {
  it('an unknown loop bound is said once, at the loop, and not at all once its symbol is bound', async () => {
    const parsers = await loadParsers();
    // A while loop whose bound is a run-time value, in each language (64 lanes, one add per trip).
    const twins: Record<string, string[]> = {
      'loop.py': ['import triton', 'import triton.language as tl', '@triton.jit', 'def k(x_ptr, n, BLOCK: tl.constexpr = 64):', '    offs = tl.arange(0, BLOCK)', '    acc = tl.zeros((BLOCK,), tl.float32)', '    i = 0', '    while i < n:', '        acc += tl.load(x_ptr + i + offs)', '        i += BLOCK', '    tl.store(x_ptr + offs, acc)'],
      'loop.cu': ['__global__ void k(float* x, int n) {', '  float acc = 0.0f;', '  int i = 0;', '  while (i < n) {', '    acc += x[i + threadIdx.x];', '    i += 64;', '  }', '  x[threadIdx.x] = acc;', '}'],
      'loop.wgsl': ['@group(0) @binding(0) var<storage, read_write> x: array<f32>;', '@compute @workgroup_size(64)', 'fn k(@builtin(local_invocation_id) lid: vec3u) {', '  var acc = 0.0;', '  var i = 0u;', '  while (i < u32(x[0])) {', '    acc += x[i + lid.x];', '    i += 64u;', '  }', '  x[lid.x] = acc;', '}'],
    };
    for (const [file, lines] of Object.entries(twins)) {
      const loopLine = lines.findIndex((l) => l.trimStart().startsWith('while')) + 1;
      const diags = (set: Record<string, number>) => {
        clearCaches();
        return analyzeSource(lines.join('\n') + '\n', parsers, { gpu: H100, path: `once/${file}`, set: { 'blockDim.x': 64, ...set } }).diagnostics.filter((d) => d.code === 'unboundLoop');
      };
      const free = diags({});
      assert.equal(free.length, 1, `${file}: ${JSON.stringify(free)}`);
      assert.equal(free[0].line, loopLine, `${file}: said at the loop`);
      const name = /loop bound `([^`]+)`/.exec(free[0].message)?.[1];
      assert.ok(name, `${file}: ${free[0].message}`);
      assert.deepEqual(diags({ [name]: 256 }), [], `${file}: bound with --set ${name}`);
    }
  });

  it('an exception in one kernel becomes an internal error on that kernel; the others are kept', () => {
    const r = runKernels(fakeContext(), new KernelCache(), 'cuda', 'block', [
      { key: 'a', name: 'a', line: 1, run: () => ir('a', 1) },
      {
        key: 'b',
        name: 'b',
        line: 5,
        run: () => {
          throw new Error('boom');
        },
      },
      { key: 'c', name: 'c', line: 9, run: () => ir('c', 9) },
    ]);
    assert.deepEqual(
      r.kernels.map((k) => k.name),
      ['a', 'b', 'c'],
    );
    const b = r.kernels[1];
    assert.equal(b.failed, true);
    assert.equal(b.diagnostics[0].code, 'internal');
    assert.match(b.diagnostics[0].message, /boom/);
  });

  /**
   * Two jobs of one file with the same key (a kernel defined again with the
   * same text) are two kernels, each at its own line: the second was taken
   * from the cache as the first (same object, the first one's line). In
   * the languages: CUDA and WGSL report each definition; Python replaces a
   * function defined again, so Triton reports the last.
   */
  it('a kernel defined twice with the same text is reported at each definition, not as the first one twice', async () => {
    const r = runKernels(fakeContext(), new KernelCache(), 'cuda', 'block', [
      { key: 'same', name: 'k', line: 1, run: () => ir('k', 1) },
      { key: 'same', name: 'k', line: 9, run: () => ir('k', 9) },
    ]);
    assert.deepEqual(
      r.kernels.map((k) => k.line),
      [1, 9],
    );
    const parsers = await loadParsers();
    const cu = ['__global__ void twice(float* y, const float* x, int n) {', '  int i = blockIdx.x * blockDim.x + threadIdx.x;', '  if (i < n) y[i] = 2.0f * x[i];', '}', ''].join('\n');
    const py = ['@triton.jit', 'def twice(x_ptr, y_ptr, n, BLOCK: tl.constexpr):', '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)', '    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)', '', ''].join('\n');
    const wg = ['@compute @workgroup_size(64)', 'fn twice(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = 2.0 * y[g.x]; }', ''].join('\n');
    const files: [string, string, number[]][] = [
      ['twice.cu', `${cu}\n${cu}`, [1, 6]],
      ['twice.py', `import triton\nimport triton.language as tl\n\n\n${py}${py}`, [11]],
      ['twice.wgsl', `@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n${wg}${wg}`, [3, 5]],
    ];
    for (const [file, src, lines] of files) {
      clearCaches();
      const report = analyzeSource(src, parsers, { gpu: H100, path: file });
      assert.deepEqual(
        report.kernels.map((k) => k.line),
        lines,
        file,
      );
      assert.equal(new Set(report.kernels).size, report.kernels.length, `${file}: each kernel its own report`);
    }
  });

  it('the kernel cache keeps the last 8 versions of a kernel of a document, not every version typed', () => {
    const cache = new KernelCache();
    let analysed = 0;
    const version = (v: number) => ({ key: `kernel text, version ${v}`, name: 'k', line: 1, run: () => (analysed++, ir('k', 1)) });
    const other = { key: 'another kernel', name: 'other', line: 9, run: () => (analysed++, ir('other', 9)) };
    const ctx = { ...fakeContext(), path: 'typed.cu' };
    for (let v = 1; v <= 30; v++) runKernels(ctx, cache, 'cuda', 'block', [version(v), other]);
    assert.equal(analysed, 31, 'each version analysed once, the other kernel once');
    assert.equal(cache.size, 8 + 1, 'the last 8 versions of k, and the other kernel');
    // An undo to a version among the last 8 is kept; one older is analysed again.
    runKernels(ctx, cache, 'cuda', 'block', [version(24), other]);
    assert.equal(analysed, 31);
    runKernels(ctx, cache, 'cuda', 'block', [version(20), other]);
    assert.equal(analysed, 32);
    // The same kernel in another document is a family of its own.
    runKernels({ ...ctx, path: 'other.cu' }, cache, 'cuda', 'block', [version(31)]);
    assert.equal(cache.size, 8 + 1 + 1);
  });

  /**
   * An expression nested past MAX_EXPRESSION_DEPTH is not followed, in each
   * language: said (`depthLimit`, the kernel incomplete), its value unknown.
   * Triton and WGSL recursed without a limit: in the extension's worker
   * (a ~1 MB stack) a few hundred levels became an internal error (found by
   * the fuzzer).
   */
  it('an expression nested too deeply is said and not followed, in the three languages alike', async () => {
    const parsers = await loadParsers();
    const deep = (x: string, n: number) => '('.repeat(n) + x + ')'.repeat(n);
    const files = (n: number): [string, string][] => [
      ['deep.py', ['import triton', 'import triton.language as tl', '', '', '@triton.jit', 'def deep(x_ptr, y_ptr, BLOCK: tl.constexpr):', '    offs = tl.arange(0, BLOCK)', `    v = tl.load(x_ptr + ${deep('offs', n)})`, '    tl.store(y_ptr + offs, v)', ''].join('\n')],
      ['deep.cu', ['__global__ void deep(const float* x, float* y) {', '  int i = threadIdx.x;', `  y[i] = x[${deep('i', n)}];`, '}', ''].join('\n')],
      ['deep.wgsl', ['@group(0) @binding(0) var<storage, read_write> y: array<f32>;', '@compute @workgroup_size(64)', `fn deep(@builtin(global_invocation_id) g: vec3<u32>) { y[g.x] = y[${deep('g.x', n)}]; }`, ''].join('\n')],
    ];
    for (const [n, said] of [
      [MAX_EXPRESSION_DEPTH - 50, false],
      [MAX_EXPRESSION_DEPTH + 50, true],
    ] as const) {
      for (const [file, src] of files(n)) {
        clearCaches();
        const r = analyzeSource(src, parsers, { gpu: H100, path: file });
        assert.equal(r.kernels.length, 1, file);
        assert.ok(!r.diagnostics.some((d) => d.code === 'internal'), `${file}: no internal error`);
        assert.equal(r.diagnostics.some((d) => d.code === 'depthLimit'), said, `${file}, ${n} levels: said`);
        if (said) assert.deepEqual([r.kernels[0].complete, r.kernels[0].incompleteReasons?.includes('depthLimit')], [false, true], `${file}: incomplete, and why`);
      }
    }
  });

  it('a kernel that runs out of steps is truncated: no numbers, never smaller ones', async () => {
    const parsers = await loadParsers();
    const src = [
      '__global__ void busy(float* y) {',
      '  float v = y[threadIdx.x];',
      ...Array.from({ length: 200 }, (_, i) => `  v = v * ${i + 1}.0f + 1.0f;`),
      '  y[threadIdx.x] = v;',
      '}',
    ].join('\n');
    clearCaches();
    const r = analyzeSource(src, parsers, { gpu: H100, path: 'busy.cu', set: { 'blockDim.x': 32 }, kernelSteps: 50 });
    const k = r.kernels[0];
    assert.equal(k.status, 'partial');
    assert.equal(k.perUnit.flops, null);
    assert.equal(k.complete, false);
    assert.ok(r.diagnostics.some((d) => d.code === 'kernelTruncated'));
    // The same file with the default budget has its numbers (deterministically).
    clearCaches();
    const full = analyzeSource(src, parsers, { gpu: H100, path: 'busy.cu', set: { 'blockDim.x': 32 } });
    assert.equal(full.kernels[0].perUnit.flops, 32 * 400);
  });

  const many: Record<Language, { ext: string; src: (n: number) => string }> = {
    triton: {
      ext: 'py',
      src: (n) =>
        ['import triton', 'import triton.language as tl', ...Array.from({ length: n }, (_, i) => `@triton.jit\ndef k${i}(x_ptr, BLOCK: tl.constexpr = 128):\n    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) * ${i + 1}.0)\n`)].join('\n'),
    },
    cuda: {
      ext: 'cu',
      src: (n) => Array.from({ length: n }, (_, i) => `__global__ void k${i}(float* x) { x[threadIdx.x] = x[threadIdx.x] * ${i + 1}.0f; }`).join('\n'),
    },
    wgsl: {
      ext: 'wgsl',
      src: (n) =>
        [
          '@group(0) @binding(0) var<storage, read_write> x: array<f32>;',
          ...Array.from({ length: n }, (_, i) => `@compute @workgroup_size(64)\nfn k${i}(@builtin(global_invocation_id) g: vec3<u32>) { x[g.x] = x[g.x] * ${i + 1}.0; }`),
        ].join('\n'),
    },
  };

  for (const [lang, m] of Object.entries(many) as [Language, (typeof many)[Language]][]) {
    it(`${lang}: time slices — every call progresses and the last equals an unsliced analysis`, async () => {
      const parsers = await loadParsers();
      const src = m.src(12);
      clearCaches();
      const whole = analyzeSource(src, parsers, { gpu: H100, path: `whole.${m.ext}`, set: { 'blockDim.x': 64 } });
      assert.equal(whole.kernels.length, 12);
      clearCaches();
      let calls = 0;
      let last = -1;
      for (;;) {
        const r = analyzeSource(src, parsers, { gpu: H100, path: `sliced.${m.ext}`, set: { 'blockDim.x': 64 }, sliceMs: 0 });
        calls++;
        // Progress: a large file's scan, statement by statement, then kernels, then the launch pipelines.
        const now = r.partial ? progressOf(r.partial) : Infinity;
        assert.ok(now > last, `call ${calls} made no progress`);
        last = now;
        if (!r.partial) {
          assert.deepEqual(
            r.kernels.map((k) => [k.name, k.perUnit.flops, k.perUnit.loadBytes]),
            whole.kernels.map((k) => [k.name, k.perUnit.flops, k.perUnit.loadBytes]),
          );
          break;
        }
        assert.ok(r.diagnostics.some((d) => ['partial', 'scanPending', 'pipelinesPending'].includes(d.code)));
        assert.ok(calls < 500, 'slices never finish');
      }
      assert.ok(calls > 1, 'a zero-length slice analyses one new kernel per call');
    });
  }
});

describe('active threads: conditions nested in conditions', () => {
  const space = (size: number): ThreadSpace => ({
    axes: [{ sym: 't', size: num(size) }],
    env: new Map(),
    dependsOnThread: () => true,
    eliminate: (e) => e,
  });
  const counted = (test: (t: number) => boolean) => {
    const calls = { n: 0 };
    const pred: ThreadPred = { test: (env) => (calls.n++, test(env.get('t')!)), cond: undefined };
    return { pred, calls };
  };

  it('count the threads every condition holds for, enumerating the unit once for all of them', () => {
    // 64 threads; `t < 48`, then `t % 2 == 0`, then `t >= 8`: the even threads 8..46 = 20.
    const ps = [counted((t) => t < 48), counted((t) => t % 2 === 0), counted((t) => t >= 8)];
    const r = countNested(space(64), ps.map((p) => p.pred), num(64));
    assert.deepEqual(r, { ok: true, count: num(20) });
    // Each thread's tests stop at its first false one: 64 + 48 + 24 tests, not once more per prefix.
    assert.equal(ps.reduce((n, p) => n + p.calls.n, 0), 64 + 48 + 24);
  });

  it('40 nested conditions that hold: 40 tests a thread, not 40·41/2 (the prefixes counted one by one)', () => {
    const ps = Array.from({ length: 40 }, () => counted(() => true));
    const r = countNested(space(256), ps.map((p) => p.pred), num(256));
    assert.deepEqual(r, { ok: true, count: num(256) });
    assert.equal(ps.reduce((n, p) => n + p.calls.n, 0), 256 * 40);
  });
});

describe('a unit size given with --set', () => {
  it('is taken when it is a whole number of at least 1, said and not taken otherwise (CUDA and WGSL alike)', async () => {
    const parsers = await loadParsers();
    for (const [file, name] of [
      ['scale.cu', 'blockDim.x'],
      ['scale.wgsl', 'workgroup_size.x'],
    ] as const) {
      const source = fs.readFileSync(path.join(RULES, 'unit-size-invalid', file), 'utf8');
      const run = (v: number) => {
        clearCaches();
        return analyzeSource(source, parsers, { gpu: H100, path: file, set: { [name]: v } });
      };
      const good = run(64);
      assert.equal(good.kernels[0].perUnit.flops, 64 * 2, `${file}: 64 threads of 2 FLOPs`);
      for (const v of [0, 0.5, -4]) {
        const r = run(v);
        assert.ok(r.diagnostics.some((d) => d.code === 'setSizeInvalid' && d.message.startsWith(`--set ${name}=${v}:`)), `${file} ${v}: ${JSON.stringify(r.diagnostics)}`);
        assert.equal(r.kernels[0].perUnit.flops, null, `${file} ${v}: counts unknown, not ${r.kernels[0].perUnit.flops}`);
      }
    }
  });
});
