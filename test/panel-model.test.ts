/**
 * What the roofline panel shows, from real analyses of the e2e workspace's
 * fixtures: the what-if controls of a kernel (which bindings get a
 * power-of-two stepper, a numeric field, an element-type list), the new
 * values of its formulas after a what-if, the pragma to copy, the kernel
 * table (with and without a profile), the precision choices, and the profile
 * wording of the lenses and hovers.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gpuSummary, type AnalyzeOptions } from '../src/core/analyze';
import { findGpu } from '../src/core/gpus/catalog';
import { attachProfile } from '../src/core/profile/attach';
import { kernelId } from '../src/core/report/chart';
import type { FileReport, MeasuredSummary } from '../src/core/report/types';
import { isPowerOfTwo, isTileLike, panelTable, pragmaFor, precisionChoices, profileModel, stepPowerOfTwo, whatIfModel } from '../src/extension/panelModel';
import type { WhatIfControl, WhatIfState } from '../src/shared/panelProtocol';
import { measuredHover, measuredKey, measuredLensSuffix, measuredOfFile } from '../src/extension/profilePresent';
import { analyzeFile } from './check';

const WS = path.join(__dirname, 'e2e', 'workspace');
const H100 = findGpu('h100-sxm')!;

function analyse(name: string, extra: Partial<AnalyzeOptions> = {}): Promise<FileReport> {
  return analyzeFile(path.join(WS, name), extra);
}

function control(controls: WhatIfControl[], name: string): WhatIfControl {
  const c = controls.find((x) => x.name === name);
  assert.ok(c, `no control for ${name}: ${controls.map((x) => x.name).join(', ')}`);
  return c;
}

describe('panel what-if controls', () => {
  it('layers.py poly_kernel: a stepper for BLOCK, and an element type per pointer', async () => {
    const f = await analyse('layers.py');
    const k = f.kernels.find((x) => x.name === 'poly_kernel')!;
    const w = whatIfModel(f, k, k, undefined);
    assert.equal(w.kernelId, kernelId(f.path, k));
    const block = control(w.controls, 'BLOCK');
    assert.deepEqual([block.kind, block.value, block.baseline, block.changed], ['pow2', 1024, 1024, false]);
    assert.match(block.source, /^launch at line 42$/);
    // n = 2**20 is a power of two: a stepper too.
    assert.equal(control(w.controls, 'n').kind, 'pow2');
    const x = control(w.controls, 'x_ptr');
    assert.deepEqual([x.kind, x.value, x.source], ['dtype', 'fp32', 'assumed']);
    assert.ok(x.options!.includes('bf16') && x.options!.includes('fp8'));
    assert.equal(w.pragma, '', 'nothing changed: nothing to copy');
    assert.equal(w.changed, false);
  });

  it('a settings value the kernel does not use gets no control (K for an elementwise kernel whose BLOCK merely contains a K)', async () => {
    const f = await analyse('layers.py', { set: { K: 4096, BLOCK: 512 } });
    const k = f.kernels.find((x) => x.name === 'poly_kernel')!;
    const names = whatIfModel(f, k, k, undefined).controls.map((c) => c.name);
    assert.ok(!names.includes('K'), names.join(', '));
    assert.ok(names.includes('BLOCK'), 'a settings value the formulas use keeps its control');
  });

  it('matmul.py: unbound K, M, N get numeric fields first, the tile sizes steppers', async () => {
    const f = await analyse('matmul.py');
    const k = f.kernels[0];
    const w = whatIfModel(f, k, k, undefined);
    const names = w.controls.filter((c) => c.kind !== 'dtype').map((c) => c.name);
    assert.deepEqual(names, ['K', 'M', 'N', 'BLOCK_K', 'BLOCK_M', 'BLOCK_N']);
    const kc = control(w.controls, 'K');
    assert.deepEqual([kc.kind, kc.value, kc.source], ['number', null, 'unbound']);
    assert.equal(control(w.controls, 'BLOCK_K').kind, 'pow2');
  });

  it('vector_add.cu: typed CUDA pointers get no element-type list (the source states the type)', async () => {
    const f = await analyse('vector_add.cu');
    const k = f.kernels[0];
    const w = whatIfModel(f, k, k, undefined);
    assert.equal(w.controls.filter((c) => c.kind === 'dtype').length, 0);
    // blockDim.x = 256 (a power of two and a block size): a stepper.
    assert.equal(control(w.controls, 'blockDim.x').kind, 'pow2');
  });

  it('a what-if re-analysis: x_ptr as fp16 moves AI from 0.75 to 1 and the results say so; the pragma names BLOCK', async () => {
    const state: WhatIfState = { kernelId: 'layers.py:29:poly_kernel', set: { BLOCK: 2048 }, dtypes: { x_ptr: 'fp16' } };
    const base = await analyse('layers.py');
    const again = await analyse('layers.py', { set: state.set, dtypes: state.dtypes });
    const k0 = base.kernels.find((x) => x.name === 'poly_kernel')!;
    const k1 = again.kernels.find((x) => x.name === 'poly_kernel')!;
    const w = whatIfModel(base, k1, k0, state);
    // BLOCK = 2048: FLOPs 6·2048 = 12,288; loads 2048 · 2 B = 4096 B; stores 2048 · 4 B = 8192 B; AI 12288 / 12288 = 1.
    const row = (label: string) => w.results.find((r) => r.label === label)!;
    assert.deepEqual([row('FLOPs').value, row('FLOPs').baseline, row('FLOPs').formula], ['12.3 kFLOP', '6.14 kFLOP', '6·BLOCK']);
    assert.deepEqual([row('loads').value, row('loads').baseline], ['4.1 kB', '4.1 kB']);
    assert.deepEqual([row('AI').value, row('AI').baseline], ['1 FLOP/B', '0.75 FLOP/B']);
    assert.deepEqual([control(w.controls, 'BLOCK').value, control(w.controls, 'BLOCK').changed], [2048, true]);
    assert.deepEqual([control(w.controls, 'x_ptr').value, control(w.controls, 'x_ptr').changed], ['fp16', true]);
    assert.equal(w.pragma, '# roofline: BLOCK=2048');
    assert.equal(w.changed, true);
  });

  it('the pragma uses // for CUDA and WGSL and leaves out element types', () => {
    const c = (name: string, value: number | boolean | string | null, changed: boolean, kind: WhatIfControl['kind'] = 'number'): WhatIfControl => ({ name, kind, value, baseline: null, source: '', changed });
    assert.equal(pragmaFor('cuda', [c('blockDim.x', 128, true, 'pow2'), c('n', 4096, false), c('a', 'fp16', true, 'dtype')]), '// roofline: blockDim.x=128');
    assert.equal(pragmaFor('wgsl', [c('EVEN', true, true, 'bool')]), '// roofline: EVEN=true');
    assert.equal(pragmaFor('triton', [c('K', null, false)]), '');
  });

  it('tile-like names and powers of two', () => {
    for (const n of ['BLOCK_M', 'BLOCK', 'TILE_K', 'BM', 'BK', 'num_warps', 'blockDim.x', 'GROUP_SIZE_M', 'num_stages']) assert.ok(isTileLike(n), n);
    for (const n of ['K', 'n', 'stride', 'eps', 'M']) assert.ok(!isTileLike(n), n);
    assert.ok(isPowerOfTwo(1) && isPowerOfTwo(4096) && !isPowerOfTwo(0) && !isPowerOfTwo(96) && !isPowerOfTwo(2.5) && !isPowerOfTwo('64'));
    assert.deepEqual([stepPowerOfTwo(64, true), stepPowerOfTwo(64, false), stepPowerOfTwo(1, false), stepPowerOfTwo(96, true)], [128, 32, 1, 256]);
  });
});

describe('panel kernel table', () => {
  it('one row per kernel, line numbers in file mode, paths in workspace mode, unknowns sort as null', async () => {
    const f = await analyse('layers.py');
    const m = await analyse('matmul.py');
    const table = panelTable([f, m], { workspace: true, profile: false });
    assert.deepEqual(
      table.columns.map((c) => c.key),
      ['kernel', 'at', 'ai', 'compulsory', 'attainable', 'ofPeak', 'bound', 'flops', 'bytes', 'notes'],
    );
    assert.equal(table.columns[1].label, 'file');
    assert.equal(table.rows.length, 4);
    const add = table.rows[0];
    assert.deepEqual([add.cells.kernel.text, add.cells.at.text, add.cells.ai.text, add.cells.ai.sort, add.cells.bound.text], ['add_kernel', `${f.path}:11`, '0.0833', 1024 / 12288, 'memory-bound (DRAM)']);
    const mm = table.rows[3];
    // K unbound: the K-loop steady state, marked as such, never the full count (test/chart-honesty.test.ts).
    assert.deepEqual([mm.cells.ai.text, mm.cells.ai.sort, mm.cells.bound.text], ['≈ 32 (K-loop steady state)', 32, 'memory-bound (DRAM) at the steady state']);
    assert.equal(mm.cells.notes.text, 'K-loop steady state (line 19): not the full count — bind K');
    assert.equal(add.cells.notes, undefined);
    const file = panelTable([f], { workspace: false, profile: false });
    assert.deepEqual([file.columns[1].label, file.rows[2].cells.at.text, file.rows[2].cells.at.sort], ['line', '29', 29]);
  });

  it('with a profile: the measured columns, and one row per launch when launches are kept apart', async () => {
    const text = fs.readFileSync(path.join(WS, 'profile_h100.csv'), 'utf8');
    const files = [await analyse('softmax.py'), await analyse('vector_add.cu')];
    const { files: measured } = attachProfile(files, gpuSummary(H100), text);
    const table = panelTable(measured, { workspace: true, profile: true });
    assert.deepEqual(table.columns.slice(9).map((c) => c.key), ['achieved', 'ofRoof', 'ofEstimate', 'situation', 'advice', 'flopsRatio', 'bytesRatio']);
    const softmax = table.rows[0].cells;
    // 12,578,816 FLOPs in 12.5 µs; 33,560,000 B in 12.5 µs = 80.1 % of 3.35 TB/s; FLOPs 12,578,816 / 16,773,120 = ×0.75.
    assert.deepEqual(
      [softmax.achieved.text, softmax.ofRoof.text, softmax.situation.text, softmax.flopsRatio.text, softmax.bytesRatio.text],
      ['1.01 TFLOP/s', '80.1 %', 'memory-bound', '×0.75', '×1.00'],
    );
    assert.match(softmax.advice.text, /^On the memory roof: only moving fewer bytes or faster memory helps\. Fuse it/);
    assert.ok(softmax.advice.title!.split('\n').length >= 4, 'the full advice on hover');

    const doubled = text.replace(/\n("0",.*)\n/, (_m, row: string) => `\n${row}\n${row.replace('"0"', '"3"')}\n`);
    const perLaunch = attachProfile(files, gpuSummary(H100), doubled, { perLaunch: true }).files;
    const rows = panelTable(perLaunch, { workspace: false, profile: true }).rows.filter((r) => r.kernelId.endsWith(':softmax_kernel'));
    assert.deepEqual(rows.map((r) => r.cells.kernel.text), ['softmax_kernel · launch 0', 'softmax_kernel · launch 1']);
    assert.notEqual(rows[0].id, rows[1].id);
  });

  it('the precision choices are every peak of the GPU, checked when drawn', () => {
    const choices = precisionChoices(H100, ['tensor:bf16', 'vector:fp32']);
    assert.deepEqual(
      choices.filter((c) => c.checked).map((c) => c.label),
      ['tensor bf16 989 TFLOP/s', 'vector fp32 66.9 TFLOP/s'],
    );
    assert.ok(choices.some((c) => c.value === 'tensor:fp8' && !c.checked));
  });

  it('the profile summary names what did not match', () => {
    const p = profileModel('p.csv', { format: 'ncu-raw', launches: 1, matched: 1, unmatched: ['fill'], ambiguous: [{ name: 'k', candidates: ['a.py:k', 'b.py:k'] }], diagnostics: [{ severity: 'info', message: 'quiet' }, { severity: 'warning', message: 'loud', line: 3 }] }, true);
    assert.equal(p.summary, '1 launch, 1 kernel matched');
    assert.deepEqual(p.problems, ['Not in these files: fill.', 'warning (line 3): loud']);
    assert.deepEqual(p.ambiguous, [{ name: 'k', candidates: ['a.py:k', 'b.py:k'] }]);
  });
});

describe('profile wording in the lens and the hover', () => {
  async function measuredSoftmax(overrides: Record<string, string> = {}): Promise<{ file: FileReport; ms: MeasuredSummary[] | undefined }> {
    const text = fs.readFileSync(path.join(WS, 'profile_h100.csv'), 'utf8');
    const file = attachProfile([await analyse('softmax.py')], gpuSummary(H100), text, { overrides }).files[0];
    return { file, ms: measuredOfFile(file, overrides).get(measuredKey(file.kernels[0])) };
  }

  it('the lens suffix: achieved FLOP/s and the fraction of the roof', async () => {
    const { ms } = await measuredSoftmax();
    assert.equal(measuredLensSuffix(ms), ' · measured 1.01 TFLOP/s, 80.1 % of roof');
    assert.equal(measuredLensSuffix(undefined), '');
    assert.equal(measuredLensSuffix([ms![0], { ...ms![0], key: 'softmax_kernel#2' }]), ' · measured 1.01 TFLOP/s, 80.1 % of roof (+1 more)');
  });

  it('the hover section: the dot, the situation with its advice, the ratios', async () => {
    const { ms } = await measuredSoftmax();
    // Markdown escapes removed, as the hover shows it.
    const md = measuredHover(ms!).replace(/\\(.)/g, '$1');
    for (const part of [
      '**Measured** (imported profile)',
      '`softmax_kernel` · 1 launch · 1.01 TFLOP/s at 0.375 FLOP/B · 80.1 % of the roof · 60.1 % of the estimate',
      '**memory-bound**: On the memory roof: only moving fewer bytes or faster memory helps.',
      '- Fuse it with the kernels',
      'Measured ÷ estimate: FLOPs ×0.75, DRAM bytes ×1.00',
    ])
      assert.ok(md.includes(part), `missing "${part}" in:\n${md}`);
  });

  it('a launch matched by hand to another file is not shown in this one', async () => {
    const { ms } = await measuredSoftmax({ softmax_kernel: 'other.py:softmax_kernel' });
    assert.equal(ms, undefined);
    const { ms: here } = await measuredSoftmax({ softmax_kernel: `${(await analyse('softmax.py')).path}:softmax_kernel` });
    assert.equal(here?.length, 1);
  });
});
