/**
 * Which arm of a choice counts: the costlier one (COUNTING.md, "Which code
 * counts"). An arm's cost is the time it would take at the GPU's fp32 vector
 * roof — FLOPs plus bytes × the fp32 DRAM ridge point, in FLOP-equivalents —
 * so an arm that moves more data outweighs one that does a few more FLOPs,
 * as it does on the machine. Ties keep the first arm (the `then` arm).
 */
import type { GpuSpec } from '../gpus/types';

/** Free sizes are set to this when arms whose counts are symbolic must be compared. */
export const PROBE_ENV_VALUE = 1024;

export interface ArmTotals {
  flops: number | null;
  load: number | null;
  store: number | null;
}

export function armCost(t: ArmTotals, gpu: GpuSpec): number {
  const fp32 = gpu.peaks.vector.fp32 ?? gpu.peaks.vector.fp16 ?? 1;
  const ridge = fp32 / gpu.memoryBandwidth;
  return (t.flops ?? 0) + ((t.load ?? 0) + (t.store ?? 0)) * ridge;
}
