/**
 * The roofline chart spec: built purely from the analysis and the GPU; compiled
 * with Vega-Lite and rendered to SVG with Vega (headless) to prove it draws a
 * roof per precision and a dot per kernel, never above the roof.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gpuSummary } from '../src/core/analyze';
import { findGpu, GPU_CATALOG } from '../src/core/gpus/catalog';
import type { GpuSpec } from '../src/core/gpus/types';
import { attachProfile } from '../src/core/profile/attach';
import { chartKernels, chartSize, rooflineSpec, type ChartOptions, type PrecisionKey } from '../src/core/report/chart';
import {
  LogScale,
  placeLabels,
  quadsIntersect,
  segmentCrossesQuad,
  textQuad,
  textWidth,
  type Align,
  type Baseline,
  type Candidate,
  type Quad,
} from '../src/core/report/chartLabels';
import { analyzeFile, fixtures } from './check';

const GOLDEN = path.join(__dirname, 'fixtures', 'chart');

async function render(spec: Record<string, unknown>): Promise<string> {
  const vl = await import('vega-lite');
  const vega = await import('vega');
  const compiled = vl.compile(spec as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

function layerValues(spec: Record<string, unknown>, name: string): Record<string, unknown>[] {
  const layers = spec.layer as { data: { name: string; values: Record<string, unknown>[] } }[];
  return layers.find((l) => l.data.name === name)!.data.values;
}

describe('roofline chart spec', () => {
  const gpu = findGpu('h100-sxm')!;

  it('matches its golden file for the matmul and softmax fixtures', async () => {
    const files = await Promise.all(['matmul_autotune.py', 'softmax.py'].map((f) => analyzeFile(path.join(__dirname, 'fixtures', 'triton', f))));
    const spec = rooflineSpec(chartKernels(files), { gpu, selectedId: chartKernels(files)[0].id });
    const golden = path.join(GOLDEN, 'matmul_softmax.h100.json');
    const text = JSON.stringify(spec, null, 1) + '\n';
    if (process.env.UPDATE_GOLDEN || !fs.existsSync(golden)) {
      fs.mkdirSync(GOLDEN, { recursive: true });
      fs.writeFileSync(golden, text);
    }
    assert.equal(text, fs.readFileSync(golden, 'utf8'), 'chart spec changed: review it and rerun with UPDATE_GOLDEN=1');
  });

  it('draws roofs, ridges and a dot per kernel (compiled and rendered to SVG)', async () => {
    const files = await Promise.all(fixtures('triton', ['.py']).map((f) => analyzeFile(f)));
    const kernels = chartKernels(files);
    const spec = rooflineSpec(kernels, { gpu });
    const dots = layerValues(spec, 'kernels').filter((d) => d.kind === 'tile');
    // Every kernel with an intensity has a dot, but intensity 0 (no FLOPs: a log axis has no 0).
    assert.equal(dots.length, kernels.filter((k) => k.ai !== null && k.ai > 0 && k.attainable !== null).length);
    assert.ok(kernels.some((k) => k.ai === 0), 'the fixtures hold a kernel without FLOPs');
    const svg = await render(spec);
    assert.match(svg, /<svg/);
    assert.match(svg, /arithmetic intensity \(FLOP\/B\)/);
    assert.match(svg, /ridge 295/);
    assert.match(svg, /tensor fp16\/bf16 989 TFLOP\/s|tensor bf16\/fp16 989 TFLOP\/s/);
    const points = (svg.match(/role-mark kernels|aria-roledescription="point"/g) ?? []).length;
    assert.ok(points > 0);
  });

  it('no dot lies above the roof of its precision', async () => {
    const files = await Promise.all(fixtures('triton', ['.py']).map((f) => analyzeFile(f)));
    for (const k of chartKernels(files)) {
      if (k.ai === null || k.attainable === null) continue;
      assert.ok(k.attainable <= k.peakFlops * (1 + 1e-12), `${k.name} above its peak`);
      assert.ok(k.attainable <= gpu.l2Bandwidth! * k.ai * (1 + 1e-9) || k.attainable <= k.peakFlops, `${k.name} above the L2 roof`);
    }
  });

  it('compares two GPUs with dashed roofs', async () => {
    const files = [await analyzeFile(path.join(__dirname, 'fixtures', 'triton', 'softmax.py'))];
    const spec = rooflineSpec(chartKernels(files), { gpu, compareGpu: findGpu('mi300x')! });
    const roofs = layerValues(spec, 'roofs');
    assert.ok(roofs.some((r) => r.gpu === 'mi300x' && r.compare === true));
    assert.ok(roofs.some((r) => r.gpu === 'h100-sxm' && r.compare === false));
    const svg = await render(spec);
    assert.match(svg, /MI300X/);
  });
});

describe('roofline chart: what the webview relies on', () => {
  const gpu = findGpu('h100-sxm')!;

  it('names each layer after its data set and describes every dot (its aria-label)', async () => {
    const files = [await analyzeFile(path.join(__dirname, 'fixtures', 'triton', 'softmax.py'))];
    const spec = rooflineSpec(chartKernels(files), { gpu });
    for (const layer of spec.layer as { name: string; data: { name: string } }[]) assert.equal(layer.name, layer.data.name);
    const dots = layerValues(spec, 'kernels');
    assert.ok(dots.length > 0);
    for (const d of dots) assert.match(String(d.description), /^\w+: (tile intensity .* FLOP\/B, attainable .*|compulsory intensity .* FLOP\/B)$/);
    const svg = await render(spec);
    assert.match(svg, /role-mark kernels_marks/);
    assert.match(svg, /aria-label="softmax_kernel: tile intensity/);
  });

  it('labels the DRAM and L2 slopes along their lines, at their angle on screen', () => {
    const spec = rooflineSpec([], { gpu, width: 600, height: 600 });
    const dram = layerValues(spec, 'dramLabels');
    const l2 = layerValues(spec, 'l2Labels');
    assert.deepEqual(dram.map((l) => l.text), ['DRAM 3.35 TB/s']);
    assert.deepEqual(l2.map((l) => l.text), ['L2 9.7 TB/s']);
    // x spans 0.01…10^4 (6 decades), y 10^10…10^16 (6 decades) on a square: 45° up.
    assert.equal(dram[0].angle, -45);
    assert.equal(l2[0].angle, -45);
    // 2 px off its line, across it: DRAM below (baseline top), L2 above (baseline bottom). In pixels, the line through
    // (x, bandwidth · x) runs at 45°; the anchor's distance to it is |Δy| / √2 for a vertical offset Δy.
    const xs = new LogScale([0.01, 1e4], [0, 600]);
    const ys = new LogScale([1e10, 1e16], [600, 0]);
    for (const [label, bandwidth, baseline, side] of [
      [dram[0], gpu.memoryBandwidth, 'top', 1],
      [l2[0], gpu.l2Bandwidth!, 'bottom', -1],
    ] as const) {
      assert.equal(label.baseline, baseline);
      const below = ys.px(label.y as number) - ys.px(bandwidth * (label.x as number));
      assert.ok(Math.abs(below / Math.SQRT2 - 2 * side) < 1e-6, `${label.text}: ${below / Math.SQRT2} px off its line`);
    }
  });

  it('shades the regions under the roof of the measured kernels\' precision, not the highest roof', async () => {
    const { attachProfile } = await import('../src/core/profile/attach');
    const { makeReport } = await import('../src/core/analyze');
    const fs = await import('node:fs');
    const files = [await analyzeFile(path.join(__dirname, 'e2e', 'workspace', 'softmax.py'))];
    const text = fs.readFileSync(path.join(__dirname, 'e2e', 'workspace', 'profile_h100.csv'), 'utf8');
    const spec = rooflineSpec(chartKernels(attachProfile(files, makeReport(gpu, []).gpu, text).files), { gpu, showRegions: true });
    // softmax runs on the fp32 vector units: 66.9 TFLOP/s, ridge 66.9 / 3.35 = 19.97 FLOP/B.
    const compute = layerValues(spec, 'regionsOnRoof').filter((r) => r.region === 'compute');
    assert.equal(compute[0].y, 66.9e12);
    assert.ok(Math.abs((compute[0].x as number) - 66.9e12 / 3.35e12) < 1e-9);
  });
});

describe('roofline chart with measured dots', () => {
  it('draws measured dots joined to their estimates and shades the four regions', async () => {
    const { attachProfile } = await import('../src/core/profile/attach');
    const { makeReport } = await import('../src/core/analyze');
    const fs = await import('node:fs');
    const gpu = findGpu('h100-sxm')!;
    const files = [await analyzeFile(path.join(__dirname, 'fixtures', 'triton', 'matmul_autotune.py'))];
    const text = fs.readFileSync(path.join(__dirname, 'fixtures', 'profiles', 'proton_h100.json'), 'utf8');
    const withMeasured = attachProfile(files, makeReport(gpu, []).gpu, text).files;
    const kernels = chartKernels(withMeasured);
    assert.ok(kernels[0].measured && kernels[0].measured.length === 1);
    const spec = rooflineSpec(kernels, { gpu, showRegions: true });
    assert.equal(layerValues(spec, 'measured').length, 1);
    assert.equal(layerValues(spec, 'measuredLinks').length, 2);
    const labels = layerValues(spec, 'regionLabels').map((l) => l.text);
    assert.deepEqual(labels, ['memory-bound', 'memory-intensive', 'compute-bound', 'compute-intensive']);
    const svg = await render(spec);
    assert.match(svg, /compute-intensive/);
  });
});

// ---------------------------------------------------------------------------------------------
// Label layout
// ---------------------------------------------------------------------------------------------

describe('chart label geometry', () => {
  const box = (x: number, y: number, w: number, h: number): Quad => textQuad({ x, y, align: 'left', baseline: 'top', angle: 0, dx: 0, dy: 0 }, w, h);

  it('estimates text widths from DejaVu Sans, measured in chromium', () => {
    // canvas.measureText in chromium, '100px "DejaVu Sans"' (the table keeps whole hundredths of an em per character).
    for (const [text, measured] of [
      ['tensor bf16/fp16 989 TFLOP/s', 1485.84],
      ['ridge 591', 480.03],
      ['Instinct MI300X: DRAM 5.3 TB/s', 1577.15],
      ['compute-intensive', 933.11],
    ] as const)
      assert.ok(Math.abs(textWidth(text, 100) - measured) / measured < 0.005, `${text}: ${textWidth(text, 100)} px, measured ${measured}`);
    assert.equal(textWidth('', 10), 0);
    assert.equal(textWidth('¤', 10), 10, 'an unknown character counts a full em');
  });

  it('places a text box as Vega does: align, baseline, rotation about the anchor', () => {
    const at = (align: Align, baseline: Baseline) => textQuad({ x: 100, y: 50, align, baseline, angle: 0, dx: 0, dy: 0 }, 40, 10);
    assert.deepEqual(at('right', 'bottom')[0], { x: 60, y: 40 });
    assert.deepEqual(at('left', 'top')[2], { x: 140, y: 60 });
    assert.deepEqual(at('center', 'middle')[0], { x: 80, y: 45 });
    // Turned -90° (up) about its anchor, a left-aligned text runs upwards from it.
    const up = textQuad({ x: 100, y: 50, align: 'left', baseline: 'bottom', angle: -90, dx: 0, dy: 0 }, 40, 10);
    const near = (p: { x: number; y: number }, x: number, y: number) => Math.abs(p.x - x) < 1e-9 && Math.abs(p.y - y) < 1e-9;
    assert.ok(near(up[0], 90, 50) && near(up[1], 90, 10) && near(up[2], 100, 10), JSON.stringify(up));
  });

  it('tells overlapping boxes from touching and separate ones, rotated ones too', () => {
    assert.ok(quadsIntersect(box(0, 0, 10, 10), box(5, 5, 10, 10)));
    assert.ok(quadsIntersect(box(0, 0, 10, 10), box(2, 2, 2, 2)), 'one inside the other');
    assert.ok(!quadsIntersect(box(0, 0, 10, 10), box(10, 0, 10, 10)), 'sharing an edge');
    assert.ok(!quadsIntersect(box(0, 0, 10, 10), box(11, 11, 5, 5)));
    // Two parallel 45° strips: their bounding boxes overlap, they do not.
    const strip = (y: number): Quad => textQuad({ x: 0, y, align: 'left', baseline: 'bottom', angle: -45, dx: 0, dy: 0 }, 100, 10);
    assert.ok(!quadsIntersect(strip(100), strip(120)));
    assert.ok(quadsIntersect(strip(100), strip(105)));
    assert.ok(segmentCrossesQuad({ x: -5, y: 5 }, { x: 15, y: 5 }, box(0, 0, 10, 10)));
    assert.ok(!segmentCrossesQuad({ x: -5, y: 15 }, { x: 15, y: 15 }, box(0, 0, 10, 10)));
  });

  it('places a label at its cheapest free candidate, else a shorter text, else leaves it off', () => {
    const at = (x: number, cost: number): Candidate => ({ x, y: 10, align: 'left', baseline: 'top', angle: 0, dx: 0, dy: 0, cost });
    const none = { segments: [], boxes: [] };
    const placed = placeLabels(
      [
        { id: 'a', texts: ['aaaa'], fontSize: 10, weight: 1, candidates: () => [at(10, 0)] },
        { id: 'b', texts: ['bbbb'], fontSize: 10, weight: 1, candidates: () => [at(12, 0), at(70, 5)] },
        { id: 'c', texts: ['cccccccccccc', 'c'], fontSize: 10, weight: 1, candidates: () => [at(110, 0)] },
        { id: 'd', texts: ['dddd'], fontSize: 10, weight: 1, candidates: () => [at(14, 0)] },
      ],
      130,
      40,
      none,
    );
    assert.equal(placed.get('a')?.x, 10);
    assert.equal(placed.get('b')?.x, 70, 'the first place is taken');
    assert.equal(placed.get('c')?.text, 'c', 'the long text runs out of the plot');
    assert.equal(placed.get('d'), undefined);
    // A line through the cheaper place makes the other one cheaper.
    const crossed = placeLabels([{ id: 'a', texts: ['aaaa'], fontSize: 10, weight: 1, candidates: () => [at(10, 0), at(70, 5)] }], 130, 40, {
      segments: [{ from: { x: 20, y: 0 }, to: { x: 20, y: 40 }, cost: 6 }],
      boxes: [],
    });
    assert.equal(crossed.get('a')?.x, 70);
  });
});

interface LabelBox {
  layer: string;
  text: string;
  datum: Record<string, unknown>;
  quad: Quad;
}

/**
 * Every label's box as Vega draws it, from the spec alone: each text layer's
 * data through the x/y scales (log, the spec's domains, the plot's size),
 * with the mark's align, baseline, angle, offsets and font size (Vega-Lite's
 * defaults where the mark has none; `datum.<field>` expressions read the datum).
 */
function labelBoxes(spec: Record<string, unknown>): LabelBox[] {
  const layers = spec.layer as { name: string; mark: Record<string, unknown>; encoding: Record<string, { field?: string; scale?: { domain: [number, number]; type: string } }>; data: { values: Record<string, unknown>[] } }[];
  const roofs = layers.find((l) => l.name === 'roofs')!;
  assert.equal(roofs.encoding.x.scale!.type, 'log');
  const xs = new LogScale(roofs.encoding.x.scale!.domain, [0, spec.width as number]);
  const ys = new LogScale(roofs.encoding.y.scale!.domain, [spec.height as number, 0]);
  const out: LabelBox[] = [];
  for (const layer of layers) {
    if (layer.mark.type !== 'text' || layer.name === 'labelHalos') continue;
    for (const d of layer.data.values) {
      const prop = <T>(name: string, fallback: T): T => {
        const v = layer.mark[name];
        if (v === undefined) return fallback;
        if (typeof v === 'object' && v !== null && 'expr' in v) {
          const m = /^datum\.(\w+)$/.exec(String((v as { expr: string }).expr));
          assert.ok(m, `${layer.name}.${name}: an expression the test cannot read`);
          return d[m[1]] as T;
        }
        return v as T;
      };
      const text = String(d[layer.encoding.text.field!]);
      const fontSize = prop('fontSize', 11);
      const place = {
        x: xs.px(d[layer.encoding.x.field!] as number),
        y: ys.px(d[layer.encoding.y.field!] as number),
        align: prop<Align>('align', 'center'),
        baseline: prop<Baseline>('baseline', 'middle'),
        angle: prop('angle', 0),
        dx: prop('dx', 0),
        dy: prop('dy', 0),
      };
      out.push({ layer: layer.name, text, datum: d, quad: textQuad(place, textWidth(text, fontSize), fontSize) });
    }
  }
  return out;
}

/** Checks a spec's labels: inside the plot, no two boxes meet, each nearer its own roof or ridge point than any other. Returns what was left off. */
function checkLabels(spec: Record<string, unknown>, where: string): { roofs: number; ridges: number; slopes: number; regions: number } {
  const boxes = labelBoxes(spec);
  const width = spec.width as number;
  const height = spec.height as number;
  for (const b of boxes) assert.ok(b.quad.every((p) => p.x >= -1e-6 && p.x <= width + 1e-6 && p.y >= -1e-6 && p.y <= height + 1e-6), `${where}: "${b.text}" leaves the plot`);
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) assert.ok(!quadsIntersect(boxes[i].quad, boxes[j].quad), `${where}: "${boxes[i].text}" (${boxes[i].layer}) overlaps "${boxes[j].text}" (${boxes[j].layer})`);
  // The halos are the same labels.
  assert.deepEqual(
    layerValues(spec, 'labelHalos').map((h) => `${h.text}@${h.x},${h.y}`).sort(),
    boxes.map((b) => `${b.text}@${b.datum.x},${b.datum.y}`).sort(),
    `${where}: halos`,
  );
  // Pairing: the roof nearest to a roof label is its own, the ridge point nearest to a ridge label its own.
  const roofs = spec.layer as { name: string; encoding: { x: { scale: { domain: [number, number] } }; y: { scale: { domain: [number, number] } } } }[];
  const enc = roofs.find((l) => l.name === 'roofs')!.encoding;
  const xs = new LogScale(enc.x.scale.domain, [0, width]);
  const ys = new LogScale(enc.y.scale.domain, [height, 0]);
  const ridgePoints = layerValues(spec, 'ridges').map((r) => ({ series: r.series as string, text: r.text as string, x: xs.px(r.x as number), y: ys.px(r.y as number) }));
  const span = (q: Quad) => ({ x0: Math.min(...q.map((p) => p.x)), x1: Math.max(...q.map((p) => p.x)), y0: Math.min(...q.map((p) => p.y)), y1: Math.max(...q.map((p) => p.y)) });
  const toPoint = (q: Quad, p: { x: number; y: number }) => {
    const s = span(q);
    return Math.hypot(Math.max(s.x0 - p.x, 0, p.x - s.x1), Math.max(s.y0 - p.y, 0, p.y - s.y1));
  };
  // A roof: its flat part from its ridge point rightwards.
  const toRoof = (q: Quad, r: { x: number; y: number }) => {
    const s = span(q);
    return s.x1 <= r.x ? toPoint(q, r) : Math.max(s.y0 - r.y, 0, r.y - s.y1);
  };
  for (const b of boxes.filter((x) => x.layer === 'ridgeLabels')) {
    const own = ridgePoints.find((r) => r.series === b.datum.series)!;
    assert.equal(b.text, own.text);
    for (const r of ridgePoints) if (r !== own) assert.ok(toPoint(b.quad, r) > toPoint(b.quad, own), `${where}: "${b.text}" is as near to ${r.series}'s ridge as to its own`);
  }
  for (const b of boxes.filter((x) => x.layer === 'roofLabels')) {
    const own = ridgePoints.find((r) => r.series === b.datum.series)!;
    // (Two GPUs' roofs less than 1.5 px apart are one line to a reader.)
    // A label in line with its roof's height (the last resort when roofs crowd), with no other
    // roof crossing its height, reads as that roof's wherever it sits along the line.
    const s = span(b.quad);
    const inLine = Math.abs((s.y0 + s.y1) / 2 - own.y) < 0.5 && !ridgePoints.some((r) => r !== own && r.y >= s.y0 && r.y <= s.y1);
    for (const r of ridgePoints)
      if (!inLine && r !== own && Math.abs(r.y - own.y) >= 1.5) assert.ok(toRoof(b.quad, r) >= toRoof(b.quad, own), `${where}: "${b.text}" is nearer to the ${r.series} roof than to its own`);
  }
  const count = (name: string) => (spec.layer as { name: string; data: { values: unknown[] } }[]).find((l) => l.name === name)?.data.values.length ?? 0;
  const slopes = new Set(layerValues(spec, 'roofs').map((r) => `${r.gpu} ${r.level}`)).size;
  return {
    roofs: ridgePoints.length - count('roofLabels'),
    ridges: ridgePoints.length - count('ridgeLabels'),
    slopes: slopes - count('dramLabels') - count('l2Labels'),
    regions: count('regionsOnRoof') ? 4 - count('regionLabels') : 0,
  };
}

describe('roofline chart: label layout', function () {
  this.timeout(240_000);
  const WS = path.join(__dirname, 'e2e', 'workspace');
  /** The spec builder's default size, then the panel's sizes from its narrowest page (legends below) to a wide one. */
  const SIZES: [string, Partial<ChartOptions>][] = [['640×400', {}], ...[510, 700, 900, 1400, 2300].map((pw): [string, Partial<ChartOptions>] => [`page ${pw}`, chartSize(pw)])];
  const wide = (name: string) => name === '640×400' || ['page 900', 'page 1400', 'page 2300'].includes(name);
  const everyPrecision = (g: GpuSpec): PrecisionKey[] => [...Object.keys(g.peaks.tensor).map((d) => `tensor:${d}`), ...Object.keys(g.peaks.vector).map((d) => `vector:${d}`)] as PrecisionKey[];
  const nothingOff = { roofs: 0, ridges: 0, slopes: 0, regions: 0 };

  it('every GPU of the catalog, every precision it has: no two labels meet, each by its own roof', () => {
    for (const g of GPU_CATALOG.gpus)
      for (const [pn, precisions] of [['default', undefined], ['every', everyPrecision(g)]] as const)
        for (const [sn, size] of SIZES) {
          const where = `${g.id}, ${pn} precisions, ${sn}`;
          const off = checkLabels(rooflineSpec([], { gpu: g, precisions, ...size }), where);
          // Roofs are always labelled; at the default sizes everything is.
          assert.equal(off.roofs, 0, `${where}: a roof without its label`);
          if (wide(sn)) assert.deepEqual(off, nothingOff, `${where}: labels left off`);
        }
  });

  for (const id of ['h100-sxm', 'b200', 'mi300x', 'a100-sxm-80gb', 'l4'])
    it(`${id} with many kernels (every Triton, CUDA and WGSL fixture), and with measured dots and regions`, async () => {
      const gpu = findGpu(id)!;
      const files = await Promise.all([...fixtures('triton', ['.py']), ...fixtures('cuda', ['.cu']), ...fixtures('wgsl', ['.wgsl'])].map((f) => analyzeFile(f, { gpu })));
      const many = chartKernels(files);
      assert.ok(many.filter((k) => k.ai !== null).length > 30, 'many dots');
      const ws = await Promise.all(['softmax.py', 'layers.py', 'vector_add.cu', 'elementwise.wgsl', 'matmul.py'].map((f) => analyzeFile(path.join(WS, f), { gpu })));
      const measured = chartKernels(attachProfile(ws, gpuSummary(gpu), fs.readFileSync(path.join(WS, 'profile_h100.csv'), 'utf8')).files);
      for (const [kn, kernels, showRegions] of [['fixtures', many, false], ['profile', measured, true]] as const)
        for (const [pn, precisions] of [['default', undefined], ['every', everyPrecision(gpu)]] as const)
          for (const [sn, size] of SIZES) {
            const where = `${id}, ${kn}, ${pn} precisions, ${sn}`;
            const off = checkLabels(rooflineSpec(kernels, { gpu, precisions, showRegions, selectedId: kernels[0].id, ...size }), where);
            assert.equal(off.roofs, 0, `${where}: a roof without its label`);
            if (wide(sn) && pn === 'default') assert.deepEqual(off, nothingOff, `${where}: labels left off`);
          }
    });

  it('two GPUs compared: no two labels meet; every roof of both is labelled from the panel\'s first size up', async () => {
    for (const [a, b] of [
      ['h100-sxm', 'mi300x'],
      ['b200', 'h100-sxm'],
      ['mi300x', 'b200'],
      ['a100-sxm-80gb', 'h100-sxm'],
    ]) {
      const gpu = findGpu(a)!;
      const ws = await Promise.all(['softmax.py', 'layers.py', 'vector_add.cu', 'matmul.py'].map((f) => analyzeFile(path.join(WS, f), { gpu })));
      const kernels = chartKernels(ws);
      for (const [sn, size] of SIZES) {
        const where = `${a} vs ${b}, ${sn}`;
        const off = checkLabels(rooflineSpec(kernels, { gpu, compareGpu: findGpu(b)!, ...size }), where);
        if (sn !== 'page 510' && sn !== 'page 700') assert.equal(off.roofs, 0, `${where}: a roof without its label`);
      }
    }
  });
});
