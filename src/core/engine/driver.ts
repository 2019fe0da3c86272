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
import { comparedTo, Deps, lineBefore, recordInto, replay, sameAnswers, saysLineWords, shiftedDeps, type Answers, type RowEdit } from '../deps';
import type { DocFrame } from '../parsers';
import { shiftKernel, shiftLines } from './shift';
import { detachStrings } from '../detach';

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
  deps?: { root: object; fingerprint(d: Deps, edit?: RowEdit, lines?: RowEdit): Answers };
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
  answers?: Answers;
  /** The document version the reads and the kernel's lines are of. */
  frame?: { doc: string; version: number };
}

/** Entry `i` of a key's list was taken: first in its list, and its key the most recently used. */
function taken<V>(map: Map<string, V[]>, key: string, list: V[], i: number): void {
  if (i > 0) list.unshift(...list.splice(i, 1));
  map.delete(key);
  map.set(key, list);
}

/** Kernels kept per cache key at most (one launch site reached from many places: a pipeline's launches of a template, one per block size). */
const PER_KEY = 16;

/** Versions of one kernel of a document kept at most (its last texts: an undo finds them). */
const PER_FAMILY = 8;

/** Kernels analysed, reused, and reused moved by an edit that added or removed lines above them (tests). */
export const kernelStats = { analysed: 0, reused: 0, moved: 0 };

/** A least-recently-used cache of analysed kernels. */
export class KernelCache {
  /**
   * Per key, the kernels analysed under it, the most recently taken first: a
   * key without the lines the inputs name (a pipeline launch's) is shared by
   * the same launch reached from several places, told apart by their reads.
   */
  private readonly map = new Map<string, Cached[]>();
  /**
   * Per kernel of a document (its name and its inputs: one launch's analysis
   * is a kernel of its own), the keys of its versions, the newest first: an
   * edit of a kernel's text makes a new key, and past PER_FAMILY of them the
   * oldest goes (typing in one kernel for an hour kept every version up to
   * the cache's size, ~30 KB each).
   */
  private readonly families = new Map<string, string[]>();
  /** The family of each key (to take it out of its family's list when it goes). */
  private readonly familyOf = new Map<string, string>();
  constructor(private readonly max = 4096) {}

  /** Keys kept (tests). */
  get size(): number {
    return this.map.size;
  }

  private drop(key: string): void {
    this.map.delete(key);
    const family = this.familyOf.get(key);
    if (family === undefined) return;
    this.familyOf.delete(key);
    const keys = this.families.get(family);
    const at = keys ? keys.indexOf(key) : -1;
    if (at >= 0) keys!.splice(at, 1);
    if (keys && keys.length === 0) this.families.delete(family);
  }

  /**
   * The kernel cached under `key`; with `answer`, only when its recorded reads
   * answer as they did. With `frame` (the document version analysed), a
   * kernel analysed on the version before, whose reads all lie outside the
   * rows the edit between them touched and answer the same there, is taken
   * with its lines moved by the edit (an Enter above it).
   */
  get(key: string, answer?: (d: Deps, edit?: RowEdit, lines?: RowEdit) => Answers, frame?: DocFrame, line?: number): KernelIR | undefined {
    const list = this.map.get(key);
    if (!list) return undefined;
    for (let i = 0; i < list.length; i++) {
      const hit = list[i];
      if (hit.deps) {
        if (!answer) continue;
        const kept = keptReads(hit.ir, hit.deps, hit.answers!, hit.frame, answer, frame, shiftKernel);
        if (!kept || (kept !== SAME && line !== undefined && kept.value.line !== line)) continue;
        if (kept !== SAME) {
          hit.ir = kept.value;
          hit.deps = kept.deps;
          hit.answers = kept.answers;
          kernelStats.moved++;
        }
      }
      hit.frame = frameOf(frame);
      taken(this.map, key, list, i);
      // Its family's newest version again (an undo back to it).
      const keys = this.families.get(this.familyOf.get(key) ?? '');
      const at = keys ? keys.indexOf(key) : -1;
      if (at > 0) keys!.unshift(...keys!.splice(at, 1));
      kernelStats.reused++;
      return hit.ir;
    }
    return undefined;
  }

  set(key: string, k: KernelIR, deps?: Deps, answers?: Answers, frame?: DocFrame, family?: string): void {
    // What it keeps holds no view into the file's text (detach.ts): else each version's text stayed alive.
    detachStrings(k);
    if (deps) detachStrings(deps.queries);
    if (answers) detachStrings(answers);
    const list = this.map.get(key) ?? [];
    this.map.delete(key);
    this.map.set(key, deps ? [{ ir: k, deps, answers, frame: frameOf(frame) }, ...list.filter((c) => c.deps).slice(0, PER_KEY - 1)] : [{ ir: k }]);
    // A key of a family already (the same kernel in another document, reached first there) stays in that one.
    if (family !== undefined && !this.familyOf.has(key)) {
      const keys = this.families.get(family) ?? [];
      this.families.set(family, keys);
      keys.unshift(key);
      this.familyOf.set(key, family);
      while (keys.length > PER_FAMILY) this.drop(keys[keys.length - 1]);
    }
    while (this.map.size > this.max) this.drop(this.map.keys().next().value as string);
  }

  clear(): void {
    this.map.clear();
    this.families.clear();
    this.familyOf.clear();
  }
}

/**
 * The edit that made `frame` from the version `hit` was analysed on, when it
 * added or removed lines (nothing else moves a kernel).
 */
function editSince(at: { doc: string; version: number } | undefined, frame: DocFrame | undefined): DocFrame['prev'] {
  const prev = frame?.prev;
  if (!prev || prev.edit.newEndRow === prev.edit.oldEndRow || at?.doc !== frame!.doc || at.version !== prev.version) return undefined;
  return prev;
}

/** The version a value was computed on, as kept with it. */
function frameOf(frame: DocFrame | undefined): { doc: string; version: number } | undefined {
  return frame ? { doc: frame.doc, version: frame.version } : undefined;
}

/** `keptReads`: the value still holds as it is. */
const SAME = 'same';

/**
 * Whether a value computed with reads `deps` (answered `answers` on the
 * version `at`) still holds on the version `frame`: `SAME` when every read
 * answers as it did; moved, when the edit since `at` added or removed lines
 * and every read lies outside the rows it touched and answers the same there
 * (rows and lines mapped back across the edit) — the value with its lines
 * moved (`shift`), its reads moved, and their answers on the text as it is
 * now; else undefined (computed again).
 */
function keptReads<T>(
  value: T,
  deps: Deps,
  answers: Answers,
  at: { doc: string; version: number } | undefined,
  answer: (d: Deps, edit?: RowEdit, lines?: RowEdit) => Answers,
  frame: DocFrame | undefined,
  shift: (v: T, lines: RowEdit) => T | undefined,
): typeof SAME | { value: T; deps: Deps; answers: Answers } | undefined {
  const prev = editSince(at, frame);
  // Compared as they are answered: the first that differs ends it (most kept values checked differ).
  if (!(prev && movedBelow(deps, prev.edit)) && sameAnswers(comparedTo(answers, () => answer(deps)), answers)) return SAME;
  if (!prev) return undefined;
  const lines = prev.lines ?? prev.edit;
  if (!sameAnswers(comparedTo(answers, () => answer(deps, prev.edit, lines)), answers)) return undefined;
  const moved = shift(value, lines);
  const shifted = shiftedDeps(deps, prev.edit);
  if (moved === undefined || !shifted) return undefined;
  return { value: moved, deps: shifted, answers: answer(shifted) };
}

/** Whether reads recorded before `edit` include a statement it moved (they cannot answer the same unmoved). */
function movedBelow(d: Deps, edit: RowEdit): boolean {
  for (const r of d.rows) if (r > edit.oldEndRow) return true;
  return false;
}

/**
 * The user's inputs without the lines they name (the pragmas', a pipeline
 * launch's), and those lines: a kernel with recorded reads is keyed by the
 * first and answers the second with its reads, so lines moved by an edit do
 * not change its key.
 */
function placesApart(ctx: FrontendContext): { placeless: string; lines: number[] } {
  const launch = ctx.user.launch;
  const lines = ctx.pragmas.map((p) => p.line);
  let user: unknown = ctx.user;
  if (launch) {
    lines.push(launch.line);
    for (const m of launch.label.matchAll(/\bline (\d+)/g)) lines.push(Number(m[1]));
    user = { ...ctx.user, launch: { ...launch, line: 0, label: launch.label.replace(/\bline \d+/g, 'line #') } };
  }
  return { placeless: JSON.stringify([user, ctx.pragmas.map((p) => [p.name, p.value])]), lines };
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
 * lines an editor shows) first, so a time slice spends itself on them
 * (`focused` of them; without a focus, Infinity: no slice ends after them); the
 * report keeps the file's order.
 */
function runOrder(jobs: KernelJob[], focus: { startLine: number; endLine: number } | undefined): { order: number[]; focused: number } {
  const all = jobs.map((_, i) => i);
  if (!focus) return { order: all, focused: Infinity };
  const seen = (j: KernelJob): boolean => {
    const r = j.range ?? { startLine: j.line - 1, endLine: j.line - 1 };
    return r.endLine >= focus.startLine && r.startLine <= focus.endLine;
  };
  const first = all.filter((i) => seen(jobs[i]));
  return { order: [...first, ...all.filter((i) => !seen(jobs[i]))], focused: first.length };
}

/**
 * Whether a frontend leaves the launch pipelines to the next call: the time
 * slice is over and this call analysed kernels (a call that only took cached
 * ones always reads them, so every call makes progress).
 */
export function deferPipelines(ctx: FrontendContext, r: DriverResult): boolean {
  return r.fresh > 0 && ctx.budget.over();
}

/**
 * Whether a kernel of this file may be moved by an edit instead of analysed
 * again: not when a file it imports says "line N" (a note quoting it would be
 * moved too: engine/shift.ts). The file's own statements that say it keep
 * the kernels that read them from moving (deps.ts `answerReads`).
 */
export function movable(ctx: FrontendContext): boolean {
  return !Object.values(ctx.related ?? {}).some((f) => saysLineWords(f.text));
}

/**
 * Runs the file's kernel jobs. `frame` is the version of the document the jobs
 * are of (parsers.ts `documentFrame`): given, a kernel an edit only moved is
 * reused with its lines moved (engine/shift.ts). A frontend leaves it out
 * when its rows are not the file's lines (CUDA headers read in front) or a
 * file it imports says "line N" (`movable`).
 */
export function runKernels(ctx: FrontendContext, cache: KernelCache, language: Language, unit: UnitKind, jobs: KernelJob[], frame?: DocFrame): DriverResult {
  const out: DriverResult = { kernels: [], diagnostics: [], fresh: 0 };
  let inputs: string | undefined;
  const { placeless, lines } = placesApart(ctx);
  const pragmaRows = (edit?: RowEdit): string => lines.map((l) => lineBefore(l, edit)).join(',');
  // One launch of a pipeline: only its kernel.
  const only = ctx.user.launch?.kernel;
  const run = only !== undefined ? jobs.filter((j) => j.name === only) : jobs;
  // A text analysed once: nothing recorded, kernels kept for this text only (the same text for another GPU).
  const once = ctx.once?.forText(ctx.source);
  const done: (KernelIR | undefined)[] = new Array(run.length);
  let fresh = 0;
  // A job whose key an earlier one in the file has (a kernel defined again with the same text: a CUDA
  // redefinition) is keyed by its place among them too: analysed on its own, at its own line.
  const seen = new Map<string, number>();
  const keys = run.map((job) => {
    const n = seen.get(job.key) ?? 0;
    seen.set(job.key, n + 1);
    return n === 0 ? job.key : `${job.key}\u0000#${n}`;
  });
  const { order, focused } = runOrder(run, ctx.budget.focus);
  // With `focusFirst`, a slice ends after the focus's kernels (first in the order).
  const last = ctx.budget.focusFirst ? focused : Infinity;
  for (const [at, index] of order.entries()) {
    const job = run[index];
    // A job with recorded reads: the lines the inputs name (pragmas, a pipeline launch) are answered with them
    // (an Enter above a pragma moves the kernel instead of changing its key); without, they are part of the key.
    const recorded = job.deps && !once;
    const key = `${keys[index]}\u0000${recorded ? placeless : (inputs ??= inputsKey(ctx))}`;
    const answer = recorded ? (d: Deps, edit?: RowEdit, lines?: RowEdit): Answers => [...job.deps!.fingerprint(d, edit, lines), pragmaRows(lines ?? edit)] : undefined;
    const hit = once ? once.kernels.get(key) : cache.get(key, answer, frame, job.line);
    if (hit) {
      done[index] = hit;
      continue;
    }
    if (ctx.budget.expired) break;
    if (fresh > 0 && (ctx.budget.over() || at >= last)) continue;
    fresh++;
    kernelStats.analysed++;
    let ir: KernelIR;
    let truncated = false;
    const reads = recorded ? new Deps(job.deps!.root) : undefined;
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
    if (truncated && ctx.budget.expired) continue;
    if (once) once.kernels.set(key, ir);
    else cache.set(key, ir, reads?.done(), reads ? answer!(reads) : undefined, frame, `${ctx.path ?? '<input>'}\u0000${job.name}\u0000${recorded ? placeless : inputs}`);
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
  private readonly map = new Map<string, { key: string; value: T; deps: Deps; answers: Answers; frame?: { doc: string; version: number }; used: number; peak: number }[]>();
  /** Values taken from the memo (`moved`: moved by an edit that added or removed lines above what they read) and values computed (tests read them). */
  readonly stats = { reused: 0, moved: 0, computed: 0 };
  /** `perPath`: values kept per path (the same inputs reached from different places, told apart by their reads). */
  constructor(
    private readonly max = 64,
    private readonly perPath = 1,
  ) {}

  /**
   * The value for `path` (and `key`, the inputs besides the file; a text
   * analysed once, `ctx.once`: always computed, not kept): the kept
   * one when `fingerprint` answers its reads as before, else `compute`'s,
   * recorded; kept only when `complete` says nothing cut it short. With
   * `frame` (the document version), a value computed on the version before,
   * whose reads an edit that added or removed lines only moved, is taken with
   * its lines moved (plain data only: engine/shift.ts). A kept value takes
   * the budget's steps its computing took (`Budget.retake`), and is computed
   * again where computing it would have been cut: warm and cold analyses
   * end their budgets at the same place.
   */
  get(
    ctx: Pick<FrontendContext, 'once' | 'budget'>,
    path: string,
    key: string,
    root: object,
    fingerprint: (d: Deps, edit?: RowEdit, lines?: RowEdit) => Answers,
    compute: () => T,
    complete: () => boolean,
    frame?: DocFrame,
    /** The reads are also the caller's (a value inside a kernel's analysis): replayed into its recorder, kept or computed. */
    replayReads = false,
  ): T {
    // A text analysed once: nothing to keep it for (and nothing records: no reads to replay).
    if (ctx.once) return compute();
    const list = this.map.get(path) ?? [];
    const here = frameOf(frame);
    for (let i = 0; i < list.length; i++) {
      const hit = list[i];
      const kept = hit.key === key ? keptReads(hit.value, hit.deps, hit.answers, hit.frame, fingerprint, frame, shiftLines) : undefined;
      if (!kept || !ctx.budget.retake(hit.used, hit.peak)) continue;
      if (kept === SAME) this.stats.reused++;
      else {
        this.stats.moved++;
        Object.assign(hit, { value: kept.value, deps: kept.deps, answers: kept.answers });
      }
      hit.frame = here;
      if (replayReads) replay(hit.deps);
      taken(this.map, path, list, i);
      return hit.value;
    }
    this.stats.computed++;
    const reads = new Deps(root);
    const { value, used, peak, fits } = ctx.budget.measured(() => recordInto(reads, compute));
    reads.done();
    if (replayReads) replay(reads);
    this.map.delete(path);
    if (fits && complete()) {
      // The others, the most recently taken first, stay while there is room (one per path: replaced). What is
      // kept holds no view into the file's text (detach.ts).
      detachStrings(reads.queries);
      this.map.set(path, [detachStrings({ key, value, deps: reads, answers: fingerprint(reads), frame: here, used, peak }), ...list.slice(0, this.perPath - 1)]);
      while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
    } else if (list.length && this.perPath > 1) this.map.set(path, list);
    return value;
  }

  forget(path: string): void {
    this.map.delete(path);
  }

  clear(): void {
    this.map.clear();
  }
}
