/**
 * The analysis report: exactly the JSON COUNTING.md specifies, plus a few
 * extra fields (sources of bindings, assumptions, breakdowns, time bounds) the
 * hover and the chart use. Numbers that cannot be evaluated are `null`.
 */
import type { Dtype, GpuSpec } from '../gpus/types';
import type { Diagnostic, Language, UnitKind, BindingSource, Suggestion } from '../ir';

export type BoundKind = 'exact' | 'lower' | 'upper' | 'unknown';

/**
 * A kernel whose counts are symbolic only because of loop trip counts: the
 * intensity of its dominant loop per iteration (COUNTING.md "Honesty"), with
 * the roofline placed at it. Never the full count: binding the symbols gives that.
 */
export interface SteadyIntensity {
  /** FLOPs ÷ bytes per iteration of the loop. */
  value: number;
  loopLine: number;
  loopLabel: string;
  /** The unbound symbols it does not depend on (`K`). */
  independentOf: string[];
  /** True when the whole kernel's tile intensity tends to `value` as the symbols grow. */
  limit: boolean;
  /** The compulsory intensity's limit as the symbols grow, when the other sizes are known. */
  compulsory: number | null;
  /**
   * `kernel`: not a loop's steady state but the whole kernel's intensity, which
   * is the same for every value of `independentOf` (FLOPs and bytes both scale
   * with them): exact, only the counts themselves need the bindings.
   */
  scope?: 'kernel' | 'range';
  /**
   * scope `range` (or a loop steady state whose body moves a little with the
   * sizes): the intensity stays between these for every
   * value ≥ 16 of `independentOf` (their ratio is at most 1.25); `value` is its
   * limit as they grow. The verdict holds at both ends.
   */
  range?: [number, number];
  bound: 'memory' | 'compute';
  boundLevel: 'dram' | 'l2' | null;
  attainableFlops: number;
}

export interface PerUnit {
  flops: number | null;
  loadBytes: number | null;
  storeBytes: number | null;
  sharedBytes?: number | null;
  uniformBytes?: number | null;
  specialOps?: number | null;
  intOps?: number | null;
}

export interface RegionReport {
  line: number;
  kind: 'loop' | 'branch';
  label: string;
  /** Trips per entry into the loop (1 for a branch). */
  trips: number | null;
  tripsFormula: string;
  /** Contribution to the unit's totals (all enclosing trips included). */
  flops: number | null;
  loadBytes: number | null;
  storeBytes: number | null;
}

export interface TimeBounds {
  /** Seconds. */
  math: number | null;
  memory: number | null;
  lower: number | null;
  upper: number | null;
}

export interface BreakdownItem {
  label: string;
  line: number;
  value: number | null;
  formula: string;
}

export interface KernelReport {
  name: string;
  line: number;
  endLine?: number;
  unit: UnitKind;
  bindings: Record<string, number | boolean | string>;
  bindingSources: Record<string, { source: BindingSource; detail: string }>;
  unbound: string[];
  /**
   * Other values the file suggests per symbol, best source first: every
   * autotune config's (the count takes the first), other launch sites, other
   * call sites and benchmark rows of the host code. Not counted.
   */
  suggestions?: Record<string, Suggestion[]>;
  perUnit: PerUnit;
  /**
   * False when a memory access, call or branch could not be fully accounted
   * for: the numbers are then bounds (see `bounds`), never clean figures.
   */
  complete: boolean;
  /** Ids of the messages that cost the kernel counts (`unknownCall`, `unattributedStore`, …). */
  incompleteReasons?: string[];
  /** How many times each reason was said about the kernel. */
  incompleteCounts?: Record<string, number>;
  /** Which way each number can be off when the kernel is incomplete. */
  bounds?: { flops: BoundKind; bytes: BoundKind; arithmeticIntensity: BoundKind };
  /**
   * When only loop trip counts are unknown: the intensity of the dominant loop
   * per iteration (its limit as the symbols grow when `limit`), never the full count.
   */
  arithmeticIntensitySteady?: SteadyIntensity;
  /** Compile-time values that are not bound: the costlier choice was counted; binding them decides. */
  undecided?: string[];
  units: number | null;
  computeDtype: Dtype;
  arithmeticIntensity: number | null;
  compulsoryIntensity: number | null;
  compulsory: { loadBytes: number | null; storeBytes: number | null; flops: number | null; note?: string } | null;
  peak: { kind: 'tensor' | 'vector'; dtype: Dtype; flops: number };
  ridgePoint: number;
  l2RidgePoint: number | null;
  bound: 'memory' | 'compute' | 'unknown';
  boundLevel: 'dram' | 'l2' | null;
  attainableFlops: number | null;
  time: { perUnit: TimeBounds; launch: TimeBounds | null };
  formulas: { flops: string; loadBytes: string; storeBytes: string; units?: string };
  regions: RegionReport[];
  breakdown: { flops: BreakdownItem[]; bytes: BreakdownItem[] };
  assumptions: string[];
  /** The id of each assumption (messages.ts), in the same order. */
  assumptionIds: string[];
  /**
   * 'ok' when every count evaluated and the kernel is complete; 'incomplete'
   * when the counts evaluated but are bounds (`complete: false`); 'partial'
   * when some are symbolic, or the analysis was cut short.
   */
  status: 'ok' | 'partial' | 'incomplete';
  /** Measured results matched from an imported profile (one per launch group). */
  measured?: MeasuredSummary[];
}

/** A kernel's measured dot (from `--profile` / Roofline: Import Profile…). */
export interface MeasuredSummary {
  /** The launch group: the demangled name, or `name#launch` when launches are kept apart. */
  key: string;
  name: string;
  launches: number;
  timeSeconds: number | null;
  flops: number | null;
  /** Some FP counters were missing: `flops` is a lower bound. */
  flopsLowerBound: boolean;
  /** Why `flops` is a lower bound (one sentence each). */
  flopsLowerBoundReasons?: string[];
  /**
   * How the FLOPs were counted (docs/profiles.md, "FLOP conventions"):
   * `ncu-counters`, `ncu-section` or `launch-metadata`.
   */
  flopConvention?: string;
  dramBytes: number | null;
  l2Bytes: number | null;
  achievedFlops: number | null;
  achievedIntensity: number | null;
  /** Achieved FLOP/s ÷ the roof at the measured intensity. */
  fractionOfRoof: number | null;
  /** Achieved FLOP/s ÷ the estimate's attainable FLOP/s. */
  fractionOfEstimate: number | null;
  situation: 'memory-bound' | 'memory-intensive' | 'compute-bound' | 'compute-intensive' | 'unknown';
  reason?: string;
  advice: string[];
  /** measured ÷ estimated (per launch × launches). */
  flopsRatio: number | null;
  bytesRatio: number | null;
  compulsoryRatio: number | null;
  notes: string[];
  missing: string[];
  origin: { flops: string; bytes: string };
  /**
   * The GPU the launches ran on and whose roofs the dot is placed under
   * (absent when the profile does not say; the selected GPU is then used).
   */
  gpu?: { device: string; label: string; id: string; name: string; isSelected: boolean | null };
  /** The launch's `NAME=VALUE` sizes, from its name (`matmul_kernel [M=4096, N=4096, K=4096]`). */
  launchSizes?: Record<string, number | boolean | string>;
  /**
   * The estimate for exactly the measured launch, when its name carries its
   * sizes (`matmul_kernel [M=4096, N=4096, K=4096]`): the kernel analysed with
   * them (binding source `profile`). The ratios and the fraction of the
   * estimate use it.
   */
  launchEstimate?: {
    bindings: Record<string, number | boolean | string>;
    bindingSources: Record<string, { source: BindingSource; detail: string }>;
    unbound: string[];
    units: number | null;
    flops: number | null;
    bytes: number | null;
    compulsoryBytes: number | null;
    arithmeticIntensity: number | null;
    compulsoryIntensity: number | null;
    attainableFlops: number | null;
    bound: 'memory' | 'compute' | 'unknown';
    /** Launch values a --set / setting or pragma overrode. */
    overridden: { name: string; launch: number | boolean | string; used: number | boolean | string; by: 'user' | 'pragma' }[];
    /** Launch values the kernel has no symbol for. */
    unused: string[];
  };
}

/** A GPU of the imported profile and the table GPU it was identified as. */
export interface ProfileDeviceSummary {
  key: string;
  label: string;
  /** What the export says: "CC 9.0, 132 SMs, 3.35 TB/s DRAM". */
  evidence: string;
  /** The table GPU its dots are compared with (the selected one when the export says too little). */
  gpu: { id: string; name: string };
  /** Whether the export identifies the GPU (false: the selected one is assumed). */
  known: boolean;
  /** False when the device is not the selected GPU (none of the CLI's --gpu list); null when the export cannot tell. */
  isSelected: boolean | null;
  /** Other table GPUs that fit as well. */
  alternatives: string[];
}

export interface ProfileSummary {
  path?: string;
  format: string;
  launches: number;
  matched: number;
  unmatched: string[];
  ambiguous: { name: string; candidates: string[] }[];
  /** The profile's GPUs (empty when it does not say). */
  devices?: ProfileDeviceSummary[];
  diagnostics: { severity: string; message: string; line?: number; code?: string }[];
}

/** One launch of a pipeline (docs/pipelines.md). Whole-launch numbers, per execution. */
export interface PipelineLaunchReport {
  kernel: string;
  /** Line of the launch site. */
  line: number;
  /** Line in the pipeline function where it happens (the launch or the launcher call). */
  callLine: number;
  via?: string;
  /** Executions per pipeline call (host loops); null when unknown (counted once). */
  repeat: number | null;
  repeatNote?: string;
  units: number | null;
  bindings: Record<string, number | boolean | string>;
  flops: number | null;
  /** units × per-unit bytes: what L2 must serve. */
  tileBytes: number | null;
  /** Every distinct element once (the tile bytes when the footprint is unknown). */
  compulsoryBytes: number | null;
  time: TimeBounds | null;
  bound: 'memory' | 'compute' | 'unknown';
  /** This launch's share (× repeat) of the pipeline's T_lower. */
  share: number | null;
  /** Host tensors passed, by kernel parameter: { name, read and written bytes }. */
  tensors: { param: string; name: string; readBytes: number | null; writtenBytes: number | null }[];
  complete: boolean;
  /** Why the launch has no numbers. */
  unresolved?: string;
}

export interface PipelineFusion {
  /** Indexes into `launches`. */
  from: number;
  to: number;
  fromKernel: string;
  toKernel: string;
  /** The host variables written by `from` and read by `to`. */
  tensors: string[];
  /** DRAM bytes of the intermediate written and read again (× repeat). */
  bytesSaved: number;
  /** Pipeline T_lower before and after fusing this pair alone, seconds. */
  lowerBefore: number;
  lowerAfter: number;
  /** (before − after) ÷ before. */
  saving: number;
  /** The fused launch's bound. */
  fusedBound: 'memory' | 'compute';
}

export interface PipelineReport {
  name: string;
  line: number;
  endLine: number;
  launches: PipelineLaunchReport[];
  total: {
    /** Executions, repeats included. */
    launches: number;
    /** Launches with numbers (× repeat) / all. */
    resolved: number;
    flops: number;
    compulsoryBytes: number;
    tileBytes: number;
    /** total FLOPs ÷ total compulsory bytes: the pipeline's point. */
    intensity: number | null;
    time: TimeBounds;
    /** Σ T_lower of the launches whose memory term is the larger. */
    memoryBoundTime: number;
    memoryBoundShare: number | null;
    /** False when some launch has no numbers or is incomplete: totals are then lower bounds. */
    complete: boolean;
    /** Best set of disjoint fusions: pairs and the pipeline's T_lower with all of them. */
    fusedPairs: number;
    fusedLower: number | null;
    fusedSaving: number | null;
  };
  fusion: PipelineFusion[];
  notes: string[];
}

export interface FileReport {
  path: string;
  language: Language;
  diagnostics: Diagnostic[];
  kernels: KernelReport[];
  /** Launch sequences of the host code (issue 18). */
  pipelines?: PipelineReport[];
  /**
   * Present when the time slice ended first: analyse again to get the rest
   * (kernels analysed of all; while a large file's scan is under way, its
   * statements read; once every kernel is in, the pipeline launches analysed).
   */
  partial?: { analysed: number; total: number; scanned?: number; statements?: number; launches?: { analysed: number; total: number } };
}

export interface GpuSummary {
  id: string;
  name: string;
  memoryBandwidth: number;
  l2Bandwidth: number | null;
  peaks: GpuSpec['peaks'];
}

export interface AnalysisReport {
  schemaVersion: 1;
  gpu: GpuSummary;
  files: FileReport[];
  /** About the command rather than one file (a `--set` no kernel uses). Absent when there are none. */
  diagnostics?: Diagnostic[];
  /** Present when a profile was imported. */
  profile?: ProfileSummary;
}
