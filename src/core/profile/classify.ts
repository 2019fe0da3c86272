/**
 * The measured dot under the roofs: which of the four situations a kernel is
 * in, and how the measurement compares with the static estimate.
 *
 * Side: the measured intensity (FLOPs ÷ DRAM bytes) left of the ridge point
 * is the memory side, right of it (or no DRAM traffic at all) the compute
 * side. Height: the fraction of the roof above the dot — achieved bandwidth ÷
 * DRAM bandwidth on the memory side (the same as achieved FLOP/s ÷
 * (bandwidth × intensity), and defined for kernels without FLOPs), achieved
 * FLOP/s ÷ peak on the compute side. At least ON_ROOF_FRACTION of the roof is
 * "on the roof".
 */
import type { GpuSpec } from '../gpus/types';
import { choosePeak, roofline } from '../model/roofline';
import type { GpuSummary, KernelReport } from '../report/types';
import type { MeasuredGroup } from './match';
import type { MeasuredLaunch, Origin } from './types';

/** A dot at ≥ 70 % of the roof above it is on the roof. */
export const ON_ROOF_FRACTION = 0.7;
/** Estimate and measurement agree when their ratio is within [0.8, 1.25]. */
export const AGREEMENT = { low: 0.8, high: 1.25 } as const;

export type Situation = 'memory-bound' | 'memory-intensive' | 'compute-bound' | 'compute-intensive';

export interface MeasuredPoint {
  /** FLOPs, bytes (DRAM) and seconds of the same launch or group of launches. */
  flops?: number;
  bytes?: number;
  seconds?: number;
}

export interface RoofEstimate {
  /** The static model's attainable FLOP/s for the kernel, where known. */
  attainableFlops: number | null;
  arithmeticIntensity: number | null;
  compulsoryIntensity: number | null;
  /** Peak FLOP/s of the unit and dtype the estimate uses. */
  peakFlops: number;
  /** DRAM bandwidth, bytes/s. */
  memoryBandwidth: number;
  /** peakFlops ÷ memoryBandwidth. */
  ridgePoint: number;
}

export interface Classification {
  situation: Situation | 'unknown';
  /** Why the situation is unknown. */
  reason?: string;
  /** FLOP/s. */
  achievedFlops: number | null;
  /** DRAM bytes/s. */
  achievedBandwidth: number | null;
  /** FLOPs per DRAM byte; null without FLOPs or bytes, or with no DRAM traffic. */
  achievedIntensity: number | null;
  side: 'memory' | 'compute' | null;
  /** The roof above the dot, FLOP/s: bandwidth × intensity on the memory side, the peak on the compute side. */
  roof: number | null;
  fractionOfRoof: number | null;
  /** Achieved FLOP/s ÷ the estimate's attainable FLOP/s. */
  fractionOfEstimate: number | null;
  advice: string[];
}

const ADVICE: Record<Situation, string[]> = {
  'memory-bound': [
    'On the memory roof: only moving fewer bytes or faster memory helps.',
    'Fuse it with the kernels that produce or consume its data, so intermediates stay on chip instead of going through DRAM.',
    'Store tensors in a narrower type (bf16, fp8) if accuracy allows: fewer bytes per element.',
    'Reuse each loaded byte more: larger tiles raise the arithmetic intensity.',
  ],
  'memory-intensive': [
    'Below the memory roof: the access pattern wastes bandwidth.',
    'Coalesce global accesses: consecutive threads should touch consecutive addresses (few sectors per request).',
    'Use wide loads and stores (128-bit: float4, contiguous tl.load blocks).',
    'Avoid strided or scattered accesses; stage reused data through shared memory.',
    'Check L2 hit rate and cache misses; more blocks in flight (occupancy) hide memory latency.',
  ],
  'compute-bound': [
    'On the compute roof: only fewer FLOPs or a faster unit help.',
    'Use tensor cores (tl.dot, mma/wmma) in a lower precision (tf32, bf16, fp8) if accuracy allows.',
    'Remove redundant arithmetic: recomputation, divisions that can be multiplications by a reciprocal.',
  ],
  'compute-intensive': [
    'Below the compute roof: the arithmetic units idle part of the time.',
    'Expose more parallelism: enough blocks (programs) to fill every SM and enough warps per SM.',
    'Tune tile sizes, num_warps and num_stages: software pipelining hides load latency.',
    'Let the compiler fuse multiply-adds and vectorize; avoid warp divergence and long dependency chains that stall the pipeline.',
    'Check the precision: math on CUDA cores while the peak assumes tensor cores (or fp64 on a GPU with few fp64 units) sits far below the roof.',
  ],
};

export function classify(measured: MeasuredPoint, estimate: RoofEstimate): Classification {
  const out: Classification = {
    situation: 'unknown',
    achievedFlops: null,
    achievedBandwidth: null,
    achievedIntensity: null,
    side: null,
    roof: null,
    fractionOfRoof: null,
    fractionOfEstimate: null,
    advice: [],
  };
  const { flops, bytes, seconds } = measured;
  if (!(seconds !== undefined && seconds > 0)) return { ...out, reason: 'no kernel time' };
  if (!(estimate.peakFlops > 0 && estimate.memoryBandwidth > 0)) return { ...out, reason: 'the estimate has no peak or bandwidth' };
  if (flops !== undefined && flops >= 0) out.achievedFlops = flops / seconds;
  if (bytes !== undefined && bytes >= 0) out.achievedBandwidth = bytes / seconds;
  if (out.achievedFlops !== null && estimate.attainableFlops) out.fractionOfEstimate = out.achievedFlops / estimate.attainableFlops;
  if (flops === undefined || bytes === undefined) return { ...out, reason: flops === undefined ? 'FLOPs unknown' : 'DRAM bytes unknown' };
  if (bytes === 0 && flops === 0) return { ...out, reason: 'neither FLOPs nor DRAM traffic' };
  const ridge = estimate.ridgePoint > 0 && Number.isFinite(estimate.ridgePoint) ? estimate.ridgePoint : estimate.peakFlops / estimate.memoryBandwidth;
  const intensity = bytes > 0 ? flops / bytes : null;
  out.achievedIntensity = intensity;
  out.side = intensity !== null && intensity < ridge ? 'memory' : 'compute';
  if (out.side === 'memory') {
    out.roof = estimate.memoryBandwidth * intensity!;
    out.fractionOfRoof = out.achievedBandwidth! / estimate.memoryBandwidth;
  } else {
    out.roof = estimate.peakFlops;
    out.fractionOfRoof = out.achievedFlops! / estimate.peakFlops;
  }
  const onRoof = out.fractionOfRoof >= ON_ROOF_FRACTION;
  out.situation = out.side === 'memory' ? (onRoof ? 'memory-bound' : 'memory-intensive') : onRoof ? 'compute-bound' : 'compute-intensive';
  out.advice = [...ADVICE[out.situation], ...extraAdvice(out, estimate)];
  return out;
}

function extraAdvice(c: Classification, estimate: RoofEstimate): string[] {
  const out: string[] = [];
  if (c.fractionOfRoof !== null && c.fractionOfRoof > 1.05)
    out.push(
      `The dot is ${fmtRatio(c.fractionOfRoof)} the roof: the peak or bandwidth used is lower than what the kernel achieved (a vector peak for tensor-core work, another dtype, or a different GPU).`,
    );
  const ci = estimate.compulsoryIntensity;
  if (c.achievedIntensity !== null && ci && c.achievedIntensity < ci / 2)
    out.push(
      `DRAM traffic is ${fmtRatio(ci / c.achievedIntensity)} the compulsory minimum: data is read from DRAM more than once; grouped (swizzled) block order and larger tiles raise L2 reuse.`,
    );
  return out;
}

// ---- estimate vs measurement ------------------------------------------------

/** The static estimate of one launch. */
export interface EstimatePerLaunch {
  flops: number | null;
  /** Bytes the tiles request from global memory (no reuse between units). */
  bytes: number | null;
  /** Every distinct element read once and written once. */
  compulsoryBytes?: number | null;
}

export interface MeasuredTotals {
  flops?: number;
  dramBytes?: number;
  l2Bytes?: number;
  /** How many launches the totals cover (the estimate is multiplied by it). */
  invocations?: number;
  /** The FLOPs are a lower bound (counters missing). */
  flopsLowerBound?: boolean;
  origin?: { flops: Origin; bytes: Origin };
}

export interface EstimateComparison {
  /** measured ÷ estimated FLOPs. */
  flopsRatio: number | null;
  /** measured DRAM bytes ÷ estimated tile bytes. */
  bytesRatio: number | null;
  /** measured DRAM bytes ÷ compulsory bytes. */
  compulsoryRatio: number | null;
  /** measured L2 bytes ÷ estimated tile bytes. */
  l2Ratio: number | null;
  notes: string[];
}

export function compareEstimate(measured: MeasuredTotals, estimatePerLaunch: EstimatePerLaunch): EstimateComparison {
  const n = measured.invocations && measured.invocations > 0 ? measured.invocations : 1;
  const ratio = (m: number | undefined, e: number | null | undefined) => (m !== undefined && e ? m / (e * n) : null);
  const c: EstimateComparison = {
    flopsRatio: ratio(measured.flops, estimatePerLaunch.flops),
    bytesRatio: ratio(measured.dramBytes, estimatePerLaunch.bytes),
    compulsoryRatio: ratio(measured.dramBytes, estimatePerLaunch.compulsoryBytes),
    l2Ratio: ratio(measured.l2Bytes, estimatePerLaunch.bytes),
    notes: [],
  };
  c.notes = comparisonNotes(c, measured);
  return c;
}

function far(r: number | null): r is number {
  return r !== null && (r < AGREEMENT.low || r > AGREEMENT.high);
}

function comparisonNotes(c: EstimateComparison, m: MeasuredTotals): string[] {
  const notes: string[] = [];
  if (m.origin && (m.origin.flops === 'launch-metadata' || m.origin.bytes === 'launch-metadata'))
    notes.push("Proton's FLOPs and bytes come from the kernel's launch_metadata: these ratios compare two estimates, not an estimate with a measurement.");
  if (far(c.flopsRatio)) notes.push(c.flopsRatio < 1 ? fewerFlops(c.flopsRatio, m.flopsLowerBound === true) : moreFlops(c.flopsRatio));
  if (far(c.bytesRatio))
    notes.push(
      c.bytesRatio < 1
        ? `DRAM traffic is ${fmtRatio(c.bytesRatio)} the bytes the tiles request: cache reuse — L2 serves loads repeated across blocks, which the estimate (no reuse between units) does not see.`
        : `DRAM traffic is ${fmtRatio(c.bytesRatio)} the estimate: uncoalesced or strided accesses fetch whole 32-byte sectors for a few useful bytes, registers spill to local memory, or the cache thrashes; a larger problem or another tile config than the bindings would do it too.`,
    );
  if (c.compulsoryRatio !== null && c.compulsoryRatio > AGREEMENT.high)
    notes.push(`DRAM traffic is ${fmtRatio(c.compulsoryRatio)} the compulsory minimum: some data is read from DRAM more than once.`);
  else if (c.compulsoryRatio !== null && c.compulsoryRatio >= AGREEMENT.low)
    notes.push('DRAM traffic is at the compulsory minimum: every element crosses DRAM about once.');
  if (far(c.l2Ratio))
    notes.push(
      c.l2Ratio < 1
        ? `L2 traffic is ${fmtRatio(c.l2Ratio)} the tile requests: L1 or shared memory serves some of the reloads, or fewer tiles ran (masked tails, a smaller problem).`
        : `L2 traffic is ${fmtRatio(c.l2Ratio)} the tile requests: partial-sector accesses, atomics or extra passes over the data.`,
    );
  return notes;
}

function fewerFlops(r: number, lowerBound: boolean): string {
  const lb = lowerBound ? ' (the measured count is a lower bound: counters are missing)' : '';
  return `Measured FLOPs are ${fmtRatio(r)} the estimate${lb}: masked tails (edge tiles do less work than the interior tile the model counts), a smaller problem or another autotune config than the bindings describe, or tensor-core work without sm__ops_path_tensor_* counters.`;
}

function moreFlops(r: number): string {
  return `Measured FLOPs are ${fmtRatio(r)} the estimate: the GPU executes more floating-point instructions than the source shows (divisions and transcendentals expand into several, multiply-adds may not fuse), or the problem is larger than the bindings say.`;
}

/** 0.34 → "34 % of", 2.5 → "2.5×". */
export function fmtRatio(r: number): string {
  if (r < 1) return `${r < 0.01 ? r.toPrecision(1) : Math.round(r * 100)} % of`;
  return `${r < 10 ? r.toFixed(1) : Math.round(r)}×`;
}

// ---- glue for the report -------------------------------------------------------

/** The roof parameters of a kernel of the static report. */
export function estimateFromReport(k: KernelReport, gpu: GpuSummary): RoofEstimate {
  return {
    attainableFlops: k.attainableFlops,
    arithmeticIntensity: k.arithmeticIntensity,
    compulsoryIntensity: k.compulsoryIntensity,
    peakFlops: k.peak.flops,
    memoryBandwidth: gpu.memoryBandwidth,
    ridgePoint: k.ridgePoint,
  };
}

/**
 * The roofs of a kernel of the static report on another GPU: the peak of the
 * same unit and type (tensor or vector, the kernel's compute type) on `gpu`,
 * and the attainable FLOP/s of COUNTING.md ("The roofline") from the
 * report's intensities — the counts do not depend on the GPU.
 */
export function estimateOnGpu(k: KernelReport, gpu: GpuSpec): RoofEstimate {
  const peak = choosePeak(gpu, k.computeDtype, k.peak.kind === 'tensor');
  const tile = k.arithmeticIntensity ?? (k.perUnit.flops !== null && k.perUnit.flops > 0 && k.perUnit.loadBytes === 0 && k.perUnit.storeBytes === 0 ? Infinity : null);
  const rl = roofline({ peak: peak.flops, memoryBandwidth: gpu.memoryBandwidth, l2Bandwidth: gpu.l2Bandwidth, tileIntensity: tile, compulsoryIntensity: k.compulsoryIntensity });
  return {
    attainableFlops: rl.attainable,
    arithmeticIntensity: k.arithmeticIntensity,
    compulsoryIntensity: k.compulsoryIntensity,
    peakFlops: peak.flops,
    memoryBandwidth: gpu.memoryBandwidth,
    ridgePoint: rl.ridgePoint,
  };
}

/** The static report's counts for one whole launch (per unit × units). */
export function estimatePerLaunchFromReport(k: KernelReport): EstimatePerLaunch {
  const times = (v: number | null) => (v !== null && k.units !== null ? v * k.units : null);
  const tile = k.perUnit.loadBytes !== null && k.perUnit.storeBytes !== null ? k.perUnit.loadBytes + k.perUnit.storeBytes : null;
  const comp = k.compulsory && k.compulsory.loadBytes !== null && k.compulsory.storeBytes !== null ? k.compulsory.loadBytes + k.compulsory.storeBytes : null;
  return { flops: times(k.perUnit.flops), bytes: times(tile), compulsoryBytes: comp };
}

/** The totals of a measured launch or group, for `classify` and `compareEstimate`. */
export function measuredTotals(m: MeasuredLaunch | MeasuredGroup): MeasuredTotals & MeasuredPoint {
  return {
    ...(m.flops ? { flops: m.flops.total, flopsLowerBound: m.flops.lowerBound } : {}),
    ...(m.dramBytes !== undefined ? { dramBytes: m.dramBytes, bytes: m.dramBytes } : {}),
    ...(m.l2Bytes !== undefined ? { l2Bytes: m.l2Bytes } : {}),
    ...(m.timeSeconds !== undefined ? { seconds: m.timeSeconds } : {}),
    invocations: m.invocations,
    origin: m.origin,
  };
}

/** Classification and comparison of one measured group against its kernel's report. */
export function assess(m: MeasuredLaunch | MeasuredGroup, k: KernelReport, gpu: GpuSummary): { classification: Classification; comparison: EstimateComparison } {
  const t = measuredTotals(m);
  return { classification: classify(t, estimateFromReport(k, gpu)), comparison: compareEstimate(t, estimatePerLaunchFromReport(k)) };
}
