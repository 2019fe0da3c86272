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

/** Element types FLOPs are counted in. */
export type FlopDtype = 'fp64' | 'fp32' | 'tf32' | 'fp16' | 'bf16' | 'fp8';

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
  tensor: { total: number; byDtype: Partial<Record<FlopDtype, number>> } | null;
  /** True when some counters were absent: `total` is then a lower bound. */
  lowerBound: boolean;
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
  /** Metrics (ncu metric names) or quantities (Proton keys) that were absent or unreadable. */
  missing: string[];
  /** 1-based line of the export the launch starts at (ncu). */
  line?: number;
}

export interface ProfileImport {
  format: ProfileFormat;
  launches: MeasuredLaunch[];
  diagnostics: ProfileDiagnostic[];
}

/** A kernel of the analysed source, to match measurements to. */
export interface SourceKernel {
  name: string;
  file?: string;
  language: Language;
}
