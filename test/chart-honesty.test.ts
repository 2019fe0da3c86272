/**
 * The roofline chart never draws an uncertain number as a plain dot
 * (COUNTING.md, "Honesty"): a kernel whose counts wait only on loop trips
 * gets a hollow, dashed steady-state dot that says "steady state" and what to
 * bind; an incomplete kernel's dot carries ≥/≤, a caret pointing where the
 * true point may lie, and a tooltip listing what was not counted.
 * Counts: test/fixtures/chart/honesty.py (derivations in its header).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { findGpu } from '../src/core/gpus/catalog';
import { chartKernels, rooflineSpec } from '../src/core/report/chart';
import type { FileReport } from '../src/core/report/types';
import { kernelNote, panelTable } from '../src/extension/panelModel';
import { analyzeFile } from './check';

const FIXTURE = path.join(__dirname, 'fixtures', 'chart', 'honesty.py');
const gpu = findGpu('h100-sxm')!;

type Layer = { name: string; mark: Record<string, unknown>; data: { name: string; values: Record<string, unknown>[] }; encoding?: Record<string, unknown> };

function layer(spec: Record<string, unknown>, name: string): Layer | undefined {
  return (spec.layer as Layer[]).find((l) => l.data.name === name);
}

async function render(spec: Record<string, unknown>): Promise<string> {
  const vl = await import('vega-lite');
  const vega = await import('vega');
  const view = new vega.View(vega.parse(vl.compile(spec as never).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

describe('roofline chart: steady-state and incomplete kernels', () => {
  let file: FileReport;
  before(async () => {
    file = await analyzeFile(FIXTURE);
  });

  it('chartKernels: the K-loop steady state of rowdot_kernel, the lower bound of mystery_kernel', () => {
    const [rowdot, mystery] = chartKernels([file]);
    assert.equal(rowdot.name, 'rowdot_kernel');
    assert.equal(rowdot.ai, null, 'no full count without K');
    // 512 FLOP / 2048 B per iteration of the K-loop (line 26).
    assert.deepEqual(
      { ai: rowdot.steady?.ai, loopLine: rowdot.steady?.loopLine, independentOf: rowdot.steady?.independentOf, limit: rowdot.steady?.limit, bound: rowdot.steady?.bound },
      { ai: 0.25, loopLine: 26, independentOf: ['K'], limit: true, bound: 'memory' },
    );
    assert.equal(rowdot.incomplete, undefined);
    assert.equal(mystery.name, 'mystery_kernel');
    assert.equal(mystery.ai, 256 / 2048);
    assert.equal(mystery.steady, undefined);
    assert.deepEqual(mystery.incomplete, { ai: 'lower', text: 'incomplete: 1 unknown call', sentence: 'FLOPs are a lower bound, so the intensity is a lower bound.' });
  });

  it('a steady-state dot is hollow and dashed, in its own layer, and says "steady state" and "bind K"', () => {
    const spec = rooflineSpec(chartKernels([file]), { gpu });
    const steady = layer(spec, 'steady');
    assert.ok(steady, 'a steady layer');
    assert.equal(steady.mark.fillOpacity, 0, 'hollow');
    assert.deepEqual(steady.mark.strokeDash, [3, 2], 'dashed');
    assert.equal(steady.data.values.length, 1, 'one dot: rowdot has no compulsory intensity without a grid');
    const d = steady.data.values[0];
    assert.deepEqual([d.name, d.x, d.y, d.aiText, d.kind], ['rowdot_kernel', 0.25, 837.5e9 /* 0.25 FLOP/B × 3.35 TB/s */, '≈ 0.25', 'steady']);
    const tip = d.tip as Record<string, string>;
    assert.equal(tip.intensity, 'tile, K-loop steady state');
    assert.equal(tip['steady state'], 'K-loop, line 26 (the whole kernel tends to it)');
    assert.equal(tip['not the full count'], 'bind K');
    assert.equal(tip.bound, 'memory-bound (DRAM) at the steady state');
    assert.match(d.description as string, /^rowdot_kernel: steady-state intensity ≈ 0\.25 FLOP\/B \(K-loop, line 26; not the full count: bind K\)/);
    // Never a filled dot of its own: the kernels layer holds only mystery_kernel.
    assert.deepEqual(layer(spec, 'kernels')!.data.values.map((v) => v.name), ['mystery_kernel']);
  });

  it('an incomplete dot reads ≥, has a caret to the right, and its tooltip lists what was not counted', () => {
    const spec = rooflineSpec(chartKernels([file]), { gpu });
    const [d] = layer(spec, 'kernels')!.data.values;
    assert.equal(d.aiText, '≥ 0.125');
    // On the memory slope a larger intensity gives a larger attainable rate: it is a lower bound too.
    assert.equal(d.attainableText, '≥ 419 GFLOP/s');
    const tip = d.tip as Record<string, string>;
    assert.equal(tip.numbers, 'incomplete: 1 unknown call');
    assert.equal(tip.so, 'FLOPs are a lower bound, so the intensity is a lower bound.');
    assert.equal(tip['true point'], 'may lie further right');
    assert.match(d.description as string, /\(incomplete: 1 unknown call; may lie further right\)/);
    const carets = layer(spec, 'bounds')!.data.values;
    assert.deepEqual(carets.map((c) => [c.x, c.dir]), [[0.125, 'right']]);
  });

  it('the legend names the marks only a chart with them has', async () => {
    const spec = rooflineSpec(chartKernels([file]), { gpu });
    const legend = layer(spec, 'markKinds')!;
    const scale = (legend.encoding!.shape as { scale: { domain: string[] } }).scale;
    assert.deepEqual(scale.domain, ['tile (no reuse)', 'steady state ≈', 'AI ≥ (lies right)']);
    const svg = await render(spec);
    assert.match(svg, /role-mark steady_marks[^]*?fill-opacity="0"[^]*?stroke-dasharray="3,2"/);
    assert.match(svg, /aria-label="rowdot_kernel: steady-state intensity ≈ 0\.25 FLOP\/B/);
    assert.match(svg, />steady state ≈</);
    assert.match(svg, /role-mark bounds_marks/);
  });

  it('a kernel with its own full count draws it, not its steady state', () => {
    const kernels = chartKernels([{ ...file, kernels: file.kernels.filter((k) => k.name === 'rowdot_kernel') }]);
    assert.ok(kernels[0].steady);
    // As if K were bound: the kernel's own intensity wins over the steady state it still carries.
    kernels[0].ai = 0.24;
    kernels[0].attainable = 0.24 * 3.35e12;
    const spec = rooflineSpec(kernels, { gpu });
    assert.equal(layer(spec, 'steady'), undefined);
    assert.deepEqual(layer(spec, 'kernels')!.data.values.map((v) => [v.name, v.aiText]), [['rowdot_kernel', '0.24']]);
    assert.equal(layer(spec, 'markKinds'), undefined, 'only full-count dots: no legend of marks');
  });

  it('with K bound by --set, chartKernels draws the full count and no steady state', async () => {
    const f = await analyzeFile(FIXTURE, { set: { BLOCK: 256, K: 4096 } });
    const rowdot = chartKernels([f]).find((k) => k.name === 'rowdot_kernel')!;
    assert.notEqual(rowdot.ai, null);
    assert.equal(rowdot.steady, undefined);
  });

  it('the panel table: steady-state numbers with ≈, bounds with ≥, and a notes column that says why', () => {
    const t = panelTable([file], { workspace: false, profile: false });
    assert.equal(t.columns.at(-1)!.key, 'notes');
    const [rowdot, mystery] = t.rows.map((r) => r.cells);
    assert.deepEqual([rowdot.ai.text, rowdot.ai.sort, rowdot.attainable.text, rowdot.bound.text], ['≈ 0.25 (K-loop steady state)', 0.25, '≈ 838 GFLOP/s', 'memory-bound (DRAM) at the steady state']);
    assert.equal(rowdot.notes.text, 'K-loop steady state (line 26): not the full count — bind K');
    assert.deepEqual([mystery.ai.text, mystery.flops.text, mystery.bytes.text, mystery.attainable.text], ['≥ 0.125', '≥ 256 FLOP', '2.05 kB', '≥ 419 GFLOP/s']);
    assert.equal(mystery.notes.text, 'incomplete: 1 unknown call — FLOPs are a lower bound, so the intensity is a lower bound');
    assert.equal(kernelNote(file.kernels[1]), mystery.notes.text);
  });

  it('an intensity the unbound sizes cancel out of is the kernel\'s own filled dot, exact, never a steady state', async () => {
    // test/fixtures/triton/size_free_intensity.py: axpy 2 FLOP / 12 B per element for any BLOCK; rowsum's K-loop steady state 1/4.
    const f = await analyzeFile(path.join(__dirname, 'fixtures', 'triton', 'size_free_intensity.py'));
    const [axpy, rowsum] = chartKernels([f]);
    assert.deepEqual([axpy.name, axpy.steady, axpy.sizeFree, axpy.bound], ['axpy', undefined, ['BLOCK'], 'memory']);
    assert.ok(Math.abs(axpy.ai! - 2 / 12) < 1e-12);
    assert.ok(rowsum.steady && rowsum.sizeFree === undefined);
    const spec = rooflineSpec([axpy, rowsum], { gpu });
    const [dot] = layer(spec, 'kernels')!.data.values;
    assert.deepEqual([dot.name, dot.aiText, dot.kind], ['axpy', '0.167', 'tile']);
    assert.equal((dot.tip as Record<string, string>).sizes, 'the same for any BLOCK: bind BLOCK for the FLOPs and bytes');
    assert.deepEqual(layer(spec, 'steady')!.data.values.map((v) => v.name), ['rowsum']);
    const row = panelTable([f], { workspace: false, profile: false }).rows[0].cells;
    assert.deepEqual([row.ai.text, row.bound.text, row.notes.text], ['0.167', 'memory-bound (DRAM)', 'the same for any BLOCK: bind BLOCK for the FLOPs and bytes']);
  });
});
