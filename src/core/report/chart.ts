/**
 * The roofline chart as a Vega-Lite spec, built by a pure function from the
 * analysis and the GPU (the webview only renders it). Log-log axes: arithmetic
 * intensity (FLOP/B) against performance (FLOP/s).
 *
 *   roofs     one polyline per precision: DRAM slope up to its ridge, then flat;
 *             the L2 slope where the GPU's L2 bandwidth is known; the roofs of
 *             the kernels' own precisions drawn heavier, the others as context
 *   ridges    a point at each precision's DRAM ridge
 *   labels    each flat roof (its precision and peak), each ridge point, each
 *             slope (along its line) and each shaded region, laid out here in
 *             the plot's pixels so that no two meet (chartLabels.ts): a roof's
 *             label goes on its flat part as far right as it can, above the
 *             line, else on it, else below, else left of its ridge point, in a
 *             shorter form if need be; never nearer to another roof or ridge
 *             point than to its own; a label that fits nowhere is left off
 *             (the roof's and the ridge point's tooltips still say it all)
 *   kernels   a dot per kernel at (tile AI, attainable), coloured by bound,
 *             shaped by language; a hollow marker at the compulsory AI joined
 *             to it by a line (no reuse … perfect reuse)
 *
 * Each layer is named after its data set, so its marks are `<name>_marks`
 * (the webview finds clicked dots by it), and every dot carries a one-line
 * description that becomes its aria-label.
 */
import type { GpuSpec, TensorDtype, VectorDtype } from '../gpus/types';
import type { BoundKind, FileReport, KernelReport, PipelineReport } from './types';
import { bytes, flopRate, intensity, percent, seconds, si } from './format';
import { boundsSentence, incompleteText, sizeFreeLabel, sizeLabel, wholeKernel } from './honesty';
import { fusionWhatIf, pipelineId } from './pipelineView';
import { DEFAULT_THEME, type ChartTheme } from './chartTheme';
import { LogScale, placeLabels, textQuad, type Align, type Baseline, type Candidate, type LabelRequest, type Obstacles, type Point, type Quad } from './chartLabels';

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
  /**
   * When the counts are symbolic only because of loop trips: the dominant
   * loop's intensity per iteration and the roofline at it (COUNTING.md,
   * "Honesty"). Drawn hollow and marked "steady state"; never the full count.
   */
  steady?: {
    ai: number;
    /** The compulsory intensity's limit as the symbols grow, when the other sizes are known. */
    compulsoryAi: number | null;
    attainable: number;
    bound: 'memory' | 'compute';
    boundLevel: 'dram' | 'l2' | null;
    loopLine: number;
    loopLabel: string;
    /** The unbound symbols it does not depend on (`K`): binding them gives the full count. */
    independentOf: string[];
    /** The whole kernel's intensity tends to this value as the symbols grow. */
    limit: boolean;
  };
  /**
   * An incomplete kernel (`complete: false`): which way its intensity may be
   * off (`lower`: the true point lies further right), what it could not
   * count (`incomplete: 2 unknown calls`) and what that does to the numbers.
   */
  incomplete?: { ai: BoundKind; text: string; sentence: string };
  /**
   * The unbound sizes the intensity does not depend on (`scope: 'kernel'`):
   * the dot is the kernel's exact intensity; only its FLOPs and bytes need them.
   */
  sizeFree?: string[];
  /** What the dot holds for: `the same for any BLOCK`, or `0.25–0.255 for any BLOCK ≥ 16` (a range over the sizes). */
  sizeLabel?: string;
}

/** A pipeline's own point (docs/pipelines.md): total FLOPs ÷ total compulsory bytes, at total FLOPs ÷ total T_lower. */
export interface ChartPipeline {
  /** `pipeline:path:line:name`. */
  id: string;
  name: string;
  path: string;
  line: number;
  launches: number;
  /** Launches with numbers (× repeat). */
  resolved: number;
  flops: number;
  compulsoryBytes: number;
  /** Σ T_lower of the launches (seconds). */
  lower: number;
  memoryBoundShare: number | null;
  /** False when a launch has no numbers or is incomplete: FLOPs and bytes are then both lower bounds, the point is not known. */
  complete: boolean;
  /** With the fusion pairs chosen in the panel (a what-if and a bound): its point moves there. */
  fused?: { pairs: number; compulsoryBytes: number; lower: number; bytesSaved: number; saving: number };
}

export { DEFAULT_THEME, type ChartTheme } from './chartTheme';

/** A precision whose roof is drawn: `tensor:bf16`, `vector:fp32`. */
export type PrecisionKey = `tensor:${TensorDtype}` | `vector:${VectorDtype}`;

export interface ChartOptions {
  gpu: GpuSpec;
  /** A second GPU whose roofs are overlaid (compare GPUs). */
  compareGpu?: GpuSpec;
  /** Roofs to draw; default: every precision that matters for the kernels plus the usual ones. */
  precisions?: PrecisionKey[];
  selectedId?: string;
  /** Pipelines whose own points are drawn beside the kernels (chartPipelines). */
  pipelines?: ChartPipeline[];
  /** The pipeline shown in the panel's pipeline view: its point is drawn larger. */
  selectedPipelineId?: string;
  /** Shade the four regions (memory-/compute-bound on the roof, -intensive under it) when measured dots are shown. */
  showRegions?: boolean;
  theme?: Partial<ChartTheme>;
  /** The plot's size in pixels (axes and legend come on top); default 640 × 400. */
  width?: number;
  height?: number;
  /** Where the legends go; default right. */
  legend?: 'right' | 'bottom';
}

/** Pages narrower than this get the legends under the plot: beside it, they would take a fifth of its width. */
const LEGEND_BELOW_PAGE = 900;

/**
 * The chart's size for a page `pageWidth` pixels wide (the webview's
 * body.clientWidth, padding included), and where its legends go. Around the
 * plot come the page's padding and the y axis with its title (~140 px), and
 * legends on the right (~50 px more).
 */
export function chartSize(pageWidth: number): { width: number; height: number; legend: 'right' | 'bottom' } {
  const legend = pageWidth < LEGEND_BELOW_PAGE ? 'bottom' : 'right';
  const width = Math.max(320, Math.min(1400, pageWidth - (legend === 'right' ? 190 : 140)));
  // At least 300 px tall: roofs a factor of 2 apart (fp8, fp16, tf32) then lie 15 px apart over six decades, room for a label between each.
  return { width, height: Math.max(300, Math.min(680, Math.round(width * 0.58))), legend };
}

export function kernelId(path: string, k: Pick<KernelReport, 'line' | 'name'>): string {
  return `${path}:${k.line}:${k.name}`;
}

function steadyOf(k: KernelReport): ChartKernel['steady'] {
  const s = k.arithmeticIntensitySteady;
  // The full count wins: a bound K gives the kernel its own intensity.
  // An intensity the unbound sizes cancel out of is exact: drawn as the kernel's own dot (sizeFree), not a steady state.
  if (!s || k.arithmeticIntensity !== null || wholeKernel(s)) return undefined;
  return {
    ai: s.value,
    compulsoryAi: s.compulsory,
    attainable: s.attainableFlops,
    bound: s.bound,
    boundLevel: s.boundLevel,
    loopLine: s.loopLine,
    loopLabel: s.loopLabel,
    independentOf: [...s.independentOf],
    limit: s.limit,
  };
}

function incompleteOf(k: KernelReport): ChartKernel['incomplete'] {
  if (k.complete) return undefined;
  return { ai: k.bounds?.arithmeticIntensity ?? 'unknown', text: incompleteText(k), sentence: boundsSentence(k) };
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
      const steady = steadyOf(k);
      const incomplete = incompleteOf(k);
      if (steady) out[out.length - 1].steady = steady;
      if (incomplete) out[out.length - 1].incomplete = incomplete;
      const s = k.arithmeticIntensitySteady;
      if (s && wholeKernel(s) && k.arithmeticIntensity === null)
        Object.assign(out[out.length - 1], { ai: s.value, compulsoryAi: s.compulsory, attainable: s.attainableFlops, bound: s.bound, boundLevel: s.boundLevel, sizeFree: [...s.independentOf], sizeLabel: sizeLabel(s) });
    }
  return out;
}

/**
 * The chart's view of the files' pipelines; `fused` gives, by pipeline id,
 * the fusion pairs chosen (their first launch's index), whose what-if moves
 * the pipeline's point.
 */
export function chartPipelines(files: FileReport[], fused: Readonly<Record<string, readonly number[]>> = {}): ChartPipeline[] {
  const out: ChartPipeline[] = [];
  for (const f of files)
    for (const p of f.pipelines ?? []) {
      const id = pipelineId(f.path, p);
      const t = p.total;
      const chart: ChartPipeline = {
        id,
        name: p.name,
        path: f.path,
        line: p.line,
        launches: t.launches,
        resolved: t.resolved,
        flops: t.flops,
        compulsoryBytes: t.compulsoryBytes,
        lower: t.time.lower ?? 0,
        memoryBoundShare: t.memoryBoundShare,
        complete: t.complete,
      };
      const chosen = Object.hasOwn(fused, id) ? fused[id] : [];
      if (chosen.length) {
        const w = fusionWhatIf(p, chosen);
        if (w.applied.length) chart.fused = { pairs: w.applied.length, compulsoryBytes: w.compulsoryAfter, lower: w.lowerAfter, bytesSaved: w.bytesSaved, saving: w.saving };
      }
      out.push(chart);
    }
  return out;
}

/** Why a pipeline has no point on the chart, or undefined when it has one. */
export function pipelineOffChart(p: Pick<PipelineReport, 'total'> | ChartPipeline): string | undefined {
  const t = 'total' in p ? p.total : { complete: p.complete, resolved: p.resolved, launches: p.launches, flops: p.flops, compulsoryBytes: p.compulsoryBytes, time: { lower: p.lower } };
  if (t.resolved === 0) return 'no launch has numbers';
  if (!t.complete)
    return t.resolved < t.launches
      ? `${t.launches - t.resolved} of ${t.launches} launches have no numbers, so its FLOPs and bytes are both lower bounds and its intensity is not known`
      : 'a launch is incomplete, so its FLOPs and bytes are lower bounds and its intensity is not known';
  if (!(t.flops > 0) || !(t.compulsoryBytes > 0) || !((t.time.lower ?? 0) > 0)) return 'it has no FLOPs or no bytes';
  return undefined;
}

const USUAL: PrecisionKey[] = ['tensor:fp8', 'tensor:bf16', 'tensor:fp16', 'tensor:tf32', 'vector:fp32', 'vector:fp64'];

interface RoofSpec {
  key: string;
  /** Every precision drawn by this roof (fp16 and bf16 usually share one). */
  keys: string[];
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
      if (same) same.keys.push(key);
      if (same && !same.label.includes(dtype)) same.label += `/${dtype}`;
      continue;
    }
    seen.add(peak);
    out.push({ key, keys: [key], label, peak, ridge: peak / gpu.memoryBandwidth });
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

/** A five-pointed star (Vega's shapes are paths in a unit square): a pipeline's point. */
const STAR = 'M0,-1L0.2245,-0.309L0.9511,-0.309L0.3633,0.118L0.5878,0.809L0,0.382L-0.5878,0.809L-0.3633,0.118L-0.9511,-0.309L-0.2245,-0.309Z';

/** How far (px) the caret of a bound sits from its dot's centre: just outside the dot. */
function caretOffset(selected: boolean): number {
  return selected ? 14 : 11;
}

/** Font size of every label drawn in the plot. */
const LABEL_FONT_SIZE = 10;

/** A roof as the layout sees it. */
interface RoofEntry {
  gi: number;
  roof: RoofSpec;
  /** One of the kernels' own precisions (every roof is when there are no kernels). */
  relevant: boolean;
  label: string;
  /** The label, then shorter forms for when it fits nowhere: the peak's unit shortened (`1.98P`), then (a compared GPU's roofs, told apart by colour and dashes) without the GPU's name. */
  texts: string[];
}

/** A bandwidth slope, from the plot's left edge to where it meets its GPU's highest roof. */
interface SlopeEntry {
  gi: number;
  level: 'dram' | 'l2';
  text: string;
  from: Point;
  to: Point;
}

/** The four region labels' geometry (with measured dots). */
interface RegionGeometry {
  /** The memory side's slope at the plot's left edge, and the ridge and roof in pixels. */
  slopeFrom: Point;
  ridge: Point;
  /** The pixel depth of the band "on the roof" (within 70 % of it). */
  band: number;
}

/** Distance from `p` to the nearest point of an axis-aligned box (corners 0 and 2 opposite). */
function distanceToBox(p: Point, q: Quad): number {
  const dx = Math.max(Math.min(q[0].x, q[2].x) - p.x, 0, p.x - Math.max(q[0].x, q[2].x));
  const dy = Math.max(Math.min(q[0].y, q[2].y) - p.y, 0, p.y - Math.max(q[0].y, q[2].y));
  return Math.hypot(dx, dy);
}

/** Distance from a roof (flat from its ridge point (x0, y) rightwards) to an axis-aligned box: vertical where the roof runs under the box, else to the ridge point. */
function distanceToRoof(roof: { y: number; x0: number }, q: Quad): number {
  if (Math.max(q[0].x, q[2].x) <= roof.x0) return distanceToBox({ x: roof.x0, y: roof.y }, q);
  return Math.max(Math.min(q[0].y, q[2].y) - roof.y, 0, roof.y - Math.max(q[0].y, q[2].y));
}

/**
 * Candidate places for a roof's label: on its flat part, as far right as it
 * can be; just above the line, else centred on it (the halo cuts the line),
 * else just below.
 */
function roofCandidates(own: { y: number; x0: number }, others: { y: number; x0: number }[], width: number, w: number, h: number): Candidate[] {
  const out: Candidate[] = [];
  const sides: [Baseline, number, number][] = [
    ['bottom', own.y - 3, 0],
    ['middle', own.y, 4],
    ['top', own.y + 3, 6],
  ];
  for (const [baseline, ay, sideCost] of sides)
    for (let shift = 0; ; shift += 6) {
      const right = width - 3 - shift;
      const left = right - w;
      // The label stays beside its own line: it may overhang the ridge, but not leave the flat part.
      if (left < 1 || right < own.x0 + Math.min(w, 3 * h)) break;
      out.push({ x: right, y: ay, align: 'right', baseline, angle: 0, dx: 0, dy: 0, cost: sideCost + shift * 0.08 + Math.max(0, own.x0 - left) * 0.1 });
    }
  // Failing those, just left of where the roof starts (its ridge point), in line with it.
  out.push(
    { x: own.x0 - 7, y: own.y, align: 'right', baseline: 'middle', angle: 0, dx: 0, dy: 0, cost: 14 },
    { x: own.x0 - 4, y: own.y - 3, align: 'right', baseline: 'bottom', angle: 0, dx: 0, dy: 0, cost: 16 },
  );
  // Roofs a few pixels apart (tensor fp8 / bf16 / tf32 on a narrow page) stagger their labels
  // further left along their own line, so each is still read beside its roof.
  // A label in line with its roof (centred on the line's height) reads as that roof's as long
  // as no other roof passes within its height.
  const inLine: Candidate[] = [];
  for (let shift = 6; own.x0 - 7 - shift - w >= 1; shift += 6)
    inLine.push({ x: own.x0 - 7 - shift, y: own.y, align: 'right', baseline: 'middle', angle: 0, dx: 0, dy: 0, cost: 60 + shift * 0.08 });
  // Nearer to another roof than to its own, a reader would pair it wrongly: not a place for it.
  // (Roofs less than a pixel and a half apart, two GPUs' that all but coincide, are one line to a reader.)
  const apart = others.filter((o) => Math.abs(o.y - own.y) >= 1.5);
  return out.filter((c) => {
    const q = textQuad(c, w, h);
    const mine = distanceToRoof(own, q);
    return !apart.some((o) => distanceToRoof(o, q) < mine);
  }).concat(inLine.filter(() => !apart.some((o) => Math.abs(o.y - own.y) < h)));
}

/** How far around a ridge point its label may go (× the nearest offsets), and what each ring costs. */
const RIDGE_RINGS: [number, number][] = [
  [1, 0],
  [2.5, 6],
  [4, 12],
];
/** A pipeline's star is larger than a ridge point: its label starts further out. */
const STAR_RINGS: [number, number][] = [
  [2.2, 0],
  [3.5, 6],
  [5, 12],
];

/** Candidate places for a ridge point's label: around the point, nearest first (above-left, where the slope and the roof leave a corner free). */
function ridgeCandidates(p: Point, others: Point[], w: number, h: number, rings: [number, number][] = RIDGE_RINGS): Candidate[] {
  const around: [Align, Baseline, number, number, number][] = [
    ['right', 'bottom', -4, -3, 0],
    ['right', 'middle', -6, 0, 1],
    ['center', 'bottom', 0, -5, 2],
    ['left', 'top', 4, 3, 2],
    ['left', 'bottom', 4, -3, 3],
    ['right', 'top', -4, 3, 4],
    ['center', 'top', 0, 5, 4],
    ['left', 'middle', 6, 0, 4],
  ];
  const out: Candidate[] = [];
  for (const [ring, ringCost] of rings)
    for (const [align, baseline, dx, dy, cost] of around) {
      const c: Candidate = { x: p.x + dx * ring, y: p.y + dy * ring, align, baseline, angle: 0, dx: 0, dy: 0, cost: cost + ringCost };
      const q = textQuad(c, w, h);
      const mine = distanceToBox(p, q);
      // Nearer to another ridge point than to its own, it would name the wrong one.
      if (!others.some((o) => distanceToBox(o, q) <= mine)) out.push(c);
    }
  return out;
}

/** Candidate places for a slope's label: along the line from its left end, on its preferred side, else the other. */
function slopeCandidates(s: SlopeEntry, angle: number, w: number): Candidate[] {
  const length = Math.hypot(s.to.x - s.from.x, s.to.y - s.from.y);
  const ux = (s.to.x - s.from.x) / length;
  const uy = (s.to.y - s.from.y) / length;
  const a = (angle * Math.PI) / 180;
  // L2 above its line, DRAM below (as drawn since the first version): 2 px off the line, across it.
  const sides: [Baseline, number, number][] =
    s.level === 'l2'
      ? [
          ['bottom', -2, 0],
          ['top', 2, 4],
        ]
      : [
          ['top', 2, 0],
          ['bottom', -2, 4],
        ];
  const out: Candidate[] = [];
  for (const [baseline, off, sideCost] of sides)
    for (let d = Math.min(12, length * 0.03); d + w <= length - 4; d += 6) {
      const x = s.from.x + ux * d - off * Math.sin(a);
      const y = s.from.y + uy * d + off * Math.cos(a);
      out.push({ x, y, align: 'left', baseline, angle, dx: 0, dy: 0, cost: sideCost + d * 0.05 });
    }
  return out;
}

/** Candidate places for a region's label: inside its region, below its slope or roof ("…-bound" just below, "…-intensive" deeper). */
function regionCandidates(g: RegionGeometry, width: number, height: number, side: 'memory' | 'compute', deep: boolean, w: number, h: number): Candidate[] {
  const out: Candidate[] = [];
  const x0 = side === 'memory' ? 2 : g.ridge.x + 2;
  const x1 = side === 'memory' ? g.ridge.x - 2 : width - 2;
  if (x1 - x0 < w) return out;
  // Where the region's upper edge is at pixel x: the slope (memory) or the roof (compute).
  const edge = (x: number): number => (side === 'memory' ? g.slopeFrom.y + ((g.ridge.y - g.slopeFrom.y) / g.ridge.x) * x : g.ridge.y);
  for (const f of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9]) {
    const cx = x0 + w / 2 + (x1 - x0 - w) * f;
    const below = edge(cx - w / 2) + 3;
    const first = deep ? below + Math.max(g.band, h) + 4 : below;
    for (let k = 0; k < 8; k++) {
      const top = first + k * (h / 2);
      if (top + h > height - 2) break;
      out.push({ x: cx, y: top, align: 'center', baseline: 'top', angle: 0, dx: 0, dy: 0, cost: Math.abs(f - 0.5) * 20 + k * 1.5 });
    }
  }
  return out;
}

/** Builds the Vega-Lite spec. Pure and deterministic: golden-tested. */
export function rooflineSpec(kernels: ChartKernel[], opts: ChartOptions): Record<string, unknown> {
  const theme = { ...DEFAULT_THEME, ...opts.theme };
  const gpus = opts.compareGpu ? [opts.gpu, opts.compareGpu] : [opts.gpu];
  const keys = opts.precisions ?? defaultPrecisions(kernels);
  const pipelines = (opts.pipelines ?? []).filter((p) => pipelineOffChart(p) === undefined);
  const ais = [
    ...kernels.flatMap((k) => [k.ai, k.compulsoryAi, k.steady?.ai ?? null, k.steady?.compulsoryAi ?? null]),
    ...pipelines.flatMap((p) => [p.flops / p.compulsoryBytes, p.fused ? p.flops / p.fused.compulsoryBytes : null]),
  ].filter((x): x is number => x !== null && x > 0 && Number.isFinite(x));
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
  // The plot's pixels, as Vega-Lite maps the domains (no nice, no padding): the labels are laid out in them.
  const xs = new LogScale([xmin, xmax], [0, width]);
  const ys = new LogScale([ymin, ymax], [height, 0]);
  const at = (x: number, y: number): Point => ({ x: xs.px(x), y: ys.px(y) });
  // The bandwidth slopes are labelled along their lines, rotated to their angle on screen.
  const slopeAngle = -Math.round((Math.atan(height / Math.log10(ymax / ymin) / (width / Math.log10(xmax / xmin))) * 1800) / Math.PI) / 10;
  const used = new Set(kernels.map((k) => k.peakLabel.replace(' ', ':')));
  const roofs: RoofEntry[] = [];
  const slopes: SlopeEntry[] = [];
  const roofPoints: Record<string, unknown>[] = [];
  const ridgePoints: Record<string, unknown>[] = [];
  gpus.forEach((g, gi) => {
    const gpuLabel = gpus.length > 1 ? `${g.name}: ` : '';
    for (const r of allRoofs[gi]) {
      const series = `${g.id} ${r.key}`;
      const label = `${gpuLabel}${r.label} ${flopRate(r.peak)}`;
      const relevant = used.size === 0 || r.keys.some((k) => used.has(k));
      const tip = `${label}, ridge ${intensity(r.ridge)} FLOP/B`;
      const common = { series, gpu: g.id, compare: gi > 0, relevant, level: 'dram', label, tip };
      roofPoints.push(
        { ...common, x: xmin, y: g.memoryBandwidth * xmin, order: 0 },
        { ...common, x: r.ridge, y: r.peak, order: 1 },
        { ...common, x: xmax, y: r.peak, order: 2 },
      );
      ridgePoints.push({ series, gpu: g.id, compare: gi > 0, relevant, x: r.ridge, y: r.peak, text: `ridge ${intensity(r.ridge)}`, tip });
      const short = `${r.label} ${si(r.peak, '').replace(' ', '')}`;
      roofs.push({ gi, roof: r, relevant, label, texts: gi > 0 ? [label, gpuLabel + short, short] : [label, gpuLabel + short] });
    }
    if (!allRoofs[gi].length) return;
    const top = allRoofs[gi][0].peak;
    if (g.l2Bandwidth) {
      const series = `${g.id} l2`;
      const label = `${gpuLabel}L2 ${si(g.l2Bandwidth, 'B/s')}`;
      const common = { series, gpu: g.id, compare: gi > 0, relevant: true, level: 'l2', label, tip: label };
      roofPoints.push({ ...common, x: xmin, y: g.l2Bandwidth * xmin, order: 0 }, { ...common, x: top / g.l2Bandwidth, y: top, order: 1 });
      slopes.push({ gi, level: 'l2', text: label, from: at(xmin, g.l2Bandwidth * xmin), to: at(top / g.l2Bandwidth, top) });
    }
    slopes.push({ gi, level: 'dram', text: `${gpuLabel}DRAM ${si(g.memoryBandwidth, 'B/s')}`, from: at(xmin, g.memoryBandwidth * xmin), to: at(top / g.memoryBandwidth, top) });
  });

  const dots: Record<string, unknown>[] = [];
  const ranges: Record<string, unknown>[] = [];
  const measuredDots: Record<string, unknown>[] = [];
  const measuredLinks: Record<string, unknown>[] = [];
  /** Steady-state points (hollow, dashed): the dominant loop's intensity per iteration, never the full count. */
  const steadyDots: Record<string, unknown>[] = [];
  /** A caret beside each dot whose intensity is a bound, pointing where the true point may lie. */
  const carets: Record<string, unknown>[] = [];
  // A tooltip is an object of rows (vega-tooltip draws its keys and values): each dot shows only the rows it has.
  const tip = (rows: [string, string | undefined][]): Record<string, string> => Object.fromEntries(rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== ''));
  const boundText = (bound: string, level: string | null): string => (bound === 'memory' ? `memory-bound${level ? ` (${level.toUpperCase()})` : ''}` : bound === 'compute' ? 'compute-bound' : 'unknown');
  for (const k of kernels) {
    // A kernel without its own estimate still shows the measured launches that have theirs.
    const own = k.ai !== null && k.attainable !== null && k.ai > 0 && k.attainable > 0;
    const steady = !own && k.steady && k.steady.ai > 0 && k.steady.attainable > 0 && Number.isFinite(k.steady.ai) ? k.steady : undefined;
    if (!own && !steady && !(k.measured ?? []).some((m) => m.fromAi !== undefined)) continue;
    // Which way the true point may lie when the counts are bounds: a lower bound of the intensity lies left of it.
    const dir = own && k.incomplete ? (k.incomplete.ai === 'lower' ? 'right' : k.incomplete.ai === 'upper' ? 'left' : undefined) : undefined;
    const aiMark = dir === 'right' ? '≥ ' : dir === 'left' ? '≤ ' : '';
    // Attainable follows the intensity on the slope; on the flat roof a larger intensity changes nothing.
    const attMark = dir === 'left' ? '≤ ' : dir === 'right' && k.bound !== 'compute' ? '≥ ' : '';
    const bound = boundText(k.bound, k.boundLevel);
    const common = {
      id: k.id,
      name: k.name,
      file: `${k.path}:${k.line}`,
      language: k.language,
      bound,
      boundKind: k.bound,
      attainableText: k.attainable === null ? '?' : `${attMark}${flopRate(k.attainable)}`,
      ofPeak: k.attainable === null ? '?' : `${attMark}${percent(k.attainable / k.peakFlops)}`,
      peak: `${k.peakLabel} ${flopRate(k.peakFlops)}`,
      perUnit: `${si(k.flopsPerUnit, 'FLOP')} / ${si(k.bytesPerUnit, 'B')} per ${k.unit}`,
      selected: k.id === opts.selectedId,
    };
    const lies = dir === 'right' ? 'may lie further right' : dir === 'left' ? 'may lie further left' : undefined;
    const honesty: [string, string | undefined][] = k.incomplete ? [['numbers', k.incomplete.text], ['so', k.incomplete.sentence || undefined], ['true point', lies]] : [];
    if (k.sizeFree?.length) honesty.unshift(['sizes', `${k.sizeLabel ?? sizeFreeLabel(k.sizeFree)}: bind ${k.sizeFree.join(', ')} for the FLOPs and bytes`]);
    const kernelTip = (ai: string, kind: string, attainable = common.attainableText): Record<string, string> =>
      tip([['kernel', k.name], ['at', common.file], ['AI (FLOP/B)', ai], ['intensity', kind], ['attainable', attainable], ['% of peak', common.ofPeak], ['bound', bound], ['peak', common.peak], ['work', common.perUnit], ...honesty]);
    const incompleteNote = k.incomplete ? ` (${k.incomplete.text}${lies ? `; ${lies}` : ''})` : '';
    if (own) {
      const aiText = `${aiMark}${intensity(k.ai)}`;
      dots.push({ ...common, x: k.ai, y: k.attainable, aiText, kind: 'tile', tip: kernelTip(aiText, 'tile'), description: `${k.name}: tile intensity ${aiText} FLOP/B${incompleteNote}, attainable ${common.attainableText}, ${bound}` });
      if (dir) carets.push({ id: k.id, x: k.ai, y: k.attainable, dir, selected: common.selected, boundKind: k.bound });
    }
    if (steady) {
      const loop = steady.independentOf.length === 1 ? `${steady.independentOf[0]}-loop` : 'loop';
      const syms = steady.independentOf.join(', ');
      const sBound = boundText(steady.bound, steady.boundLevel);
      const attainable = `≈ ${flopRate(steady.attainable)}`;
      const sCommon = { ...common, bound: sBound, boundKind: steady.bound, attainableText: attainable, ofPeak: `≈ ${percent(steady.attainable / k.peakFlops)}` };
      const sTip = (ai: string, kind: string): Record<string, string> =>
        tip([
          ['kernel', k.name],
          ['at', common.file],
          ['AI (FLOP/B)', ai],
          ['intensity', kind],
          ['steady state', `${loop}, line ${steady.loopLine}${steady.limit ? ' (the whole kernel tends to it)' : ''}`],
          ['independent of', syms],
          ['not the full count', `bind ${syms}`],
          ['attainable', attainable],
          ['% of peak', sCommon.ofPeak],
          ['bound', `${sBound} at the steady state`],
          ['peak', common.peak],
          ...honesty,
        ]);
      const aiText = `≈ ${intensity(steady.ai)}`;
      steadyDots.push({
        ...sCommon,
        x: steady.ai,
        y: steady.attainable,
        aiText,
        kind: 'steady',
        tip: sTip(aiText, `tile, ${loop} steady state`),
        description: `${k.name}: steady-state intensity ${aiText} FLOP/B (${loop}, line ${steady.loopLine}; not the full count: bind ${syms}), attainable ${attainable}, ${sBound}`,
      });
      if (steady.compulsoryAi !== null && steady.compulsoryAi > 0 && Number.isFinite(steady.compulsoryAi)) {
        const cText = `≈ ${intensity(steady.compulsoryAi)}`;
        steadyDots.push({ ...sCommon, x: steady.compulsoryAi, y: steady.attainable, aiText: cText, kind: 'compulsory', tip: sTip(cText, `compulsory, its limit as ${syms} grow${steady.independentOf.length === 1 ? 's' : ''}`), description: `${k.name}: steady-state compulsory intensity ${cText} FLOP/B` });
        ranges.push({ id: k.id, x: steady.ai, y: steady.attainable, order: 0 }, { id: k.id, x: steady.compulsoryAi, y: steady.attainable, order: 1 });
      }
    }
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
      const aiText = `${aiMark}${intensity(k.compulsoryAi)}`;
      dots.push({ ...common, x: k.compulsoryAi, y: k.attainable, aiText, kind: 'compulsory', tip: kernelTip(aiText, 'compulsory'), description: `${k.name}: compulsory intensity ${aiText} FLOP/B` });
      ranges.push({ id: k.id, x: k.ai, y: k.attainable, order: 0 }, { id: k.id, x: k.compulsoryAi, y: k.attainable, order: 1 });
      if (dir) carets.push({ id: k.id, x: k.compulsoryAi, y: k.attainable, dir, selected: common.selected, boundKind: k.bound });
    }
  }

  // Each pipeline's own point: Σ FLOPs ÷ Σ compulsory bytes, at Σ FLOPs ÷ Σ T_lower (the best rate its launches allow,
  // one after the other); with fusion pairs chosen, where the what-if moves it.
  const pipelineDots: Record<string, unknown>[] = [];
  const pipelineLinks: Record<string, unknown>[] = [];
  for (const p of pipelines) {
    const ai = p.flops / p.compulsoryBytes;
    const rate = p.flops / p.lower;
    const selected = p.id === opts.selectedPipelineId;
    const memShare = p.memoryBoundShare === null ? undefined : `${percent(p.memoryBoundShare)} of T_lower`;
    pipelineDots.push({
      id: p.id,
      name: p.name,
      kind: 'pipeline',
      x: ai,
      y: rate,
      selected,
      tip: tip([
        ['pipeline', p.name],
        ['at', `${p.path}:${p.line}`],
        ['launches', String(p.launches)],
        ['AI (FLOP/B)', `${intensity(ai)} (Σ FLOPs ÷ Σ compulsory bytes)`],
        ['work', `${si(p.flops, 'FLOP')} / ${bytes(p.compulsoryBytes)}`],
        ['T_lower', seconds(p.lower)],
        ['rate', `${flopRate(rate)} (Σ FLOPs ÷ Σ T_lower)`],
        ['memory-bound', memShare],
      ]),
      description: `pipeline ${p.name}: intensity ${intensity(ai)} FLOP/B, ${flopRate(rate)} (Σ FLOPs ÷ Σ T_lower ${seconds(p.lower)})`,
    });
    if (p.fused && p.fused.compulsoryBytes > 0 && p.fused.lower > 0) {
      const fai = p.flops / p.fused.compulsoryBytes;
      const frate = p.flops / p.fused.lower;
      pipelineDots.push({
        id: p.id,
        name: p.name,
        kind: 'fused',
        x: fai,
        y: frate,
        selected,
        tip: tip([
          ['pipeline', `${p.name}, ${p.fused.pairs} pair${p.fused.pairs === 1 ? '' : 's'} fused (what-if)`],
          ['AI (FLOP/B)', `${intensity(fai)} (${bytes(p.fused.bytesSaved)} fewer DRAM bytes)`],
          ['T_lower', `${seconds(p.fused.lower)} (−${percent(p.fused.saving)})`],
          ['rate', flopRate(frate)],
          ['a bound', 'the fused kernels keep the intermediates on chip'],
        ]),
        description: `pipeline ${p.name} with ${p.fused.pairs} pair${p.fused.pairs === 1 ? '' : 's'} fused (what-if): intensity ${intensity(fai)} FLOP/B, ${flopRate(frate)}`,
      });
      pipelineLinks.push({ id: p.id, x: ai, y: rate, order: 0 }, { id: p.id, x: fai, y: frate, order: 1 });
    }
  }

  // Regions under the roof of the measured kernels' precision (the one most of them use; the higher
  // peak on a tie), as the measured situations are judged: memory side left of its ridge,
  // compute side right of it; the band within 70 % of the roof is "on the roof" (…-bound),
  // below it "…-intensive".
  const band = 0.7;
  const bw = opts.gpu.memoryBandwidth;
  const regionTop =
    opts.showRegions && measuredDots.length && allRoofs[0].length ? (regionRoof(kernels.filter((k) => (k.measured ?? []).length > 0), bw) ?? allRoofs[0][0]) : undefined;

  // ---- label layout -------------------------------------------------------------------------
  // In order of need: the roofs (the GPU's before a compared one's; the kernels' own precisions
  // first, then from the top down, where they crowd), their ridge points, the slopes, the regions.
  // Each label takes the best place still free.
  const h = LABEL_FONT_SIZE;
  const byNeed = [...roofs].sort((a, b) => a.gi - b.gi || Number(b.relevant) - Number(a.relevant) || b.roof.peak - a.roof.peak);
  const requests: LabelRequest[] = [];
  const flats = roofs.map((r) => ({ y: ys.px(r.roof.peak), x0: xs.px(r.roof.ridge) }));
  const ridgePx = roofs.map((r) => at(r.roof.ridge, r.roof.peak));
  for (const r of byNeed) {
    const i = roofs.indexOf(r);
    const others = flats.filter((_, j) => j !== i);
    requests.push({ id: `roof ${r.gi} ${r.roof.key}`, texts: r.texts, fontSize: h, weight: r.gi ? 100 : 1000, candidates: (w) => roofCandidates(flats[i], others, width, w, h) });
  }
  for (const r of byNeed) {
    const i = roofs.indexOf(r);
    const others = ridgePx.filter((_, j) => j !== i);
    requests.push({ id: `ridge ${r.gi} ${r.roof.key}`, texts: [`ridge ${intensity(r.roof.ridge)}`], fontSize: h, weight: r.gi ? 20 : 30, candidates: (w) => ridgeCandidates(ridgePx[i], others, w, h) });
  }
  for (const level of ['dram', 'l2'] as const)
    for (const s of slopes.filter((x) => x.level === level)) requests.push({ id: `${level} ${s.gi}`, texts: [s.text], fontSize: h, weight: 50, candidates: (w) => slopeCandidates(s, slopeAngle, w) });
  const regionTexts: [string, 'memory' | 'compute', boolean][] = [
    ['memory-bound', 'memory', false],
    ['memory-intensive', 'memory', true],
    ['compute-bound', 'compute', false],
    ['compute-intensive', 'compute', true],
  ];
  if (regionTop) {
    const g: RegionGeometry = { slopeFrom: at(xmin, bw * xmin), ridge: at(regionTop.ridge, regionTop.peak), band: ys.px(regionTop.peak * band) - ys.px(regionTop.peak) };
    for (const [text, side, deep] of regionTexts) requests.push({ id: `region ${text}`, texts: [text], fontSize: h, weight: 10, candidates: (w) => regionCandidates(g, width, height, side, deep, w, h) });
  }
  // A pipeline's point is named by its label (the star itself says "pipeline"), around it like a ridge point's.
  const starPx = pipelineDots.filter((d) => d.kind === 'pipeline').map((d) => ({ id: d.id as string, name: d.name as string, at: at(d.x as number, d.y as number) }));
  for (const st of starPx) {
    const others = starPx.filter((o) => o !== st).map((o) => o.at);
    requests.push({ id: `pipeline ${st.id}`, texts: [`pipeline ${st.name}`, st.name], fontSize: h, weight: 40, candidates: (w) => ridgeCandidates(st.at, others, w, h, STAR_RINGS) });
  }
  // What a label should not hide: the lines (a crossing costs as much as moving 75 px along a roof), the dots and the ridge points (drawn over the labels).
  const obstacles: Obstacles = { segments: [], boxes: [] };
  for (const r of roofs) obstacles.segments.push({ from: at(r.roof.ridge, r.roof.peak), to: at(xmax, r.roof.peak), cost: 6 });
  for (const s of slopes) obstacles.segments.push({ from: s.from, to: s.to, cost: 6 });
  // The dotted lines joining a kernel's dots lie under the labels' halos: crossing them costs less.
  for (const pairs of [ranges, measuredLinks, pipelineLinks])
    for (let i = 0; i + 1 < pairs.length; i += 2) obstacles.segments.push({ from: at(pairs[i].x as number, pairs[i].y as number), to: at(pairs[i + 1].x as number, pairs[i + 1].y as number), cost: 2 });
  const square = (p: Point, half: number): Quad => [
    { x: p.x - half, y: p.y - half },
    { x: p.x + half, y: p.y - half },
    { x: p.x + half, y: p.y + half },
    { x: p.x - half, y: p.y + half },
  ];
  for (const d of [...dots, ...measuredDots, ...steadyDots]) obstacles.boxes.push({ quad: square(at(d.x as number, d.y as number), d.selected ? 8 : 6), cost: 40 });
  for (const c of carets) {
    const p = at(c.x as number, c.y as number);
    obstacles.boxes.push({ quad: square({ x: p.x + (c.dir === 'right' ? 1 : -1) * caretOffset(c.selected === true), y: p.y }, 4), cost: 40 });
  }
  for (const d of pipelineDots) obstacles.boxes.push({ quad: square(at(d.x as number, d.y as number), d.selected ? 11 : 9), cost: 40 });
  for (const r of roofs) obstacles.boxes.push({ quad: square(at(r.roof.ridge, r.roof.peak), 3.5), cost: 30 });
  const placed = placeLabels(requests, width, height, obstacles);
  // Back into data coordinates, so the labels stay on the chart's scales.
  const labelDatum = (id: string, extra: Record<string, unknown>): Record<string, unknown> | undefined => {
    const p = placed.get(id);
    return p && { ...extra, text: p.text, x: xs.value(p.x), y: ys.value(p.y), align: p.align, baseline: p.baseline, angle: p.angle };
  };
  const present = (x: Record<string, unknown> | undefined): x is Record<string, unknown> => x !== undefined;
  const seriesOf = (r: RoofEntry): string => `${gpus[r.gi].id} ${r.roof.key}`;
  const roofLabels = roofs.map((r) => labelDatum(`roof ${r.gi} ${r.roof.key}`, { series: seriesOf(r), compare: r.gi > 0, relevant: r.relevant })).filter(present);
  const ridgeLabels = roofs.map((r) => labelDatum(`ridge ${r.gi} ${r.roof.key}`, { series: seriesOf(r), compare: r.gi > 0, relevant: r.relevant })).filter(present);
  const slopeLabels = slopes.map((s) => labelDatum(`${s.level} ${s.gi}`, { compare: s.gi > 0, level: s.level })).filter(present);
  const regionLabels = regionTop ? regionTexts.map(([text]) => labelDatum(`region ${text}`, {})).filter(present) : [];
  const pipelineLabels = starPx.map((st) => labelDatum(`pipeline ${st.id}`, { id: st.id })).filter(present);

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
  // Each dot carries its tooltip's rows (a steady-state or an incomplete kernel has more to say).
  const tooltip = { field: 'tip' };
  // Every label is laid out above: its place (align, baseline, angle) comes with its datum.
  const placedText = { fontSize: LABEL_FONT_SIZE, align: { expr: 'datum.align' }, baseline: { expr: 'datum.baseline' }, angle: { expr: 'datum.angle' } };

  const layers: Record<string, unknown>[] = [];
  if (regionTop) {
    const top = regionTop;
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
    );
  }

  // Marks only some charts have: steady-state dots, the carets of bounds, pipelines, and a legend for them.
  const extraLayers: Record<string, unknown>[] = [];
  if (steadyDots.length)
    extraLayers.push({
      name: 'steady',
      data: { name: 'steady', values: steadyDots },
      // Hollow with a dashed outline: a real, labelled number, never mistaken for the full count.
      mark: { type: 'point', filled: true, fillOpacity: 0, strokeDash: [3, 2], size: 90, cursor: 'pointer' },
      encoding: {
        x,
        y,
        color: { field: 'boundKind', type: 'nominal', scale: colorScale },
        stroke: { field: 'boundKind', type: 'nominal', scale: colorScale },
        // Its own shape scale (the legend of marks has one too), with the kernels' shapes and their legend.
        shape: { field: 'language', type: 'nominal', scale: shapeScale, legend: null },
        size: { condition: { test: 'datum.selected', value: 220 }, value: 90 },
        strokeWidth: { condition: { test: 'datum.selected', value: 3 }, value: 1.75 },
        description: { field: 'description' },
        tooltip,
      },
    });
  if (carets.length)
    extraLayers.push({
      name: 'bounds',
      data: { name: 'bounds', values: carets },
      mark: {
        type: 'point',
        filled: true,
        size: 45,
        shape: { expr: "datum.dir === 'right' ? 'triangle-right' : 'triangle-left'" },
        xOffset: { expr: `(datum.dir === 'right' ? 1 : -1) * (datum.selected ? ${caretOffset(true)} : ${caretOffset(false)})` },
      },
      encoding: { x, y, color: { field: 'boundKind', type: 'nominal', scale: colorScale }, opacity: { value: 1 } },
    });
  if (pipelineDots.length)
    extraLayers.push({
      name: 'pipelines',
      data: { name: 'pipelines', values: pipelineDots },
      mark: { type: 'point', shape: STAR, filled: true, strokeWidth: 1.5 },
      encoding: {
        x,
        y,
        color: { value: theme.foreground },
        stroke: { value: theme.foreground },
        fillOpacity: { condition: { test: "datum.kind === 'fused'", value: 0 }, value: 1 },
        size: { condition: { test: 'datum.selected', value: 380 }, value: 260 },
        opacity: { value: 1 },
        description: { field: 'description' },
        tooltip,
      },
    });
  // A legend of what the marks mean, when the chart has more than full-count dots.
  const kinds: [string, string, boolean][] = [
    ['tile (no reuse)', 'circle', dots.some((d) => d.kind === 'tile')],
    ['perfect reuse', 'circle', dots.some((d) => d.kind === 'compulsory')],
    ['steady state ≈', 'circle', steadyDots.length > 0],
    ['AI ≥ (lies right)', 'triangle-right', carets.some((c) => c.dir === 'right')],
    ['AI ≤ (lies left)', 'triangle-left', carets.some((c) => c.dir === 'left')],
    ['pipeline', STAR, pipelineDots.length > 0],
    ['pipeline, fused', STAR, pipelineDots.some((d) => d.kind === 'fused')],
  ];
  const shown = kinds.filter((k) => k[2]);
  const markLegend = steadyDots.length > 0 || carets.length > 0 || pipelineDots.length > 0;
  if (markLegend)
    extraLayers.push({
      name: 'markKinds',
      data: { name: 'markKinds', values: [] },
      mark: { type: 'point', filled: true, opacity: 1 },
      encoding: {
        color: { value: theme.foreground },
        shape: {
          field: 'kind',
          type: 'nominal',
          scale: { domain: shown.map((k) => k[0]), range: shown.map((k) => k[1]) },
          legend: {
            title: 'marks',
            // Hollow for the marks drawn hollow, dashed for the steady state.
            encoding: {
              symbols: {
                stroke: { value: theme.foreground },
                strokeWidth: { value: 1.5 },
                fillOpacity: { condition: { test: "indexof(['perfect reuse', 'steady state ≈', 'pipeline, fused'], datum.value) >= 0", value: 0 }, value: 1 },
                strokeDash: { condition: { test: "datum.value === 'steady state ≈'", value: [3, 2] }, value: [1, 0] },
              },
            },
          },
        },
      },
    });

  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    ...(markLegend ? { resolve: { scale: { shape: 'independent' } } } : {}),
    description: `Roofline of ${opts.gpu.name}${opts.compareGpu ? ` vs ${opts.compareGpu.name}` : ''}`,
    width,
    height,
    background: theme.background,
    config: {
      font: theme.font,
      axis: { labelColor: theme.foreground, titleColor: theme.foreground, gridColor: theme.grid, domainColor: theme.foreground, tickColor: theme.foreground },
      legend: { labelColor: theme.foreground, titleColor: theme.foreground, ...(opts.legend === 'bottom' ? { orient: 'bottom', direction: 'horizontal' } : {}) },
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
          // The kernels' own precisions stand out; the other roofs are context.
          strokeWidth: { condition: { test: 'datum.relevant', value: 1.75 }, value: 1 },
          opacity: { condition: { test: 'datum.relevant', value: 1 }, value: 0.6 },
          tooltip: { field: 'tip' },
        },
      },
      {
        name: 'ridges',
        data: { name: 'ridges', values: ridgePoints },
        mark: { type: 'point', filled: true, size: 30 },
        encoding: { x, y, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.roof }, tooltip: { field: 'tip' } },
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
      ...(pipelineLinks.length
        ? [
            {
              name: 'pipelineLinks',
              data: { name: 'pipelineLinks', values: pipelineLinks },
              mark: { type: 'line', strokeDash: [4, 3] },
              encoding: { x, y, detail: { field: 'id' }, order: { field: 'order' }, color: { value: theme.foreground } },
            },
          ]
        : []),
      {
        // A halo in the background colour under every label, so a line it has to cross does not strike it through.
        name: 'labelHalos',
        data: {
          name: 'labelHalos',
          values: [...roofLabels, ...ridgeLabels, ...slopeLabels, ...regionLabels.map((l): Record<string, unknown> => ({ ...l, italic: true })), ...pipelineLabels].map((l) => ({
            text: l.text,
            x: l.x,
            y: l.y,
            align: l.align,
            baseline: l.baseline,
            angle: l.angle,
            italic: l.italic === true,
          })),
        },
        // A label centred on its roof gets a wider one: the line stops short of the text, spaces included.
        mark: {
          type: 'text',
          ...placedText,
          fontStyle: { expr: "datum.italic ? 'italic' : 'normal'" },
          stroke: theme.background,
          strokeWidth: { expr: "datum.baseline === 'middle' ? 6 : 4" },
          strokeJoin: 'round',
        },
        encoding: { x, y, text: { field: 'text' }, color: { value: theme.background } },
      },
      {
        name: 'roofLabels',
        data: { name: 'roofLabels', values: roofLabels },
        mark: { type: 'text', ...placedText },
        encoding: {
          x,
          y,
          text: { field: 'text' },
          color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.foreground },
          opacity: { condition: { test: 'datum.relevant', value: 1 }, value: 0.75 },
        },
      },
      {
        name: 'ridgeLabels',
        data: { name: 'ridgeLabels', values: ridgeLabels },
        mark: { type: 'text', ...placedText },
        encoding: {
          x,
          y,
          text: { field: 'text' },
          color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.foreground },
          opacity: { condition: { test: 'datum.relevant', value: 1 }, value: 0.75 },
        },
      },
      {
        name: 'l2Labels',
        data: { name: 'l2Labels', values: slopeLabels.filter((l) => l.level === 'l2') },
        mark: { type: 'text', ...placedText },
        encoding: { x, y, text: { field: 'text' }, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.l2 } },
      },
      {
        name: 'dramLabels',
        data: { name: 'dramLabels', values: slopeLabels.filter((l) => l.level === 'dram') },
        mark: { type: 'text', ...placedText },
        encoding: { x, y, text: { field: 'text' }, color: { condition: { test: 'datum.compare', value: theme.compareRoof }, value: theme.foreground } },
      },
      ...(regionTop
        ? [
            {
              name: 'regionLabels',
              data: { name: 'regionLabels', values: regionLabels },
              mark: { type: 'text', ...placedText, fontStyle: 'italic', opacity: 0.7 },
              encoding: { x, y, text: { field: 'text' }, color: { value: theme.foreground } },
            },
          ]
        : []),
      ...(pipelineLabels.length
        ? [
            {
              name: 'pipelineLabels',
              data: { name: 'pipelineLabels', values: pipelineLabels },
              mark: { type: 'text', ...placedText },
              encoding: { x, y, text: { field: 'text' }, color: { value: theme.foreground } },
            },
          ]
        : []),
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
      ...extraLayers,
    ],
  };
}
