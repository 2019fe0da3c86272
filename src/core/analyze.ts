/**
 * The analysis pipeline, for one file:
 *
 *   source ──► guard (binary? size?)
 *          ──► frontend: syntax ──► facts (per language: loops, conditions, accesses,
 *              arithmetic, calls), decided by the engine (engine/: branch policy,
 *              trips, active threads, unknown calls, dtypes) into the kernel IR,
 *              one kernel at a time by the driver (cache, crash isolation, budgets)
 *          ──► bindings (user > pragma > launch > autotune > … > defaults)
 *          ──► count (IR → per-unit FLOPs / bytes, symbolic and numeric; the
 *              costlier arm of each choice; completeness)
 *          ──► roofline (peak of the dominant unit, ridge, attainable, bound)
 *          ──► FileReport (+ diagnostics)
 *
 * Pure: no I/O, no `vscode`, never throws on user input.
 */
import { movedFrom, shiftLines } from './engine/shift';
import { kernelStats } from './engine/driver';
import { isUnitSize } from './engine/threads';
import type { GpuSpec } from './gpus/types';
import type { Diagnostic, FileIR, KernelIR, Language } from './ir';
import { pipelineText, say } from './messages';
import { countKernel, symbolsOf } from './model/count';
import type { Parsers } from './parsers';
import type { AnalysisReport, FileReport, KernelReport } from './report/types';
import { readPragmas } from './bindings';
import { Budget } from './budget';
import { clearTritonCache, forgetTritonFile, tritonFrontend } from './frontends/triton/frontend';
import { clearTreeCache, forgetTree } from './parsers';
import { clearCudaCache, cudaFrontend, cudaParseInput, forgetCudaFile } from './frontends/cuda/frontend';
import { clearWgslCache, forgetWgslFile, wgslFrontend } from './frontends/wgsl/frontend';
import type { BindingValue, Frontend, FrontendContext, LaunchInputs, OneShot, UserInputs } from './frontend';
import type { RelatedFile } from './related';
import { buildPipeline, type LaunchAnalysis } from './pipeline/pipeline';
import type { PipelineReport } from './report/types';

export type { BindingValue, Frontend, FrontendContext, UserInputs } from './frontend';
export { OneShot } from './frontend';

export interface AnalyzeOptions extends Partial<UserInputs> {
  gpu: GpuSpec;
  /** Path (for the report and for choosing the language). */
  path?: string;
  language?: Language;
  /**
   * Wall-clock safety net for the whole file, ms (default: none). Interactive
   * hosts set one so no input can stall them; a kernel it cuts short has no
   * numbers. Without it the analysis is bounded by deterministic step budgets
   * only, so its output does not depend on the machine's load.
   */
  budgetMs?: number;
  /**
   * Time slice, ms: no new kernel is started after it (default: none). The
   * report is then `partial`; calling again continues, as analysed kernels
   * come from the cache.
   */
  sliceMs?: number;
  /** Wall-clock budget of one parse, ms (default: none). */
  parseMs?: number;
  /** Step budget of one kernel (default: Budget's). */
  kernelSteps?: number;
  /** Step budget of the file-level scans: module, host code, launches, pipelines (default: Budget's). */
  fileSteps?: number;
  /**
   * Lines (0-based, inclusive) whose kernels are analysed first — an editor's
   * visible range, so a time slice shows them first. The report keeps file order.
   */
  focus?: { startLine: number; endLine: number };
  /**
   * With `sliceMs` and `focus`: the slice ends once the kernels of `focus`
   * are analysed (at least one kernel analysed), however long it is — the
   * first kernels an editor shows are not kept for the rest of a slice
   * grown while the file was scanned (src/extension/sliced.ts).
   */
  focusFirst?: boolean;
  /** Texts of the project files the source names (`#import config`), by spec, as the host read them (src/core/related.ts). */
  related?: Readonly<Record<string, RelatedFile>>;
  /**
   * The text is analysed once (a CLI run): its kernels' reads are not recorded
   * and nothing is kept for an edited version of it (`OneShot`, frontend.ts).
   * Give the same one to the analyses of one text for several GPUs.
   */
  once?: OneShot;
}

/**
 * With a wall-clock safety net, a parse may take at least this long: a full
 * parse cannot be sliced, is linear in the file's size, and giving up on it
 * under load would make the same file's results depend on the machine.
 */
const PARSE_SAFETY_MS = 3000;

/** Forgets every cached tree and kernel (the next analysis is cold). */
export function clearCaches(): void {
  clearTreeCache();
  clearTritonCache();
  clearWgslCache();
  clearCudaCache();
}

/**
 * Forgets one document's tree, file scan and the WGSL kernels kept to be
 * shown stale (its analysed kernels stay cached by text): a batch run calls
 * it after each file, so trees of files it will not see again do not pile
 * up. Related modules' trees are kept.
 */
export function forgetDocument(path: string): void {
  forgetTree(path);
  forgetCudaFile(path);
  forgetTritonFile(path);
  forgetWgslFile(path);
}

const FRONTENDS: Record<Language, Frontend> = {
  triton: tritonFrontend,
  cuda: cudaFrontend,
  wgsl: wgslFrontend,
};

/**
 * The text a file's frontend parses with tree-sitter, and the prefix it
 * starts from: CUDA puts the project headers it was given in front of the
 * file; the others parse the file as it is. A caller that parses ahead in
 * time slices (extension/sliced.ts) parses this, so the analysis finds the
 * tree made.
 */
export function parsedInput(source: string, language: Language, related: AnalyzeOptions['related']): { text: string; prefix?: string } {
  return language === 'cuda' ? cudaParseInput({ source, ...(related ? { related } : {}) }) : { text: source };
}

/** Picks the language from the file name (and, for `.py`, nothing else: Triton lives in Python). */
export function languageOf(path: string): Language | undefined {
  const p = path.toLowerCase();
  if (p.endsWith('.py') || p.endsWith('.pyi')) return 'triton';
  if (p.endsWith('.cu') || p.endsWith('.cuh')) return 'cuda';
  if (p.endsWith('.wgsl')) return 'wgsl';
  if (/\.(m?js|cjs|jsx|ts|mts|cts|tsx)$/.test(p)) return 'wgsl';
  return undefined;
}

function looksBinary(source: string): boolean {
  const n = Math.min(source.length, 8192);
  let bad = 0;
  for (let i = 0; i < n; i++) {
    const c = source.charCodeAt(i);
    if (c === 0) return true;
    if (c === 0xfffd || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12)) bad++;
  }
  return n > 0 && bad / n > 0.1;
}

function kernelText(lines: () => string[], source: string, k: KernelIR): string {
  if (!k.range) return source;
  return lines().slice(k.range.startLine, k.range.endLine + 1).join('\n');
}

/**
 * How far a partial report got, for a caller that analyses again until the
 * report is complete (every call makes progress): the statements of a scan
 * that spans time slices, then, once the file is read, the kernels analysed
 * (a report whose pipelines follow has every kernel), then the pipeline launches analysed.
 */
export function progressOf(p: NonNullable<FileReport['partial']>): number {
  return p.scanned !== undefined ? p.scanned : 1e9 + p.analysed + (p.launches?.analysed ?? 0);
}

/** What the caller gives every frontend call of one analysis besides the text: the project files read, a `OneShot`. */
function givenWith(opts: AnalyzeOptions): Pick<FrontendContext, 'related' | 'once'> {
  return { ...(opts.related ? { related: opts.related } : {}), ...(opts.once ? { once: opts.once } : {}) };
}

/** A unit's size the user can bind: a CUDA block's, a WGSL workgroup's, along an axis. */
const UNIT_SIZE = /^(?:blockDim|workgroup_size)\.[xyz]$/;

/**
 * The user's values without a unit size that is not a whole number of at
 * least 1 (`--set blockDim.x=0`): such a size is said and not taken, as from
 * a launch or an attribute (engine/threads.ts `isUnitSize`).
 */
function unitSizesChecked(set: Record<string, BindingValue>, report: FileReport): Record<string, BindingValue> {
  const bad = Object.entries(set).filter(([n, v]) => UNIT_SIZE.test(n) && !(typeof v === 'number' && isUnitSize(v)));
  if (bad.length === 0) return set;
  for (const [n, v] of bad) report.diagnostics.push(say('setSizeInvalid', 1, n, String(v)));
  return Object.fromEntries(Object.entries(set).filter(([n]) => !bad.some(([b]) => b === n)));
}

/** Analyses one file's text. Never throws. */
export function analyzeSource(source: string, parsers: Parsers, opts: AnalyzeOptions): FileReport {
  const path = opts.path ?? '<input>';
  const language = opts.language ?? languageOf(path) ?? 'triton';
  const report: FileReport = { path, language, diagnostics: [], kernels: [] };
  if (looksBinary(source)) {
    report.diagnostics.push(say('binaryInput', 1));
    return report;
  }
  const user: UserInputs = { set: unitSizesChecked(opts.set ?? {}, report), dtypes: opts.dtypes ?? {}, grid: opts.grid, ...(opts.texels ? { texels: opts.texels } : {}) };
  const budget = new Budget({
    hardMs: opts.budgetMs,
    sliceMs: opts.sliceMs,
    parseMs: opts.parseMs ?? (opts.budgetMs === undefined ? undefined : Math.max(opts.budgetMs, PARSE_SAFETY_MS)),
    kernelSteps: opts.kernelSteps,
    fileSteps: opts.fileSteps,
    focus: opts.focus,
    focusFirst: opts.focusFirst,
  });
  const freshAtStart = kernelStats.analysed;
  let ir: FileIR;
  try {
    ir = FRONTENDS[language]({ source, parsers, user, pragmas: readPragmas(source), budget, path, gpu: opts.gpu, ...givenWith(opts) });
  } catch (e) {
    report.diagnostics.push(say('internal', 1, `in the ${language} frontend: ${String((e as Error)?.message ?? e)}`));
    return report;
  }
  report.diagnostics.push(...ir.diagnostics);
  if (ir.incomplete) {
    report.partial = ir.incomplete;
    const i = ir.incomplete;
    report.diagnostics.push(
      i.scanned !== undefined ? say('scanPending', 1, i.scanned, i.statements ?? i.scanned) : ir.pipelinesPending ? say('pipelinesPending', 1) : say('partial', 1, i.analysed, i.total),
    );
  }
  if (budget.fileTruncated || (budget.expired && !ir.incomplete)) report.diagnostics.push(say('budget', 1));
  let split: string[] | undefined;
  const lines = (): string[] => (split ??= source.split('\n'));
  for (const k0 of ir.kernels) {
    const k = withSyntaxErrors(k0, ir.syntaxErrors);
    const done = reportOf(k, lines, source, opts.gpu);
    report.diagnostics.push(...k.diagnostics, ...done.diagnostics);
    if (done.report) report.kernels.push(done.report);
  }
  report.diagnostics = dedupe(report.diagnostics);
  if (ir.pipelines?.length && !ir.incomplete) {
    // Past the time slice, once this call analysed something, the launches left follow in the next call.
    const r = pipelinesOf(ir, source, parsers, opts, user, language, path, lines, () => budget.over() && kernelStats.analysed > freshAtStart, budget);
    if ('pipelines' in r) report.pipelines = r.pipelines;
    else {
      report.partial = { analysed: ir.kernels.length, total: ir.kernels.length, launches: { analysed: r.done, total: r.total } };
      report.diagnostics.push(say('pipelinesPending', 1));
    }
    // A launch cut short by the wall-clock budget: said at the file too, as the kernels' are.
    if (r.expired && !report.diagnostics.some((d) => d.code === 'budget')) report.diagnostics.push(say('budget', 1));
  }
  return report;
}

/** Kernels with the syntax errors inside them said, by the kernel as the frontend gave it and the errors' lines. */
const withErrors = new WeakMap<KernelIR, { key: string; k: KernelIR }>();

/**
 * A kernel whose lines hold a syntax error (`FileIR.syntaxErrors`, in every
 * language) counts only what the parser could read of it: it is said, and the
 * kernel is `complete: false` (each number a lower bound, the intensity
 * unknown). The frontends read what they can of an erroneous kernel and do
 * not all see the error where it is (a CUDA `for` whose header the grammar
 * cannot read was counted as one trip, with status ok).
 */
function withSyntaxErrors(k: KernelIR, errors: number[] | undefined): KernelIR {
  // A stale kernel (WGSL: the last good analysis of a function that does not parse now) is said to be one already.
  if (!errors?.length || !k.range || k.failed || k.truncated || k.diagnostics.some((d) => d.code === 'stale')) return k;
  const { startLine, endLine } = k.range;
  const inside = errors.filter((l) => l - 1 >= startLine && l - 1 <= endLine);
  if (inside.length === 0) return k;
  const key = inside.join(',');
  const kept = withErrors.get(k);
  if (kept?.key === key) return kept.k;
  const out = { ...k, diagnostics: [...k.diagnostics, say('syntaxErrorInKernel', inside[0], k.name, inside[0], inside.length - 1)] };
  withErrors.set(k, { key, k: out });
  return out;
}

/** Thrown out of a pipeline's build when the launches left are to follow in the next call. */
class LaunchesPending extends Error {}

/**
 * Each pipeline launch analysed by the frontend with the launch's own inputs
 * (cached by the frontend's kernel cache). When `stop()` says so before a
 * launch not analysed yet in this call, the pipelines follow in the next call:
 * `done` launches of `total` were analysed (each call gets further, the ones
 * before coming from the cache).
 */
function pipelinesOf(
  ir: FileIR,
  source: string,
  parsers: Parsers,
  opts: AnalyzeOptions,
  user: UserInputs,
  language: Language,
  path: string,
  lines: () => string[],
  stop: () => boolean,
  outer: Budget,
): { pipelines: PipelineReport[]; expired: boolean } | { done: number; total: number; expired: boolean } {
  const memo = new Map<string, LaunchAnalysis>();
  let expired = false;
  const launchGroup = {};
  const pragmas = readPragmas(source);
  const analyse = (inputs: LaunchInputs): LaunchAnalysis => {
    const key = JSON.stringify(inputs);
    const hit = memo.get(key);
    if (hit) return hit;
    if (stop()) throw new LaunchesPending();
    let out: LaunchAnalysis;
    try {
      // The safety net is the analysis's, shared by its launches: each gets what is left of it.
      const budget = new Budget({ hardMs: outer.remainingMs(), parseMs: opts.parseMs ?? (opts.budgetMs === undefined ? undefined : Math.max(opts.budgetMs, PARSE_SAFETY_MS)), kernelSteps: opts.kernelSteps, fileSteps: opts.fileSteps });
      const one = FRONTENDS[language]({ source, parsers, user: { ...user, launch: inputs }, pragmas, budget, path, gpu: opts.gpu, launchGroup, ...givenWith(opts) });
      expired ||= budget.expired;
      const found = one.kernels.find((x) => x.name === inputs.kernel);
      const k = found && withSyntaxErrors(found, one.syntaxErrors);
      if (!k) out = { report: undefined, footprints: [], why: pipelineText('kernelNotFound', inputs.kernel) };
      else if (k.truncated) out = { report: undefined, footprints: [], why: pipelineText('launchTruncated') };
      else {
        const done = reportOf(k, lines, source, opts.gpu);
        out = { report: done.report, footprints: k.footprints, ...(done.report ? {} : { why: pipelineText('kernelFailed') }) };
      }
    } catch (e) {
      out = { report: undefined, footprints: [], why: pipelineText('internal', String((e as Error)?.message ?? e)) };
    }
    memo.set(key, out);
    return out;
  };
  try {
    return { pipelines: ir.pipelines!.map((p) => buildPipeline(p, opts.gpu, analyse)), expired };
  } catch (e) {
    if (!(e instanceof LaunchesPending)) throw e;
    const total = new Set(ir.pipelines!.flatMap((p) => p.launches.flatMap((l) => (l.inputs ? [JSON.stringify(l.inputs)] : [])))).size;
    return { done: memo.size, total, expired };
  }
}

/**
 * Counted kernels by IR object and GPU. Frontends hand back the same IR object
 * for an unchanged kernel, so re-analysing after an edit counts only what the
 * edit touched. Reports are shared: callers must not mutate them.
 */
const reports = new WeakMap<KernelIR, Map<GpuSpec, { report?: KernelReport; diagnostics: Diagnostic[] }>>();

/** The kernel's report for `gpu`, counted once per IR object; a kernel an edit only moved (engine/shift.ts) has its report moved the same way. */
function reportOf(k: KernelIR, lines: () => string[], source: string, gpu: GpuSpec): { report?: KernelReport; diagnostics: Diagnostic[] } {
  let per = reports.get(k);
  let done = per?.get(gpu);
  if (!done) {
    const origin = movedFrom(k);
    const before = origin && reports.get(origin.from)?.get(gpu);
    done = (before && shiftLines(before, origin!.edit)) ?? reportKernel(k, () => kernelText(lines, source, k), gpu);
    if (!per) reports.set(k, (per = new Map()));
    per.set(gpu, done);
  }
  return done;
}

function mentions(text: string, name: string): boolean {
  const bare = name.replace(/\(.*$/, '');
  const re = new RegExp(`(^|[^\\w.])${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w])`);
  return re.test(text);
}

function reportKernel(k: KernelIR, text: () => string, gpu: GpuSpec): { report?: KernelReport; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  try {
    // A --set or pragma value applies to every kernel that has the name: list it only where it is used.
    const bindings = { ...k.bindings };
    let body: string | undefined;
    let used: Set<string> | undefined;
    for (const [n, b] of Object.entries(bindings)) {
      if ((b.source !== 'user' && b.source !== 'pragma') || b.detail === '--grid') continue;
      used ??= symbolsOf(k);
      if (used.has(n)) continue;
      body ??= text();
      if (mentions(body, n)) continue;
      delete bindings[n];
    }
    const env = new Map<string, number>();
    for (const [n, b] of Object.entries(bindings)) {
      if (typeof b.value === 'number') env.set(n, b.value);
      else if (typeof b.value === 'boolean') env.set(n, b.value ? 1 : 0);
    }
    const kr = countKernel({ ...k, bindings }, { gpu, env });
    if (k.truncated || k.failed) return { report: kr, diagnostics };
    if (kr.unbound.length > 0) {
      const inLoops = kr.unbound.filter((n) => kr.regions.some((r) => r.kind === 'loop' && r.trips === null && r.tripsFormula.includes(n)));
      for (const n of inLoops) {
        const r = kr.regions.find((x) => x.kind === 'loop' && x.tripsFormula.includes(n))!;
        const dg = say('unboundLoop', r.line, n);
        diagnostics.push({ ...dg, message: `${k.name}: ${dg.message} (\`${r.label}\`)` });
      }
      const rest = kr.unbound.filter((n) => !inLoops.includes(n));
      if (rest.length) {
        const dg = say('unbound', k.line, rest);
        diagnostics.push({ ...dg, message: `${k.name}: ${dg.message}` });
      }
    } else {
      const unknown = (['flops', 'loadBytes', 'storeBytes'] as const).filter((c) => kr.perUnit[c] === null);
      if (unknown.length) {
        const dg = say('overflow', k.line, unknown);
        diagnostics.push({ ...dg, message: `${k.name}: ${dg.message}` });
      }
    }
    return { report: kr, diagnostics };
  } catch (e) {
    diagnostics.push(say('internal', k.line, `counting \`${k.name}\`: ${String((e as Error)?.message ?? e)}`));
    return { diagnostics };
  }
}

function dedupe(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds
    .filter((d) => {
      const k = `${d.line}|${d.severity}|${d.message}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .sort((a, b) => a.line - b.line);
}

export function gpuSummary(gpu: GpuSpec): AnalysisReport['gpu'] {
  return { id: gpu.id, name: gpu.name, memoryBandwidth: gpu.memoryBandwidth, l2Bandwidth: gpu.l2Bandwidth, peaks: gpu.peaks };
}

export function makeReport(gpu: GpuSpec, files: FileReport[]): AnalysisReport {
  return { schemaVersion: 1, gpu: gpuSummary(gpu), files };
}

export type { KernelReport, FileReport, AnalysisReport };
