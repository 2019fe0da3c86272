/**
 * `__CUDA_ARCH__`: the analysis reads a file as nvcc's device pass does, for
 * one target architecture. Its value, highest priority first:
 *
 *   1. `--set __CUDA_ARCH__=800` (or a `roofline:` pragma);
 *   2. the selected GPU's compute capability × 100 (H100 → 900, A100 → 800,
 *      L4 → 890, …: the table below, by GPU id, else by architecture name
 *      where the name fixes it);
 *   3. unknown (an AMD or custom GPU): `__CUDA_ARCH__` is defined (device
 *      pass) but its value is not, so a `#if` on it is not evaluated: the
 *      first branch is read and a diagnostic says so.
 */
import type { GpuSpec } from '../../gpus/types';

export const CUDA_ARCH = '__CUDA_ARCH__';

/** Compute capability × 100 by catalog id (docs/gpus.md lists the GPUs). */
const BY_ID: Record<string, number> = {
  'h100-sxm': 900,
  'h100-pcie': 900,
  h200: 900,
  b200: 1000,
  gb200: 1000,
  'a100-sxm-80gb': 800,
  'a100-40gb': 800,
  a10: 860,
  a40: 860,
  l40s: 890,
  l40: 890,
  l4: 890,
  'rtx-4090': 890,
  'rtx-4080': 890,
  'rtx-5090': 1200,
  t4: 750,
  v100: 700,
};

/** Architecture names that fix the compute capability (Ampere and Blackwell each span two). */
const BY_ARCH: Record<string, number> = {
  volta: 700,
  turing: 750,
  'ada lovelace': 890,
  ada: 890,
  hopper: 900,
};

export interface TargetArch {
  /** Compute capability × 100, when known. */
  value?: number;
  /** Where it comes from, for the note: `H100 SXM (sm_90)`. */
  from: string;
}

/** The device-pass value of `__CUDA_ARCH__` for the selected GPU (the user's `--set` is applied by the caller). */
export function targetArch(gpu: GpuSpec | undefined): TargetArch {
  if (!gpu) return { from: 'no GPU selected' };
  const v = BY_ID[gpu.id] ?? (gpu.vendor === 'nvidia' || gpu.vendor === 'custom' ? BY_ARCH[gpu.architecture.toLowerCase()] : undefined);
  if (v === undefined) return { from: `${gpu.name} (${gpu.vendor === 'nvidia' ? gpu.architecture : 'not an NVIDIA GPU'})` };
  return { value: v, from: `${gpu.name}, sm_${v / 10}` };
}
