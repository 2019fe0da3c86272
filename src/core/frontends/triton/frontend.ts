/**
 * Triton frontend: Python source → tree-sitter tree → module scan → one
 * interpreted kernel IR per `@triton.jit` kernel, run by the engine's driver
 * (cache, crash isolation, budgets).
 *
 * Bindings, highest first: --set / settings, pragmas, the launch site in the
 * same file (arguments, meta-parameters, grid), the first autotune config,
 * heuristics, parameter defaults, module-level constants. The other autotune
 * configs, launch sites, call sites and benchmark rows are suggested.
 */
import { hash53 } from '../../hash';
import type { Tree } from 'web-tree-sitter';
import { errorLines, syntaxRoot, type SyntaxNode as Node } from '../../syntax-tree';
import { unendedLines } from './continuation';
import { deferPipelines, KernelCache, movable, ReadsMemo, runKernels, type KernelJob } from '../../engine/driver';
import { Notes } from '../../engine/recorder';
import type { Frontend, FrontendContext } from '../../frontend';
import type { BindingSource, Diagnostic, FileIR, HostPipelineFact, KernelIR } from '../../ir';
import { assumption, say, type Assumption } from '../../messages';
import { documentFrame, parseCached } from '../../parsers';
import { evaluate, exprKey, mul, num, sym, type Expr } from '../../sym/expr';
import { BindingSet, SuggestionLog, Suggestions } from '../../bindings';
import { keepLatest, seedBindings } from '../common';
import { bindAutotune, bindDefaults, bindGlobals, bindHeuristics, constGlobals } from './bindings';
import { constGlobalsAnswer, fingerprint } from './deps';
import { captured, lineBefore, noteQuery, recordInto, replay, type Answers, type Deps, type RowEdit } from '../../deps';
import { footprintsOf, interpret, type InterpResult } from './interp';
import { bindLaunch, preHookDescriptors, type LaunchFacts } from './launch';
import type { HostDescriptor, TritonInput } from './state';
import type { Dtype } from '../../gpus/types';
import { fromLite, HostEnv, indexInSlices } from './host';
import { tritonPipelines } from './pipeline';
import { launchesOf, scanModule, scanSize, withForeign, type FnInfo, type Launch, type ModuleInfo, type PendingScan } from './module';
import { foreignTrees, line, shorten } from './syntax';
import { pythonImportLines } from '../../related';

/** Decorators of element functions that a library turns into kernels at run time (FlagGems and the like). */
const ELEMENTWISE_DECORATORS = /(^|\.)(pointwise_dynamic|elementwise|triton_op)$/;

interface Found {
  kernels: FnInfo[];
  skipped: { fn: FnInfo; decorator: string }[];
}

/**
 * Kernels: jit functions that are launched, autotuned, or not called by
 * another jit function — but not combine functions handed to `tl.reduce` /
 * `tl.associative_scan`, and not helpers that return a value (a kernel never
 * does), which another file presumably calls.
 */
function findKernels(m: ModuleInfo): Found {
  const called = new Set<string>();
  for (const n of m.calledNames) called.add(m.fnAliases.get(n) ?? n);
  for (const n of m.combineFns) called.add(m.fnAliases.get(n) ?? n);
  const launched = new Set(m.launches.map((l) => l.kernel));
  const out: Found = { kernels: [], skipped: [] };
  for (const f of m.functions.values()) {
    if (!f.isJit) continue;
    if (launched.has(f.name) || f.autotune || f.heuristics) {
      out.kernels.push(f);
      continue;
    }
    if (called.has(f.name)) continue;
    const gen = f.decorators.find((d) => ELEMENTWISE_DECORATORS.test(d));
    if (gen) {
      out.skipped.push({ fn: f, decorator: gen });
      continue;
    }
    if (f.returnsValue) continue;
    out.kernels.push(f);
  }
  return out;
}

/**
 * One launch of a pipeline: what its site binds (the host code read around it
 * with the values the pipeline gives), kept per launch with its reads. An
 * edit of the kernel's body (typing in it) analyses its launches again; the
 * host code they read is not read again while it answers the same. Like a
 * kernel, it is known by what it reads, not by its place: the launch's line
 * (and the lines its label names) are answered with the reads, so an Enter
 * above it moves it.
 */
interface BoundLaunch {
  facts: Omit<LaunchFacts, 'dtypes' | 'descriptors'> & { dtypes: [string, Dtype][]; descriptors: [string, HostDescriptor][] };
  binds: [string, number | boolean | string, BindingSource, string][];
}
/** A launch site reached from several pipeline call sites is several launches (their lines tell them apart: up to 8 kept). */
const launchBinds = new ReadsMemo<BoundLaunch>(1024, 8);

/** What a site binds, logged on `b`, as plain data (kept with its reads, moved by an Enter). */
function boundLaunch(b: BindingSet, bind: () => LaunchFacts): BoundLaunch {
  const r = b.logged(bind);
  return { facts: { ...r.value, dtypes: [...r.value.dtypes], descriptors: [...r.value.descriptors] }, binds: r.binds };
}

/** A kept `BoundLaunch` taken: its binds asked again of `b`, in order (unless just computed on it), its facts a copy (the kernel's to add to). */
function takeBound(kept: BoundLaunch, b: BindingSet, computed: boolean): LaunchFacts {
  if (!computed) for (const [name, value, source, detail] of kept.binds) b.bind(name, value, source, detail);
  return { ...kept.facts, dtypes: new Map(kept.facts.dtypes), descriptors: new Map(kept.facts.descriptors), hostNotes: [...kept.facts.hostNotes] };
}

/** The module's answers to recorded reads (deps.ts), its constants among them. */
function moduleReads(m: ModuleInfo, source: string): (d: Deps, edit?: RowEdit) => Answers {
  return (d, edit) => fingerprint(m, d, source, () => constGlobalsAnswer(constGlobals(m)), edit);
}

function launchBound(ctx: FrontendContext, m: ModuleInfo, k: FnInfo, chosen: Launch, nth: number, b: BindingSet, host: HostEnv): LaunchFacts {
  const want = ctx.user.launch!;
  const places = [want.line, ...[...(want.label ?? '').matchAll(/\bline (\d+)/g)].map((x) => Number(x[1]))];
  // What it depends on besides its reads: the kernel's parameters, the bindings before it, the launch as given.
  const key = JSON.stringify([k.params.map((p) => p.name), b.toRecord(), want.frame ?? null, (want.label ?? '').replace(/\bline \d+/g, 'line #')]);
  let computed = false;
  const kept = launchBinds.get(
    ctx,
    // One entry per launch site (its place among the kernel's, which an Enter does not change) and launch as given.
    `${ctx.path ?? '<input>'}\u0000${k.name}\u0000${nth}\u0000${ctx.gpu?.id ?? ''}\u0000${key}`,
    key,
    m.root,
    (d: Deps, edit?: RowEdit, lines?: RowEdit) => [...moduleReads(m, ctx.source)(d, edit), places.map((l) => lineBefore(l, lines ?? edit)).join(',')],
    () => {
      computed = true;
      return boundLaunch(b, () => bindLaunch(k, chosen, m, b, ctx.budget, { host, args: want.frame ? fromLite(want.frame) : undefined, label: want.label }));
    },
    () => !ctx.budget.kernelTruncated && !ctx.budget.expired,
    movable(ctx) ? documentFrame(ctx.parsers.python, ctx.path ?? '<input>', ctx.source) : undefined,
    true,
  );
  // Kept: its binds asked again, in order, of a set as it was then (the key says so).
  return takeBound(kept, b, computed);
}

/**
 * A kernel's own analysis (not a pipeline's launch): what its first launch
 * site binds and the values its other sites and the host code suggest, kept
 * per kernel with the reads that made them — typing in the kernel's body
 * does not follow its launches' host code again (the launch sites and the
 * host code they read answer as before). Plain data: moved by an Enter above
 * what it read, as a kernel is.
 */
interface OwnLaunches extends BoundLaunch {
  suggestions: [string, number | boolean | string, BindingSource, string][];
}
const ownLaunchMemo = new ReadsMemo<OwnLaunches>(1024);

function ownLaunches(ctx: FrontendContext, m: ModuleInfo, k: FnInfo, launches: Launch[], b: BindingSet, host: HostEnv, sug: Suggestions | undefined): LaunchFacts {
  // What it depends on besides its reads: the kernel's parameters, the bindings before it (the user's, the pragmas').
  const key = JSON.stringify([k.params.map((p) => p.name), b.toRecord(), !!sug]);
  let computed = false;
  const kept = ownLaunchMemo.get(
    ctx,
    `${ctx.path ?? '<input>'}\u0000${k.name}\u0000${ctx.gpu?.id ?? ''}`,
    key,
    m.root,
    moduleReads(m, ctx.source),
    () => {
      computed = true;
      noteQuery(`kernelLaunches:${k.name}`);
      const own = sug ? new SuggestionLog() : undefined;
      const bound = boundLaunch(b, () => {
        const facts = bindLaunch(k, launches[0], m, b, ctx.budget, { host, suggest: own });
        if (launches.length > 1) facts.gridDetail += ` (first of ${launches.length} launches)`;
        if (own && launches.length > 1) suggestLaunches(k, launches, m, host, ctx, own);
        return facts;
      });
      return { ...bound, suggestions: own?.adds ?? [] };
    },
    () => !ctx.budget.kernelTruncated && !ctx.budget.expired,
    movable(ctx) ? documentFrame(ctx.parsers.python, ctx.path ?? '<input>', ctx.source) : undefined,
    true,
  );
  // Kept: its suggestions added in order; its binds asked again (the key says the set is as it was then).
  if (sug) SuggestionLog.replay(kept.suggestions, sug);
  return takeBound(kept, b, computed);
}

/**
 * The kernel's interpretation, shared by the per-launch analyses of one
 * report's pipelines that give it the same inputs (a launch site reached from
 * several pipelines with sizes the file does not give: the same values each
 * time). Everything `interpret` reads of its input is in the key — the
 * bindings' values and which are module constants, the grid, the element
 * types, the descriptors — and the rest it reads of the file is the same
 * text for all of them (one version); its recorded reads are replayed into
 * each analysis that takes it, and its steps taken from its budget (where
 * they would have cut it, it is interpreted again). Not shared when a budget
 * cut it short.
 */
function sharedInterpretation(ctx: FrontendContext, inp: TritonInput): InterpResult {
  const group = ctx.user.launch ? ctx.launchGroup : undefined;
  if (!group) return interpret(inp);
  let per = interpretations.get(group);
  if (!per) interpretations.set(group, (per = new Map()));
  const bound = Object.entries(inp.bindings.toRecord()).map(([name, x]) => [name, x.value, x.source === 'global']);
  const key = JSON.stringify([
    inp.kernel.name,
    inp.kernel.node.startIndex,
    bound,
    inp.grid?.map(exprKey) ?? null,
    inp.gridRank ?? null,
    inp.userDtypes,
    [...inp.launchDtypes],
    [...inp.descriptors].map(([name, d]) => [name, d.block.map(exprKey), d.detail]),
    [...inp.indexTensors].sort(),
  ]);
  const hit = per.get(key);
  // Taken with the steps it took (interpreted here, it would have been cut: interpreted here).
  if (hit && inp.budget.retake(hit.used, hit.peak)) {
    replay(hit.deps);
    interpretationStats.shared++;
    return hit.r;
  }
  const { value: { value, deps }, used, peak, fits } = inp.budget.measured(() => captured(() => interpret(inp)));
  if (fits && !inp.budget.kernelTruncated && !inp.budget.expired) per.set(key, { r: value, deps, used, peak });
  return value;
}

/** Per group of per-launch analyses (`FrontendContext.launchGroup`), the interpretations made, by their inputs. */
const interpretations = new WeakMap<object, Map<string, { r: InterpResult; deps: Deps | undefined; used: number; peak: number }>>();

/** Interpretations a per-launch analysis took from another launch of the same pipelines (tests). */
export const interpretationStats = { shared: 0 };

/** Further launch sites of a kernel whose values are suggested. */
const MAX_OTHER_LAUNCHES = 8;
/** Steps the other launch sites' suggestions may take (not taken from the kernel's budget). */
const OTHER_LAUNCH_STEPS = 50_000;

function kernelIR(ctx: FrontendContext, m: ModuleInfo, k: FnInfo): KernelIR {
  const b = seedBindings(ctx);
  const notes = new Notes();
  const launches = launchesOf(m, k.name);
  let facts: LaunchFacts = { grid: null, gridDetail: '', dtypes: new Map(), descriptors: new Map(), hostNotes: [] };
  const host = hostEnvOf(m, ctx);
  // Values the file suggests besides the ones bound (a per-launch analysis of a pipeline needs none).
  const sug = ctx.user.launch ? undefined : new Suggestions();
  const chosen = ctx.user.launch?.kernel === k.name ? launches.find((l) => l.line === ctx.user.launch!.line) : undefined;
  if (chosen) facts = launchBound(ctx, m, k, chosen, launches.indexOf(chosen), b, host);
  else if (launches.length) facts = ownLaunches(ctx, m, k, launches, b, host, sug);
  const firstConfig = bindAutotune(k, m, b, notes, sug);
  bindGlobals(m, b);
  bindDefaults(k, m, b);
  bindHeuristics(k, m, b);
  // Heuristics can depend on defaults and vice versa: one more pass settles simple chains.
  bindHeuristics(k, m, b);
  for (const [name, d] of preHookDescriptors(firstConfig, m)) facts.descriptors.set(name, d);

  // The grid: --grid beats the launch site.
  let grid: Expr[] | null = facts.grid;
  if (ctx.user.grid && ctx.user.grid.length) {
    grid = ctx.user.grid.map((g) => num(g));
    facts.gridDetail = '--grid';
  }
  const env = b.env();
  if (grid) {
    grid.forEach((g, i) => {
      const v = evaluate(g, env);
      if (v !== undefined) b.bind(`tl.num_programs(${i})`, v, ctx.user.grid ? 'user' : 'launch', facts.gridDetail);
    });
  }
  // A user binding of tl.num_programs(i) wins over the grid's expression.
  if (grid) grid = grid.map((g, i) => (ctx.user.set[`tl.num_programs(${i})`] !== undefined ? sym(`tl.num_programs(${i})`) : g));
  const run = (indexTensors: ReadonlySet<string>) =>
    sharedInterpretation(ctx, {
      mod: m,
      kernel: k,
      bindings: b,
      env: b.env(),
      grid,
      ...(facts.gridRank !== undefined ? { gridRank: facts.gridRank } : {}),
      userDtypes: ctx.user.dtypes,
      launchDtypes: facts.dtypes,
      descriptors: facts.descriptors,
      indexTensors,
      budget: ctx.budget,
    });
  let r = run(new Set());
  // Loaded values of an assumed type that were used as offsets are indices: read again with those tensors as integers.
  if (r.indexUses.size) r = run(r.indexUses);
  const units = grid ? mul(...grid) : null;
  const { footprints, missing } = footprintsOf(r.accesses, units);
  const assumptions: Assumption[] = [...notes.assumptions, ...r.assumptions];
  const hostBound = Object.values(b.toRecord()).filter((x) => x.source === 'host');
  if (hostBound.length || facts.hostNotes.length) {
    const what = [...new Set(hostBound.map((x) => x.detail.replace(/^host: /, '')))].slice(0, 3);
    assumptions.push(assumption('hostSizes', [...what, ...facts.hostNotes].join('; ')));
  }
  if (k.autotune && Object.values(b.toRecord()).some((x) => x.source === 'autotune')) assumptions.unshift({ id: 'autotuneFirst', text: 'tile sizes from the first autotune config (autotuning may pick another)' });
  let compulsoryNote: string | undefined;
  if (missing.length) compulsoryNote = `compulsory traffic unknown: the footprint of ${missing.map((x) => '`' + x + '`').join(', ')} cannot be derived (no launch grid or bounds)`;
  else if (!units) compulsoryNote = 'number of programs unknown: give the grid with --grid or a launch in the same file';
  return {
    name: k.name,
    line: k.line,
    range: { startLine: k.node.startPosition.row, endLine: k.node.endPosition.row },
    language: 'triton',
    unit: 'program',
    body: r.body,
    units,
    bindings: b.toRecord(),
    ...(sug?.size ? { suggestions: sug.toRecord() } : {}),
    footprints: missing.length ? [] : footprints,
    compulsoryNote,
    assumptions,
    diagnostics: [...notes.diagnostics, ...r.diagnostics],
    needed: r.needed,
  };
}

/** The values the other launch sites of a kernel give (the first one binds). */
function suggestLaunches(k: FnInfo, launches: Launch[], m: ModuleInfo, host: HostEnv, ctx: FrontendContext, sug: Suggestions): void {
  ctx.budget.optional(OTHER_LAUNCH_STEPS, () => {
    for (const [i, l] of launches.slice(1, 1 + MAX_OTHER_LAUNCHES).entries()) {
      const other = new BindingSet();
      bindLaunch(k, l, m, other, ctx.budget, { host });
      for (const [name, x] of Object.entries(other.toRecord())) {
        sug.add(name, x.value, x.source, x.source === 'launch' ? `launch at line ${l.line} (${i + 2} of ${launches.length})` : x.detail);
      }
    }
  });
}

function syntaxErrors(tree: Tree): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (n: Node, depth: number): void => {
    if (out.length >= 5 || depth > 200) return;
    if (n.type === 'ERROR' || n.isMissing) {
      out.push(say('parseError', line(n), n.isMissing ? `missing \`${n.type}\`` : `unexpected \`${shorten(n.text, 30)}\``));
      return;
    }
    if (!n.hasError) return;
    for (const c of n.children) if (c) visit(c, depth + 1);
  };
  visit(syntaxRoot(tree), 0);
  return out;
}

const cache = new KernelCache();

/**
 * One host reader per module scan and analysis (its memo follows call sites once per file), or per group of the
 * per-launch analyses of a report's pipelines (run one after another, each on its own budget).
 */
const hostEnvs = new WeakMap<ModuleInfo, WeakMap<object, HostEnv>>();
function hostEnvOf(m: ModuleInfo, ctx: FrontendContext): HostEnv {
  let per = hostEnvs.get(m);
  if (!per) hostEnvs.set(m, (per = new WeakMap()));
  const owner = (ctx.user.launch && ctx.launchGroup) || ctx.budget;
  let h = per.get(owner);
  if (!h) per.set(owner, (h = new HostEnv(m, m.root, ctx.budget)));
  h.budget = ctx.budget;
  return h;
}

export function clearTritonCache(): void {
  cache.clear();
  scans.clear();
  foreignScans.clear();
  pipelineMemo.clear();
  launchBinds.clear();
  ownLaunchMemo.clear();
}

/** Forgets a document's launch pipelines (a batch run, after each file). */
export function forgetTritonFile(path: string): void {
  pipelineMemo.forget(path);
  scans.delete(path);
}

/** The launch pipelines of each file, reused while what they read answers the same. */
const pipelineMemo = new ReadsMemo<HostPipelineFact[]>();

/** How often a pipeline launch's bindings were taken as kept and read again (tests). */
export function tritonLaunchBindStats(): { reused: number; moved: number; computed: number } {
  return { ...launchBinds.stats };
}

/** How often a kernel's own launch facts and suggestions were taken as kept and read again (tests). */
export function tritonOwnLaunchStats(): { reused: number; moved: number; computed: number } {
  return { ...ownLaunchMemo.stats };
}

/** How often the launch pipelines were reused and rebuilt (tests). */
export function tritonPipelineStats(): { reused: number; moved: number; computed: number } {
  return { ...pipelineMemo.stats };
}

interface Scan {
  m: ModuleInfo;
  found: Found;
  errors: Diagnostic[];
  /** The lines of every syntax error (`errorLines`). */
  errorLines: number[];
}

/**
 * The module scan of each document's latest tree (a re-analysis of unchanged
 * text, a pipeline's launches, reuse it), with the steps it took: taken
 * again with it (`Budget.retake`), so a kept scan leaves the file's budget
 * where scanning would. One per document, not one per tree: an earlier
 * tree stays alive while statements carried from it are read, and its scan
 * held the nodes of the trees before it, every version back.
 */
const scans = new Map<string, { tree: Tree; scan: Scan; used: number; peak: number }>();
/** Documents whose scans are kept at most (the least recently analysed are dropped). */
const MAX_SCANS = 64;


function scanned(tree: Tree, ctx: FrontendContext): Scan | PendingScan {
  const scan = scannedNow(tree, ctx);
  if ('pending' in scan || !ctx.budget.sliced) return scan;
  // In time slices the module's assignment index is built ahead, in slices too: its first use, inside the
  // first kernel that reads a module-level name, would otherwise index a large file in one block.
  const indexed = indexInSlices(scan.m.root, ctx.budget);
  if (indexed === true) return scan;
  const base = scanSize(scan.m.root);
  return { pending: base + indexed.done, of: base + indexed.of };
}

function scannedNow(tree: Tree, ctx: FrontendContext): Scan | PendingScan {
  const key = ctx.path ?? '<input>';
  const kept = scans.get(key);
  const hit = kept?.tree === tree ? kept : undefined;
  if (hit && ctx.budget.retake(hit.used, hit.peak)) return hit.scan;
  const root = syntaxRoot(tree, ctx.source);
  // In time slices the scan of a large file may take several calls (each reads on from where the last stopped).
  const { value: m, used, peak, fits } = ctx.budget.measured(() => scanModule(root, ctx.budget, true));
  if ('pending' in m) return m;
  const errors = root.hasError ? syntaxErrors(tree) : [];
  const found = findKernels(m);
  // Statements the grammar ran on past a line end (half-typed code): syntax errors the tree does not have.
  const unended = [...m.functions.values()].filter((f) => f.isJit).flatMap((f) => unendedLines(f.node, line));
  for (const u of unended.slice(0, 5)) errors.push(say('parseError', u.line, `\`${shorten(u.text, 40)}\` ends its line but not its statement (Python goes on to the next line only inside brackets or after \\)`));
  const lines = [...new Set([...errorLines(root, line), ...unended.map((u) => u.line)])].sort((a, b) => a - b);
  const scan = { m, found, errors, errorLines: lines };
  if (fits && !ctx.budget.fileTruncated && !ctx.budget.expired) keepLatest(scans, key, { tree, scan, used, peak }, MAX_SCANS);
  return scan;
}

/** This module with the others' helpers, kept per scan while the others are unchanged (its host reader's memo survives edits elsewhere). */
const mergedScans = new WeakMap<ModuleInfo, { key: string; m: ModuleInfo }>();
function merged(own: ModuleInfo, foreign: { modules: ModuleInfo[]; key: string }): ModuleInfo {
  if (foreign.modules.length === 0) return own;
  const hit = mergedScans.get(own);
  if (hit && hit.key === foreign.key) return hit.m;
  const m = withForeign(own, foreign.modules);
  mergedScans.set(own, { key: foreign.key, m });
  return m;
}

/** Module scans of other modules' latest trees, with their text's hash and the steps they took (one per module, as `scans`). */
const foreignScans = new Map<string, { tree: Tree; m: ModuleInfo; hash: string; used: number; peak: number }>();

/**
 * The project modules the host read for this file (`from .utils import f`),
 * scanned; each tree's nodes are said at the line of the import that brought
 * it (the first project import when it came through another module).
 */
function foreignModules(ctx: FrontendContext): { modules: ModuleInfo[]; key: string } {
  const related = ctx.related ? Object.entries(ctx.related) : [];
  if (related.length === 0) return { modules: [], key: '' };
  const lines = pythonImportLines(ctx.source);
  const first = Math.min(...lines.values());
  const modules: ModuleInfo[] = [];
  const keys: string[] = [];
  for (const [spec, f] of related) {
    const tree = parseCached(ctx.parsers.python, `related:${f.path}`, f.text, ctx.budget.parseMs);
    if (!tree) continue;
    foreignTrees.set(tree, lines.get(spec) ?? (Number.isFinite(first) ? first : 1));
    const doc = `related:${f.path}`;
    const kept = foreignScans.get(doc);
    let scan = kept?.tree === tree ? kept : undefined;
    if (!scan || !ctx.budget.retake(scan.used, scan.peak)) {
      const { value, used, peak, fits } = ctx.budget.measured(() => scanModule(syntaxRoot(tree, f.text), ctx.budget));
      scan = { tree, m: value, hash: String(hash53(f.text)), used, peak };
      if (fits && !ctx.budget.fileTruncated && !ctx.budget.expired) keepLatest(foreignScans, doc, scan, MAX_SCANS);
    }
    modules.push(scan.m);
    keys.push(`${spec}@${foreignTrees.get(tree)}:${scan.hash}`);
  }
  return { modules, key: keys.join('\n') };
}

/** `@triton.jit` written in the text: what a reader would call kernels (for "found" counts). */
function jitDecorators(source: string): number {
  return (source.match(/@\s*(triton\.)?jit\b/g) ?? []).length;
}

export const tritonFrontend: Frontend = (ctx) => {
  const file: FileIR = { language: 'triton', kernels: [], diagnostics: [] };
  const tree = parseCached(ctx.parsers.python, ctx.path ?? '<input>', ctx.source, ctx.budget.parseMs);
  if (!tree) {
    file.diagnostics.push(say('parserGaveUp', 1, 'Python'));
    return file;
  }
  const scan = scanned(tree, ctx);
  if ('pending' in scan) {
    file.incomplete = { analysed: 0, total: 0, scanned: scan.pending, statements: scan.of };
    return file;
  }
  const { m: own, found, errors } = scan;
  if (scan.errorLines.length) file.syntaxErrors = scan.errorLines;
  // Helpers and values of the project modules this one imports from, when the host read them.
  const foreign = found.kernels.length ? foreignModules(ctx) : { modules: [], key: '' };
  const m = merged(own, foreign);
  file.diagnostics.push(...errors);
  for (const s of found.skipped) file.diagnostics.push(say('skippedElementwise', s.fn.line, s.fn.name, s.decorator));
  if (found.kernels.length === 0 && found.skipped.length === 0 && jitDecorators(ctx.source) > 0 && errors.length > 0)
    file.diagnostics.push(say('kernelsNotFound', 1, 'Triton', `${jitDecorators(ctx.source)} \`@triton.jit\` function(s)`));
  // What a kernel reads of the rest of the file is recorded while it runs and answered again at the next
  // analysis (src/core/deps.ts, ./deps.ts): an edit elsewhere re-analyses only the kernels that read it.
  const reads = { root: m.root, fingerprint: moduleReads(m, ctx.source) };
  const imports = JSON.stringify([...recordInto(undefined, () => [...m.imports])]);
  // One launch of a pipeline: only its kernel's job (the driver would take only it anyway).
  const wanted = ctx.user.launch ? found.kernels.filter((k) => k.name === ctx.user.launch!.kernel) : found.kernels;
  // A kernel's key is its text, not its place: where it and its launches are is among its recorded reads
  // (its own statement's row, `kernelLaunches:K`), so an Enter above it moves it (engine/shift.ts).
  const jobs: KernelJob[] = wanted.map((k) => {
    const own = k.node.parent?.type === 'decorated_definition' ? k.node.parent.text : k.node.text;
    return {
      key: [own, imports, foreign.key].join('\u0000'),
      deps: reads,
      name: k.name,
      line: k.line,
      range: { startLine: k.node.startPosition.row, endLine: k.node.endPosition.row },
      run: () => {
        noteQuery(`kernelLaunches:${k.name}`);
        return kernelIR(ctx, m, k);
      },
    };
  });
  const frame = movable(ctx) ? documentFrame(ctx.parsers.python, ctx.path ?? '<input>', ctx.source) : undefined;
  const r = runKernels(ctx, cache, 'triton', 'program', jobs, frame);
  file.kernels = r.kernels;
  // Launch sequences once every kernel is in (a partial report shows none: analyze.ts), as CUDA does;
  // past the time slice, in the next call.
  const defer = !r.incomplete && deferPipelines(ctx, r);
  if (!ctx.user.launch && !r.incomplete && !defer) {
    // An Enter above the launches moves the pipelines with their lines, as it moves the kernels.
    const pipelines = pipelineMemo.get(ctx, ctx.path ?? '<input>', '', own.root, moduleReads(own, ctx.source), () => tritonPipelines(own, hostEnvOf(own, ctx), ctx.budget), () => !ctx.budget.fileTruncated && !ctx.budget.expired, frame);
    if (pipelines.length) file.pipelines = pipelines;
  }
  file.diagnostics.push(...r.diagnostics);
  if (r.incomplete) file.incomplete = r.incomplete;
  else if (defer && !ctx.user.launch) {
    file.incomplete = { analysed: r.kernels.length, total: r.kernels.length };
    file.pipelinesPending = true;
  }
  return file;
};
