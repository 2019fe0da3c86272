/**
 * Measured kernels, as imported from a profiler export (Nsight Compute CSV or
 * Triton Proton JSON). docs/profiles.md explains every field and how the
 * importers compute FLOPs, bytes and time.
 */
import type { Language } from '../ir';

/** The export formats the importers read. */
export type ProfileFormat = 'ncu-raw' | 'ncu-details' | 'proton' | 'unknown';

export type ProfileSeverity = 'error' | 'warning' | 'info';

export interface ProfileDiagnostic {
  /** Stable id (see messages.ts); tests assert on it. */
  code: string;
  severity: ProfileSeverity;
  message: string;
  /** 1-based line of the export the message is about, where there is one. */
  line?: number;
}

/** Element types FLOPs are counted in (fp6 and fp4: Blackwell tensor paths). */
export type FlopDtype = 'fp64' | 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8' | 'fp6' | 'fp4';

/**
 * How a measured FLOP count was obtained, so a reader knows which convention
 * the dot uses (docs/profiles.md, "FLOP conventions"):
 *
 * - `ncu-counters`: Nsight Compute's hardware counters summed the way its
 *   roofline sections sum them: fp32/fp64 add + mul + 2 × fma per thread
 *   instruction; half precision counted as packed pairs (HADD2/HMUL2 = 2,
 *   HFMA2 = 4 FLOPs); tensor-core ops 1:1.
 * - `ncu-section`: the achieved FLOP/s an Nsight Compute roofline section
 *   reported, times the kernel's duration (the same convention, computed by ncu).
 * - `launch-metadata`: the kernel author's own formula (Proton's flops* from
 *   `launch_metadata`), not a measurement.
 */
export type FlopConvention = 'ncu-counters' | 'ncu-section' | 'launch-metadata';

export interface FlopCounts {
  /** All FLOPs: CUDA-core (vector) plus tensor-core FLOPs. */
  total: number;
  /** FLOPs per element type, vector and tensor together. */
  byDtype: Partial<Record<FlopDtype, number>>;
  /**
   * Tensor-core FLOPs (`sm__ops_path_tensor_*` counters, one math op = one
   * FLOP), or null when the export cannot say (Proton, or tensor instructions
   * executed without the ops counters).
   */
  tensor: {
    total: number;
    byDtype: Partial<Record<FlopDtype, number>>;
    /**
     * The part of `total` executed by structured-sparsity (2:4) instructions,
     * counted as ncu counts them (the ops of the dense-equivalent product,
     * once); absent when none ran or the export does not say.
     */
    sparse?: number;
  } | null;
  /** True when some counters were absent: `total` is then a lower bound. */
  lowerBound: boolean;
  /** Why `total` is a lower bound (one sentence each), when it is. */
  lowerBoundReasons?: string[];
  convention: FlopConvention;
}

/** Where a quantity comes from. */
export type Origin = 'counters' | 'launch-metadata';

/** One kernel launch (ncu) or one kernel in one calling context (Proton). */
export interface MeasuredLaunch {
  /** The kernel name exactly as the profiler wrote it. */
  name: string;
  /** The demangled name (the input itself when it is not a mangled C++ name). */
  demangled: string;
  /** Namespace-qualified function name without template arguments or parameters, e.g. `vllm::rms_norm_kernel`. */
  qualifiedName: string;
  /** Unqualified function name, e.g. `rms_norm_kernel`; Triton's old specialisation suffix removed. */
  baseName: string;
  /** The profiler's own id of the launch (ncu's `ID` column), when it has one. */
  id?: number;
  /** 0-based position of this launch among the launches with the same `name`, in file order. */
  launchIndex: number;
  /** Number of kernel invocations the numbers cover: 1 for ncu, Proton's `count`. */
  invocations: number;
  grid?: [number, number, number];
  block?: [number, number, number];
  /** Proton: the calling context (frame names from the root, `/`-separated). */
  context?: string;
  /** Kernel time in seconds, summed over `invocations`. */
  timeSeconds?: number;
  /** DRAM bytes read + written. */
  dramBytes?: number;
  dramReadBytes?: number;
  dramWriteBytes?: number;
  /** Bytes served by L2 (`lts__t_bytes.sum`). */
  l2Bytes?: number;
  flops?: FlopCounts;
  /** Where `flops` and `dramBytes` come from: hardware counters (ncu) or the kernel's own launch_metadata (Proton). */
  origin: { flops: Origin; bytes: Origin };
  /**
   * The GPU the launch ran on: a key of `ProfileImport.devices` (ncu's
   * `Device` column, Proton's `device_type:device_id`), when the export says.
   */
  device?: string;
  /**
   * `NAME=VALUE` pairs of the launch's name (`matmul_kernel [M=4096, N=4096, K=4096]`,
   * as Triton's `launch_metadata` writes them): the sizes of this launch.
   */
  launchBindings?: Record<string, number | boolean | string>;
  /** Metrics (ncu metric names) or quantities (Proton keys) that were absent or unreadable. */
  missing: string[];
  /** 1-based line of the export the launch starts at (ncu). */
  line?: number;
}

/** A GPU of the profile, as the export describes it. */
export interface ProfileDevice {
  /** The key launches refer to (`MeasuredLaunch.device`). */
  key: string;
  /** "GPU 0", "CUDA device 1". */
  label: string;
  /** Compute capability, "9.0" (ncu's `CC` column; Proton's `arch` 90). */
  cc?: string;
  /** AMD architecture name (Proton's `arch` on HIP), e.g. "gfx942". */
  gfx?: string;
  /** Device name, when the export has one (`device__attribute_display_name`). */
  name?: string;
  smCount?: number;
  /** Peak DRAM bandwidth in bytes/s the export implies (Proton: 2 × bus width × memory clock). */
  memoryBandwidth?: number;
}

export interface ProfileImport {
  format: ProfileFormat;
  launches: MeasuredLaunch[];
  /** The GPUs the launches ran on, in the order first seen; empty when the export does not say. */
  devices: ProfileDevice[];
  diagnostics: ProfileDiagnostic[];
}

/** A kernel of the analysed source, to match measurements to. */
export interface SourceKernel {
  name: string;
  file?: string;
  language: Language;
}
