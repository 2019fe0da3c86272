/**
 * From the metric values of one ncu launch to time, bytes and FLOPs, the way
 * docs/profiles.md states them:
 *
 * - time: `gpu__time_duration.sum`; without it, `sm__cycles_elapsed.avg` ÷
 *   `sm__cycles_elapsed.avg.per_second`.
 * - DRAM bytes: `dram__bytes_read.sum` + `dram__bytes_write.sum` (or
 *   `dram__bytes.sum`); L2 bytes: `lts__t_bytes.sum`.
 * - CUDA-core FLOPs, as NVIDIA's roofline sections count them, from the
 *   `sm__sass_thread_inst_executed_op_*_pred_on.sum` thread-instruction
 *   counters (`smsp__` spellings accepted): fp32 and fp64 add + mul + 2 × fma;
 *   half precision 2 × add + 2 × mul + 4 × fma (every half instruction a
 *   packed pair, as the Half Precision roofline section counts it).
 * - tensor-core FLOPs: the `sm__ops_path_tensor_*` op counters (tensor.ts),
 *   one op = one FLOP, each piece of work once.
 *
 * A counter may come as its total (`X.sum`) or as the rates NVIDIA's
 * roofline sections collect: `X.sum.per_cycle_elapsed` (times the unit's
 * elapsed cycles, or its frequency × the duration), the sections' derived
 * `derived__smsp__…_x2`/`_x4` (the per-cycle rate already multiplied), or
 * `X.sum.per_second` (times the duration). When no counter gives FLOPs, the
 * achieved FLOP/s and intensity rows of a roofline section on the details
 * page are used (`ncu-section` convention).
 */
import type { DiagnosticCollector } from './collect';
import { PMSG } from './messages';
import { classifyOpsMetric, classifyPipeMetric, covers, opsCountersFor, sumTensorOps, type OpsPath, type PipeKind } from './tensor';
import type { FlopConvention, FlopCounts, FlopDtype, MeasuredLaunch, ProfileSeverity } from './types';
import { describeDimension, normaliseNumber, parseUnit, toBase, type Dimension } from './units';

export interface MetricValue {
  text: string;
  /** The unit string, or null when the export gives none. */
  unit: string | null;
  line: number;
}

/** A row of a roofline section on the details page that names no raw metric (a label). */
export interface SectionRow {
  section: string;
  label: string;
  text: string;
  unit: string | null;
  line: number;
}

export interface LaunchInput {
  name: string;
  id?: number;
  grid?: [number, number, number];
  block?: [number, number, number];
  /** ncu's `Device` column. */
  device?: string;
  /** ncu's `CC` column ("9.0"). */
  cc?: string;
  line: number;
  metrics: Map<string, MetricValue>;
  /** Roofline-section rows by label (details page). */
  sectionRows?: SectionRow[];
}

export const TIME = 'gpu__time_duration.sum';
const SM_CYCLES = 'sm__cycles_elapsed.avg';
const SM_CLOCK = 'sm__cycles_elapsed.avg.per_second';
/** "SM Frequency" of the SpeedOfLight section header. */
export const GPC_CLOCK = 'gpc__cycles_elapsed.avg.per_second';
export const DRAM_READ = 'dram__bytes_read.sum';
export const DRAM_WRITE = 'dram__bytes_write.sum';
const DRAM_TOTAL = 'dram__bytes.sum';
export const L2 = 'lts__t_bytes.sum';

const PRECISIONS: { letter: string; dtype: FlopDtype; scale: number }[] = [
  { letter: 'f', dtype: 'fp32', scale: 1 },
  { letter: 'd', dtype: 'fp64', scale: 1 },
  // Half-precision instructions are counted as packed pairs (HADD2, HMUL2, HFMA2), as ncu's Half Precision roofline does.
  { letter: 'h', dtype: 'fp16', scale: 2 },
];
const OPS: { op: string; flops: number }[] = [
  { op: 'add', flops: 1 },
  { op: 'mul', flops: 1 },
  { op: 'fma', flops: 2 },
];

/** `sm__sass_thread_inst_executed_op_ffma_pred_on.sum` and friends, in a fixed order, with FLOPs per thread instruction. */
export const FP_COUNTERS: { name: string; dtype: FlopDtype; flops: number }[] = PRECISIONS.flatMap((p) =>
  OPS.map((o) => ({ name: `sm__sass_thread_inst_executed_op_${p.letter}${o.op}_pred_on.sum`, dtype: p.dtype, flops: o.flops * p.scale })),
);

export interface BuiltLaunch {
  launch: Omit<MeasuredLaunch, 'launchIndex'>;
  /** Canonical metric names the launch's input did not contain at all. */
  absent: string[];
  /** Tensor ops counters the launch had (known paths). */
  tensorPaths: number;
}

/** Time, bytes and FLOPs of one launch; problems go to `sink`. */
export function buildLaunch(input: LaunchInput, names: { demangled: string; qualifiedName: string; baseName: string }, sink: DiagnosticCollector): BuiltLaunch {
  const r = new MetricReader(input, names.demangled, sink);
  const launch: Omit<MeasuredLaunch, 'launchIndex'> = {
    name: input.name,
    ...names,
    ...(input.id !== undefined ? { id: input.id } : {}),
    invocations: 1,
    ...(input.grid ? { grid: input.grid } : {}),
    ...(input.block ? { block: input.block } : {}),
    ...(input.device !== undefined ? { device: input.device } : {}),
    origin: { flops: 'counters', bytes: 'counters' },
    missing: [],
    line: input.line,
  };
  const time = readTime(r);
  assign(launch, 'timeSeconds', time);
  readDram(r, launch, time);
  assign(launch, 'l2Bytes', r.readTotal(L2, 'bytes', time));
  const flops = readFlops(r, input, time);
  assign(launch, 'flops', flops.counts);
  if (!flops.counts || launch.dramBytes === undefined) fromSection(r, input, launch, time);
  launch.missing = r.missing;
  return { launch, absent: r.absent, tensorPaths: flops.tensorPaths };
}

function assign<K extends keyof MeasuredLaunch>(l: Omit<MeasuredLaunch, 'launchIndex'>, key: K, value: MeasuredLaunch[K] | undefined): void {
  if (value !== undefined) (l as MeasuredLaunch)[key] = value;
}

function readTime(r: MetricReader): number | undefined {
  if (r.has(TIME) || !(r.has(SM_CYCLES) && r.has(SM_CLOCK))) return r.read(TIME, 'seconds', 'nsecond');
  const cycles = r.read(SM_CYCLES, 'cycles', 'cycle');
  const clock = r.read(SM_CLOCK, 'frequency', null);
  return cycles !== undefined && clock !== undefined && clock > 0 ? cycles / clock : undefined;
}

function readDram(r: MetricReader, l: Omit<MeasuredLaunch, 'launchIndex'>, time: number | undefined): void {
  const present = (m: string) => r.hasTotal(m);
  if (!present(DRAM_READ) && !present(DRAM_WRITE) && present(DRAM_TOTAL)) {
    assign(l, 'dramBytes', r.readTotal(DRAM_TOTAL, 'bytes', time));
    return;
  }
  const read = r.readTotal(DRAM_READ, 'bytes', time);
  const write = r.readTotal(DRAM_WRITE, 'bytes', time);
  assign(l, 'dramReadBytes', read);
  assign(l, 'dramWriteBytes', write);
  if (read !== undefined && write !== undefined) l.dramBytes = read + write;
}

function readFlops(r: MetricReader, input: LaunchInput, time: number | undefined): { counts: FlopCounts | undefined; tensorPaths: number } {
  const byDtype: Partial<Record<FlopDtype, number>> = {};
  const reasons: string[] = [];
  let anyVector = false;
  const missingFp: string[] = [];
  for (const c of FP_COUNTERS) {
    const v = r.readTotal(c.name, 'count', time);
    if (v === undefined) {
      missingFp.push(c.name);
      continue;
    }
    anyVector = true;
    byDtype[c.dtype] = (byDtype[c.dtype] ?? 0) + c.flops * v;
  }
  if (missingFp.length) reasons.push(`CUDA-core FP counters not read: ${missingFp.length === FP_COUNTERS.length ? 'all of them' : missingFp.join(', ')}`);
  const tensor = readTensor(r, input, time);
  reasons.push(...tensor.reasons);
  if (!anyVector && !tensor.ops) return { counts: undefined, tensorPaths: tensor.paths };
  const t = tensor.ops;
  for (const [d, v] of Object.entries(t?.byDtype ?? {})) byDtype[d as FlopDtype] = (byDtype[d as FlopDtype] ?? 0) + (v ?? 0);
  const counts: FlopCounts = {
    total: sum(byDtype),
    byDtype,
    tensor: t && !tensor.unknown ? { total: t.total, byDtype: t.byDtype, ...(t.sparse > 0 ? { sparse: t.sparse } : {}) } : null,
    lowerBound: reasons.length > 0,
    ...(reasons.length ? { lowerBoundReasons: reasons } : {}),
    convention: 'ncu-counters' satisfies FlopConvention,
  };
  return { counts, tensorPaths: tensor.paths };
}

/**
 * Tensor FLOPs from the op counters. `unknown` (tensor FLOPs cannot be
 * given) when tensor work ran that no exported op counter covers; each
 * reason is also a warning naming the counters to collect.
 */
function readTensor(
  r: MetricReader,
  input: LaunchInput,
  time: number | undefined,
): { ops: ReturnType<typeof sumTensorOps> | null; unknown: boolean; reasons: string[]; paths: number } {
  const paths = new Map<string, OpsPath>();
  const counted = new Set<string>();
  const notCounts = new Map<string, string>();
  const reasons: string[] = [];
  let unknownWork = false;
  const pipes = new Map<PipeKind, string[]>();
  for (const [metric, value] of input.metrics) {
    const ops = classifyOpsMetric(metric);
    if (ops && 'path' in ops) {
      paths.set(ops.path.metric, ops.path);
      continue;
    }
    if (ops && 'unknown' in ops) {
      const v = looseNumber(value.text);
      r.unknownTensorMetric(metric, ops.unknown);
      if (v !== 0) {
        unknownWork = true;
        reasons.push(`${metric} could not be read (${ops.unknown})`);
      }
      continue;
    }
    if (ops && 'notCount' in ops) {
      // Peaks (.peak_sustained) describe the GPU, not the work: the sections export them for every path.
      if (!/peak_sustained/.test(ops.notCount) || /pct_of/.test(ops.notCount)) notCounts.set(metric, ops.notCount);
      continue;
    }
    const pipe = classifyPipeMetric(metric);
    if (pipe && (looseNumber(value.text) ?? 0) > 0) pipes.set(pipe, [...(pipes.get(pipe) ?? []), metric]);
  }
  const counters: { path: OpsPath; value: number }[] = [];
  for (const p of paths.values()) {
    const v = r.readTotal(p.metric, 'count', time);
    if (v === undefined) continue;
    counted.add(p.metric.slice(0, -'.sum'.length));
    counters.push({ path: p, value: v });
  }
  // A known op counter exported only as a percentage of its peak: not a count, but non-zero means tensor work.
  for (const [metric, rollup] of notCounts) {
    const stem = metric.slice(0, metric.indexOf('.'));
    if (counted.has(stem)) continue;
    r.tensorNotCount(metric, rollup);
    if (/pct_of_peak/.test(rollup) && (looseNumber(input.metrics.get(metric)!.text) ?? 0) > 0) pipes.set('tensor', [...(pipes.get('tensor') ?? []), metric]);
  }
  const ops = counters.length ? sumTensorOps(counters) : null;
  const ran = [...pipes.values()].flat();
  if (ran.length > 0) {
    if (!ops) {
      unknownWork = true;
      const what = ran.some((m) => classifyPipeMetric(m) === 'warpgroup') ? 'warpgroup' : ran.some((m) => classifyPipeMetric(m) === 'tcgen05') ? 'tcgen05' : 'tensor';
      const add = opsCountersFor(input.cc, what);
      r.tensorUnknown(ran, add);
      reasons.push(`tensor work ran (${ran[0]} > 0) but no op counter was exported: collect ${add}`);
    } else {
      for (const kind of ['warpgroup', 'tcgen05'] as const) {
        const seen = pipes.get(kind);
        if (!seen || covers(ops.families, kind)) continue;
        unknownWork = true;
        const add = opsCountersFor(input.cc, kind);
        r.tensorUncovered(seen[0], kind, add);
        reasons.push(`${kind === 'warpgroup' ? 'warpgroup MMA (wgmma)' : 'tcgen05 MMA'} instructions ran (${seen[0]} > 0) but no exported op counter covers them: collect ${add}`);
      }
      if (ops.total === 0 && ops.integerOps === 0) {
        unknownWork = true;
        const add = opsCountersFor(input.cc, 'tensor');
        r.tensorZero(ran[0], counters.map((c) => c.path.metric), add);
        reasons.push(`tensor work ran (${ran[0]} > 0) but every exported op counter reads 0: the kernel's types are not among them; collect ${add}`);
      }
    }
  }
  if (ops && ops.integerOps > 0) r.integerTensor(counters.filter((c) => c.path.kind === 'integer').map((c) => c.path.metric));
  if (ops && ops.sparse > 0) r.sparseTensor();
  return { ops, unknown: unknownWork, reasons, paths: counters.length };
}

// ---- roofline sections by label (details page) ------------------------------------

/** What a section row's work counts: a vector type, or a tensor path (`tensor:Src:bf16 Dst:fp32`). */
type Precision = FlopDtype | `tensor:${string}`;

/**
 * FLOPs and DRAM bytes from a roofline section's achieved rows when the
 * counters gave none: per type or tensor path the achieved FLOP/s (a rate
 * unit) at the DRAM level (the L2 and L1 rows repeat the same work), times
 * the duration; DRAM bytes from the DRAM bandwidth row, or the achieved
 * FLOP/s ÷ the DRAM arithmetic-intensity row.
 */
function fromSection(r: MetricReader, input: LaunchInput, l: Omit<MeasuredLaunch, 'launchIndex'>, time: number | undefined): void {
  const rows = input.sectionRows ?? [];
  if (rows.length === 0 || time === undefined || time <= 0) return;
  const work = new Map<Precision, { level: string; value: number; dtype: FlopDtype }>();
  const ai = new Map<Precision, number>();
  let bandwidth: number | undefined;
  for (const row of rows) {
    const unit = row.unit === null ? null : parseUnit(row.unit);
    const digits = normaliseNumber(row.text);
    if (!unit || digits === null) continue;
    const value = toBase(digits, unit);
    if (!Number.isFinite(value) || value < 0) continue;
    const level = /\bL1\b|L1\/TEX/i.test(row.label) ? 'l1' : /\bL2\b/i.test(row.label) ? 'l2' : 'dram';
    const p = precisionOf(row.section, row.label);
    if (unit.dimension === 'countRate' && p) {
      const cur = work.get(p.key);
      if (!cur || (cur.level !== 'dram' && level === 'dram')) work.set(p.key, { level, value, dtype: p.dtype });
    } else if (unit.dimension === 'intensity' && p && level === 'dram') ai.set(p.key, value);
    else if (unit.dimension === 'byteRate' && level === 'dram') bandwidth = value;
  }
  if (work.size === 0) return;
  const byDtype: Partial<Record<FlopDtype, number>> = {};
  const tensor: Partial<Record<FlopDtype, number>> = {};
  for (const [key, w] of work) {
    byDtype[w.dtype] = (byDtype[w.dtype] ?? 0) + w.value * time;
    if (key.startsWith('tensor:')) tensor[w.dtype] = (tensor[w.dtype] ?? 0) + w.value * time;
  }
  if (!l.flops) {
    l.flops = {
      total: sum(byDtype),
      byDtype,
      tensor: [...work.keys()].some((k) => k.startsWith('tensor:')) ? { total: sum(tensor), byDtype: tensor } : null,
      lowerBound: false,
      convention: 'ncu-section',
    };
    r.fromSection(rows[0].section);
  }
  if (l.dramBytes === undefined) {
    if (bandwidth !== undefined) l.dramBytes = bandwidth * time;
    else {
      const best = [...work.entries()].filter(([p, w]) => w.value > 0 && (ai.get(p) ?? 0) > 0).sort((a, b) => b[1].value - a[1].value)[0];
      if (best) l.dramBytes = (best[1].value / ai.get(best[0])!) * time;
    }
  }
}

/** The type a section row's work is in: the section (Single, Double, Half, Tensor Core) or the label's `Src:` types. */
function precisionOf(section: string, label: string): { key: Precision; dtype: FlopDtype } | null {
  const s = `${section} ${label}`;
  if (/tensor/i.test(section) || /\bSrc:/i.test(label)) {
    const path = /\((Src:[^)]*)\)/i.exec(label)?.[1].trim() ?? 'tensor';
    return { key: `tensor:${path}`, dtype: tensorDtypeOf(label) ?? 'fp16' };
  }
  if (/double|fp64/i.test(s)) return { key: 'fp64', dtype: 'fp64' };
  if (/half|fp16/i.test(s)) return { key: 'fp16', dtype: 'fp16' };
  if (/single|fp32/i.test(s)) return { key: 'fp32', dtype: 'fp32' };
  return null;
}

/** "DRAM Achieved Value (Src:bf16 Dst:fp32)" → bf16 (the first type a multi-type path names: Src:fp16,bf16,tf32 → fp16). */
function tensorDtypeOf(label: string): FlopDtype | undefined {
  const m = /Src:\s*([a-z0-9]+)/i.exec(label);
  const t = m?.[1].toLowerCase();
  return t && ['fp64', 'tf32', 'fp16', 'bf16', 'fp8', 'fp6', 'fp4'].includes(t) ? (t as FlopDtype) : undefined;
}

function sum(r: Partial<Record<string, number>>): number {
  let s = 0;
  for (const v of Object.values(r)) s += v ?? 0;
  return s;
}

/** A number as printed, ignoring its unit; undefined when it is not one. */
function looseNumber(text: string): number | undefined {
  const d = normaliseNumber(text);
  return d === null ? undefined : Number(d);
}

/** The `smsp__` spelling of an `sm__` counter (the same count, summed over sub-partitions), and back. */
function otherSpelling(metric: string): string {
  if (metric.startsWith('sm__')) return 'smsp__' + metric.slice('sm__'.length);
  if (metric.startsWith('smsp__')) return 'sm__' + metric.slice('smsp__'.length);
  return metric;
}

/** Reads metric values into base units, recording what is missing and why. */
class MetricReader {
  readonly missing: string[] = [];
  readonly absent: string[] = [];

  constructor(
    private readonly input: LaunchInput,
    /** The kernel's name in messages (demangled). */
    private readonly label: string,
    private readonly sink: DiagnosticCollector,
  ) {}

  has(metric: string): boolean {
    return this.input.metrics.has(metric) || this.input.metrics.has(otherSpelling(metric));
  }

  /** Is the counter there in any form `readTotal` reads? */
  hasTotal(counter: string): boolean {
    return this.totalForm(counter) !== null;
  }

  /** The value of `metric` (or its other spelling) in base units; undefined when missing or unusable. */
  read(metric: string, dimension: Dimension, baseUnit: string | null): number | undefined {
    const key = this.keyOf(metric);
    if (key === null) return this.lack(metric, true);
    return this.readKey(metric, key, dimension, baseUnit);
  }

  /**
   * A counter's total over the launch: `X.sum`; else `X.sum.per_cycle_elapsed`
   * × the unit's elapsed cycles (or its frequency × `time`); else the roofline
   * sections' `derived__smsp__…_x2`/`_x4` likewise (divided by 2 or 4); else
   * `X.sum.per_second` × `time`.
   */
  readTotal(counter: string, dimension: 'count' | 'bytes', time: number | undefined): number | undefined {
    const form = this.totalForm(counter);
    if (form === null) return this.lack(counter, true);
    if (form.kind === 'sum') return this.readKey(counter, form.key, dimension, dimension === 'bytes' ? 'byte' : '');
    if (form.kind === 'per_second') {
      const rate = this.readKey(counter, form.key, dimension === 'bytes' ? 'byteRate' : 'countRate', null);
      if (rate === undefined) return undefined;
      if (time === undefined) return this.lack(counter, false);
      return rate * time;
    }
    if (form.kind !== 'per_cycle') return undefined;
    const perCycle = this.readKey(counter, form.key, 'countPerCycle', '');
    if (perCycle === undefined) return undefined;
    const cycles = this.elapsedCycles(form.unit, time);
    if (cycles === undefined) return this.lack(counter, false);
    return (perCycle / form.factor) * cycles;
  }

  private totalForm(counter: string): { kind: 'sum' | 'per_second'; key: string } | { kind: 'per_cycle'; key: string; unit: string; factor: number } | null {
    const sumKey = this.keyOf(counter);
    if (sumKey !== null) return { kind: 'sum', key: sumKey };
    const perCycle = this.keyOf(`${counter}.per_cycle_elapsed`);
    if (perCycle !== null) return { kind: 'per_cycle', key: perCycle, unit: perCycle.slice(0, perCycle.indexOf('__')), factor: 1 };
    if (counter.endsWith('.sum')) {
      const stem = counter.slice(0, -'.sum'.length);
      // Only the smsp__ forms are achieved rates: the sections' derived__sm__…_xN are peaks (peak_sustained × N).
      const spelling = stem.startsWith('sm__') ? 'smsp__' + stem.slice(4) : stem;
      if (spelling.startsWith('smsp__'))
        for (const factor of [2, 4]) {
          const key = `derived__${spelling}_x${factor}`;
          if (this.input.metrics.has(key)) return { kind: 'per_cycle', key, unit: 'smsp', factor };
        }
    }
    const perSecond = this.keyOf(`${counter}.per_second`);
    if (perSecond !== null) return { kind: 'per_second', key: perSecond };
    return null;
  }

  /** Elapsed cycles of `unit` (sm, smsp): its `cycles_elapsed.avg`, else its frequency × time. */
  private elapsedCycles(unit: string, time: number | undefined): number | undefined {
    for (const u of [unit, unit === 'smsp' ? 'sm' : 'smsp']) {
      const m = `${u}__cycles_elapsed.avg`;
      if (this.input.metrics.has(m)) return this.readKey(m, m, 'cycles', 'cycle');
    }
    if (time === undefined) return undefined;
    for (const f of [`${unit}__cycles_elapsed.avg.per_second`, SM_CLOCK, 'smsp__cycles_elapsed.avg.per_second', GPC_CLOCK]) {
      if (!this.input.metrics.has(f)) continue;
      const hz = this.readKey(f, f, 'frequency', null);
      if (hz !== undefined && hz > 0) return hz * time;
    }
    return undefined;
  }

  private keyOf(metric: string): string | null {
    if (this.input.metrics.has(metric)) return metric;
    const other = otherSpelling(metric);
    return this.input.metrics.has(other) ? other : null;
  }

  private readKey(metric: string, key: string, dimension: Dimension, baseUnit: string | null): number | undefined {
    const v = this.input.metrics.get(key)!;
    const text = v.text.trim();
    if (text === '') return this.lack(metric, true);
    if (/^n\/?a$/i.test(text)) return this.problem(metric, 'notAvailable', 'info', (k) => PMSG.notAvailable(key, k), v.line);
    const unit = this.unitOf(key, v, dimension, baseUnit);
    if (!unit) return this.lack(metric, false);
    const digits = normaliseNumber(text);
    const value = digits === null ? NaN : toBase(digits, unit);
    if (!Number.isFinite(value)) return this.problem(metric, 'badValue', 'error', (k) => PMSG.badValue(key, text, k), v.line, text);
    if (value < 0) return this.problem(metric, 'negativeValue', 'warning', (k) => PMSG.negativeValue(key, k), v.line);
    return value;
  }

  private unitOf(key: string, v: MetricValue, dimension: Dimension, baseUnit: string | null): ReturnType<typeof parseUnit> {
    const text = v.unit?.trim() ?? '';
    if (text === '' && dimension === 'countPerCycle') return { dimension, pow10: 0, factor: 1 };
    if (text === '' && dimension !== 'count') {
      if (baseUnit === null) {
        this.sink.note(`unit:${key}:none`, 'noUnit', 'error', (k) => PMSG.noUnit(key, k), this.label, v.line);
        return null;
      }
      this.sink.note(`unit:${key}:assumed`, 'assumedUnit', 'warning', () => PMSG.assumedUnit(key, baseUnit), this.label);
      return parseUnit(baseUnit);
    }
    const unit = parseUnit(text);
    if (!unit) {
      this.sink.note(`unit:${key}:${text}`, 'unknownUnit', 'error', (k) => PMSG.unknownUnit(key, text, k), this.label, v.line);
      return null;
    }
    if (unit.dimension !== dimension) {
      this.sink.note(`unit:${key}:${text}`, 'wrongUnit', 'error', (k) => PMSG.wrongUnit(key, text, describeDimension(dimension), k), this.label, v.line);
      return null;
    }
    return unit;
  }

  /** A value that is there but unusable: one message per metric and kind (and bad text). */
  private problem(metric: string, code: 'notAvailable' | 'badValue' | 'negativeValue', severity: ProfileSeverity, render: (k: string) => string, line: number, detail = ''): undefined {
    this.sink.note(`${code}:${metric}:${detail}`, code, severity, render, this.label, line);
    return this.lack(metric, false);
  }

  private lack(metric: string, absent: boolean): undefined {
    if (!this.missing.includes(metric)) this.missing.push(metric);
    if (absent && !this.absent.includes(metric)) this.absent.push(metric);
    return undefined;
  }

  private need(metric: string): void {
    if (!this.missing.includes(metric)) this.missing.push(metric);
  }

  /** Integer tensor paths: noted once per file, not counted as FLOPs. */
  integerTensor(metrics: string[]): void {
    for (const m of metrics) this.sink.note(`integer:${m}`, 'integerTensor', 'info', () => PMSG.integerTensor(m), this.label);
  }

  sparseTensor(): void {
    this.sink.note('sparse', 'sparseTensor', 'info', (k) => PMSG.sparseTensor(k), this.label);
  }

  /** An `sm__ops_path_tensor_*` name the importer cannot read: a warning, never silently nothing. */
  unknownTensorMetric(metric: string, why: string): void {
    this.sink.note(`tensorName:${metric}`, 'unknownTensorType', 'warning', () => PMSG.unknownTensorType(metric, why), this.label);
    this.need(metric);
  }

  tensorNotCount(metric: string, rollup: string): void {
    this.sink.note(`tensorRollup:${metric}`, 'tensorNotCount', 'warning', (k) => PMSG.tensorNotCount(metric, rollup, k), this.label);
  }

  tensorUnknown(ran: string[], add: string): void {
    this.sink.note(`tensorUnknown:${add}`, 'tensorUnknown', 'warning', (k) => PMSG.tensorUnknown(ran[0], k, add), this.label, this.input.line);
    this.need('sm__ops_path_tensor_*');
  }

  tensorUncovered(metric: string, kind: 'warpgroup' | 'tcgen05', add: string): void {
    this.sink.note(`tensorUncovered:${kind}`, 'tensorUncovered', 'warning', (k) => PMSG.tensorUncovered(metric, kind, k, add), this.label, this.input.line);
    this.need(kind === 'warpgroup' ? 'sm__ops_path_tensor_op_hgmma_*' : 'sm__ops_path_tensor_op_utc*');
  }

  tensorZero(metric: string, counters: string[], add: string): void {
    this.sink.note(`tensorZero`, 'tensorZero', 'warning', (k) => PMSG.tensorZero(metric, counters, k, add), this.label, this.input.line);
    this.need('sm__ops_path_tensor_*');
  }

  fromSection(section: string): void {
    this.sink.note(`section:${section}`, 'fromSection', 'info', (k) => PMSG.fromSection(section, k), this.label);
  }
}
