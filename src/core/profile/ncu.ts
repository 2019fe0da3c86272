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
import { DRAM_READ, DRAM_WRITE, FP_COUNTERS, GPC_CLOCK, L2, TIME, buildLaunch, type LaunchInput, type MetricValue } from './ncuMetrics';
import { classifyOpsMetric, classifyPipeMetric } from './tensor';
import type { MeasuredLaunch, ProfileDevice, ProfileImport } from './types';
import { normaliseNumber, parseUnit, toBase } from './units';

/** Launches beyond this many are ignored (with a message). */
export const MAX_LAUNCHES = 100_000;

/**
 * Labels of the details page (the SpeedOfLight section header, which every
 * roofline section extends) that name a metric the import uses.
 */
const DETAIL_LABELS: Record<string, string> = {
  Duration: TIME,
  'SM Frequency': GPC_CLOCK,
  'DRAM Frequency': 'dram__cycles_elapsed.avg.per_second',
};

/** Section names (display names or identifiers) of the roofline sections, whose achieved rows are read by label. */
const ROOFLINE_SECTION = /roofline/i;

interface Table {
  header: string[];
  rows: CsvRecord[];
  /** The units row of the raw page, or null. */
  units: string[] | null;
}

export function parseNcuCsv(text: string): ProfileImport {
  const sink = new DiagnosticCollector();
  const table = readTable(text, sink);
  if (!table) return { format: 'unknown', launches: [], devices: [], diagnostics: sink.finish() };
  const format = table.header.includes('Metric Name') && table.header.includes('Metric Value') ? 'ncu-details' : 'ncu-raw';
  const inputs = format === 'ncu-details' ? detailsInputs(table, sink) : rawInputs(table, sink);
  if (inputs.length > MAX_LAUNCHES) {
    sink.add(pdiag('tooLarge', 'warning', PMSG.tooLarge(MAX_LAUNCHES)));
    inputs.length = MAX_LAUNCHES;
  }
  const launches = buildLaunches(inputs, sink);
  if (launches.length === 0) sink.add(pdiag('noLaunches', 'error', PMSG.noLaunches()));
  return { format, launches, devices: devicesOf(inputs), diagnostics: sink.finish() };
}

/**
 * The GPUs of the export, from ncu's `Device` and `CC` columns (one per
 * `--devices` index), with the device's name, SM count and DRAM bandwidth
 * where the export has the metrics (`device__attribute_display_name`,
 * `device__attribute_multiprocessor_count`, `dram__bytes.sum.peak_sustained`
 * × `dram__cycles_elapsed.avg.per_second`).
 */
function devicesOf(inputs: LaunchInput[]): ProfileDevice[] {
  const out = new Map<string, ProfileDevice>();
  for (const i of inputs) {
    if (i.device === undefined || out.has(i.device)) continue;
    const d: ProfileDevice = { key: i.device, label: `GPU ${i.device}` };
    if (i.cc) d.cc = i.cc;
    const name = i.metrics.get('device__attribute_display_name')?.text.trim();
    if (name) d.name = name;
    const sms = numberOf(i.metrics.get('device__attribute_multiprocessor_count'));
    if (sms !== undefined && sms > 0) d.smCount = sms;
    const bandwidth = peakBandwidth(i.metrics.get('dram__bytes.sum.peak_sustained'), i.metrics.get('dram__cycles_elapsed.avg.per_second'));
    if (bandwidth !== undefined) d.memoryBandwidth = bandwidth;
    out.set(i.device, d);
  }
  return [...out.values()];
}

/** Peak DRAM bytes/s: bytes per DRAM cycle ("Kbyte/cycle") × the DRAM frequency. */
function peakBandwidth(perCycle: MetricValue | undefined, clock: MetricValue | undefined): number | undefined {
  const m = perCycle ? /^([KMGT]?)byte\/cycle$/.exec((perCycle.unit ?? '').trim()) : null;
  const bytes = m ? numberOf(perCycle, { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[1]]) : undefined;
  const unit = clock ? parseUnit(clock.unit ?? '') : null;
  const digits = clock ? normaliseNumber(clock.text) : null;
  const hz = unit && unit.dimension === 'frequency' && digits !== null ? toBase(digits, unit) : undefined;
  return bytes !== undefined && hz !== undefined && bytes > 0 && hz > 0 ? bytes * hz : undefined;
}

function numberOf(v: MetricValue | undefined, scale = 1): number | undefined {
  const d = v ? normaliseNumber(v.text) : null;
  return d === null ? undefined : Number(d) * scale;
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
  const section = col('Section Name');
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
    if (label === '' || value >= row.fields.length) continue;
    const sectionName = section >= 0 ? (row.fields[section] ?? '').trim() : '';
    const metricUnit = unit >= 0 ? (row.fields[unit] ?? '') : null;
    // A roofline section's rows by label (not raw metric names): its achieved values.
    if (!label.includes('__') && ROOFLINE_SECTION.test(sectionName) && !DETAIL_LABELS[label]) {
      (input.sectionRows ??= []).push({ section: sectionName, label, text: row.fields[value], unit: metricUnit, line: row.line });
      continue;
    }
    const metric = DETAIL_LABELS[label] && !input.metrics.has(DETAIL_LABELS[label]) ? DETAIL_LABELS[label] : label;
    if (input.metrics.has(metric)) continue;
    input.metrics.set(metric, { text: row.fields[value], unit: metricUnit, line: row.line });
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
  const device = get('Device');
  const cc = get('CC');
  return {
    name: get('Kernel Name'),
    ...(id !== undefined ? { id } : {}),
    ...(grid ? { grid } : {}),
    ...(block ? { block } : {}),
    ...(/^\d+$/.test(device) ? { device } : {}),
    ...(/^\d+\.\d+$/.test(cc) ? { cc } : {}),
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
    return { launch: { ...b.launch, launchIndex } as MeasuredLaunch, absent: b.absent, tensorPaths: b.tensorPaths };
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
 * absent from some launches only, one message per metric. Quantities a
 * roofline section supplied instead are not reported missing.
 */
function reportAbsent(built: { launch: MeasuredLaunch; absent: string[]; tensorPaths: number }[], inputs: LaunchInput[], sink: DiagnosticCollector): void {
  if (built.length === 0) return;
  const absentEverywhere = (m: string) => built.every((b) => b.absent.includes(m));
  const sectionFlops = built.every((b) => b.launch.flops?.convention === 'ncu-section');
  const sectionBytes = built.every((b) => b.launch.dramBytes !== undefined);
  for (const g of GROUPS) {
    if (g.metrics.includes(DRAM_READ) && sectionBytes) continue;
    const gone = g.metrics.filter(absentEverywhere);
    if (gone.length > 0) sink.add(pdiag('missingMetric', g.severity, PMSG.missingMetric(gone, g.consequence)));
  }
  const fpGone = FP_COUNTERS.map((c) => c.name).filter(absentEverywhere);
  const hasTensorPaths = built.some((b) => b.tensorPaths > 0);
  if (!sectionFlops) {
    if (fpGone.length === FP_COUNTERS.length && !hasTensorPaths)
      sink.add(pdiag('missingMetric', 'warning', PMSG.missingMetric(fpGone, 'FLOPs unknown, no measured intensity')));
    else if (fpGone.length > 0) sink.add(pdiag('partialFlops', 'info', PMSG.partialFlops(fpGone)));
  }
  const tensorish = (k: string) => classifyOpsMetric(k) !== null || classifyPipeMetric(k) !== null;
  if (!sectionFlops && !inputs.some((i) => [...i.metrics.keys()].some(tensorish))) sink.add(pdiag('noTensorCounters', 'info', PMSG.noTensorCounters()));
  const tracked = [TIME, DRAM_READ, DRAM_WRITE, L2, ...FP_COUNTERS.map((c) => c.name)];
  for (const m of tracked) {
    if (absentEverywhere(m)) continue;
    for (const b of built)
      if (b.absent.includes(m)) sink.note(`absent:${m}`, 'missingForLaunches', 'warning', (k) => PMSG.missingForLaunches(m, k), b.launch.demangled, b.launch.line);
  }
}
