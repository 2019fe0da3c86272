/**
 * The roofline chart spec: built purely from the analysis and the GPU; compiled
 * with Vega-Lite and rendered to SVG with Vega (headless) to prove it draws a
 * roof per precision and a dot per kernel, never above the roof.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chartKernels, rooflineSpec } from '../src/core/report/chart';
import { findGpu } from '../src/core/gpus/catalog';
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
    assert.equal(dots.length, kernels.filter((k) => k.ai !== null && k.attainable !== null).length);
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
    assert.equal((dram[0].y as number) / (dram[0].x as number), gpu.memoryBandwidth, 'on the DRAM line');
    // x spans 0.01…10^4 (6 decades), y 10^10…10^16 (6 decades) on a square: 45° up.
    const layer = (spec.layer as { name: string; mark: { angle: number } }[]).find((x) => x.name === 'dramLabels')!;
    assert.equal(layer.mark.angle, -45);
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
