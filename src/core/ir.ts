/**
 * The kernel IR: what every frontend (Triton, CUDA, WGSL) produces and what the
 * model counts. It is deliberately small: a tree of regions (the kernel body,
 * loops, data-dependent branches), each holding the memory and arithmetic
 * events that execute once per entry into the region, for ONE unit (a Triton
 * program, a CUDA thread block, a WGSL workgroup). Frontends multiply
 * per-thread / per-invocation work by the active threads themselves, so every
 * count in the IR is already per unit.
 *
 * Counts are symbolic (`Expr`); the model evaluates them with the bindings.
 */
import type { Dtype } from './gpus/types';
import type { Assumption, Diagnostic, MessageId } from './messages';
import type { Expr } from './sym/expr';

export type Language = 'triton' | 'cuda' | 'wgsl';
export type UnitKind = 'program' | 'block' | 'workgroup';

export type { Diagnostic, Severity } from './messages';

/** Where a binding's value came from, highest priority first. */
export type BindingSource =
  | 'user' // --set / settings / --grid
  | 'pragma' // `# roofline: M=4096` comment in the file
  | 'profile' // the measured launch's sizes (`matmul_kernel [M=4096, N=4096, K=4096]` in a Proton profile)
  | 'launch' // a launch site in the same file
  | 'host' // host code of the same file beyond the launch: a call site of the launcher, a benchmark's x_vals, main()'s constants, createBuffer sizes
  | 'autotune' // @triton.autotune first config
  | 'heuristics' // @triton.heuristics
  | 'template' // template argument / explicit instantiation
  | 'define' // #define / constexpr / const / override default
  | 'default' // parameter default value
  | 'global' // module-level constexpr global
  | 'launch_bounds' // __launch_bounds__
  | 'derived'; // computed from other bindings

export interface Binding {
  value: number | boolean | string;
  source: BindingSource;
  /** Human-readable origin, e.g. "triton.Config #1 (line 12)". */
  detail: string;
}

/**
 * A value the file suggests for a symbol besides the one bound: another
 * autotune config, another launch site, another call site or benchmark row
 * of the host code. Not counted; offered when binding (the editor's quick pick).
 */
export interface Suggestion {
  value: number | boolean | string;
  source: BindingSource;
  /** Where it comes from, e.g. "triton.Config #3 of 16 (line 175)". */
  detail: string;
  /** How many further places (configs, rows, sites) of the same source suggest the same value. */
  more?: number;
}

export type MemorySpace = 'global' | 'shared' | 'uniform';

export interface MemEvent {
  kind: 'load' | 'store';
  space: MemorySpace;
  /** The tensor / pointer / buffer name, e.g. `a_ptr`, `A`, `particles`. */
  target: string;
  /** Elements moved per execution, for the whole unit. */
  elems: Expr;
  elemBytes: number;
  dtype: Dtype;
  line: number;
  /** Short description for the hover, e.g. "tl.load a_ptrs [BLOCK_M, BLOCK_K]". */
  what: string;
}

export type FlopClass = 'elementwise' | 'fma' | 'dot' | 'reduction' | 'special' | 'warp-reduce' | 'builtin';

export interface FlopEvent {
  kind: 'flop';
  class: FlopClass;
  /** Operator or function, e.g. `+`, `exp`, `tl.dot`, `tl.sum`. */
  op: string;
  /** FLOPs per execution, for the whole unit. */
  count: Expr;
  /** The type the arithmetic is done in. */
  dtype: Dtype;
  /** Runs on tensor cores (tl.dot, wmma, mma). */
  tensorCore: boolean;
  /** Transcendental: also counted in `specialOps` (count = ops). */
  special: boolean;
  line: number;
}

export interface IntEvent {
  kind: 'int';
  op: string;
  count: Expr;
  line: number;
}

export type Event = MemEvent | FlopEvent | IntEvent;

/**
 * A region of the kernel: the body, a loop, a branch counted as taken, or a
 * *choice* between arms of which only the costlier counts (a data-dependent
 * `if`/`else` or `?:`, a compile-time value that is not bound). The model picks
 * the costlier arm with the bindings and the GPU (engine/choice.ts).
 */
/** Why a choice counts its costlier arm: a data-dependent condition, an unbound compile-time value, or a comparison of two indices (a causal or triangular mask). */
export type ChoiceWhy = 'data' | 'compile' | 'index';

export interface Region {
  kind: 'kernel' | 'loop' | 'branch' | 'choice';
  /** 1-based line of the loop / branch header (or the kernel definition). */
  line: number;
  /** Times the body runs per entry (loops); 1 for the kernel and branches. */
  trips: Expr;
  /** The header as written, e.g. `for k in range(0, tl.cdiv(K, BLOCK_K))`; for an arm, the arm (`then`, `else`). */
  label: string;
  events: Event[];
  /** The arms of a choice (each a `branch` region); the nested regions otherwise. */
  children: Region[];
  /** Why a choice is one: the condition is data-dependent, or a compile-time value is unbound. */
  why?: ChoiceWhy;
}

/** One global tensor's traffic over the whole launch (for compulsory bytes). */
export interface TensorFootprint {
  target: string;
  elemBytes: number;
  /** Distinct elements read over the whole launch; null when it cannot be derived. */
  read: Expr | null;
  /** Distinct elements written over the whole launch; null when it cannot be derived. */
  written: Expr | null;
}

export interface KernelIR {
  name: string;
  /** 1-based line of `def` / `__global__` / `fn`. */
  line: number;
  /** 0-based character range of the whole kernel in the file, for editor hit tests. */
  range?: { startLine: number; endLine: number };
  language: Language;
  unit: UnitKind;
  body: Region;
  /** Number of units of the launch (grid product), null when unknown. */
  units: Expr | null;
  /** Every value the frontend used, with where it came from. */
  bindings: Record<string, Binding>;
  /** Other values the file suggests per symbol (all autotune configs, other launches, host alternatives). */
  suggestions?: Record<string, Suggestion[]>;
  /** Per-tensor footprints for the compulsory traffic; empty when not derivable. */
  footprints: TensorFootprint[];
  /** Why compulsory traffic is not known (when footprints are incomplete). */
  compulsoryNote?: string;
  /** Plain-language assumptions for the hover ("masks assumed true (interior tile)"), by id. */
  assumptions: Assumption[];
  diagnostics: Diagnostic[];
  /** Symbols the frontend needed a *value* for (conditions, unrolls) but did not have. */
  needed: string[];
  /** The analysis of this kernel was cut short by a budget: its counts are not shown. */
  truncated?: boolean;
  /** The frontend failed on this kernel (an internal error): it is listed with no numbers. */
  failed?: boolean;
}

/** Why a kernel's counts are incomplete (the ids of the diagnostics that cost it counts). */
export interface Incompleteness {
  id: MessageId;
  line: number;
  loses: 'flops' | 'bytes' | 'all';
}

/** A host value as it crosses into a per-launch analysis: a number, flag, string, or a tensor / buffer. */
export type HostLite = number | boolean | string | { dtype?: string; shape?: number[]; bytes?: number };

/** What the per-launch analysis of a pipeline is given (`UserInputs.launch`). */
export interface LaunchInputs {
  kernel: string;
  line: number;
  frame?: Record<string, HostLite>;
  /** Shown in the bindings' details (`pipeline \`forward\` line 12`). */
  label: string;
}

/** One launch of a host pipeline, as the host code says it (src/core/pipeline/ analyses it). */
export interface HostLaunchFact {
  kernel: string;
  /** 1-based line of the launch site (`k[grid](…)`, `k<<<…>>>`, `dispatchWorkgroups`). */
  line: number;
  /** Line in the pipeline function where it happens (the launch itself or the launcher call). */
  callLine: number;
  /** The launcher function it goes through, if any. */
  via?: string;
  /** What the per-launch analysis is given; undefined when the launch cannot be analysed. */
  inputs?: LaunchInputs;
  /** Times it runs per pipeline call (host loops multiply); null when a loop's trip count is unknown. */
  repeat: number | null;
  repeatNote?: string;
  /** Kernel parameter (or WGSL binding variable) → identity of the host tensor / buffer passed. */
  tensors: Record<string, string>;
  /** Identity → the host variable's name, for display. */
  names: Record<string, string>;
  /** Why the launch has no numbers (unknown kernel, …). */
  unresolved?: string;
}

/** A host function (or WebGPU command encoder) that launches kernels one after another. */
export interface HostPipelineFact {
  name: string;
  line: number;
  endLine: number;
  launches: HostLaunchFact[];
  /** What the host reader says about the whole sequence (a list cut at its limit), for the report's notes. */
  notes?: string[];
}

export interface FileIR {
  language: Language;
  kernels: KernelIR[];
  diagnostics: Diagnostic[];
  /** Launch sequences of the host code in the same file (issue 18). */
  pipelines?: HostPipelineFact[];
  /**
   * Set when the time slice ended before every kernel was analysed; while the
   * scan of a large file spans slices, how many of its statements were read.
   */
  incomplete?: { analysed: number; total: number; scanned?: number; statements?: number };
  /** Every kernel is in, but the time slice ended before the launch pipelines were read: they follow. */
  pipelinesPending?: boolean;
  /** Lines (1-based) of the syntax errors in the text the kernels were read from: a kernel that holds one is incomplete (analyze.ts). */
  syntaxErrors?: number[];
}
