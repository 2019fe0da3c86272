/**
 * Tensor-core work in an Nsight Compute export: the `sm__ops_path_tensor_*`
 * op counters ("# of math ops executed in the tensor path", one op = one
 * FLOP) and the tensor-pipe instruction counters that tell whether tensor
 * work ran at all.
 *
 * The counter names are the ones NVIDIA's roofline section
 * `SpeedOfLight_HierarchicalTensorRooflineChart.section` (Nsight Compute
 * 2025.x) collects per architecture; docs/profiles.md lists them and where
 * each comes from. Two families exist side by side:
 *
 * - by source type, over every instruction: `sm__ops_path_tensor_src_<types>[_dst_<type>][_sparsity_{on,off}]`
 *   (sm_75: `src_fp16_bf16_tf32_dst_fp32`; sm_80/86/89: split by sparsity;
 *   sm_90: `src_bf16_dst_fp32`, `src_fp16`, `src_tf32_dst_fp32`,
 *   `src_fp8_sparsity_{off,on}`, `src_fp64`, `src_int8`, `src_int1`;
 *   sm_100: `src_fp4_fp6_fp8_dst_fp32`, `src_fp4_dst_fp32`, …);
 * - by instruction: `sm__ops_path_tensor_op_<inst>_src_<types>[_dst_<type>]_sparsity_{on,off}`
 *   with `<inst>` hmma, hgmma (Hopper warpgroup MMA), imma, igmma, bmma,
 *   bgmma (sm_90), utchmma, utcimma, utcqmma, utcomma (sm_100 tcgen05), and
 *   qgmma (Hopper fp8 warpgroup MMA, named by the tensor-pipe metric
 *   `sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active`).
 *
 * The same work is counted once: a by-type counter covers the by-instruction
 * counters of its types; an unsplit counter covers its `_sparsity_on` and
 * `_sparsity_off` halves; a counter naming several source types covers those
 * naming a subset. Integer paths are ops, not FLOPs.
 */
import type { FlopDtype } from './types';

const PREFIX = 'sm__ops_path_tensor_';

/** Instructions with their own op counters (see the file comment for where each is named). */
export const TENSOR_INSTRUCTIONS = ['hmma', 'hgmma', 'qgmma', 'imma', 'igmma', 'bmma', 'bgmma', 'utchmma', 'utcimma', 'utcqmma', 'utcomma'] as const;
const WARPGROUP = new Set(['hgmma', 'qgmma', 'igmma', 'bgmma']);
const TCGEN05 = new Set(['utchmma', 'utcimma', 'utcqmma', 'utcomma']);

const FLOAT_TYPES: Record<string, FlopDtype> = { fp64: 'fp64', tf32: 'tf32', fp16: 'fp16', bf16: 'bf16', fp8: 'fp8', fp6: 'fp6', fp4: 'fp4' };
const INT_TYPES = new Set(['int8', 'int4', 'int1']);
/** Destination (accumulator) types the section files name. */
const DST_TYPES = new Set(['fp32', 'fp16']);
/**
 * The label of a path naming several source types: the type it runs at
 * (`fp4_fp6_fp8` is tcgen05's kind::f8f6f4, at the fp8 rate; sm_75's
 * `fp16_bf16_tf32` is its fp16 path; `fp4_fp6` is labelled fp6).
 */
const LABEL_ORDER: FlopDtype[] = ['fp64', 'fp8', 'fp16', 'bf16', 'tf32', 'fp6', 'fp4'];

export interface OpsPath {
  /** The counter's name up to and including `.sum`. */
  metric: string;
  /** The instruction (`hgmma`), or null for the by-type family. */
  inst: string | null;
  srcs: string[];
  dst: string | null;
  sparsity: 'on' | 'off' | null;
  /** The FLOP type, or 'integer' for int8/int4/int1 paths. */
  kind: FlopDtype | 'integer';
}

/** The rollups of a counter that give its total (the rest — pct_of_peak, peak_sustained, … — are not counts). */
export const COUNT_SUFFIXES = ['.sum', '.sum.per_cycle_elapsed', '.sum.per_second'] as const;

/**
 * A metric name of the `sm__ops_path_tensor_` family, split: `{ path }` for a
 * name the importer knows, `{ unknown }` (why) for one it does not, `{ notCount }`
 * for a known path in a rollup that is not a count (`.max.pct_of_peak_sustained_elapsed`),
 * null for other metrics.
 */
export function classifyOpsMetric(name: string): { path: OpsPath; suffix: string } | { unknown: string } | { notCount: string } | null {
  if (!name.startsWith(PREFIX)) return null;
  const dot = name.indexOf('.');
  const stem = dot < 0 ? name : name.slice(0, dot);
  const rollup = dot < 0 ? '' : name.slice(dot);
  const path = parseStem(stem);
  if (typeof path === 'string') return { unknown: path };
  const suffix = COUNT_SUFFIXES.find((s) => rollup === s);
  if (!suffix) return { notCount: rollup || '(no rollup)' };
  return { path: { ...path, metric: `${stem}.sum` }, suffix };
}

/** `sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off` → its parts, or why it cannot be read. */
function parseStem(stem: string): Omit<OpsPath, 'metric'> | string {
  let rest = stem.slice(PREFIX.length);
  let inst: string | null = null;
  if (rest.startsWith('op_')) {
    const m = /^op_([a-z0-9]+)_(src_.*)$/.exec(rest);
    if (!m) return 'no source type after the instruction';
    if (!(TENSOR_INSTRUCTIONS as readonly string[]).includes(m[1])) return `instruction "${m[1]}" is not one the importer knows`;
    inst = m[1];
    rest = m[2];
  }
  const m = /^src_([a-z0-9_]+?)(?:_dst_([a-z0-9]+))?(?:_sparsity_(on|off))?$/.exec(rest);
  if (!m) return 'not of the form src_<types>[_dst_<type>][_sparsity_on|off]';
  const srcs = m[1].split('_');
  const unknown = srcs.filter((t) => !(t in FLOAT_TYPES) && !INT_TYPES.has(t));
  if (unknown.length) return `source type ${unknown.map((t) => `"${t}"`).join(', ')} is not one the importer knows`;
  if (m[2] && !DST_TYPES.has(m[2])) return `destination type "${m[2]}" is not one the importer knows`;
  const floats = srcs.filter((t) => t in FLOAT_TYPES).map((t) => FLOAT_TYPES[t]);
  const kind: FlopDtype | 'integer' = floats.length === 0 ? 'integer' : (LABEL_ORDER.find((d) => floats.includes(d)) ?? floats[0]);
  return { inst, srcs, dst: m[2] ?? null, sparsity: (m[3] as 'on' | 'off' | undefined) ?? null, kind };
}

export interface TensorOps {
  /** Tensor FLOPs by type (dense and sparse paths together). */
  byDtype: Partial<Record<FlopDtype, number>>;
  total: number;
  /** The part of `total` from `_sparsity_on` paths, when a split says so. */
  sparse: number;
  /** Integer tensor ops (not FLOPs). */
  integerOps: number;
  /** Families counted: null for the by-type family, else the instruction. */
  families: Set<string | null>;
  /** Counters that were read but left out because another covers the same work. */
  covered: string[];
}

/**
 * Tensor FLOPs from the op counters of one launch, each `value` the
 * counter's total over the launch. Every piece of work is counted once (see
 * the file comment).
 */
export function sumTensorOps(counters: { path: OpsPath; value: number }[]): TensorOps {
  const out: TensorOps = { byDtype: {}, total: 0, sparse: 0, integerOps: 0, families: new Set(), covered: [] };
  // 1. Per family and path: the unsplit counter, or its two halves.
  interface Entry {
    inst: string | null;
    srcs: string[];
    dst: string | null;
    kind: FlopDtype | 'integer';
    total: number;
    sparse: number;
    metrics: string[];
  }
  const parts = new Map<string, { p: OpsPath; all?: number; on?: number; off?: number; metrics: string[] }>();
  for (const c of counters) {
    const key = `${c.path.inst ?? '*'}|${c.path.srcs.join('_')}|${c.path.dst ?? ''}`;
    const e = parts.get(key) ?? { p: c.path, metrics: [] };
    if (c.path.sparsity === 'on') e.on = c.value;
    else if (c.path.sparsity === 'off') e.off = c.value;
    else e.all = c.value;
    e.metrics.push(c.path.metric);
    parts.set(key, e);
  }
  let entries: Entry[] = [...parts.values()].map((e) => {
    const halves = (e.on ?? 0) + (e.off ?? 0);
    const total = e.on !== undefined && e.off !== undefined ? halves : (e.all ?? halves);
    const sparse = e.on ?? (e.all !== undefined && e.off !== undefined ? Math.max(0, e.all - e.off) : 0);
    return { inst: e.p.inst, srcs: e.p.srcs, dst: e.p.dst, kind: e.p.kind, total, sparse, metrics: e.metrics };
  });
  // 2. A path naming more source types (or no destination) covers one naming a subset, in the same family.
  const within = (a: Entry, b: Entry) => a !== b && a.inst === b.inst && a.srcs.every((t) => b.srcs.includes(t)) && (b.dst === null || b.dst === a.dst) && !(b.srcs.length === a.srcs.length && b.dst === a.dst);
  // 3. The by-type family covers every instruction's counters of overlapping types.
  const byType = (a: Entry, b: Entry) => a.inst !== null && b.inst === null && a.srcs.some((t) => b.srcs.includes(t)) && (a.dst === null || b.dst === null || a.dst === b.dst);
  entries = entries.filter((a) => {
    const cover = entries.find((b) => within(a, b) || byType(a, b));
    if (cover) out.covered.push(...a.metrics);
    return !cover;
  });
  for (const e of entries) {
    out.families.add(e.inst);
    if (e.kind === 'integer') {
      out.integerOps += e.total;
      continue;
    }
    out.byDtype[e.kind] = (out.byDtype[e.kind] ?? 0) + e.total;
    out.total += e.total;
    out.sparse += e.sparse;
  }
  return out;
}

// ---- tensor-pipe activity ----------------------------------------------------------

/** Which tensor work a pipe counter shows: any, Hopper warpgroup MMA, or Blackwell tcgen05. */
export type PipeKind = 'tensor' | 'warpgroup' | 'tcgen05';

/**
 * Tensor-pipe counters (instructions executed or cycles active, any rollup),
 * from NVIDIA's ComputeWorkloadAnalysis / HighPipeUtilization sections:
 * `sm__inst_executed_pipe_tensor[_op_{hmma,hmma_v2,imma,imma_v2,dmma,gmma}|_subpipe_{hmma,imma,dmma}]`,
 * `sm__inst_executed_pipe_tc` (sm_100), `sm__pipe_tensor[_op_*]_cycles_active`,
 * `sm__pipe_tc_cycles_active` (`smsp__` spellings too). A non-zero value
 * means tensor work ran. Null for other metrics.
 */
export function classifyPipeMetric(name: string): PipeKind | null {
  const m = /^(?:sm|smsp)__(?:inst_executed_pipe_(tensor[a-z0-9_]*|tc)|pipe_(tensor[a-z0-9_]*?|tc)_cycles_active)(?:\.|$)/.exec(name);
  if (!m) return null;
  const what = m[1] ?? m[2];
  if (what === 'tc') return 'tcgen05';
  if (/gmma/.test(what) && !/hmma_hgmma/.test(what)) return 'warpgroup';
  return 'tensor';
}

/** Does a counted family cover this kind of tensor work? */
export function covers(families: Set<string | null>, kind: PipeKind): boolean {
  if (families.has(null)) return true;
  if (kind === 'warpgroup') return [...families].some((f) => f !== null && WARPGROUP.has(f));
  if (kind === 'tcgen05') return [...families].some((f) => f !== null && TCGEN05.has(f));
  return families.size > 0;
}

/**
 * The op counters to add for a GPU of compute capability `cc`, as NVIDIA's
 * tensor roofline section collects them there (dense paths; the section
 * itself collects them all).
 */
export function opsCountersFor(cc: string | undefined, kind: PipeKind): string {
  const major = cc ? Number(cc.split('.')[0]) : NaN;
  const section = '--section SpeedOfLight_HierarchicalTensorRooflineChart, which collects every sm__ops_path_tensor_* counter of the GPU it runs on';
  if (major === 9 || kind === 'warpgroup')
    return `sm__ops_path_tensor_op_hgmma_src_{bf16_dst_fp32,fp16,tf32_dst_fp32}_sparsity_off.sum (warpgroup MMA) and sm__ops_path_tensor_src_fp8_sparsity_off.sum, or ${section}`;
  if (major === 10 || major === 11 || kind === 'tcgen05')
    return `sm__ops_path_tensor_src_{bf16_dst_fp32,fp16_dst_fp32,tf32_dst_fp32,fp4_fp6_fp8_dst_fp32,fp4_dst_fp32}.sum, or ${section}`;
  if (major === 8) return `sm__ops_path_tensor_src_{fp16_dst_fp32,bf16_dst_fp32,tf32_dst_fp32}_sparsity_off.sum, or ${section}`;
  if (major === 12) return `sm__ops_path_tensor_src_{bf16_dst_fp32,fp16_dst_fp32,tf32_dst_fp32}.sum and sm__ops_path_tensor_src_fp8_dst_fp32_sparsity_off.sum, or ${section}`;
  return `the sm__ops_path_tensor_* counters of the kernel's types: ${section}`;
}
