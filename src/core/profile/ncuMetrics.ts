/**
 * From the metric values of one ncu launch to time, bytes and FLOPs, the way
 * docs/profiles.md states them:
 *
 * - time: `gpu__time_duration.sum`; without it, `sm__cycles_elapsed.avg` ÷
 *   `sm__cycles_elapsed.avg.per_second`.
 * - DRAM bytes: `dram__bytes_read.sum` + `dram__bytes_write.sum` (or
 *   `dram__bytes.sum`); L2 bytes: `lts__t_bytes.sum`.
 * - CUDA-core FLOPs, as NVIDIA's roofline sections count them: per precision
 *   (f = fp32, d = fp64, h = fp16/bf16) add + mul + 2 × fma of the
 *   `sm__sass_thread_inst_executed_op_*_pred_on.sum` thread-instruction
 *   counters (`smsp__` spellings accepted).
 * - tensor-core FLOPs: the `sm__ops_path_tensor_src_<type>[_dst_<type>].sum`
 *   counters, "# of math ops executed in the tensor path", one op = one FLOP.
 *   `sm__inst_executed_pipe_tensor.sum` alone cannot be converted (the FLOPs
 *   per instruction depend on the instruction shape and the architecture).
 */
import type { DiagnosticCollector } from './collect';
import { PMSG } from './messages';
import type { FlopCounts, FlopDtype, MeasuredLaunch, ProfileSeverity } from './types';
import { describeDimension, normaliseNumber, parseUnit, toBase, type Dimension } from './units';

export interface MetricValue {
  text: string;
  /** The unit string, or null when the export gives none. */
  unit: string | null;
  line: number;
}

export interface LaunchInput {
  name: string;
  id?: number;
  grid?: [number, number, number];
  block?: [number, number, number];
  line: number;
  metrics: Map<string, MetricValue>;
}

export const TIME = 'gpu__time_duration.sum';
const SM_CYCLES = 'sm__cycles_elapsed.avg';
const SM_CLOCK = 'sm__cycles_elapsed.avg.per_second';
export const DRAM_READ = 'dram__bytes_read.sum';
export const DRAM_WRITE = 'dram__bytes_write.sum';
const DRAM_TOTAL = 'dram__bytes.sum';
export const L2 = 'lts__t_bytes.sum';
export const TENSOR_INST = 'sm__inst_executed_pipe_tensor.sum';
const OPS_PATH_PREFIX = 'sm__ops_path_tensor_src_';

const PRECISIONS: { letter: string; dtype: FlopDtype }[] = [
  { letter: 'f', dtype: 'fp32' },
  { letter: 'd', dtype: 'fp64' },
  { letter: 'h', dtype: 'fp16' },
];
const OPS: { op: string; flops: number }[] = [
  { op: 'add', flops: 1 },
  { op: 'mul', flops: 1 },
  { op: 'fma', flops: 2 },
];

/** `sm__sass_thread_inst_executed_op_ffma_pred_on.sum` and friends, in a fixed order. */
export const FP_COUNTERS: { name: string; dtype: FlopDtype; flops: number }[] = PRECISIONS.flatMap((p) =>
  OPS.map((o) => ({ name: `sm__sass_thread_inst_executed_op_${p.letter}${o.op}_pred_on.sum`, dtype: p.dtype, flops: o.flops })),
);

const TENSOR_SOURCE: Record<string, FlopDtype | 'integer'> = {
  fp16: 'fp16',
  bf16: 'bf16',
  tf32: 'tf32',
  fp64: 'fp64',
  fp8: 'fp8',
  fp8e4m3: 'fp8',
  fp8e5m2: 'fp8',
  e4m3: 'fp8',
  e5m2: 'fp8',
  int8: 'integer',
  int4: 'integer',
  int1: 'integer',
};

export interface BuiltLaunch {
  launch: Omit<MeasuredLaunch, 'launchIndex'>;
  /** Canonical metric names the launch's input did not contain at all. */
  absent: string[];
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
    origin: { flops: 'counters', bytes: 'counters' },
    missing: [],
    line: input.line,
  };
  assign(launch, 'timeSeconds', readTime(r));
  readDram(r, launch);
  assign(launch, 'l2Bytes', r.read(L2, 'bytes', 'byte'));
  assign(launch, 'flops', readFlops(r, input));
  launch.missing = r.missing;
  return { launch, absent: r.absent };
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

function readDram(r: MetricReader, l: Omit<MeasuredLaunch, 'launchIndex'>): void {
  if (!r.has(DRAM_READ) && !r.has(DRAM_WRITE) && r.has(DRAM_TOTAL)) {
    assign(l, 'dramBytes', r.read(DRAM_TOTAL, 'bytes', 'byte'));
    return;
  }
  const read = r.read(DRAM_READ, 'bytes', 'byte');
  const write = r.read(DRAM_WRITE, 'bytes', 'byte');
  assign(l, 'dramReadBytes', read);
  assign(l, 'dramWriteBytes', write);
  if (read !== undefined && write !== undefined) l.dramBytes = read + write;
}

function readFlops(r: MetricReader, input: LaunchInput): FlopCounts | undefined {
  const byDtype: Partial<Record<FlopDtype, number>> = {};
  let anyVector = false;
  let lowerBound = false;
  for (const c of FP_COUNTERS) {
    const v = r.read(c.name, 'count', '');
    if (v === undefined) {
      lowerBound = true;
      continue;
    }
    anyVector = true;
    byDtype[c.dtype] = (byDtype[c.dtype] ?? 0) + c.flops * v;
  }
  const tensor = readTensor(r, input);
  if (!anyVector && !tensor.counts) return undefined;
  if (tensor.unknown) lowerBound = true;
  const total = sum(byDtype) + (tensor.counts ? sum(tensor.counts) : 0);
  for (const [d, v] of Object.entries(tensor.counts ?? {})) byDtype[d as FlopDtype] = (byDtype[d as FlopDtype] ?? 0) + v;
  return { total, byDtype, tensor: tensor.counts ? { total: sum(tensor.counts), byDtype: tensor.counts } : null, lowerBound };
}

/** Tensor FLOPs from the ops-path counters; `unknown` when tensor instructions ran without them. */
function readTensor(r: MetricReader, input: LaunchInput): { counts: Partial<Record<FlopDtype, number>> | null; unknown: boolean } {
  const paths = new Map<string, { dtype: FlopDtype; base?: number; split: number[] }>();
  let unknownType = false;
  for (const metric of input.metrics.keys()) {
    const p = parseOpsPath(metric);
    if (!p) continue;
    const dtype = TENSOR_SOURCE[p.src];
    if (dtype === 'integer') {
      r.integerPath(metric);
      continue;
    }
    if (dtype === undefined) {
      r.unknownTensorType(metric);
      unknownType = true;
      continue;
    }
    const v = r.read(metric, 'count', '');
    if (v === undefined) continue;
    const entry = paths.get(p.path) ?? { dtype, split: [] };
    if (p.sparsity) entry.split.push(v);
    else entry.base = v;
    paths.set(p.path, entry);
  }
  const tensorInst = r.has(TENSOR_INST) || r.has(smsp(TENSOR_INST)) ? r.read(TENSOR_INST, 'count', '') : undefined;
  if (paths.size === 0) {
    const ran = tensorInst !== undefined && tensorInst > 0;
    if (ran && !unknownType) r.tensorUnknown();
    return { counts: null, unknown: ran || unknownType };
  }
  const counts: Partial<Record<FlopDtype, number>> = {};
  for (const e of paths.values()) counts[e.dtype] = (counts[e.dtype] ?? 0) + (e.base ?? e.split.reduce((a, b) => a + b, 0));
  return { counts, unknown: unknownType };
}

/** `sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum` → path `fp16_dst_fp32`, src `fp16`, sparsity. */
export function parseOpsPath(metric: string): { path: string; src: string; sparsity: boolean } | null {
  if (!metric.startsWith(OPS_PATH_PREFIX) || !metric.endsWith('.sum')) return null;
  let path = metric.slice(OPS_PATH_PREFIX.length, -'.sum'.length);
  const sparsity = /_sparsity_(on|off)$/.test(path);
  if (sparsity) path = path.replace(/_sparsity_(on|off)$/, '');
  const src = path.split('_dst_')[0];
  return /^[a-z0-9]+$/.test(src) ? { path, src, sparsity } : null;
}

function sum(r: Partial<Record<string, number>>): number {
  let s = 0;
  for (const v of Object.values(r)) s += v ?? 0;
  return s;
}

/** The `smsp__` spelling of an `sm__` counter (the same count, summed over sub-partitions). */
function smsp(metric: string): string {
  return metric.startsWith('sm__') ? 'smsp__' + metric.slice('sm__'.length) : metric;
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
    return this.input.metrics.has(metric);
  }

  /** The value of `metric` (or its `smsp__` spelling) in base units; undefined when missing or unusable. */
  read(metric: string, dimension: Dimension, baseUnit: string | null): number | undefined {
    const key = this.has(metric) ? metric : this.has(smsp(metric)) ? smsp(metric) : null;
    if (key === null) return this.lack(metric, true);
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

  /** An integer tensor path: noted once per file, not counted. */
  integerPath(metric: string): void {
    this.sink.note(`integer:${metric}`, 'integerTensor', 'info', () => PMSG.integerTensor(metric), this.label);
  }

  /** A tensor path of a type the importer does not know: not counted, FLOPs a lower bound. */
  unknownTensorType(metric: string): void {
    this.sink.note(`tensorType:${metric}`, 'unknownTensorType', 'warning', () => PMSG.unknownTensorType(metric), this.label);
    if (!this.missing.includes(metric)) this.missing.push(metric);
  }

  tensorUnknown(): void {
    this.sink.note('tensorUnknown', 'tensorUnknown', 'warning', (k) => PMSG.tensorUnknown(k), this.label, this.input.line);
    if (!this.missing.includes(`${OPS_PATH_PREFIX}*`)) this.missing.push(`${OPS_PATH_PREFIX}*`);
  }
}
