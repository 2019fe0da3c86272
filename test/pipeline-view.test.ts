/**
 * The panel's pipeline view (issue 18, docs/pipelines.md): the fusion what-if
 * for the pairs a reader toggles, the stacked bar of T_lower per launch, the
 * view's model, the pipeline's own point on the roofline, and the state the
 * page may send. Numbers: test/fixtures/triton/pipeline_forward.py, whose
 * header derives every total and both fusions by hand.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { findGpu } from '../src/core/gpus/catalog';
import { chartKernels, chartPipelines, pipelineOffChart, rooflineSpec } from '../src/core/report/chart';
import { quadsIntersect, textQuad, textWidth } from '../src/core/report/chartLabels';
import { DEFAULT_THEME } from '../src/core/report/chartTheme';
import { barSegments, fusionWhatIf, pipelineBarSpec, pipelineId } from '../src/core/report/pipelineView';
import type { FileReport, PipelineReport } from '../src/core/report/types';
import { pipelineView } from '../src/extension/panelPipeline';
import { parsePageMessage, parsePanelState, parsePipelineView, withFusion } from '../src/shared/panelProtocol';
import { analyzeFile } from './check';

const FIXTURE = path.join(__dirname, 'fixtures', 'triton', 'pipeline_forward.py');
const gpu = findGpu('h100-sxm')!;
// From the fixture's header (H100 SXM): the pipeline as written, and with each pair fused.
const LOWER = 0.0000544452;
const FUSED_01 = 0.0000461573;
const FUSED_12 = 0.0000411504;
const FLOPS = 8610914304;
const COMPULSORY = 121638912;
const H_BYTES = 2 * 16777216;

function near(a: number, b: number, rel = 1e-5): void {
  assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} ≉ ${b}`);
}

type Layer = { data: { name: string; values: Record<string, unknown>[] }; encoding?: Record<string, { scale?: { domain?: number[] } }> };
const layer = (spec: Record<string, unknown>, name: string): Layer | undefined => (spec.layer as Layer[]).find((l) => l.data.name === name);

describe('pipeline view: fusion what-if', () => {
  let file: FileReport;
  let p: PipelineReport;
  before(async () => {
    file = await analyzeFile(FIXTURE);
    p = file.pipelines!.find((x) => x.name === 'forward')!;
  });

  it('no pair chosen: the totals as written, every pair free to choose', () => {
    const w = fusionWhatIf(p, []);
    near(w.lowerBefore, LOWER);
    assert.equal(w.lowerAfter, w.lowerBefore);
    assert.deepEqual([w.applied, w.saving, w.bytesSaved], [[], 0, 0]);
    assert.deepEqual(w.choices.map((c) => [c.fusion.from, c.chosen, c.blockedBy]), [[0, false, undefined], [1, false, undefined]]);
  });

  it('one pair: its saved bytes and T_lower; the pair sharing its launch is blocked', () => {
    const w = fusionWhatIf(p, [1]);
    assert.deepEqual(w.applied, [1]);
    near(w.lowerAfter, FUSED_12);
    near(w.saving, 1 - FUSED_12 / LOWER);
    assert.equal(w.bytesSaved, H_BYTES);
    assert.equal(w.compulsoryAfter, COMPULSORY - H_BYTES);
    near(w.intensityAfter!, FLOPS / (COMPULSORY - H_BYTES));
    assert.equal(w.choices[0].blockedBy?.from, 1, 'rmsnorm → matmul shares matmul with the chosen pair');
    near(fusionWhatIf(p, [0]).lowerAfter, FUSED_01);
  });

  it('a chain is not fused: the second pair chosen after the first is not applied', () => {
    assert.deepEqual(fusionWhatIf(p, [1, 0]).applied, [1]);
    assert.deepEqual(fusionWhatIf(p, [0, 1]).applied, [0]);
    assert.deepEqual(fusionWhatIf(p, [7]).applied, [], 'an index with no pair is ignored');
  });

  it('the stacked bar: launches end to end as written; fused, the pair is one piece and the time saved is shown', () => {
    const w = fusionWhatIf(p, [1]);
    const segs = barSegments(p, w);
    const written = segs.filter((s) => s.row === 'written');
    assert.deepEqual(written.map((s) => s.name), ['rmsnorm_kernel', 'matmul_kernel', 'add_kernel']);
    near(written.at(-1)!.end, LOWER);
    for (let i = 1; i < written.length; i++) assert.equal(written[i].start, written[i - 1].end);
    const fused = segs.filter((s) => s.row === 'fused');
    assert.deepEqual(fused.map((s) => [s.name, s.bound]), [['rmsnorm_kernel', 'memory'], ['matmul_kernel + add_kernel', 'memory'], ['saved', 'saved']]);
    near(fused[1].end, FUSED_12);
    near(fused[2].end - fused[2].start, LOWER - FUSED_12);
  });

  it('the bar spec: no two labels overlap, each inside the plot', () => {
    for (const width of [240, 420, 640, 1100])
      for (const chosen of [[], [0], [1]]) {
        const w = fusionWhatIf(p, chosen);
        const spec = pipelineBarSpec(p, w, { width });
        const max = (layer(spec, 'launchBars')!.encoding!.x.scale!.domain as number[])[1];
        const labels = layer(spec, 'barLabels')!.data.values;
        assert.ok(labels.some((l) => String(l.text).startsWith('as written')), `width ${width}: the row's title`);
        const boxes = labels.map((l) => textQuad({ x: ((l.x as number) / max) * width, y: l.y as number, align: l.align as never, baseline: l.baseline as never, angle: 0, dx: 0, dy: 0 }, textWidth(String(l.text), 10), 10));
        const height = (layer(spec, 'launchBars')!.encoding!.y.scale!.domain as number[])[0];
        for (let i = 0; i < boxes.length; i++) {
          for (const c of boxes[i]) assert.ok(c.x >= -0.5 && c.x <= width + 0.5 && c.y >= -0.5 && c.y <= height + 0.5, `width ${width}: "${labels[i].text}" leaves the plot`);
          for (let j = i + 1; j < boxes.length; j++) assert.ok(!quadsIntersect(boxes[i], boxes[j]), `width ${width}, ${JSON.stringify(chosen)}: "${labels[i].text}" meets "${labels[j].text}"`);
        }
      }
  });

  it('the view model: totals, time by bound, its point, the toggles and the launches', () => {
    const none = pipelineView([file], {}, { theme: DEFAULT_THEME, width: 640, legend: 'right' })!;
    assert.equal(none.id, pipelineId(file.path, p));
    assert.equal(none.summary, '3 launches · 8.61 GFLOP · 122 MB compulsory → 70.8 FLOP/B · T_lower 54.4 µs (T_upper 72.1 µs)');
    assert.equal(none.time, 'memory-bound 54.4 µs (100 %) · compute-bound: no launch');
    assert.match(none.point, /^On the chart \(★\): 70\.8 FLOP\/B/);
    assert.equal(none.fused, null);
    assert.deepEqual(none.fusion.map((f) => [f.label, f.checked, f.blocked]), [['rmsnorm_kernel → matmul_kernel (h)', false, undefined], ['matmul_kernel → add_kernel (p)', false, undefined]]);
    assert.equal(none.launches.rows.length, 3);
    assert.ok(parsePipelineView(JSON.parse(JSON.stringify(none))), 'the page accepts the model');
    const one = pipelineView([file], { fused: [{ pipeline: none.id, pairs: [1] }] }, { theme: DEFAULT_THEME, width: 640, legend: 'right' })!;
    assert.match(one.fused!, /^With 1 pair fused: T_lower 54\.4 µs → 41\.2 µs \(−24\.4 %\), 33\.6 MB less DRAM traffic/);
    assert.equal(one.fusion[0].blocked, 'shares matmul_kernel with matmul_kernel → add_kernel, chosen: this what-if fuses pairs, not chains');
    assert.equal(pipelineView([{ ...file, pipelines: [] }], {}, { theme: DEFAULT_THEME, width: 640, legend: 'right' }), null);
  });

  it('the pipeline point on the roofline: Σ FLOPs ÷ Σ compulsory bytes at Σ FLOPs ÷ Σ T_lower, and where fusing moves it', () => {
    const id = pipelineId(file.path, p);
    const pipes = chartPipelines([file], { [id]: [1] });
    assert.equal(pipelineOffChart(pipes[0]), undefined);
    const spec = rooflineSpec(chartKernels([file]), { gpu, pipelines: pipes, selectedPipelineId: id });
    const stars = layer(spec, 'pipelines')!.data.values;
    assert.deepEqual(stars.map((s) => s.kind), ['pipeline', 'fused']);
    near(stars[0].x as number, FLOPS / COMPULSORY);
    near(stars[0].y as number, FLOPS / LOWER);
    near(stars[1].x as number, FLOPS / (COMPULSORY - H_BYTES));
    near(stars[1].y as number, FLOPS / FUSED_12);
    assert.equal(layer(spec, 'pipelineLinks')!.data.values.length, 2);
    assert.deepEqual(layer(spec, 'pipelineLabels')!.data.values.map((l) => l.text), ['pipeline forward']);
  });

  it('a pipeline with a launch without numbers has no point, and says why', () => {
    const partial: PipelineReport = { ...p, total: { ...p.total, resolved: 2, complete: false } };
    assert.equal(pipelineOffChart(partial), '1 of 3 launches have no numbers, so its FLOPs and bytes are both lower bounds and its intensity is not known');
    const spec = rooflineSpec([], { gpu, pipelines: chartPipelines([{ ...file, pipelines: [partial] }]) });
    assert.equal(layer(spec, 'pipelines'), undefined);
  });
});

describe('pipeline view: what the page may send and keep', () => {
  const id = 'pipeline:models/fwd.py:110:forward';

  it('a fusion toggle is a pipeline id and a launch index', () => {
    assert.deepEqual(parsePageMessage({ type: 'fuse', pipeline: id, from: 1, on: true }), { type: 'fuse', pipeline: id, from: 1, on: true });
    for (const bad of [{ from: -1 }, { from: 1.5 }, { from: '1' }, { pipeline: 'forward' }, { pipeline: `${id}\n` }, { on: 'yes' }])
      assert.equal(parsePageMessage({ type: 'fuse', pipeline: id, from: 1, on: true, ...bad }), undefined, JSON.stringify(bad));
    assert.deepEqual(parsePageMessage({ type: 'pipeline', id }), { type: 'pipeline', id });
    assert.equal(parsePageMessage({ type: 'pipeline', id: 'file.py:3:k' }), undefined);
  });

  it('fusion choices survive a reload, once per pipeline, each pair once', () => {
    const state = parsePanelState({ mode: 'file', uri: 'file:///a.py', pipeline: id, fused: [{ pipeline: id, pairs: [1, 1, -2, 'x', 0] }, { pipeline: id, pairs: [3] }, { pipeline: 'nope', pairs: [1] }] });
    assert.deepEqual([state?.pipeline, state?.fused], [id, [{ pipeline: id, pairs: [1, 0] }]]);
    assert.deepEqual(withFusion({}, id, 2, true), [{ pipeline: id, pairs: [2] }]);
    assert.equal(withFusion({ fused: [{ pipeline: id, pairs: [2] }] }, id, 2, false), undefined);
  });
});
