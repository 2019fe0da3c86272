/**
 * A pipeline as the roofline panel shows it (docs/pipelines.md, issue 18):
 * the fusion what-if for the pairs a reader toggles, and the stacked bar of
 * T_lower per launch ("where the time goes"), as written and with the chosen
 * fusions. Pure: everything comes from the PipelineReport, so the panel, the
 * tests and any other surface compute the same totals.
 *
 * Fusing a pair is the core's what-if (src/core/pipeline/pipeline.ts): the
 * two launches become one whose T_lower is `max(T_math a + b, T_mem with the
 * intermediate kept on chip)`; for disjoint pairs the savings add up. Two
 * pairs that share a launch (a → b → c) are a chain, which this what-if does
 * not fuse: choosing one leaves the other unavailable. Always a bound.
 */
import { DEFAULT_THEME, type ChartTheme } from './chartTheme';
import { LABEL_GAP, placeLabels, type Candidate, type LabelRequest, type Obstacles } from './chartLabels';
import { bytes, flops, percent, seconds } from './format';
import type { PipelineFusion, PipelineLaunchReport, PipelineReport } from './types';

/** A stable id for a pipeline: `pipeline:path:line:name`. */
export function pipelineId(path: string, p: Pick<PipelineReport, 'line' | 'name'>): string {
  return `pipeline:${path}:${p.line}:${p.name}`;
}

/** The repeat a launch is counted with (a host loop of unknown trips counts once). */
function rep(l: PipelineLaunchReport): number {
  return l.repeat ?? 1;
}

/** A launch with numbers: what the totals sum. */
export function hasNumbers(l: PipelineLaunchReport): boolean {
  return l.time !== null && l.time.lower !== null && !l.unresolved;
}

export interface FusionChoice {
  /** The fusion candidate (from `p.fusion`). */
  fusion: PipelineFusion;
  /** Chosen by the reader (and kept: it shares no launch with a pair chosen before it). */
  chosen: boolean;
  /** Why it cannot be chosen now: the chosen pair it shares a launch with. */
  blockedBy?: PipelineFusion;
}

export interface FusionWhatIf {
  choices: FusionChoice[];
  /** The pairs applied, by their first launch's index. */
  applied: number[];
  /** The pipeline's T_lower as written and with the applied pairs fused (seconds). */
  lowerBefore: number;
  lowerAfter: number;
  /** (before − after) ÷ before; 0 without a pair. */
  saving: number;
  /** DRAM bytes of the intermediates no longer written and read again. */
  bytesSaved: number;
  compulsoryBefore: number;
  compulsoryAfter: number;
  /** Σ T_lower of the memory-bound launches (fused ones by their fused bound), before and after. */
  memoryBefore: number;
  memoryAfter: number;
  /** FLOPs ÷ compulsory bytes, before and after (null without bytes). */
  intensityBefore: number | null;
  intensityAfter: number | null;
}

/** The T_lower of a fused pair, once (per repeat): both launches' T_lower less what fusing saves. */
function fusedLower(p: PipelineReport, f: PipelineFusion): number {
  const a = p.launches[f.from];
  const b = p.launches[f.to];
  const r = rep(a);
  return a.time!.lower! + b.time!.lower! - (f.lowerBefore - f.lowerAfter) / r;
}

/**
 * The fusion what-if for the pairs chosen (by their first launch's index, in
 * the order chosen): a pair that shares a launch with one chosen before it is
 * not applied. Totals as in `total`, with the applied pairs fused.
 */
export function fusionWhatIf(p: PipelineReport, chosen: readonly number[]): FusionWhatIf {
  const byFrom = new Map(p.fusion.map((f) => [f.from, f]));
  const applied: PipelineFusion[] = [];
  const uses = new Set<number>();
  for (const from of chosen) {
    const f = byFrom.get(from);
    if (!f || applied.includes(f) || uses.has(f.from) || uses.has(f.to)) continue;
    applied.push(f);
    uses.add(f.from).add(f.to);
  }
  const choices = p.fusion.map((f): FusionChoice => {
    if (applied.includes(f)) return { fusion: f, chosen: true };
    const blockedBy = applied.find((g) => g.from === f.to || g.to === f.from || g.from === f.from || g.to === f.to);
    return blockedBy ? { fusion: f, chosen: false, blockedBy } : { fusion: f, chosen: false };
  });
  const t = p.total;
  const lowerBefore = t.time.lower ?? 0;
  const delta = applied.reduce((s, f) => s + (f.lowerBefore - f.lowerAfter), 0);
  const bytesSaved = applied.reduce((s, f) => s + f.bytesSaved, 0);
  let memoryAfter = t.memoryBoundTime;
  for (const f of applied) {
    const a = p.launches[f.from];
    const b = p.launches[f.to];
    for (const l of [a, b]) if (l.bound === 'memory') memoryAfter -= rep(l) * l.time!.lower!;
    if (f.fusedBound === 'memory') memoryAfter += rep(a) * fusedLower(p, f);
  }
  const compulsoryAfter = t.compulsoryBytes - bytesSaved;
  return {
    choices,
    applied: applied.map((f) => f.from).sort((a, b) => a - b),
    lowerBefore,
    lowerAfter: lowerBefore - delta,
    saving: lowerBefore > 0 ? delta / lowerBefore : 0,
    bytesSaved,
    compulsoryBefore: t.compulsoryBytes,
    compulsoryAfter,
    memoryBefore: t.memoryBoundTime,
    // Sums of floating-point terms: a share of 100 % should not read 100.0000001 %.
    memoryAfter: Math.max(0, Math.min(memoryAfter, lowerBefore - delta)),
    intensityBefore: t.compulsoryBytes > 0 ? t.flops / t.compulsoryBytes : null,
    intensityAfter: compulsoryAfter > 0 ? t.flops / compulsoryAfter : null,
  };
}

/** `rmsnorm_kernel → matmul_kernel`. */
export function pairName(f: PipelineFusion): string {
  return `${f.fromKernel} → ${f.toKernel}`;
}

// ---------------------------------------------------------------------------
// The stacked bar: T_lower per launch
// ---------------------------------------------------------------------------

/** One piece of a bar: a launch (× its repeat), a fused pair, or the time a fusion saves. */
export interface BarSegment {
  row: 'written' | 'fused';
  /** Indexes of the launches it stands for. */
  launches: number[];
  name: string;
  start: number;
  end: number;
  bound: 'memory' | 'compute' | 'saved';
  tip: Record<string, string>;
}

function launchName(l: PipelineLaunchReport): string {
  return `${l.kernel}${l.repeat !== null && l.repeat !== 1 ? ` ×${l.repeat}` : ''}`;
}

function launchTip(l: PipelineLaunchReport, i: number, total: number): Record<string, string> {
  const t = l.time!;
  return {
    launch: `#${i + 1} ${launchName(l)}${l.via ? ` (via ${l.via})` : ''}`,
    line: String(l.callLine),
    ...(l.repeat !== 1 ? { repeat: l.repeat === null ? '? (counted once)' : `×${l.repeat}` } : {}),
    units: l.units === null ? '?' : String(l.units),
    FLOPs: flops(l.flops),
    'bytes (compulsory)': bytes(l.compulsoryBytes),
    T_math: seconds(t.math),
    T_mem: seconds(t.memory),
    T_lower: `${seconds(t.lower)}${l.repeat !== 1 ? ` × ${l.repeat ?? 1}` : ''}`,
    bound: `${l.bound}-bound`,
    share: total > 0 ? percent((rep(l) * t.lower!) / total) : '?',
  };
}

/** The segments of the bar as written and, with applied pairs, of the bar with them fused. */
export function barSegments(p: PipelineReport, w: FusionWhatIf): BarSegment[] {
  const out: BarSegment[] = [];
  const total = w.lowerBefore;
  let at = 0;
  p.launches.forEach((l, i) => {
    if (!hasNumbers(l)) return;
    const d = rep(l) * l.time!.lower!;
    out.push({ row: 'written', launches: [i], name: launchName(l), start: at, end: at + d, bound: l.bound === 'compute' ? 'compute' : 'memory', tip: launchTip(l, i, total) });
    at += d;
  });
  if (!w.applied.length) return out;
  const fused = new Map(w.choices.filter((c) => c.chosen).map((c) => [c.fusion.from, c.fusion]));
  at = 0;
  for (let i = 0; i < p.launches.length; i++) {
    const l = p.launches[i];
    const f = fused.get(i);
    if (f) {
      const d = rep(l) * fusedLower(p, f);
      const name = `${f.fromKernel} + ${f.toKernel}`;
      out.push({
        row: 'fused',
        launches: [f.from, f.to],
        name,
        start: at,
        end: at + d,
        bound: f.fusedBound,
        tip: {
          launch: `#${f.from + 1} + #${f.to + 1} fused (what-if)`,
          'kept on chip': f.tensors.join(', '),
          'DRAM bytes saved': bytes(f.bytesSaved),
          T_lower: `${seconds(fusedLower(p, f))}${l.repeat !== 1 ? ` × ${l.repeat ?? 1}` : ''}`,
          bound: `${f.fusedBound}-bound`,
          note: 'a bound: assumes the fused kernel keeps the intermediate on chip and changes nothing else',
        },
      });
      at += d;
      i++;
      continue;
    }
    if (!hasNumbers(l)) continue;
    const d = rep(l) * l.time!.lower!;
    out.push({ row: 'fused', launches: [i], name: launchName(l), start: at, end: at + d, bound: l.bound === 'compute' ? 'compute' : 'memory', tip: launchTip(l, i, total) });
    at += d;
  }
  out.push({
    row: 'fused',
    launches: [],
    name: 'saved',
    start: at,
    end: w.lowerBefore,
    bound: 'saved',
    tip: { saved: `${seconds(w.lowerBefore - w.lowerAfter)} (${percent(w.saving)})`, 'DRAM bytes saved': bytes(w.bytesSaved), note: 'a bound: the fused kernels keep the intermediates on chip' },
  });
  return out;
}

export interface PipelineBarOptions {
  /** The plot's width in pixels; default 640. */
  width?: number;
  theme?: Partial<ChartTheme>;
  legend?: 'right' | 'bottom';
}

/** Pixels: a row's title band, its bar, and the band under it for labels that do not fit in their piece. */
const TITLE_BAND = 14;
const BAR = 24;
const BELOW_BAND = 16;
const ROW = TITLE_BAND + BAR + BELOW_BAND;
const FONT = 10;
/** A row's title keeps the layout's gap from the plot's edges (chartLabels' LABEL_GAP). */
const LABEL_GAP_PX = LABEL_GAP;

/** The time axis' unit for a span of `max` seconds. */
function timeUnit(max: number): { factor: number; unit: string } {
  if (max >= 1) return { factor: 1, unit: 's' };
  if (max >= 1e-3) return { factor: 1e3, unit: 'ms' };
  if (max >= 1e-6) return { factor: 1e6, unit: 'µs' };
  return { factor: 1e9, unit: 'ns' };
}

/** A piece's label texts, longest first: name and time, the name, the name without `_kernel`, its number. */
function segmentTexts(s: BarSegment): string[] {
  const d = seconds(s.end - s.start);
  if (s.bound === 'saved') return [`saves ${d}`, `−${d}`];
  const short = s.name.replace(/_kernel\b/g, '');
  const texts = [`${s.name} ${d}`, `${short} ${d}`, s.name, short, s.launches.map((i) => `#${i + 1}`).join('+')];
  return [...new Set(texts)];
}

/**
 * The stacked bar as a Vega-Lite spec: one bar of T_lower per launch as
 * written (coloured by the launch's bound) and, when pairs are fused, a
 * second bar with them fused and the time saved. Labels are laid out in
 * pixels (chartLabels.ts): a piece's label inside it when it fits, else just
 * under the bar; none overlaps another, and one that fits nowhere is left
 * off (the piece's tooltip and the table give it).
 */
export function pipelineBarSpec(p: PipelineReport, w: FusionWhatIf, opts: PipelineBarOptions = {}): Record<string, unknown> {
  const theme = { ...DEFAULT_THEME, ...opts.theme };
  const width = opts.width ?? 640;
  const segments = barSegments(p, w);
  const rows: ('written' | 'fused')[] = w.applied.length ? ['written', 'fused'] : ['written'];
  const height = rows.length * ROW;
  const max = Math.max(w.lowerBefore, ...segments.map((s) => s.end), 1e-12);
  const { factor, unit } = timeUnit(max);
  const px = (t: number): number => (t / max) * width;
  const top = (row: 'written' | 'fused'): number => rows.indexOf(row) * ROW + TITLE_BAND;

  // ---- labels -------------------------------------------------------------------------------
  const requests: LabelRequest[] = [];
  const titles: Record<string, string[]> = {
    written: [`as written: T_lower ${p.total.complete ? '' : '≥ '}${seconds(w.lowerBefore)}`, 'as written'],
    fused: [`with ${w.applied.length} pair${w.applied.length === 1 ? '' : 's'} fused (what-if, a bound): T_lower ${seconds(w.lowerAfter)}`, `fused (what-if): ${seconds(w.lowerAfter)}`, 'fused (what-if)'],
  };
  for (const row of rows)
    requests.push({
      id: `title ${row}`,
      texts: titles[row],
      fontSize: FONT,
      weight: 1000,
      candidates: () => [{ x: LABEL_GAP_PX, y: top(row) - LABEL_GAP_PX, align: 'left', baseline: 'bottom', angle: 0, dx: 0, dy: 0, cost: 0 }],
    });
  // The widest pieces first: they name most of the time.
  const bySize = segments.map((s, i) => ({ s, i })).sort((a, b) => b.s.end - b.s.start - (a.s.end - a.s.start) || a.i - b.i);
  for (const { s, i } of bySize) {
    const x0 = px(s.start);
    const x1 = px(s.end);
    const mid = (x0 + x1) / 2;
    const y = top(s.row);
    requests.push({
      id: `segment ${i}`,
      texts: segmentTexts(s),
      fontSize: FONT,
      weight: s.bound === 'saved' ? 50 : 100 * (x1 - x0 + 1),
      candidates: (tw) => {
        const out: Candidate[] = [];
        // Inside its piece (with 3 px to spare on each side), else under the bar, as near to the piece's middle as it can.
        if (tw + 6 <= x1 - x0) out.push({ x: mid, y: y + BAR / 2, align: 'center', baseline: 'middle', angle: 0, dx: 0, dy: 0, cost: 0 });
        for (let shift = 0; shift <= 200; shift += 4)
          for (const sign of shift ? [1, -1] : [1]) {
            const cx = mid + sign * shift;
            // Still over (or next to) its own piece: it names that piece and no other.
            if (cx - tw / 2 > x1 + 2 || cx + tw / 2 < x0 - 2) continue;
            out.push({ x: cx, y: y + BAR + 3, align: 'center', baseline: 'top', angle: 0, dx: 0, dy: 0, cost: 5 + shift * 0.1 });
          }
        return out;
      },
    });
  }
  const obstacles: Obstacles = { segments: [], boxes: [] };
  const placed = placeLabels(requests, width, height, obstacles);
  const labels: Record<string, unknown>[] = [];
  const toDatum = (id: string, extra: Record<string, unknown>): void => {
    const l = placed.get(id);
    if (l) labels.push({ ...extra, text: l.text, x: (l.x / width) * max, y: l.y, align: l.align, baseline: l.baseline });
  };
  for (const row of rows) toDatum(`title ${row}`, { kind: 'title' });
  segments.forEach((s, i) => {
    const l = placed.get(`segment ${i}`);
    // Inside a coloured piece the text takes the background's colour; the time saved is an empty piece.
    toDatum(`segment ${i}`, { kind: s.bound === 'saved' ? 'saved' : l && l.baseline === 'middle' ? 'inside' : 'under' });
  });

  const bars = segments.map((s) => ({
    name: s.name,
    row: s.row,
    start: s.start,
    end: s.end,
    y: top(s.row),
    y2: top(s.row) + BAR,
    bound: s.bound,
    tip: s.tip,
    description: `${s.row === 'fused' ? 'fused (what-if): ' : ''}${s.name}: ${s.bound === 'saved' ? 'saves' : 'T_lower'} ${seconds(s.end - s.start)}${s.bound === 'saved' ? '' : `, ${s.bound}-bound`}`,
  }));
  const x = {
    type: 'quantitative',
    scale: { domain: [0, max], nice: false, zero: true },
    axis: { title: `T_lower (${unit}): the time bound of each launch, one after the other`, labelExpr: `format(datum.value * ${factor}, '~g')`, grid: true, tickCount: 8 },
  };
  const y = { type: 'quantitative', scale: { domain: [height, 0], nice: false, zero: false }, axis: null };
  const boundScale = { domain: ['memory', 'compute'], range: [theme.memory, theme.compute] };
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    description: `Where the time goes in ${p.name}: T_lower per launch`,
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
      {
        name: 'launchBars',
        data: { name: 'launchBars', values: bars.filter((b) => b.bound !== 'saved') },
        mark: { type: 'rect', stroke: theme.background, strokeWidth: 1 },
        encoding: {
          x: { field: 'start', ...x },
          x2: { field: 'end' },
          y: { field: 'y', ...y },
          y2: { field: 'y2' },
          color: { field: 'bound', type: 'nominal', scale: boundScale, legend: { title: 'bound' } },
          description: { field: 'description' },
          tooltip: { field: 'tip' },
        },
      },
      {
        name: 'savedBars',
        data: { name: 'savedBars', values: bars.filter((b) => b.bound === 'saved') },
        mark: { type: 'rect', fillOpacity: 0, stroke: theme.foreground, strokeDash: [4, 3], strokeWidth: 1 },
        encoding: { x: { field: 'start', ...x }, x2: { field: 'end' }, y: { field: 'y', ...y }, y2: { field: 'y2' }, description: { field: 'description' }, tooltip: { field: 'tip' } },
      },
      {
        name: 'barLabels',
        data: { name: 'barLabels', values: labels },
        mark: { type: 'text', fontSize: FONT, align: { expr: 'datum.align' }, baseline: { expr: 'datum.baseline' } },
        encoding: {
          x: { field: 'x', ...x },
          y: { field: 'y', ...y },
          text: { field: 'text' },
          // Inside a coloured piece, the background's colour; elsewhere the text's.
          color: { condition: { test: "datum.kind === 'inside'", value: theme.background }, value: theme.foreground },
        },
      },
    ],
  };
}
