/**
 * The roofline: which peak applies, ridge points, attainable FLOP/s and the
 * bound, exactly as COUNTING.md ("The roofline") defines them.
 */
import type { Dtype, GpuSpec, TensorDtype, VectorDtype } from '../gpus/types';

export interface PeakChoice {
  kind: 'tensor' | 'vector';
  dtype: Dtype;
  flops: number;
  /** Set when the GPU lacks the exact unit and a fallback was used. */
  note?: string;
}

const TENSOR_FALLBACK: Partial<Record<Dtype, TensorDtype[]>> = {
  fp8: ['fp8', 'fp16'],
  int8: ['int8', 'fp16'],
  bf16: ['bf16', 'fp16'],
  fp16: ['fp16'],
  tf32: ['tf32', 'fp16'],
  fp32: ['tf32', 'fp16'],
  fp64: ['fp64'],
};

const VECTOR_FALLBACK: Partial<Record<Dtype, VectorDtype[]>> = {
  fp64: ['fp64'],
  fp32: ['fp32'],
  tf32: ['fp32'],
  fp16: ['fp16', 'fp32'],
  bf16: ['bf16', 'fp16', 'fp32'],
  fp8: ['fp16', 'fp32'],
  int8: ['int32', 'fp32'],
  int16: ['int32', 'fp32'],
  int32: ['int32', 'fp32'],
  int64: ['int32', 'fp32'],
  bool: ['int32', 'fp32'],
};

/** The dense peak of the unit the dominant operation runs on. */
export function choosePeak(gpu: GpuSpec, dtype: Dtype, tensorCore: boolean): PeakChoice {
  if (tensorCore) {
    for (const d of TENSOR_FALLBACK[dtype] ?? []) {
      const p = gpu.peaks.tensor[d];
      if (p && p > 0) {
        return d === dtype
          ? { kind: 'tensor', dtype: d, flops: p }
          : { kind: 'tensor', dtype: d, flops: p, note: `${gpu.name} has no ${dtype} tensor-core peak: used its ${d} tensor peak` };
      }
    }
  }
  for (const d of VECTOR_FALLBACK[dtype] ?? ['fp32']) {
    const p = gpu.peaks.vector[d];
    if (p && p > 0) {
      const note =
        d === dtype
          ? tensorCore
            ? `${gpu.name} has no ${dtype} tensor-core peak: used its vector ${d} peak`
            : undefined
          : `${gpu.name} lists no vector ${dtype} peak: used its vector ${d} peak`;
      return note ? { kind: 'vector', dtype: d, flops: p, note } : { kind: 'vector', dtype: d, flops: p };
    }
  }
  // Last resort: the largest vector peak the GPU has.
  const any = Object.entries(gpu.peaks.vector).filter(([, v]) => v && v > 0) as [VectorDtype, number][];
  if (any.length) {
    const [d, p] = any.sort((a, b) => b[1] - a[1])[0];
    return { kind: 'vector', dtype: d, flops: p, note: `${gpu.name} lists no peak for ${dtype}: used its vector ${d} peak` };
  }
  const t = Object.entries(gpu.peaks.tensor).filter(([, v]) => v && v > 0) as [TensorDtype, number][];
  const [d, p] = t.length ? t.sort((a, b) => a[1] - b[1])[0] : (['fp32', 1] as [Dtype, number]);
  return { kind: 'tensor', dtype: d, flops: p, note: `${gpu.name} lists no peak for ${dtype}: used its ${d} peak` };
}

export interface RooflineInput {
  peak: number;
  memoryBandwidth: number;
  l2Bandwidth: number | null;
  /** FLOPs ÷ per-unit requested bytes (no reuse between units). */
  tileIntensity: number | null;
  /** FLOPs ÷ compulsory bytes, when the problem sizes are known. */
  compulsoryIntensity: number | null;
}

export interface RooflineResult {
  attainable: number | null;
  bound: 'memory' | 'compute' | 'unknown';
  boundLevel: 'dram' | 'l2' | null;
  ridgePoint: number;
  l2RidgePoint: number | null;
  /** Each term of the min(), for the hover. */
  terms: { peak: number; dram: number | null; l2: number | null };
}

/**
 * attainable = min(peak, DRAM bw × DRAM intensity, L2 bw × tile intensity).
 * DRAM intensity is the compulsory intensity when known, else the tile intensity.
 * An intensity of `Infinity` (FLOPs but no bytes) is compute-bound.
 */
export function roofline(x: RooflineInput): RooflineResult {
  const ridgePoint = x.peak / x.memoryBandwidth;
  const l2RidgePoint = x.l2Bandwidth ? x.peak / x.l2Bandwidth : null;
  const dramAI = x.compulsoryIntensity ?? x.tileIntensity;
  if (dramAI === null || Number.isNaN(dramAI)) {
    return { attainable: null, bound: 'unknown', boundLevel: null, ridgePoint, l2RidgePoint, terms: { peak: x.peak, dram: null, l2: null } };
  }
  const dram = dramAI === Infinity ? Infinity : x.memoryBandwidth * dramAI;
  const l2 =
    x.l2Bandwidth && x.tileIntensity !== null && !Number.isNaN(x.tileIntensity)
      ? x.tileIntensity === Infinity
        ? Infinity
        : x.l2Bandwidth * x.tileIntensity
      : null;
  let attainable = x.peak;
  let boundLevel: 'dram' | 'l2' | null = null;
  if (dram < attainable) {
    attainable = dram;
    boundLevel = 'dram';
  }
  if (l2 !== null && l2 < attainable) {
    attainable = l2;
    boundLevel = 'l2';
  }
  return {
    attainable,
    bound: boundLevel ? 'memory' : 'compute',
    boundLevel,
    ridgePoint,
    l2RidgePoint,
    terms: { peak: x.peak, dram: dram === Infinity ? null : dram, l2: l2 === Infinity ? null : l2 },
  };
}
