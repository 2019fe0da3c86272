/**
 * Nsight Compute CSV exports: `ncu --csv --page raw` (one row per launch, one
 * column per metric, a units row under the header) and `ncu --csv --page
 * details` (one row per launch and metric: "Metric Name", "Metric Unit",
 * "Metric Value"). The application's own output and ncu's `==PROF==`
 * notices before, between and after the rows are skipped; `==ERROR==` and
 * `==WARNING==` notices are reported.
 */
import { DiagnosticCollector } from './collect';
import { lines, readCsv, type CsvNotice, type CsvRecord } from './csv';
import { findHeader, guessOtherTool } from './detect';
import { PMSG, pdiag } from './messages';
import { analyseKernelName, type KernelName } from './names';
import {
  DRAM_READ,
  DRAM_WRITE,
  FP_COUNTERS,
  L2,
  TENSOR_INST,
  TIME,
  buildLaunch,
  parseOpsPath,
  type LaunchInput,
  type MetricValue,
} from './ncuMetrics';
import type { MeasuredLaunch, ProfileImport } from './types';

/** Launches beyond this many are ignored (with a message). */
export const MAX_LAUNCHES = 100_000;

/** Human-readable labels of the details page that name a metric the import uses. */
const DETAIL_LABELS: Record<string, string> = { Duration: TIME };

interface Table {
  header: string[];
  rows: CsvRecord[];
  /** The units row of the raw page, or null. */
  units: string[] | null;
}

export function parseNcuCsv(text: string): ProfileImport {
  const sink = new DiagnosticCollector();
  const table = readTable(text, sink);
  if (!table) return { format: 'unknown', launches: [], diagnostics: sink.finish() };
  const format = table.header.includes('Metric Name') && table.header.includes('Metric Value') ? 'ncu-details' : 'ncu-raw';
  const inputs = format === 'ncu-details' ? detailsInputs(table, sink) : rawInputs(table, sink);
  if (inputs.length > MAX_LAUNCHES) {
    sink.add(pdiag('tooLarge', 'warning', PMSG.tooLarge(MAX_LAUNCHES)));
    inputs.length = MAX_LAUNCHES;
  }
  const launches = buildLaunches(inputs, sink);
  if (launches.length === 0) sink.add(pdiag('noLaunches', 'error', PMSG.noLaunches()));
  return { format, launches, diagnostics: sink.finish() };
}

function readTable(text: string, sink: DiagnosticCollector): Table | null {
  if (text.trim() === '') {
    sink.add(pdiag('empty', 'error', PMSG.empty()));
    return null;
  }
  const header = findHeader(text);
  reportNotices(preambleNotices(text, header?.line ?? Number.MAX_SAFE_INTEGER), sink);
  if (!header) {
    const guess = guessOtherTool(text);
    sink.add(guess ? pdiag('unknownFormat', 'error', PMSG.unknownFormat(guess)) : pdiag('noHeader', 'error', PMSG.noHeader()));
    return null;
  }
  const csv = readCsv(text, header.start, header.line);
  reportNotices(csv.notices, sink);
  if (csv.unterminated) sink.add(pdiag('unterminatedQuote', 'warning', PMSG.unterminatedQuote()));
  const [head, ...rest] = csv.records;
  if (!head) {
    sink.add(pdiag('noHeader', 'error', PMSG.noHeader()));
    return null;
  }
  const hasUnits = rest.length > 0 && rest[0].fields[0] === '';
  return { header: head.fields, rows: hasUnits ? rest.slice(1) : rest, units: hasUnits ? rest[0].fields : null };
}

/** `==…==` notices before the header. */
function preambleNotices(text: string, headerLine: number): CsvNotice[] {
  const out: CsvNotice[] = [];
  for (const l of lines(text)) {
    if (l.line >= headerLine) break;
    if (l.text.startsWith('==')) out.push({ text: l.text.trim(), line: l.line });
  }
  return out;
}

function reportNotices(notices: CsvNotice[], sink: DiagnosticCollector): void {
  for (const n of notices) {
    if (n.text.startsWith('==ERROR==')) sink.add(pdiag('profilerMessage', 'error', PMSG.profilerMessage(n.text.slice(9).trim()), n.line));
    else if (n.text.startsWith('==WARNING==')) sink.add(pdiag('profilerMessage', 'warning', PMSG.profilerMessage(n.text.slice(11).trim()), n.line));
  }
}

// ---- the raw page ------------------------------------------------------------

function rawInputs(t: Table, sink: DiagnosticCollector): LaunchInput[] {
  if (!t.units) sink.add(pdiag('noUnitsRow', 'warning', PMSG.noUnitsRow()));
  const col = columns(t.header);
  const metricCols = t.header.map((h, i) => ({ name: h.trim(), i })).filter((c) => c.name.includes('__'));
  const out: LaunchInput[] = [];
  for (const row of t.rows) {
    checkWidth(row, t.header.length, sink);
    const metrics = new Map<string, MetricValue>();
    for (const c of metricCols) {
      if (c.i >= row.fields.length) continue;
      metrics.set(c.name, { text: row.fields[c.i], unit: t.units ? (t.units[c.i] ?? '') : null, line: row.line });
    }
    out.push({ ...launchFields(row, col), metrics });
  }
  return out;
}

// ---- the details page --------------------------------------------------------

function detailsInputs(t: Table, sink: DiagnosticCollector): LaunchInput[] {
  const col = columns(t.header);
  const name = col('Metric Name');
  const unit = col('Metric Unit');
  const value = col('Metric Value');
  const byLaunch = new Map<string, LaunchInput>();
  for (const row of t.rows) {
    checkWidth(row, t.header.length, sink);
    const key = `${row.fields[col('ID')] ?? ''}\u0000${row.fields[col('Kernel Name')] ?? ''}`;
    let input = byLaunch.get(key);
    if (!input) {
      input = { ...launchFields(row, col), metrics: new Map() };
      byLaunch.set(key, input);
    }
    const label = (row.fields[name] ?? '').trim();
    const metric = DETAIL_LABELS[label] && !input.metrics.has(DETAIL_LABELS[label]) ? DETAIL_LABELS[label] : label;
    if (metric === '' || input.metrics.has(metric) || value >= row.fields.length) continue;
    input.metrics.set(metric, { text: row.fields[value], unit: unit >= 0 ? (row.fields[unit] ?? '') : null, line: row.line });
  }
  return [...byLaunch.values()];
}

// ---- shared ------------------------------------------------------------------

function columns(header: string[]): (name: string) => number {
  const index = new Map(header.map((h, i) => [h.trim(), i] as const));
  return (name) => index.get(name) ?? -1;
}

function checkWidth(row: CsvRecord, width: number, sink: DiagnosticCollector): void {
  if (row.fields.length < width) sink.add(pdiag('shortRow', 'warning', PMSG.shortRow(row.fields.length, width), row.line));
}

function launchFields(row: CsvRecord, col: (name: string) => number): Omit<LaunchInput, 'metrics'> {
  const get = (name: string) => {
    const i = col(name);
    return i >= 0 ? (row.fields[i] ?? '').trim() : '';
  };
  const id = /^\d+$/.test(get('ID')) ? Number(get('ID')) : undefined;
  const grid = parseDim3(get('Grid Size'));
  const block = parseDim3(get('Block Size'));
  return {
    name: get('Kernel Name'),
    ...(id !== undefined ? { id } : {}),
    ...(grid ? { grid } : {}),
    ...(block ? { block } : {}),
    line: row.line,
  };
}

/** "(256, 1, 1)" or "256" → [256, 1, 1]. */
function parseDim3(text: string): [number, number, number] | undefined {
  const inner = text.replace(/^\(|\)$/g, '').trim();
  if (inner === '') return undefined;
  const parts = inner.split(',').map((p) => p.trim());
  if (parts.length > 3 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  const n = parts.map(Number);
  return [n[0], n[1] ?? 1, n[2] ?? 1];
}

function buildLaunches(inputs: LaunchInput[], sink: DiagnosticCollector): MeasuredLaunch[] {
  const seen = new Map<string, number>();
  const names = new Map<string, KernelName>();
  const built = inputs.map((input) => {
    let name = names.get(input.name);
    if (!name) names.set(input.name, (name = analyseKernelName(input.name)));
    const b = buildLaunch(input, name, sink);
    const launchIndex = seen.get(input.name) ?? 0;
    seen.set(input.name, launchIndex + 1);
    return { launch: { ...b.launch, launchIndex } as MeasuredLaunch, absent: b.absent };
  });
  reportAbsent(built, inputs, sink);
  return built.map((b) => b.launch);
}

interface MetricGroup {
  metrics: string[];
  consequence: string;
  severity: 'error' | 'warning' | 'info';
}

const GROUPS: MetricGroup[] = [
  { metrics: [TIME], consequence: 'kernel time unknown, the measured dots cannot be placed', severity: 'error' },
  { metrics: [DRAM_READ, DRAM_WRITE], consequence: 'DRAM traffic unknown, no measured intensity', severity: 'warning' },
  { metrics: [L2], consequence: 'no L2 traffic to compare with the tile bytes', severity: 'info' },
];

/**
 * Metrics absent from every launch become one message per group; metrics
 * absent from some launches only, one message per metric.
 */
function reportAbsent(built: { launch: MeasuredLaunch; absent: string[] }[], inputs: LaunchInput[], sink: DiagnosticCollector): void {
  if (built.length === 0) return;
  const absentEverywhere = (m: string) => built.every((b) => b.absent.includes(m));
  for (const g of GROUPS) {
    const gone = g.metrics.filter(absentEverywhere);
    if (gone.length > 0) sink.add(pdiag('missingMetric', g.severity, PMSG.missingMetric(gone, g.consequence)));
  }
  const fpGone = FP_COUNTERS.map((c) => c.name).filter(absentEverywhere);
  const hasTensorPaths = inputs.some((i) => [...i.metrics.keys()].some((k) => parseOpsPath(k) !== null));
  if (fpGone.length === FP_COUNTERS.length && !hasTensorPaths)
    sink.add(pdiag('missingMetric', 'warning', PMSG.missingMetric(fpGone, 'FLOPs unknown, no measured intensity')));
  else if (fpGone.length > 0) sink.add(pdiag('partialFlops', 'info', PMSG.partialFlops(fpGone)));
  const hasTensorInst = inputs.some((i) => i.metrics.has(TENSOR_INST) || i.metrics.has('smsp__inst_executed_pipe_tensor.sum'));
  if (!hasTensorPaths && !hasTensorInst) sink.add(pdiag('noTensorCounters', 'info', PMSG.noTensorCounters()));
  const tracked = [TIME, DRAM_READ, DRAM_WRITE, L2, ...FP_COUNTERS.map((c) => c.name)];
  for (const m of tracked) {
    if (absentEverywhere(m)) continue;
    for (const b of built)
      if (b.absent.includes(m)) sink.note(`absent:${m}`, 'missingForLaunches', 'warning', (k) => PMSG.missingForLaunches(m, k), b.launch.demangled, b.launch.line);
  }
}

