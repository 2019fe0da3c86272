/**
 * The GPU table's types. Every number carries the source it came from, so the
 * hover and `roofline-lens gpus` can cite it.
 */

/** Element / arithmetic types the analysis distinguishes. */
export type Dtype =
  | 'fp64'
  | 'fp32'
  | 'tf32'
  | 'fp16'
  | 'bf16'
  | 'fp8'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'bool';

/** Dtypes that can have a tensor-core (matrix unit) peak. */
export type TensorDtype = 'fp64' | 'tf32' | 'fp16' | 'bf16' | 'fp8' | 'int8';
/** Dtypes that can have a vector (CUDA-core / shader-ALU) peak. */
export type VectorDtype = 'fp64' | 'fp32' | 'fp16' | 'bf16' | 'int32';

export interface GpuSpec {
  /** Lowercase, dash-separated id, e.g. `h100-sxm`. */
  id: string;
  /** Display name, e.g. `H100 SXM`. */
  name: string;
  vendor: 'nvidia' | 'amd' | 'apple' | 'google' | 'intel' | 'custom';
  /** Architecture, e.g. `Hopper`, `CDNA 3`. */
  architecture: string;
  /** DRAM (HBM/GDDR/LPDDR) bandwidth in bytes/s. */
  memoryBandwidth: number;
  /** L2 bandwidth in bytes/s where a published measurement exists, else null. */
  l2Bandwidth: number | null;
  /** Dense peaks in FLOP/s (int8: OP/s). Never structured-sparsity figures. */
  peaks: {
    tensor: Partial<Record<TensorDtype, number>>;
    vector: Partial<Record<VectorDtype, number>>;
  };
  /** Where each number comes from: keys `memoryBandwidth`, `l2Bandwidth`, `peaks.tensor`, `peaks.vector`, ... */
  sources: Record<string, string>;
  /** Caveats: boost clock assumed, sparse figures halved, ... */
  notes?: string[];
}

/** A GPU file as the built-in table (gpus.json) and `roofline-lens gpus --json` write it. */
export interface GpuCatalog {
  /** The file format (validate.ts GPU_FILE_FORMAT). */
  format: number;
  /** Bumped whenever a number changes. */
  version: string;
  gpus: GpuSpec[];
}
