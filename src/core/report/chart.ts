/**
 * The roofline chart as a Vega-Lite spec, built by a pure function from the
 * analysis and the GPU (the webview only renders it). Log-log axes: arithmetic
 * intensity (FLOP/B) against performance (FLOP/s).
 *
 *   roofs     one polyline per precision: DRAM slope up to its ridge, then flat;
 *             the L2 slope where the GPU's L2 bandwidth is known; each flat roof
 *             labelled at its right end, each slope along its line
 *   ridges    a point and a label at each precision's DRAM ridge
 *   kernels   a dot per kernel at (tile AI, attainable), coloured by bound,
 *             shaped by language; a hollow marker at the compulsory AI joined
 *             to it by a line (no reuse … perfect reuse)
 *
 * Each layer is named after its data set, so its marks are `<name>_marks`
 * (the webview finds clicked dots by it), and every dot carries a one-line
 * description that becomes its aria-label.
 */
import type { GpuSpec, TensorDtype, VectorDtype } from '../gpus/types';
import type { FileReport, KernelReport } from './types';
import { flopRate, intensity, percent, si } from './format';

export interface ChartKernel {
  /** Stable id: `path:line:name`. */
  id: string;
  name: string;
  path: string;
  line: number;
  language: string;
  unit: string;
  ai: number | null;
  compulsoryAi: number | null;
  attainable: number | null;
  peakFlops: number;
  peakLabel: string;
  bound: string;
  boundLevel: string | null;
  flopsPerUnit: number | null;
  bytesPerUnit: number | null;
  /**
   * Measured dots from an imported profile; `fromAi`/`fromFlops` is the
   * estimate of exactly that launch (its sizes from the profile), where the
   * dot's link starts instead of the kernel's own estimate.
   */
  measured?: { key: string; ai: number; flops: number; situation: string; fractionOfRoof: number | null; fromAi?: number; fromFlops?: number }[];
}

export interface ChartTheme {
  foreground: string;
  background: string;
  grid: string;
  memory: string;
  compute: string;
  unknown: string;
  roof: string;
  compareRoof: string;
  l2: string;
  font: string;
}

export const DEFAULT_THEME: ChartTheme = {
  foreground: '#333333',
  background: '#ffffff',
  grid: '#e5e5e5',
  memory: '#d1495b',
  compute: '#2e86ab',
  unknown: '#888888',
  roof: '#444444',
  compareRoof: '#b07aa1',
  l2: '#8c8c8c',
  font: 'sans-serif',
};

/** A precision whose roof is drawn: `tensor:bf16`, `vector:fp32`. */
export type PrecisionKey = `tensor:${TensorDtype}` | `vector:${VectorDtype}`;

export interface ChartOptions {
  gpu: GpuSpec;
  /** A second GPU whose roofs are overlaid (compare GPUs). */
  compareGpu?: GpuSpec;
  /** Roofs to draw; default: every precision that matters for the kernels plus the usual ones. */
  precisions?: PrecisionKey[];
  selectedId?: string;
  /** Shade the four regions (memory-/compute-bound on the roof, -intensive under it) when measured dots are shown. */
  showRegions?: boolean;
  theme?: Partial<ChartTheme>;
  width?: number;
  height?: number;
}

export function kernelId(path: string, k: Pick<KernelReport, 'line' | 'name'>): string {
  return `${path}:${k.line}:${k.name}`;
}

/** The chart's view of every kernel of the given files. */
export function chartKernels(files: FileReport[]): ChartKernel[] {
  const out: ChartKernel[] = [];
  for (const f of files)
    for (const k of f.kernels) {
      const bytes = k.perUnit.loadBytes !== null && k.perUnit.storeBytes !== null ? k.perUnit.loadBytes + k.perUnit.storeBytes : null;
      out.push({
        id: kernelId(f.path, k),
        name: k.name,
        path: f.path,
        line: k.line,
        language: f.language,
        unit: k.unit,
        ai: k.arithmeticIntensity,
        compulsoryAi: k.compulsoryIntensity,
        attainable: k.attainableFlops,
        peakFlops: k.peak.flops,
        peakLabel: `${k.peak.kind} ${k.peak.dtype}`,
        bound: k.bound,
        boundLevel: k.boundLevel,
        flopsPerUnit: k.perUnit.flops,
        bytesPerUnit: bytes,
        measured: (k.measured ?? [])
          .filter((m) => m.achievedIntensity !== null && m.achievedIntensity > 0 && m.achievedFlops !== null && m.achievedFlops > 0)
          .map((m) => {
            const e = m.launchEstimate;
            const from = e && e.arithmeticIntensity !== null && e.arithmeticIntensity > 0 && e.attainableFlops !== null && e.attainableFlops > 0 ? { fromAi: e.arithmeticIntensity, fromFlops: e.attainableFlops } : {};
            return { key: m.key, ai: m.achievedIntensity!, flops: m.achievedFlops!, situation: m.situation, fractionOfRoof: m.fractionOfRoof, ...from };
          }),
      });
    }
  return out;
}

const USUAL: PrecisionKey[] = ['tensor:fp8', 'tensor:bf16', 'tensor:fp16', 'tensor:tf32', 'vector:fp32', 'vector:fp64'];

interface RoofSpec {
  key: string;
  label: string;
  peak: number;
  ridge: number;
}

function roofsOf(gpu: GpuSpec, keys: PrecisionKey[]): RoofSpec[] {
  const out: RoofSpec[] = [];
  const seen = new Set<number>();
  for (const key of keys) {
    const [kind, dtype] = key.split(':') as ['tensor' | 'vector', string];
    const peak = kind === 'tensor' ? gpu.peaks.tensor[dtype as TensorDtype] : gpu.peaks.vector[dtype as VectorDtype];
    if (!peak || peak <= 0) continue;
    // fp16 and bf16 usually share a peak: one line, one label.
    const label = `${kind} ${dtype}`;
    if (seen.has(peak)) {
      const same = out.find((r) => r.peak === peak);
      if (same && !same.label.includes(dtype)) same.label += `/${dtype}`;
      continue;
    }
    seen.add(peak);
    out.push({ key, label, peak, ridge: peak / gpu.memoryBandwidth });
  }
  return out.sort((a, b) => b.peak - a.peak);
}

/** The roof most of `kernels` are judged against (the higher peak on a tie), or undefined without kernels. */
function regionRoof(kernels: ChartKernel[], bandwidth: number): { peak: number; ridge: number } | undefined {
  const counts = new Map<number, number>();
  for (const k of kernels) counts.set(k.peakFlops, (counts.get(k.peakFlops) ?? 0) + 1);
  const [peak] = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] ?? [];
  return peak === undefined ? undefined : { peak, ridge: peak / bandwidth };
}

/** Precisions worth drawing: the usual ones plus each kernel's own. */
export function defaultPrecisions(kernels: ChartKernel[]): PrecisionKey[] {
  const keys = new Set<PrecisionKey>(USUAL);
  for (const k of kernels) keys.add(k.peakLabel.replace(' ', ':') as PrecisionKey);
  return [...keys];
}

function pow10Floor(x: number): number {
  return Math.pow(10, Math.floor(Math.log10(x)));
}

function pow10Ceil(x: number): number {
  return Math.pow(10, Math.ceil(Math.log10(x)));
}

/** Builds the Vega-Lite spec. Pure and deterministic: golden-tested. */
export function rooflineSpec(kernels: ChartKernel[], opts: ChartOptions): Record<string, unknown> {
  const theme = { ...DEFAULT_THEME, ...opts.theme };
  const gpus = opts.compareGpu ? [opts.gpu, opts.compareGpu] : [opts.gpu];
  const keys = opts.precisions ?? defaultPrecisions(kernels);
  const ais = kernels.flatMap((k) => [k.ai, k.compulsoryAi]).filter((x): x is number => x !== null && x > 0 && Number.isFinite(x));
  const allRoofs = gpus.map((g) => roofsOf(g, keys));
  const ridges = allRoofs.flat().map((r) => r.ridge);
  const xmin = pow10Floor(Math.min(0.01, ...ais.map((x) => x / 2)));
  const xmax = pow10Ceil(Math.max(1000, ...ridges.map((r) => r * 4), ...ais.map((x) => x * 2)));
  const peaks = allRoofs.flat().map((r) => r.peak);
  const ymax = pow10Ceil(Math.max(...peaks, 1e9) * 2);
  const minBw = Math.min(...gpus.map((g) => g.memoryBandwidth));
  const ymin = pow10Floor(Math.max(1e6, minBw * xmin));

  const width = opts.width ?? 640;
  const height = opts.height ?? 400;
  // The bandwidth slopes are labelled along their lines near the left edge, rotated to their angle on screen.
  const slopeX = xmin * Math.pow(xmax / xmin, 0.03);
  const slopeAngle = -Math.round((Math.atan(height / Math.log10(ymax / ymin) / (width / Math.log10(xmax / xmin))) * 1800) / Math.PI) / 10;
  const roofPoints: Record<string, unknown>[] = [];
  const ridgePoints: Record<string, unknown>[] = [];
  const slopeLabels: Record<string, unknown>[] = [];
  gpus.forEach((g, gi) => {
    const gpuLabel = gpus.length > 1 ? `${g.name}: ` : '';
    for (const r of allRoofs[gi]) {
      const series = `${g.id} ${r.key}`;
      const label = `${gpuLabel}${r.label} ${flopRate(r.peak)}`;
      roofPoints.push(
        { series, gpu: g.id, compare: gi > 0, level: 'dram', label, x: xmin, y: g.memoryBandwidth * xmin, order: 0 },
        { series, gpu: g.id, compare: gi > 0, level: 'dram', label, x: r.ridge, y: r.peak, order: 1 },
        { series, gpu: g.id, compare: gi > 0, level: 'dram', label, x: xmax, y: r.peak, order: 2, end: true },
      );
      ridgePoints.push({ gpu: g.id, compare: gi > 0, x: r.ridge, y: r.peak, text: `ridge ${intensity(r.ridge)}` });
    }
    if (g.l2Bandwidth && allRoofs[gi].length) {
      const top = allRoofs[gi][0].peak;
      const series = `${g.id} l2`;
      const label = `${gpuLabel}L2 ${si(g.l2Bandwidth, 'B/s')}`;
      roofPoints.push(
        { series, gpu: g.id, compare: gi > 0, level: 'l2', label, x: xmin, y: g.l2Bandwidth * xmin, order: 0 },
        { series, gpu: g.id, compare: gi > 0, level: 'l2', label, x: top / g.l2Bandwidth, y: top, order: 1 },
      );
      slopeLabels.push({ compare: gi > 0, level: 'l2', x: slopeX, y: g.l2Bandwidth * slopeX, text: label });
    }
    slopeLabels.push({ compare: gi > 0, level: 'dram', x: slopeX, y: g.memoryBandwidth * slopeX, text: `${gpuLabel}DRAM ${si(g.memoryBandwidth, 'B/s')}` });
  });

  const dots: Record<string, unknown>[] = [];
  const ranges: Record<string, unknown>[] = [];
  const measuredDots: Record<string, unknown>[] = [];
  const measuredLinks: Record<string, unknown>[] = [];
  for (const k of kernels) {
    // A kernel without its own estimate still shows the measured launches that have theirs.
    const own = k.ai !== null && k.attainable !== null && k.ai > 0 && k.attainable > 0;
    if (!own && !(k.measured ?? []).some((m) => m.fromAi !== undefined)) continue;
    const common = {
      id: k.id,
      name: k.name,
      file: `${k.path}:${k.line}`,
      language: k.language,
      bound: k.bound === 'memory' ? `memory-bound${k.boundLevel ? ` (${k.boundLevel.toUpperCase()})` : ''}` : k.bound === 'compute' ? 'compute-bound' : 'unknown',
      boundKind: k.bound,
      attainableText: k.attainable === null ? '?' : flopRate(k.attainable),
      ofPeak: k.attainable === null ? '?' : percent(k.attainable / k.peakFlops),
      peak: `${k.peakLabel} ${flopRate(k.peakFlops)}`,
      perUnit: `${si(k.flopsPerUnit, 'FLOP')} / ${si(k.bytesPerUnit, 'B')} per ${k.unit}`,
      selected: k.id === opts.selectedId,
    };
    if (own) dots.push({ ...common, x: k.ai, y: k.attainable, aiText: intensity(k.ai), kind: 'tile', description: `${k.name}: tile intensity ${intensity(k.ai)} FLOP/B, attainable ${common.attainableText}, ${common.bound}` });
    for (const m of k.measured ?? []) {
      if (!own && m.fromAi === undefined) continue;
      measuredDots.push({
        ...common,
        x: m.ai,
        y: m.flops,
        aiText: intensity(m.ai),
        kind: 'measured',
        situation: m.situation,
        attainableText: flopRate(m.flops),
        ofPeak: percent(m.flops / k.peakFlops),
        ofRoof: m.fractionOfRoof === null ? '?' : percent(m.fractionOfRoof),
        description: `${k.name}: measured ${flopRate(m.flops)} at ${intensity(m.ai)} FLOP/B, ${m.situation}`,
      });
      measuredLinks.push({ id: `${k.id}|${m.key}`, x: m.fromAi ?? k.ai, y: m.fromFlops ?? k.attainable, order: 0 }, { id: `${k.id}|${m.key}`, x: m.ai, y: m.flops, order: 1 });
    }
    if (own && k.compulsoryAi !== null && k.compulsoryAi > 0 && Number.isFinite(k.compulsoryAi)) {
      dots.push({ ...common, x: k.compulsoryAi, y: k.attainable, aiText: intensity(k.compulsoryAi), kind: 'compulsory', description: `${k.name}: compulsory intensity ${intensity(k.compulsoryAi)} FLOP/B` });
      ranges.push({ id: k.id, x: k.ai, y: k.attainable, order: 0 }, { id: k.id, x: k.compulsoryAi, y: k.attainable, order: 1 });
    }
  }

  const x = {
    field: 'x',
    type: 'quantitative',
    scale: { type: 'log', domain: [xmin, xmax], nice: false },
    axis: { title: 'arithmetic intensity (FLOP/B)', format: '~g', grid: true, tickCount: Math.round(Math.log10(xmax / xmin)) },
  };
  const y = {
    field: 'y',
    type: 'quantitative',
    scale: { type: 'log', domain: [ymin, ymax], nice: false },
    axis: { title: 'performance (FLOP/s)', labelExpr: "format(datum.value, '.0s') + 'FLOP/s'", grid: true, tickCount: Math.round(Math.log10(ymax / ymin)) },
  };
  const colorScale = {
    domain: ['memory', 'compute', 'unknown'],
    range: [theme.memory, theme.compute, theme.unknown],
  };
  const shapeScale = { domain: ['triton', 'cuda', 'wgsl'], range: ['circle', 'square', 'triangle-up'] };
  const tooltip = [
    { field: 'name', title: 'kernel' },
    { field: 'file', title: 'at' },
    { field: 'aiText', title: 'AI (FLOP/B)' },
    { field: 'kind', title: 'intensity' },
    { field: 'attainableText', title: 'attainable' },
    { field: 'ofPeak', title: '% of peak' },
    { field: 'bound', title: 'bound' },
    { field: 'peak', title: 'peak' },
    { field: 'perUnit', title: 'work' },
  ];

  const layers: Record<string, unknown>[] = [];
  if (opts.showRegions && measuredDots.length && allRoofs[0].length) {
    // Under the roof of the measured kernels' precision (the one most of them use; the higher
    // peak on a tie), as the measured situations are judged: memory side left of its ridge,
    // compute side right of it; the band within 70 % of the roof is "on the roof" (…-bound),
    // below it "…-intensive".
    const bw = opts.gpu.memoryBandwidth;
    const top = regionRoof(kernels.filter((k) => (k.measured ?? []).length > 0), bw) ?? allRoofs[0][0];
    const band = 0.7;
    // Fill, not colour: a scale of its own, so the kernels' colour legend keeps its title.
    const regionFill = { field: 'region', type: 'nominal', scale: { domain: ['memory', 'compute'], range: [theme.memory, theme.compute] }, legend: null };
    const regions: Record<string, unknown>[] = [];
    const steps = 24;
    for (let i = 0; i <= steps; i++) {
      const xv = xmin * Math.pow(top.ridge / xmin, i / steps);
      regions.push({ region: 'memory', x: xv, y: bw * xv, y2: bw * xv * band, ylow: ymin });
    }
    regions.push({ region: 'compute', x: top.ridge, y: top.peak, y2: top.peak * band, ylow: ymin }, { region: 'compute', x: xmax, y: top.peak, y2: top.peak * band, ylow: ymin });
    layers.push(
      {
        name: 'regionsOnRoof',
        data: { name: 'regionsOnRoof', values: regions },
        mark: { type: 'area', opacity: 0.12, clip: true },
        encoding: { x, y: { ...y, field: 'y2' }, y2: { field: 'y' }, fill: regionFill, detail: { field: 'region' } },
      },
      {
        name: 'regionsBelow',
        data: { name: 'regionsBelow', values: regions },
        mark: { type: 'area', opacity: 0.05, clip: true },
        encoding: { x, y: { ...y, field: 'ylow' }, y2: { field: 'y2' }, fill: regionFill, detail: { field: 'region' } },
      },
      {
        name: 'regionLabels',
        data: {
          name: 'regionLabels',
          values: [
            { x: Math.sqrt(xmin * top.ridge), y: bw * Math.sqrt(xmin * top.ridge) * 0.85, text: 'memory-bound' },
            { x: Math.sqrt(xmin * top.ridge), y: bw * Math.sqrt(xmin * top.ridge) * 0.2, text: 'memory-intensive' },
            { x: Math.sqrt(top.ridge * xmax), y: top.peak * 0.85, text: 'compute-bound' },
            { x: Math.sqrt(top.ridge * xmax), y: top.peak * 0.2, text: 'compute-intensive' },
          ],
        },
        mark: { type: 'text', fontSize: 10, fontStyle: 'italic', opacity: 0.7 },
        encoding: { x, y, text: { field: 'text' }, color: { value: theme.foreground } },
      },
    );
  }

  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: `Roofline of ${opts.gpu.name}${opts.compareGpu ? ` vs ${opts.compareGpu.name}` : ''}`,
    width,
    height,
    background: theme.background,
    config: {
      font: theme.font,
      axis: { labelColor: theme.foreground, titleColor: theme.foreground, gridColor: theme.grid, domainColor: theme.foreground, tickColor: theme.foreground },
      legend: { labelColor: theme.foreground, titleColor: theme.foreground },
      text: { color: theme.foreground },
      view: { stroke: null },
    },
    layer: [
      ...layers,
      {
        name: 'roofs',
        data: { name: 'roofs', values: roofPoints },
        mark: { type: 'line', clip: true },
        encoding: {
          x,
          y,
          detail: { field: 'series' },
          order: { field: 'order' },
          color: { condition: { test: "datum.level === 'l2'", value: theme.l2 }, value: theme.roof },
          strokeDash: { condition: { test: 'datum.compare', value: [6, 3] }, value: [1, 0] },
          strokeWidth: { value: 1.5 },
          opacity: { condition: { test: 'datum.compare', value: 0.8 }, value: 1 },
        },
      },
      {
        name: 'roofLabels',
        data: { name: 'roofLabels', values: roofPoints.filter((p) => p.end) },
        mark: { type: 'text', align: 'right', baseline: 'bottom', dy: -3, dx: -4, fontSize: 10, clip: true },
        encoding: { x, y, text: { field: 'label' }, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.foreground } },
      },
      {
        name: 'ridges',
        data: { name: 'ridges', values: ridgePoints },
        mark: { type: 'point', filled: true, size: 30 },
        encoding: { x, y, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.roof } },
      },
      {
        name: 'l2Labels',
        data: { name: 'l2Labels', values: slopeLabels.filter((l) => l.level === 'l2') },
        mark: { type: 'text', align: 'left', baseline: 'bottom', dy: -2, angle: slopeAngle, fontSize: 10, clip: true },
        encoding: { x, y, text: { field: 'text' }, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.l2 } },
      },
      {
        name: 'dramLabels',
        data: { name: 'dramLabels', values: slopeLabels.filter((l) => l.level === 'dram') },
        mark: { type: 'text', align: 'left', baseline: 'top', dy: 2, angle: slopeAngle, fontSize: 10, clip: true },
        encoding: { x, y, text: { field: 'text' }, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.foreground } },
      },
      {
        name: 'ridgeLabels',
        data: { name: 'ridgeLabels', values: ridgePoints },
        // Above-left of the ridge point: the corner between the slope and the roof holds nothing else.
        mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -5, dy: -2, fontSize: 10 },
        encoding: { x, y, text: { field: 'text' }, color: { value: theme.foreground } },
      },
      {
        name: 'ranges',
        data: { name: 'ranges', values: ranges },
        mark: { type: 'line', strokeDash: [2, 2] },
        encoding: { x, y, detail: { field: 'id' }, order: { field: 'order' }, color: { value: theme.unknown } },
      },
      {
        name: 'measuredLinks',
        data: { name: 'measuredLinks', values: measuredLinks },
        mark: { type: 'line', strokeDash: [1, 3] },
        encoding: { x, y, detail: { field: 'id' }, order: { field: 'order' }, color: { value: theme.foreground } },
      },
      {
        name: 'measured',
        data: { name: 'measured', values: measuredDots },
        mark: { type: 'point', shape: 'diamond', filled: false, size: 110, strokeWidth: 2, cursor: 'pointer' },
        encoding: {
          x,
          y,
          color: { value: theme.foreground },
          description: { field: 'description' },
          tooltip: [
            { field: 'name', title: 'kernel (measured)' },
            { field: 'file', title: 'at' },
            { field: 'aiText', title: 'measured AI (FLOP/B)' },
            { field: 'attainableText', title: 'achieved' },
            { field: 'ofRoof', title: 'of the roof' },
            { field: 'situation', title: 'situation' },
          ],
        },
      },
      {
        name: 'kernels',
        data: { name: 'kernels', values: dots },
        mark: { type: 'point', filled: true, size: 90, cursor: 'pointer' },
        encoding: {
          x,
          y,
          color: { field: 'boundKind', type: 'nominal', scale: colorScale, legend: { title: 'bound' } },
          stroke: { field: 'boundKind', type: 'nominal', scale: colorScale },
          shape: { field: 'language', type: 'nominal', scale: shapeScale, legend: { title: 'language', symbolFillColor: theme.foreground, symbolStrokeColor: theme.foreground } },
          fillOpacity: { condition: { test: "datum.kind === 'compulsory'", value: 0 }, value: 1 },
          size: { condition: { test: 'datum.selected', value: 220 }, value: 90 },
          strokeWidth: { condition: { test: 'datum.selected', value: 3.5 }, value: 1.5 },
          description: { field: 'description' },
          tooltip,
        },
      },
    ],
  };
}
