/**
 * Budgets, so no input can hang the host — and so that the same file gives the
 * same numbers on a busy machine and on an idle one.
 *
 * - The *step* budget is deterministic: every call to `spent()` is one step of
 *   interpretation; a kernel may take `kernelSteps`, the file-level scans
 *   (module, host code, launches) `fileSteps`. A kernel that runs out is
 *   truncated: the driver reports it `partial` with no numbers, never smaller
 *   ones.
 * - The *hard* wall-clock budget is a safety net for interactive hosts only
 *   (the CLI sets none): a kernel it cuts short is truncated the same way and
 *   is not cached, so the next analysis redoes it. It is the whole
 *   analysis's: a pipeline's launches, analysed on budgets of their own,
 *   each get what is left of it (`remainingMs`).
 * - The *slice* says when to stop starting new kernels (`over()`): the caller
 *   gets the kernels done so far, marked as such, and calls again; cached
 *   kernels make every call progress.
 */
export interface BudgetOptions {
  /** Interpretation steps one kernel may take (default 1,000,000). */
  kernelSteps?: number;
  /** Steps of the file-level scans (default 5,000,000). */
  fileSteps?: number;
  /** Wall-clock safety net for the whole analysis, ms (default: none). */
  hardMs?: number;
  /** Time slice, ms (default: none). */
  sliceMs?: number;
  /** Wall-clock budget of one parse, ms (default: none). */
  parseMs?: number;
  /** Lines (0-based, inclusive) whose kernels are analysed first, e.g. what an editor shows; the report keeps file order. */
  focus?: { startLine: number; endLine: number };
  /** The time slice ends once the kernels of `focus` are analysed (see AnalyzeOptions.focusFirst). */
  focusFirst?: boolean;
}

export const DEFAULT_KERNEL_STEPS = 1_000_000;
export const DEFAULT_FILE_STEPS = 5_000_000;

/**
 * An expression nested deeper than this is not followed: the frontends say
 * so (`depthLimit`, a reason the kernel is incomplete) and take its value as
 * unknown. Evaluating recurses once a level, and a thread's stack of ~1 MB
 * (the extension's worker) holds a few hundred levels, not thousands.
 */
export const MAX_EXPRESSION_DEPTH = 200;

/** An interpreter's nesting of the expression it evaluates (`nested`). */
export interface ExpressionDepth {
  exprDepth: number;
}

/**
 * `evaluate(st, n)` one level of expression deeper; past
 * MAX_EXPRESSION_DEPTH, `tooDeep(st, n)` instead (it says `depthLimit` and
 * gives an unknown value). The rule of every frontend.
 */
export function nested<S extends ExpressionDepth, N, T>(st: S, n: N, evaluate: (st: S, n: N) => T, tooDeep: (st: S, n: N) => T): T {
  if (st.exprDepth > MAX_EXPRESSION_DEPTH) return tooDeep(st, n);
  st.exprDepth++;
  try {
    return evaluate(st, n);
  } finally {
    st.exprDepth--;
  }
}

export class Budget {
  private readonly deadline: number;
  private readonly sliceEnd: number;
  private readonly kernelSteps: number;
  private readonly fileSteps: number;
  readonly parseMs: number | undefined;
  /** Lines whose kernels go first (see BudgetOptions.focus). */
  readonly focus: { startLine: number; endLine: number } | undefined;
  /** The slice ends with the focus's kernels (BudgetOptions.focusFirst). */
  readonly focusFirst: boolean;
  private steps = 0;
  /**
   * The highest step count the current scope reached in optional work (whose
   * steps are given back after it: `optional`), for `measured`.
   */
  private high = 0;
  /** The step count at which optional work (see `optional`) stops. */
  private cap = Infinity;
  private inKernel = false;
  /** The hard wall-clock budget ran out (the analysis depends on load from here on). */
  expired = false;
  /** The current kernel ran out of steps or of wall-clock time. */
  kernelTruncated = false;
  /** Some file-level scan ran out of steps (later kernels or launches may be missing). */
  fileTruncated = false;

  constructor(opts: BudgetOptions = {}) {
    const now = Date.now();
    this.deadline = opts.hardMs === undefined ? Infinity : now + Math.max(1, opts.hardMs);
    this.sliceEnd = opts.sliceMs === undefined ? Infinity : now + Math.max(0, opts.sliceMs);
    this.kernelSteps = opts.kernelSteps ?? DEFAULT_KERNEL_STEPS;
    this.fileSteps = opts.fileSteps ?? DEFAULT_FILE_STEPS;
    this.parseMs = opts.parseMs;
    this.focus = opts.focus;
    this.focusFirst = opts.focusFirst ?? false;
  }

  /** One step of work; true once the current budget is spent (cheap enough for inner loops). */
  spent(): boolean {
    if (this.expired) return true;
    if (this.inKernel ? this.kernelTruncated : this.fileTruncated) return true;
    const n = ++this.steps;
    if (n > (this.inKernel ? this.kernelSteps : this.fileSteps) || n > this.cap) {
      if (this.inKernel) this.kernelTruncated = true;
      else this.fileTruncated = true;
      return true;
    }
    if ((n & 255) === 0 && this.deadline !== Infinity && Date.now() > this.deadline) {
      this.expired = true;
      if (this.inKernel) this.kernelTruncated = true;
      else this.fileTruncated = true;
      return true;
    }
    return false;
  }

  /** Runs one kernel's analysis with its own step budget; reports whether it was cut short. */
  kernel<T>(run: () => T): { value: T; truncated: boolean } {
    const outerSteps = this.steps;
    const outerHigh = this.high;
    const outerIn = this.inKernel;
    const outerTrunc = this.kernelTruncated;
    this.steps = 0;
    this.high = 0;
    this.inKernel = true;
    this.kernelTruncated = false;
    try {
      const value = run();
      return { value, truncated: this.kernelTruncated };
    } finally {
      this.steps = outerSteps;
      this.high = outerHigh;
      this.inKernel = outerIn;
      this.kernelTruncated = outerTrunc;
    }
  }

  /**
   * Runs work the counts do not need (the values suggested for binding) with
   * at most `steps` steps of its own. Running out of them ends that work early
   * (`cut`) without truncating the kernel or the file, and its steps are not
   * taken from theirs; the wall-clock safety net still truncates as usual.
   */
  optional<T>(steps: number, run: () => T): { value: T; cut: boolean } {
    const outerCap = this.cap;
    const outerSteps = this.steps;
    const trunc = this.inKernel ? this.kernelTruncated : this.fileTruncated;
    this.cap = Math.min(outerCap, outerSteps + Math.max(0, steps));
    let cut = false;
    try {
      const value = run();
      cut = !trunc && (this.inKernel ? this.kernelTruncated : this.fileTruncated);
      return { value, cut };
    } finally {
      this.cap = outerCap;
      if (this.steps > this.high) this.high = this.steps;
      this.steps = outerSteps;
      if (!this.expired) {
        if (this.inKernel) this.kernelTruncated = trunc;
        else this.fileTruncated = trunc;
      }
    }
  }

  /**
   * Runs `run` for a value kept and taken again later (a memo): what it took
   * of the current scope's steps (`used`) and the most it held at once,
   * optional work included (`peak`); `fits`: no limit of this scope ended any
   * of it, so the value does not depend on the steps taken before it. Taken
   * again with `retake`, the value leaves the budget where computing it would.
   */
  measured<T>(run: () => T): { value: T; used: number; peak: number; fits: boolean } {
    const start = this.steps;
    const outerHigh = this.high;
    this.high = start;
    try {
      const value = run();
      const peak = Math.max(this.high, this.steps) - start;
      return { value, used: this.steps - start, peak, fits: !this.truncatedHere() && start + peak <= this.limit() };
    } finally {
      this.high = Math.max(outerHigh, this.high, this.steps);
    }
  }

  /**
   * Takes the steps of a kept value (`measured`'s `used` and `peak`) as if it
   * were computed here: false, taking none, when computing it here would
   * have been cut (the current scope is cut already, or its limit falls
   * within `peak`): the caller computes it then. So a value taken from a memo
   * ends a budget where a cold analysis ends it.
   */
  retake(used: number, peak: number): boolean {
    if (this.expired || this.truncatedHere() || this.steps + peak > this.limit()) return false;
    this.high = Math.max(this.high, this.steps + peak);
    this.steps += used;
    return true;
  }

  private truncatedHere(): boolean {
    return this.inKernel ? this.kernelTruncated : this.fileTruncated;
  }

  /** The step count past which the current scope is cut: its limit, or the end of the optional work it is in. */
  private limit(): number {
    return Math.min(this.inKernel ? this.kernelSteps : this.fileSteps, this.cap);
  }

  /**
   * What is left of the hard wall-clock budget, ms (at least 0), or
   * undefined without one: work done apart on a budget of its own (a
   * pipeline's launches) gets what is left of the analysis's.
   */
  remainingMs(): number | undefined {
    return this.deadline === Infinity ? undefined : Math.max(0, this.deadline - Date.now());
  }

  /** Whether the analysis runs in time slices (a `sliceMs` was given). */
  get sliced(): boolean {
    return this.sliceEnd !== Infinity;
  }

  /** True once the time slice is over: finish the current unit of work, start no new one. */
  over(): boolean {
    // At its end, not a millisecond after: a zero-length slice is over at once (one new unit of work per call),
    // however fast the work (a clock tick is not a slice).
    return this.sliceEnd !== Infinity && Date.now() >= this.sliceEnd;
  }
}
