/**
 * The editor layer's pure parts (src/extension/{present,settings,owner}.ts):
 * lens titles, hover Markdown, diagnostics wording, pragma edits, settings
 * coercion, disposal order, and the manifest's agreement with the code.
 * Reports come from the real core on test/e2e/workspace/ fixtures where the
 * numbers matter, from small literals where a branch of the wording does.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { analyzeSource } from '../src/core/analyze';
import { DEFAULT_GPU_ID, findGpu, GPU_CATALOG } from '../src/core/gpus/catalog';
import type { GpuSpec } from '../src/core/gpus/types';
import { initParsers, type Parsers, type WasmName } from '../src/core/parsers';
import type { KernelReport } from '../src/core/report/types';
import { Owner } from '../src/extension/owner';
import {
  analysisLanguage,
  blockingSymbols,
  headerTop,
  hotLoops,
  kernelHover,
  kernelLenses,
  lineHover,
  loopLenses,
  mayHaveKernels,
  mdCode,
  mdProse,
  mdText,
  mentions,
  notEstimatedReason,
  pragmaEdit,
  SERVED_LANGUAGES,
  verdictChange,
} from '../src/extension/present';
import { ANALYSIS_SETTINGS, readSettings, resolveGpu, type RawSettings } from '../src/extension/settings';

const ROOT = path.join(__dirname, '..');
const WORKSPACE = path.join(ROOT, 'test', 'e2e', 'workspace');
const H100 = findGpu('h100-sxm')!;
const LINKS = { bind: (s: string) => `command:bind?${s}`, panel: () => 'command:panel' };

const WASM: Record<WasmName, string> = {
  'web-tree-sitter.wasm': 'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-python.wasm': 'tree-sitter-python/tree-sitter-python.wasm',
  'tree-sitter-cuda.wasm': 'tree-sitter-cuda/tree-sitter-cuda.wasm',
};

let parsers: Parsers;

before(async () => {
  parsers = await initParsers(async (name) => fs.readFileSync(path.join(ROOT, 'node_modules', WASM[name])));
});

function analyse(file: string, set: Record<string, number> = {}, gpu: GpuSpec = H100): KernelReport {
  const source = fs.readFileSync(path.join(WORKSPACE, file), 'utf8');
  const report = analyzeSource(source, parsers, { gpu, path: file, set });
  assert.equal(report.kernels.length, 1, `${file}: one kernel (diagnostics: ${JSON.stringify(report.diagnostics)})`);
  return report.kernels[0];
}

/** Markdown with its escapes removed, as a reader sees the text. */
function plain(md: string): string {
  return md.replace(/\\(.)/g, '$1');
}

/** A small literal report: a memory-bound kernel with one loop, overridable field by field. */
function kernel(over: Partial<KernelReport> = {}): KernelReport {
  return {
    name: 'k',
    line: 3,
    unit: 'program',
    bindings: {},
    bindingSources: {},
    unbound: [],
    perUnit: { flops: 1000, loadBytes: 800, storeBytes: 200 },
    units: 10,
    computeDtype: 'fp32',
    arithmeticIntensity: 1,
    compulsoryIntensity: null,
    compulsory: null,
    peak: { kind: 'vector', dtype: 'fp32', flops: 66.9e12 },
    ridgePoint: 66.9e12 / 3.35e12,
    l2RidgePoint: 66.9e12 / 9.7e12,
    bound: 'memory',
    boundLevel: 'dram',
    attainableFlops: 3.35e12,
    time: { perUnit: { math: null, memory: null, lower: null, upper: null }, launch: null },
    formulas: { flops: '1000', loadBytes: '800', storeBytes: '200' },
    regions: [],
    breakdown: { flops: [], bytes: [] },
    assumptions: [],
    assumptionIds: [],
    complete: true,
    status: 'ok',
    ...over,
  };
}

const RAW: RawSettings = { gpu: undefined, customGpus: undefined, bindings: undefined, dtypes: undefined, kernelLenses: undefined, loopLenses: undefined, diagnostics: undefined };

describe('extension: CodeLens titles', () => {
  it('Triton softmax (BLOCK_SIZE 1024, fp32): AI 0.5, memory-bound at DRAM, work per program', () => {
    // 4095 FLOPs (1024 sub + 1024 exp + 1023 sum + 1024 div) over 8192 B: 0.49988 FLOP/B.
    const k = analyse('softmax.py');
    assert.deepEqual(kernelLenses(k, H100.name), [
      { line: 8, title: 'AI 0.5 FLOP/B · memory-bound (DRAM) · H100 SXM · 4.09 kFLOP / 8.19 kB per program', action: { kind: 'panel' } },
    ]);
  });

  it('names the GPU the report was computed for', () => {
    const a100 = findGpu('a100-sxm-80gb')!;
    const [lens] = kernelLenses(analyse('softmax.py', {}, a100), a100.name);
    assert.equal(lens.title, 'AI 0.5 FLOP/B · memory-bound (DRAM) · A100 SXM 80GB · 4.09 kFLOP / 8.19 kB per program');
  });

  it('an unknown K shows the K-loop steady state with a "bind K" lens; units-only symbols are not asked for', () => {
    const k = analyse('matmul.py');
    assert.deepEqual(k.unbound, ['K', 'M', 'N']);
    assert.deepEqual(blockingSymbols(k), ['K']);
    assert.deepEqual(kernelLenses(k, H100.name, 8), [
      { line: 8, title: 'AI ≈ 32 FLOP/B · K-loop steady state (K unbound) · memory-bound (DRAM) · H100 SXM', action: { kind: 'panel' } },
      { line: 8, title: 'bind K', action: { kind: 'bind', symbol: 'K' } },
    ]);
  });

  it('an incomplete kernel shows its numbers as bounds and says what was not counted', () => {
    const k = kernel({
      complete: false,
      incompleteReasons: ['unknownCall', 'unattributedStore'],
      incompleteCounts: { unknownCall: 2, unattributedStore: 1 },
      bounds: { flops: 'lower', bytes: 'lower', arithmeticIntensity: 'unknown' },
      status: 'incomplete',
    });
    assert.equal(kernelLenses(k, 'GPU')[0].title, 'AI 1 FLOP/B · memory-bound (DRAM) · GPU · ≥ 1 kFLOP / ≥ 1 kB per program · incomplete: 2 unknown calls, 1 store not counted');
    const lower = kernel({ complete: false, incompleteReasons: ['unknownCall'], incompleteCounts: { unknownCall: 1 }, bounds: { flops: 'lower', bytes: 'exact', arithmeticIntensity: 'lower' }, status: 'incomplete' });
    assert.equal(kernelLenses(lower, 'GPU')[0].title, 'AI ≥ 1 FLOP/B · memory-bound (DRAM)? · GPU · ≥ 1 kFLOP / 1 kB per program · incomplete: 1 unknown call');
  });

  it('several blocking symbols give one "bind" lens each', () => {
    const k = kernel({ arithmeticIntensity: null, bound: 'unknown', unbound: ['K', 'N'], formulas: { flops: '2·K·N', loadBytes: 'K', storeBytes: 'N' } });
    assert.deepEqual(
      kernelLenses(k, 'GPU').map((l) => l.title),
      ['AI ? · bind K', 'bind N'],
    );
  });

  it('no bytes but FLOPs is compute-bound at any intensity; nothing counted says so', () => {
    const compute = kernel({ arithmeticIntensity: null, bound: 'compute', boundLevel: null, perUnit: { flops: 64, loadBytes: 0, storeBytes: 0 } });
    assert.equal(kernelLenses(compute, 'GPU')[0].title, 'AI ∞ (no global-memory bytes) · compute-bound · GPU · 64 FLOP per program');
    const empty = kernel({ arithmeticIntensity: null, bound: 'unknown', perUnit: { flops: 0, loadBytes: 0, storeBytes: 0 } });
    assert.equal(kernelLenses(empty, 'GPU')[0].title, 'no global work · 0 FLOP, 0 B per program (nothing to place on the roofline)');
    const lost = kernel({ arithmeticIntensity: null, bound: 'unknown', complete: false, incompleteReasons: ['unknownCall'], perUnit: { flops: 0, loadBytes: 0, storeBytes: 0 } });
    assert.equal(kernelLenses(lost, 'GPU')[0].title, 'AI ? · no FLOPs or global-memory bytes counted');
  });

  it('compute-bound and L2-bound verdicts', () => {
    assert.equal(kernelLenses(kernel({ arithmeticIntensity: 83.6, bound: 'compute', boundLevel: null }), 'GPU')[0].title, 'AI 83.6 FLOP/B · compute-bound · GPU · 1 kFLOP / 1 kB per program');
    assert.match(kernelLenses(kernel({ boundLevel: 'l2' }), 'GPU')[0].title, /· memory-bound \(L2\) ·/);
  });

  it('loop lenses: trips and shares once K is bound (cdiv(4096, 64) = 64 trips, all FLOPs)', () => {
    const k = analyse('matmul.py', { K: 4096 });
    // Loads 2·(128·64·4 B)·64 = 4 194 304 B of 4 227 072 B (the fp16 C store is outside the loop) = 99.2 %.
    assert.deepEqual(loopLenses(k), [{ line: 19, title: 'loop: 64 trips · 100 % of FLOPs · 99.2 % of bytes', action: { kind: 'none' } }]);
  });

  it('loop lenses: an unknown trip count asks for its symbol', () => {
    assert.deepEqual(loopLenses(analyse('matmul.py')), [
      { line: 19, title: 'loop: ? trips (cdiv(K, BLOCK_K)) · bind K', action: { kind: 'bind', symbol: 'K' } },
    ]);
  });

  it('a loop is hot from a 20 % share of FLOPs or bytes', () => {
    const loop = (line: number, flops: number, bytes: number) => ({ line, kind: 'loop' as const, label: 'for', trips: 4, tripsFormula: '4', flops, loadBytes: bytes, storeBytes: 0 });
    const k = kernel({ regions: [loop(4, 190, 190), loop(5, 200, 0), loop(6, 0, 200), { ...loop(7, 900, 900), kind: 'branch' }] });
    assert.deepEqual(hotLoops(k).map((r) => r.line), [5, 6]);
  });
});

describe('extension: hovers', () => {
  it('the kernel hover gives verdict, attainable terms, formulas, breakdowns, bindings with sources and assumptions', () => {
    const text = plain(kernelHover(analyse('softmax.py'), H100, LINKS));
    for (const part of [
      '**softmax_kernel** · **memory-bound (DRAM)** on H100 SXM · [show roofline](command:panel)',
      'AI **0.5 FLOP/B** per program (tile) · compulsory 0.5 FLOP/B · ridge point 20 FLOP/B (DRAM), 6.9 FLOP/B (L2)',
      // 3.35 TB/s × 0.49988 = 1.67 TFLOP/s; 9.7 TB/s × 0.49988 = 4.85 TFLOP/s; 1.67 / 66.9 = 2.5 %.
      'Attainable **1.67 TFLOP/s** (2.5 % of peak) = min(peak 66.9 TFLOP/s (vector fp32), DRAM 3.35 TB/s × 0.5 FLOP/B = 1.67 TFLOP/s, L2 9.7 TB/s × 0.5 FLOP/B = 4.85 TFLOP/s): DRAM limits.',
      '**Compute-bound needs ≥ 20 FLOP/B** against DRAM: the compulsory intensity is 0.5 FLOP/B (40× short).',
      '**Per program**: 4.09 kFLOP · loads 4.1 kB · stores 4.1 kB · 4096 programs',
      '- FLOPs = `4·BLOCK_SIZE − 1`',
      '| tl.exp | 14 | 1.02 kFLOP | 25 % | `BLOCK_SIZE` |',
      '| load in_ptr (fp32) | 12 | 4.1 kB | 50 % | `4·BLOCK_SIZE` |',
      '- `BLOCK_SIZE` = `1024` · launch at line 22',
      '**Assumptions**',
    ]) {
      assert.ok(text.includes(part), `missing ${part}\nin:\n${text}`);
    }
  });

  it('unbound symbols get bind links', () => {
    const text = kernelHover(analyse('matmul.py'), H100, LINKS);
    assert.ok(text.includes('**Unbound**: `K` ([bind](command:bind?K)), `M` ([bind](command:bind?M)), `N` ([bind](command:bind?N))'), text);
    assert.ok(text.includes('Bind `K` to place this kernel on the roofline.'), text);
  });

  it('line hovers: a loop header, a load and a tl.dot', () => {
    const k = analyse('matmul.py', { K: 4096 });
    const loop = plain(lineHover(k, 19, H100.name)!);
    assert.ok(loop.startsWith('**Loop** `for k in range(0, tl.cdiv(K, BLOCK_K))`: 64 trips per entry = `cdiv(K, BLOCK_K)`; per program it contributes 134 MFLOP (100 % of FLOPs) and 4.19 MB (99.2 % of bytes).'), loop);
    const load = plain(lineHover(k, 20, H100.name)!);
    assert.ok(load.startsWith('load a_ptr (fp32): 2.1 MB per program (49.6 % of bytes) = `4·cdiv(K, BLOCK_K)·BLOCK_K·BLOCK_M`'), load);
    const dot = plain(lineHover(k, 22, H100.name)!);
    assert.ok(dot.startsWith('`tl.dot`: 134 MFLOP per program (100 % of FLOPs)'), dot);
    assert.ok(dot.endsWith('(hover the kernel name for the whole analysis)'), dot);
    assert.equal(lineHover(k, 10, H100.name), undefined);
  });

  it('what would change the verdict: DRAM, L2, compute', () => {
    assert.equal(
      verdictChange(kernel({ arithmeticIntensity: 31.8, boundLevel: 'l2', ridgePoint: 148, l2RidgePoint: 51 })),
      '**Compute-bound needs ≥ 51 FLOP/B per tile** against L2: the tile intensity is 31.8 FLOP/B (1.6× short); larger tiles reuse each loaded byte more. DRAM also needs ≥ 148 FLOP/B (tile intensity now 31.8).',
    );
    assert.equal(
      verdictChange(kernel({ arithmeticIntensity: 83.6, compulsoryIntensity: 1365, bound: 'compute', boundLevel: null, ridgePoint: 295, l2RidgePoint: 102 })),
      '**Memory-bound if** its compulsory intensity (now 1365) falls below 295 FLOP/B against DRAM or its tile intensity (now 83.6) below 102 FLOP/B against L2.',
    );
  });

  it('Markdown escaping keeps code spans and pipes safe', () => {
    assert.equal(mdText('a*b_[c]|d'), 'a\\*b\\_\\[c\\]\\|d');
    assert.equal(mdCode('x`y|z'), '``x`y\\|z``');
    assert.equal(mdProse('type of `a_ptr` assumed *fp32*'), 'type of `a_ptr` assumed \\*fp32\\*');
    assert.equal(mdProse('odd ` tick'), 'odd \\` tick');
  });
});

describe('extension: diagnostics', () => {
  it('says why a kernel was not estimated and how to bind what it needs', () => {
    assert.equal(
      notEstimatedReason(analyse('matmul.py'), 'triton'),
      'matmul_kernel: arithmetic intensity not estimated: `K` unknown. Bind it with "Roofline: Bind Symbol…", the rooflineLens.bindings setting or a `# roofline: K=…` comment.',
    );
    assert.equal(notEstimatedReason(analyse('matmul.py', { K: 4096 }), 'triton'), undefined);
    const empty = kernel({ arithmeticIntensity: null, bound: 'unknown', perUnit: { flops: 0, loadBytes: 0, storeBytes: 0 } });
    assert.equal(notEstimatedReason(empty, 'cuda'), 'k: arithmetic intensity not estimated: no FLOPs and no global-memory bytes were counted.');
  });
});

describe('extension: pragma comments', () => {
  it('inserts above one-line decorators, with the definition line’s indentation', () => {
    const lines = ['import triton', '', '@triton.jit', 'def k(x, K):', '    pass'];
    assert.deepEqual(pragmaEdit(lines, 4, 'triton', 'K', 4096), { line: 2, text: '# roofline: K=4096', replace: false });
    assert.deepEqual(pragmaEdit(['class A:', '    @triton.jit', '    def k(): pass'], 3, 'triton', 'K', 8), { line: 1, text: '    # roofline: K=8', replace: false });
  });

  it('stops at a multi-line decorator and uses // outside Python', () => {
    const lines = ['@triton.autotune(', '    configs=[],', ')', '@triton.jit', 'def k():'];
    assert.equal(pragmaEdit(lines, 5, 'triton', 'K', 1).line, 3);
    const cuda = ['template <int BS>', '__global__ void k(float *x) {', '}'];
    assert.deepEqual(pragmaEdit(cuda, 2, 'cuda', 'n', 1024), { line: 0, text: '// roofline: n=1024', replace: false });
  });

  it('appends to a pragma right above, and replaces a value bound anywhere in the file', () => {
    const lines = ['# roofline: M=4096', '@triton.jit', 'def k():'];
    assert.deepEqual(pragmaEdit(lines, 3, 'triton', 'N', 512), { line: 0, text: '# roofline: M=4096 N=512', replace: true });
    assert.deepEqual(pragmaEdit(lines, 3, 'triton', 'M', 8192), { line: 0, text: '# roofline: M=8192', replace: true });
    assert.deepEqual(pragmaEdit(['// roofline: BM=64, BN=128', 'x'], 2, 'wgsl', 'BM', true), { line: 0, text: '// roofline: BM=true, BN=128', replace: true });
  });

  it('headerTop walks over attributes and template headers only', () => {
    const lines = ['x = 1', '@compute @workgroup_size(64)', 'fn main() {}'];
    assert.equal(headerTop((i) => lines[i], 2), 1);
    assert.equal(headerTop((i) => lines[i], 0), 0);
  });
});

describe('extension: languages and the cheap kernel check', () => {
  it('serves Triton in Python, CUDA in cuda-cpp, WGSL in .wgsl and in JS/TS', () => {
    assert.deepEqual(SERVED_LANGUAGES, { python: 'triton', 'cuda-cpp': 'cuda', wgsl: 'wgsl', javascript: 'wgsl', typescript: 'wgsl' });
    assert.equal(analysisLanguage('cpp'), undefined);
    assert.equal(analysisLanguage('toString'), undefined);
  });

  it('skips files that cannot hold a kernel', () => {
    assert.equal(mayHaveKernels('python', 'def f(): pass'), false);
    assert.equal(mayHaveKernels('python', 'import triton'), true);
    assert.equal(mayHaveKernels('cuda-cpp', 'int main() {}'), false);
    assert.equal(mayHaveKernels('cuda-cpp', '__global__ void k() {}'), true);
    assert.equal(mayHaveKernels('typescript', 'const s = `@vertex fn v() {}`'), false);
    assert.equal(mayHaveKernels('typescript', 'const s = `@compute @workgroup_size(64) fn c() {}`'), true);
  });

  it('matches symbols as whole tokens', () => {
    assert.equal(mentions('cdiv(K, BLOCK_K)', 'K'), true);
    assert.equal(mentions('BLOCK_K·2', 'K'), false);
    assert.equal(mentions('2·tl.num_programs(0)', 'tl.num_programs(0)'), true);
    assert.equal(mentions('blockDim.xy', 'blockDim.x'), false);
  });
});

describe('extension: settings', () => {
  it('defaults: the default GPU, no bindings, every lens and diagnostic on', () => {
    const s = readSettings(RAW);
    assert.equal(s.gpu.id, DEFAULT_GPU_ID);
    assert.deepEqual([s.bindings, s.dtypes, s.customGpus, s.codeLens, s.diagnostics, s.errors], [{}, {}, [], { kernels: true, loops: true }, true, []]);
  });

  it('bindings: numbers, "2**12"-style strings and booleans; bad names and values are reported', () => {
    const s = readSettings({ ...RAW, bindings: { K: 4096, M: '2**12', EVEN: true, 'tl.num_programs(0)': 8, 'bad name': 1, X: [1], Y: Infinity } });
    assert.deepEqual(s.bindings, { K: 4096, M: 4096, EVEN: true, 'tl.num_programs(0)': 8 });
    assert.deepEqual(s.errors, [
      'rooflineLens.bindings["bad name"]: not a symbol name (use an identifier, a member path like blockDim.x, or a call like tl.num_programs(0))',
      'rooflineLens.bindings["X"]: expected a number, true/false or a string, got an array',
      'rooflineLens.bindings["Y"]: expected a number, true/false or a string, got Infinity',
    ]);
    assert.deepEqual(readSettings({ ...RAW, bindings: [1] }).errors, ['rooflineLens.bindings: expected an object of symbol values, e.g. { "K": 4096 }, got an array']);
  });

  it('gpu: catalogue ids and aliases; an unknown id falls back to the default with a message', () => {
    assert.equal(readSettings({ ...RAW, gpu: 'a100' }).gpu.id, 'a100-sxm-80gb');
    const s = readSettings({ ...RAW, gpu: 'h900' });
    assert.equal(s.gpu.id, DEFAULT_GPU_ID);
    assert.deepEqual(s.errors, ['rooflineLens.gpu: unknown GPU "h900" (neither in the catalogue nor in rooflineLens.customGpus); using H100 SXM']);
  });

  it('customGpus: valid ones are selectable; invalid ones name the bad field; catalogue ids and duplicates are refused', () => {
    const mine = { id: 'lab-gpu', name: 'Lab GPU', memoryBandwidth: 1e12, peaks: { vector: { fp32: 10e12 } } };
    const s = readSettings({
      ...RAW,
      gpu: 'lab-gpu',
      customGpus: [mine, { ...mine, memoryBandwidth: '1 TB/s' }, { ...mine, id: 'h100-sxm' }, mine],
    });
    assert.equal(s.gpu.name, 'Lab GPU');
    assert.deepEqual(s.customGpus.map((g) => g.id), ['lab-gpu']);
    assert.equal(resolveGpu('lab-gpu', s.customGpus)?.memoryBandwidth, 1e12);
    assert.equal(s.errors.length, 3);
    assert.ok(s.errors[0].startsWith('rooflineLens.customGpus[1].memoryBandwidth: expected bytes/s'), s.errors[0]);
    assert.equal(s.errors[1], 'rooflineLens.customGpus[2].id: "h100-sxm" is a catalogue GPU; give the custom GPU its own id');
    assert.equal(s.errors[2], 'rooflineLens.customGpus[3].id: "lab-gpu" is defined twice (first at rooflineLens.customGpus[0])');
  });

  it('dtypes and switches', () => {
    const s = readSettings({ ...RAW, dtypes: { a_ptr: 'fp16', b: 'float99' }, kernelLenses: false, loopLenses: 'no', diagnostics: false });
    assert.deepEqual(s.dtypes, { a_ptr: 'fp16' });
    assert.deepEqual(s.codeLens, { kernels: false, loops: true });
    assert.equal(s.diagnostics, false);
    assert.equal(s.errors.length, 2);
    assert.ok(s.errors[0].startsWith('rooflineLens.dtypes["b"]: unknown element type "float99"'), s.errors[0]);
    assert.equal(s.errors[1], 'rooflineLens.codeLens.loops: expected true or false, got "no"; using true');
  });
});

describe('extension: Owner', () => {
  it('disposes in reverse order, past failures, and at once when added late', () => {
    const order: string[] = [];
    const owner = new Owner();
    owner.add({ dispose: () => order.push('a') });
    owner.add({
      dispose: () => {
        throw new Error('boom');
      },
    });
    owner.add({ dispose: () => order.push('c') });
    owner.dispose();
    owner.dispose();
    assert.deepEqual(order, ['c', 'a']);
    owner.add({ dispose: () => order.push('late') });
    assert.deepEqual(order, ['c', 'a', 'late']);
  });
});

describe('extension: manifest and layering', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const props = pkg.contributes.configuration.properties as Record<string, { enum?: string[]; enumItemLabels?: string[]; enumDescriptions?: string[]; default?: unknown; scope?: string }>;

  it('rooflineLens.gpu lists exactly the catalogue, defaulting to the default GPU', () => {
    assert.deepEqual(props['rooflineLens.gpu'].enum, GPU_CATALOG.gpus.map((g) => g.id));
    assert.deepEqual(props['rooflineLens.gpu'].enumItemLabels, GPU_CATALOG.gpus.map((g) => g.name));
    assert.deepEqual(props['rooflineLens.gpu'].enumDescriptions?.map((d) => d.split(':')[0]), GPU_CATALOG.gpus.map((g) => g.name));
    assert.equal(props['rooflineLens.gpu'].default, DEFAULT_GPU_ID);
  });

  it('contributes every setting the code reads, bindings per resource', () => {
    const read = ['gpu', 'customGpus', 'bindings', 'dtypes', 'codeLens.kernels', 'codeLens.loops', 'diagnostics.enabled'].map((k) => `rooflineLens.${k}`);
    assert.deepEqual(Object.keys(props).sort(), read.sort());
    for (const k of ANALYSIS_SETTINGS) assert.ok(props[`rooflineLens.${k}`], k);
    assert.equal(props['rooflineLens.bindings'].scope, 'resource');
  });

  it('activates on the served languages only, never on "*"', () => {
    assert.deepEqual(pkg.activationEvents, Object.keys(SERVED_LANGUAGES).map((l) => `onLanguage:${l}`));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, true);
    assert.deepEqual(
      pkg.contributes.commands.map((c: { command: string }) => c.command),
      [
        'rooflineLens.showRoofline',
        'rooflineLens.showWorkspaceRoofline',
        'rooflineLens.exportChart',
        'rooflineLens.importProfile',
        'rooflineLens.clearProfile',
        'rooflineLens.matchProfileKernel',
        'rooflineLens.selectGpu',
        'rooflineLens.bindSymbol',
        'rooflineLens.copyMarkdown',
        'rooflineLens.toggleCodeLens',
      ],
    );
  });

  it('the pure editor modules do not import vscode', () => {
    for (const name of ['present.ts', 'settings.ts', 'owner.ts', 'bindPick.ts']) {
      const text = fs.readFileSync(path.join(ROOT, 'src', 'extension', name), 'utf8');
      const imported = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
      assert.ok(!imported.includes('vscode'), `${name} imports vscode`);
    }
  });
});
