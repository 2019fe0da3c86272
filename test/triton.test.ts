import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyzeSource } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { assertSane, check, fixtures, loadParsers } from './check';
import { syntaxRoot } from '../src/core/syntax-tree';

describe('Triton fixtures', () => {
  for (const f of fixtures('triton', ['.py'])) {
    it(path.basename(f), async () => {
      assertSane(await check(f));
    });
  }
});

describe('Triton: helpers of other project modules', () => {
  const FILE = path.join(__dirname, 'fixtures', 'triton', 'import_helpers.py');
  const LIB = fs.readFileSync(path.join(__dirname, 'fixtures', 'triton', 'lib', 'activations.py'), 'utf8');
  const run = async (source: string, related?: Record<string, { path: string; text: string }>) =>
    analyzeSource(source, await loadParsers(), { gpu: findGpu('h100-sxm')!, path: 'import_helpers.py', ...(related ? { related } : {}) });
  const source = fs.readFileSync(FILE, 'utf8');

  it('without the module: an unknown call, and the kernel says it is incomplete', async () => {
    const r = await run(source);
    assert.ok(r.diagnostics.some((d) => d.code === 'unknownCall' && /gelu_tanh/.test(d.message)));
    assert.equal(r.kernels[0].complete, false);
  });

  it("this module's own definitions win over the other module's", async () => {
    const own = source.replace('@triton.jit\ndef gelu_scale_kernel', '@triton.jit\ndef gelu_tanh(x):\n    return x * 0.5\n\n\n@triton.jit\ndef gelu_scale_kernel');
    const r = await run(own, { '.lib.activations': { path: 'lib/activations.py', text: LIB } });
    assert.deepEqual(r.kernels.map((k) => k.name), ['gelu_scale_kernel']);
    assert.equal(r.kernels[0].perUnit.flops, 1024 * 2);
  });

  it("the other module's kernels are not this file's; what goes wrong in its helpers is said at the import line", async () => {
    const lib = LIB.replace('return 0.5 * x * (1.0 + fast_tanh(inner))', 'return 0.5 * x * (1.0 + mystery(inner))') + '\n\n@triton.jit\ndef other_kernel(p):\n    tl.store(p, 1.0)\n';
    const r = await run(source, { '.lib.activations': { path: 'lib/activations.py', text: lib } });
    assert.deepEqual(r.kernels.map((k) => k.name), ['gelu_scale_kernel']);
    const d = r.diagnostics.find((x) => x.code === 'unknownCall' && /mystery/.test(x.message));
    assert.equal(d?.line, 18);
  });

  it("a library function the other module picks by Triton version stays the library's (not its old-Triton fallback)", async () => {
    const lib = [
      'import triton',
      'import triton.language as tl',
      "if hasattr(triton.language, 'exp2'):",
      '    fast_exp2 = tl.exp2',
      'else:',
      '    @triton.jit',
      '    def fast_exp2(x):',
      '        return None',
    ].join('\n');
    const src = source.replace('from .lib.activations import SCALE, gelu_tanh', 'from .lib.activations import fast_exp2').replace('gelu_tanh(x) * SCALE', 'fast_exp2(x)');
    const r = await run(src, { '.lib.activations': { path: 'lib/activations.py', text: lib } });
    assert.equal(r.kernels[0].perUnit.flops, 1024);
    assert.equal(r.kernels[0].complete, true);
  });
});

describe('Triton: in time slices, the module index is built ahead', () => {
  it('one top-level statement a call in a zero-length slice, and the same index as built at once', async () => {
    const { parseCached } = await import('../src/core/parsers');
    const { indexInSlices, moduleAssigns } = await import('../src/core/frontends/triton/host');
    const { Budget } = await import('../src/core/budget');
    const p = await loadParsers();
    const src = fs.readFileSync(path.join(__dirname, 'fixtures', 'triton', 'pipeline_forward.py'), 'utf8');
    const show = (index: Map<string, { line: number; index?: number }[]>) => JSON.stringify([...index].map(([name, list]) => [name, list.map((a) => [a.line, a.index ?? null])]).sort());
    const whole = show(moduleAssigns(syntaxRoot(parseCached(p.python, 'index-whole.py', src, undefined)!, src)));
    const root = syntaxRoot(parseCached(p.python, 'index-sliced.py', src, undefined)!, src);
    const statements = root.namedChildren.length;
    assert.ok(statements > 10);
    const steps: string[] = [];
    for (let call = 0; call < 2 * statements; call++) {
      const r = indexInSlices(root, new Budget({ sliceMs: 0 }));
      steps.push(r === true ? 'done' : `${r.done}/${r.of}`);
      if (r === true) break;
    }
    assert.deepEqual(steps, [...Array.from({ length: statements - 1 }, (_, i) => `${i + 1}/${statements}`), 'done']);
    assert.equal(show(moduleAssigns(root)), whole);
    // Once the index is made, nothing is left to read ahead.
    assert.equal(indexInSlices(root, new Budget({ sliceMs: 0 })), true);
  });
});

describe('Triton: call sites by a walk and by the search', () => {
  it('agree on every fixture (launches, plain calls, combine functions, in file order)', async () => {
    const { parseCached } = await import('../src/core/parsers');
    const { callSiteFinders } = await import('../src/core/frontends/triton/module');
    const p = await loadParsers();
    const files = [...fixtures('triton', ['.py']), ...fs.readdirSync(path.join(__dirname, 'fixtures', 'rules')).flatMap((d) => fixtures(`rules/${d}`, ['.py']))];
    assert.ok(files.length > 20);
    for (const f of files) {
      const tree = parseCached(p.python, `callsites:${f}`, fs.readFileSync(f, 'utf8'), undefined)!;
      const show = (r: { launches: { startIndex: number }[]; plain: { startIndex: number }[]; combine: string[] }) => JSON.stringify([r.launches.map((n) => n.startIndex), r.plain.map((n) => n.startIndex), r.combine]);
      assert.equal(show(callSiteFinders.walk(syntaxRoot(tree))), show(callSiteFinders.search(syntaxRoot(tree))), f);
    }
  });
});

describe('Triton: host code, each assignment read once where it reads the same', () => {
  it('a chain of sizes each used twice by the next is read in steps linear in its length, not 2^length', async () => {
    const { hostStats } = await import('../src/core/frontends/triton/host');
    const { clearCaches } = await import('../src/core/analyze');
    const p = await loadParsers();
    const chain = Array.from({ length: 10 }, (_, i) => `    n${i + 1} = n${i} + n${i}`);
    const src = [
      'import torch',
      'import triton',
      'import triton.language as tl',
      '',
      '@triton.jit',
      'def twice_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):',
      '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
      '    mask = offs < n',
      '    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)',
      '',
      'def launch(x):',
      '    n0 = 1',
      ...chain,
      '    out = torch.empty_like(x)',
      '    twice_kernel[(triton.cdiv(n10, 256),)](x, out, n10, BLOCK=256)',
      '    return out',
      '',
    ].join('\n');
    clearCaches();
    hostStats.values = 0;
    const r = analyzeSource(src, p, { gpu: findGpu('h100-sxm')!, path: 'doubling.py' });
    const k = r.kernels[0];
    assert.equal(k.bindings.n, 1024);
    assert.equal(k.bindings['tl.num_programs(0)'], 4);
    // Each `nK` is read once per depth it is met at (was 2^11 - 1 = 4,095 readings: each use read the chain below again).
    assert.ok(hostStats.values <= 4 * 11, `${hostStats.values} assignments read`);
  });
});
