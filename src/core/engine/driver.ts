/**
 * One driver for every frontend: the per-kernel cache, crash isolation per
 * kernel, step budgets and time slices.
 *
 *   frontend: file facts ──► jobs (one per kernel: a cache key and a run)
 *   driver:   for each job ──► cache hit? ──► else run it under the kernel's
 *             step budget; an exception becomes an internal-error diagnostic
 *             on that kernel (listed, no numbers), never the loss of the file;
 *             a kernel cut short is `truncated` (no numbers, never smaller ones)
 *
 * Past the time slice only cached kernels are taken (at least one new kernel
 * per call, so every call makes progress); the file is then marked
 * incomplete and the caller analyses again. The kernels in the budget's
 * focus (an editor's visible lines) are run first.
 */
import type { FrontendContext } from '../frontend';
import type { Diagnostic, KernelIR, Language, UnitKind } from '../ir';
import { say } from '../messages';
import { ONE } from '../sym/expr';
import { Deps, recordInto } from '../deps';

export interface KernelJob {
  /**
   * Everything the kernel's analysis reads, as text (the driver adds the
   * user's inputs); with `deps`, what it reads besides the reads recorded.
   */
  key: string;
  /**
   * The kernel's reads of the rest of its file are recorded while it runs
   * (src/core/deps.ts) and answered again at the next analysis: the cached
   * kernel is taken only when every answer is the same.
   */
  deps?: { root: object; fingerprint(d: Deps): string };
  name: string;
  /** 1-based line of the definition. */
  line: number;
  range?: { startLine: number; endLine: number };
  run: () => KernelIR;
}

interface Cached {
  ir: KernelIR;
  /** The recorded reads and their answers when it ran (jobs with `deps`). */
  deps?: Deps;
  answers?: string;
}

/** A least-recently-used cache of analysed kernels. */
export class KernelCache {
  private readonly map = new Map<string, Cached>();
  constructor(private readonly max = 4096) {}

  /** The kernel cached under `key`; with `answer`, only when its recorded reads answer as they did. */
  get(key: string, answer?: (d: Deps) => string): KernelIR | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.deps && (!answer || answer(hit.deps) !== hit.answers)) return undefined;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit.ir;
  }

  set(key: string, k: KernelIR, deps?: Deps, answers?: string): void {
    this.map.delete(key);
    this.map.set(key, deps ? { ir: k, deps, answers } : { ir: k });
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }

  clear(): void {
    this.map.clear();
  }
}

/** The user's inputs as part of every cache key. */
export function inputsKey(ctx: FrontendContext): string {
  return JSON.stringify([ctx.user, ctx.pragmas.map((p) => [p.name, p.value, p.line])]);
}

export interface DriverResult {
  kernels: KernelIR[];
  diagnostics: Diagnostic[];
  /** Set when the time slice (or the file's budget) ended before every kernel was analysed. */
  incomplete?: { analysed: number; total: number };
  /** Kernels analysed by this call (not taken from the cache). */
  fresh: number;
}

/**
 * The order jobs are run in: the kernels that overlap the budget's focus (the
 * lines an editor shows) first, so a time slice spends itself on them; the
 * report keeps the file's order.
 */
function runOrder(jobs: KernelJob[], focus: { startLine: number; endLine: number } | undefined): number[] {
  const all = jobs.map((_, i) => i);
  if (!focus) return all;
  const seen = (j: KernelJob): boolean => {
    const r = j.range ?? { startLine: j.line - 1, endLine: j.line - 1 };
    return r.endLine >= focus.startLine && r.startLine <= focus.endLine;
  };
  return [...all.filter((i) => seen(jobs[i])), ...all.filter((i) => !seen(jobs[i]))];
}

/**
 * Whether a frontend leaves the launch pipelines to the next call: the time
 * slice is over and this call analysed kernels (a call that only took cached
 * ones always reads them, so every call makes progress).
 */
export function deferPipelines(ctx: FrontendContext, r: DriverResult): boolean {
  return r.fresh > 0 && ctx.budget.over();
}

export function runKernels(ctx: FrontendContext, cache: KernelCache, language: Language, unit: UnitKind, jobs: KernelJob[]): DriverResult {
  const out: DriverResult = { kernels: [], diagnostics: [], fresh: 0 };
  const inputs = inputsKey(ctx);
  // One launch of a pipeline: only its kernel.
  const only = ctx.user.launch?.kernel;
  const run = only !== undefined ? jobs.filter((j) => j.name === only) : jobs;
  const done: (KernelIR | undefined)[] = new Array(run.length);
  let fresh = 0;
  for (const index of runOrder(run, ctx.budget.focus)) {
    const job = run[index];
    const key = `${job.key}\u0000${inputs}`;
    const hit = cache.get(key, job.deps ? (d) => job.deps!.fingerprint(d) : undefined);
    if (hit) {
      done[index] = hit;
      continue;
    }
    if (ctx.budget.expired) break;
    if (fresh > 0 && ctx.budget.over()) continue;
    fresh++;
    let ir: KernelIR;
    let truncated = false;
    const reads = job.deps ? new Deps(job.deps.root) : undefined;
    try {
      const r = recordInto(reads, () => ctx.budget.kernel(job.run));
      ir = r.value;
      truncated = r.truncated;
    } catch (e) {
      ir = failedKernel(job, language, unit, String((e as Error)?.message ?? e));
    }
    if (truncated && !ir.truncated) ir = { ...ir, truncated: true, diagnostics: [...ir.diagnostics, say('kernelTruncated', job.line, job.name)] };
    done[index] = ir;
    // A kernel cut short by the wall clock depends on load: it is redone next time. Step budgets are deterministic.
    if (!(truncated && ctx.budget.expired)) cache.set(key, ir, reads?.done(), reads ? job.deps!.fingerprint(reads) : undefined);
  }
  out.fresh = fresh;
  for (const k of done) if (k) out.kernels.push(k);
  if (out.kernels.length < jobs.length) out.incomplete = { analysed: out.kernels.length, total: jobs.length };
  return out;
}

/** A kernel the frontend failed on: listed, with the error, and no numbers. */
export function failedKernel(job: Pick<KernelJob, 'name' | 'line' | 'range'>, language: Language, unit: UnitKind, error: string): KernelIR {
  return {
    name: job.name,
    line: job.line,
    ...(job.range ? { range: job.range } : {}),
    language,
    unit,
    body: { kind: 'kernel', line: job.line, trips: ONE, label: job.name, events: [], children: [] },
    units: null,
    bindings: {},
    footprints: [],
    assumptions: [],
    diagnostics: [say('internal', job.line, `analysing \`${job.name}\`: ${error}`)],
    needed: [],
    failed: true,
  };
}

/**
 * A result computed from the whole file besides its kernels (the launch
 * pipelines), kept per path with the reads that made it (src/core/deps.ts)
 * and reused while every read answers the same: an edit inside a kernel, or
 * in host code the result never read, does not rebuild it.
 */
export class ReadsMemo<T> {
  private readonly map = new Map<string, { key: string; value: T; deps: Deps; answers: string }>();
  /** Values taken from the memo and values computed (tests read them). */
  readonly stats = { reused: 0, computed: 0 };
  constructor(private readonly max = 64) {}

  /**
   * The value for `path` (and `key`, the inputs besides the file): the kept
   * one when `fingerprint` answers its reads as before, else `compute`'s,
   * recorded; kept only when `complete` says nothing cut it short.
   */
  get(path: string, key: string, root: object, fingerprint: (d: Deps) => string, compute: () => T, complete: () => boolean): T {
    const hit = this.map.get(path);
    if (hit && hit.key === key && fingerprint(hit.deps) === hit.answers) {
      this.stats.reused++;
      return hit.value;
    }
    this.stats.computed++;
    const reads = new Deps(root);
    const value = recordInto(reads, compute);
    reads.done();
    this.map.delete(path);
    if (complete()) {
      this.map.set(path, { key, value, deps: reads, answers: fingerprint(reads) });
      while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
    }
    return value;
  }

  forget(path: string): void {
    this.map.delete(path);
  }

  clear(): void {
    this.map.clear();
  }
}
