/**
 * The roofline panel's pipeline view (docs/pipelines.md, issue 18), computed
 * from the reports: for the chosen pipeline of the files shown, the stacked
 * bar of T_lower per launch, its totals, memory- vs compute-bound time, where
 * its own point is on the chart, the fusion candidates as toggles with the
 * totals they give, and a row per launch. Pure (no `vscode`), language-neutral:
 * it reads only the PipelineReport, whichever frontend made it.
 */
import { kernelId, type ChartTheme } from '../core/report/chart';
import { pipelineOffChart } from '../core/report/chart';
import { bytes, flopRate, flops, intensity, percent, seconds } from '../core/report/format';
import { fusionWhatIf, hasNumbers, pairName, pipelineBarSpec, pipelineId } from '../core/report/pipelineView';
import type { FileReport, PipelineFusion, PipelineLaunchReport, PipelineReport } from '../core/report/types';
import { fusedPairs, type PanelState, type PipelineFusionToggle, type PipelineViewModel } from '../shared/panelProtocol';
import type { TableCell, TableColumn, TableModel, TableRow } from '../shared/table';

export interface LocatedPipeline {
  id: string;
  file: FileReport;
  pipeline: PipelineReport;
}

/** Every pipeline of the files, in order. */
export function pipelinesOf(files: FileReport[]): LocatedPipeline[] {
  return files.flatMap((file) => (file.pipelines ?? []).map((pipeline) => ({ id: pipelineId(file.path, pipeline), file, pipeline })));
}

/** The pipeline the view shows: the state's when it is still there, else the first. */
export function chosenPipeline(files: FileReport[], state: Pick<PanelState, 'pipeline'>): LocatedPipeline | undefined {
  const all = pipelinesOf(files);
  return all.find((p) => p.id === state.pipeline) ?? all[0];
}

/** Fusion choices by pipeline id, as chartPipelines takes them. */
export function fusedByPipeline(state: Pick<PanelState, 'fused'>): Record<string, number[]> {
  const out: Record<string, number[]> = Object.create(null) as Record<string, number[]>;
  for (const f of state.fused ?? []) out[f.pipeline] = [...f.pairs];
  return out;
}

const LAUNCH_COLUMNS: TableColumn[] = [
  { key: 'index', label: '#', numeric: true },
  { key: 'launch', label: 'launch', numeric: false, title: 'The kernel launched (and the launcher it goes through), × the host loop repeating it' },
  { key: 'line', label: 'line', numeric: true, title: 'Where the pipeline function launches it (or calls its launcher)' },
  { key: 'units', label: 'units', numeric: true, title: 'Programs, blocks or workgroups of the launch' },
  { key: 'flops', label: 'FLOPs', numeric: true },
  { key: 'bytes', label: 'bytes (compulsory)', numeric: true, title: 'Every distinct element read once, every output written once' },
  { key: 'math', label: 'T_math', numeric: true, title: 'FLOPs ÷ the peak of its precision' },
  { key: 'memory', label: 'T_mem', numeric: true, title: 'max(DRAM bytes ÷ DRAM bandwidth, tile bytes ÷ L2 bandwidth)' },
  { key: 'lower', label: 'T_lower', numeric: true, title: 'max(T_math, T_mem), × repeat in the total' },
  { key: 'bound', label: 'bound', numeric: false },
  { key: 'share', label: 'share', numeric: true, title: "Its share (× repeat) of the pipeline's T_lower" },
];

function cell(x: number | null, text: (x: number) => string): TableCell {
  return x === null || !Number.isFinite(x) ? { text: '?', sort: null } : { text: text(x), sort: x };
}

function launchLabel(l: PipelineLaunchReport): string {
  return `${l.kernel}${l.via ? ` (via ${l.via})` : ''}${l.repeat !== 1 ? ` ×${l.repeat ?? '?'}` : ''}`;
}

/** One row per launch; a launch without numbers says why in its bound cell. */
export function launchTable(file: FileReport, p: PipelineReport): TableModel {
  const rows: TableRow[] = p.launches.map((l, i) => {
    const own = file.kernels.find((k) => k.name === l.kernel);
    const kid = own ? kernelId(file.path, own) : '';
    const numbers = hasNumbers(l);
    const t = l.time;
    const cells: Record<string, TableCell> = {
      index: { text: String(i + 1), sort: i },
      launch: { text: launchLabel(l), sort: l.kernel, ...(l.repeatNote ? { title: l.repeatNote } : {}) },
      line: { text: String(l.callLine), sort: l.callLine },
      units: cell(l.units, String),
      flops: numbers ? cell(l.flops, flops) : { text: '?', sort: null },
      bytes: numbers ? cell(l.compulsoryBytes, bytes) : { text: '?', sort: null },
      math: numbers ? cell(t?.math ?? null, seconds) : { text: '?', sort: null },
      memory: numbers ? cell(t?.memory ?? null, seconds) : { text: '?', sort: null },
      lower: numbers ? cell(t?.lower ?? null, seconds) : { text: '?', sort: null },
      bound: numbers ? { text: `${l.bound}-bound${l.complete ? '' : ' (incomplete)'}`, sort: l.bound } : { text: `no numbers: ${l.unresolved ?? 'not analysed'}`, sort: null },
      share: numbers ? cell(l.share, percent) : { text: '–', sort: null },
    };
    return { id: `${pipelineId(file.path, p)}#${i}`, kernelId: kid, cells };
  });
  return { columns: LAUNCH_COLUMNS, rows };
}

function toggleOf(f: PipelineFusion, checked: boolean, blockedBy: PipelineFusion | undefined): PipelineFusionToggle {
  const shared = blockedBy ? (blockedBy.from === f.from || blockedBy.from === f.to ? blockedBy.fromKernel : blockedBy.toKernel) : '';
  return {
    from: f.from,
    label: `${pairName(f)} (${f.tensors.join(', ')})`,
    detail: `saves ${bytes(f.bytesSaved)} of DRAM traffic: T_lower ${seconds(f.lowerBefore)} → ${seconds(f.lowerAfter)} (−${percent(f.saving)}); the fused kernel would be ${f.fusedBound}-bound`,
    checked,
    ...(blockedBy ? { blocked: `shares ${shared} with ${pairName(blockedBy)}, chosen: this what-if fuses pairs, not chains` } : {}),
  };
}

export interface PipelineViewOptions {
  theme: ChartTheme;
  /** The bar's width in pixels (the roofline's plot width). */
  width: number;
  legend: 'right' | 'bottom';
}

/** The pipeline view of the files shown, or null when none of them has a pipeline. */
export function pipelineView(files: FileReport[], state: Pick<PanelState, 'pipeline' | 'fused'>, opts: PipelineViewOptions): PipelineViewModel | null {
  const all = pipelinesOf(files);
  const chosen = chosenPipeline(files, state);
  if (!chosen) return null;
  const { id, file, pipeline: p } = chosen;
  const t = p.total;
  const w = fusionWhatIf(p, fusedPairs(state, id));
  const ge = t.complete ? '' : '≥ ';
  const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : one.endsWith('h') ? 'es' : 's'}`;
  const summary = [
    count(t.launches, 'launch'),
    `${ge}${flops(t.flops)}`,
    `${ge}${bytes(t.compulsoryBytes)} compulsory${t.complete && t.intensity !== null ? ` → ${intensity(t.intensity)} FLOP/B` : ''}`,
    `T_lower ${ge}${seconds(t.time.lower)} (T_upper ${ge}${seconds(t.time.upper)})`,
  ].join(' · ');
  const lower = t.time.lower ?? 0;
  const computeTime = Math.max(0, lower - t.memoryBoundTime);
  const share = (x: number): string => (lower > 0 ? percent(x / lower) : '?');
  // A side with no launch says so (`0 ns` would read as a rounded figure).
  const part = (what: string, x: number): string => (x > lower * 1e-9 ? `${what} ${ge}${seconds(x)} (${share(x)})` : `${what}: no launch`);
  const time = `${part('memory-bound', t.memoryBoundTime)} · ${part('compute-bound', computeTime)}`;
  const off = pipelineOffChart(p);
  const point = off
    ? `Not on the chart: ${off}.`
    : `On the chart (★): ${intensity(t.flops / t.compulsoryBytes)} FLOP/B (Σ FLOPs ÷ Σ compulsory bytes) at ${flopRate(t.flops / lower)} (Σ FLOPs ÷ Σ T_lower), beside its kernels.`;
  const fusion = w.choices.map((c) => toggleOf(c.fusion, c.chosen, c.blockedBy));
  const fusedMemoryShare = w.lowerAfter > 0 ? percent(w.memoryAfter / w.lowerAfter) : '?';
  const fused = w.applied.length
    ? `With ${count(w.applied.length, 'pair')} fused: T_lower ${seconds(w.lowerBefore)} → ${seconds(w.lowerAfter)} (−${percent(w.saving)}), ${bytes(w.bytesSaved)} less DRAM traffic (${intensity(w.intensityBefore)} → ${intensity(w.intensityAfter)} FLOP/B), ${fusedMemoryShare} of it memory-bound. A bound: it assumes the fused kernels keep the intermediates on chip and change nothing else.`
    : null;
  const best = t.fusedPairs && t.fusedSaving !== null && t.fusedLower !== null ? `The best set of disjoint pairs: ${count(t.fusedPairs, 'pair')}, T_lower → ${seconds(t.fusedLower)}, saves up to ${percent(t.fusedSaving)}.` : null;
  const notes = [...p.notes];
  const unresolved = p.launches.filter((l) => !hasNumbers(l));
  if (unresolved.length) notes.push(`${count(unresolved.length, 'launch')} without numbers (${unresolved.map((l) => `${l.kernel}: ${l.unresolved ?? 'not analysed'}`).join('; ')}): the totals are lower bounds.`);
  for (const l of p.launches) if (l.repeatNote) notes.push(`${l.kernel}: ${l.repeatNote}`);
  return {
    id,
    name: p.name,
    choices: all.map((x) => ({ value: x.id, label: `${x.pipeline.name} (${x.file.path}:${x.pipeline.line})` })),
    summary,
    time,
    point,
    spec: pipelineBarSpec(p, w, { width: opts.width, theme: opts.theme, legend: opts.legend }),
    fusion,
    fused,
    best,
    launches: launchTable(file, p),
    notes,
  };
}
