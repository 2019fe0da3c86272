/**
 * Tree-sitter set-up. The core never touches the file system: the host (CLI,
 * extension, web extension, tests) hands in a loader that returns the bytes of
 * each `.wasm` file, read however that host reads files.
 *
 * Grammars load lazily, per language: the runtime first (`initParsers`), then
 * a grammar when a file of its language appears (`loadGrammar`). The
 * frontends are synchronous, so the host awaits the grammar of a file's
 * language before analysing it; a frontend that reaches for a grammar that
 * is not loaded gets an error that says so (an internal diagnostic, never
 * wrong numbers).
 */
import type { RowEdit } from './deps';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { bindModule, bound } from './ts-direct';
import type { Language as SourceLanguage } from './ir';
import { newlines, noteReparse, reusable, treesInUse, type TextSpan } from './syntax-tree';

export type WasmName = 'web-tree-sitter.wasm' | 'tree-sitter-python.wasm' | 'tree-sitter-cuda.wasm';
export type WasmLoader = (name: WasmName) => Promise<Uint8Array>;

/** A tree-sitter grammar: Python (Triton) or CUDA. WGSL is read by wesl, without tree-sitter. */
export type Grammar = 'python' | 'cuda';
export const GRAMMARS: readonly Grammar[] = ['python', 'cuda'];

export interface Parsers {
  /** The Python parser; throws when its grammar is not loaded (see `loadGrammar`). */
  readonly python: Parser;
  /** The CUDA parser; throws when its grammar is not loaded (see `loadGrammar`). */
  readonly cuda: Parser;
}

const GRAMMAR_WASM: Record<Grammar, WasmName> = { python: 'tree-sitter-python.wasm', cuda: 'tree-sitter-cuda.wasm' };
const GRAMMAR_NAME: Record<Grammar, string> = { python: 'Python', cuda: 'CUDA' };

/**
 * A few lines of each language, parsed once when the grammar loads: the first
 * parse of a file then runs on compiled code instead of paying the wasm
 * functions' lazy compilation itself.
 */
const WARM_UP: Record<Grammar, string> = {
  python: [
    'import triton',
    'import triton.language as tl',
    '@triton.jit',
    'def k(x_ptr, n, BLOCK: tl.constexpr = 128):',
    '    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)',
    '    for i in range(0, n, 2):',
    "        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0) * 2.0  # c",
    '    if n > 1 and not x:',
    '        tl.store(x_ptr + offs, x, mask=offs < n)',
    '    return [x, (n, "s")]',
    '',
  ].join('\n'),
  cuda: [
    '#include <cuda_runtime.h>',
    '#define TILE 32',
    'template <int N> __global__ void k(const float* __restrict__ x, float* y, int n) {',
    '  __shared__ float s[TILE][TILE];',
    '  int i = blockIdx.x * blockDim.x + threadIdx.x; // c',
    '  for (int t = 0; t < n; t += TILE) { if (i < n) s[threadIdx.y][threadIdx.x] = x[i] * 2.0f; __syncthreads(); }',
    '  y[i] = static_cast<float>(s[0][0]);',
    '}',
    'void launch(float* x, float* y, int n) { dim3 grid(n / 256); k<4><<<grid, 256>>>(x, y, n); }',
    '',
  ].join('\n'),
};

class LazyParsers implements Parsers {
  private readonly ready = new Map<Grammar, Parser>();
  private readonly loading = new Map<Grammar, Promise<Parser>>();

  constructor(private readonly load: WasmLoader) {}

  get python(): Parser {
    return this.parser('python');
  }

  get cuda(): Parser {
    return this.parser('cuda');
  }

  has(g: Grammar): boolean {
    return this.ready.has(g);
  }

  private parser(g: Grammar): Parser {
    const p = this.ready.get(g);
    if (!p) throw new Error(`the ${GRAMMAR_NAME[g]} grammar is not loaded (the host loads it before analysing a file of its language)`);
    return p;
  }

  /** Loads a grammar once (concurrent callers share the load; a failed load can be retried). */
  grammar(g: Grammar, load: WasmLoader = this.load): Promise<Parser> {
    let p = this.loading.get(g);
    if (!p) {
      p = (async () => {
        const parser = new Parser();
        parser.setLanguage(await Language.load(await load(GRAMMAR_WASM[g])));
        parser.parse(WARM_UP[g])?.delete();
        this.ready.set(g, parser);
        return parser;
      })();
      this.loading.set(g, p);
      p.catch(() => this.loading.delete(g));
    }
    return p;
  }
}

let runtime: Promise<LazyParsers> | undefined;

/**
 * Initialises tree-sitter once per process and loads the given grammars (all
 * of them by default); returns the process's parsers. Hosts that analyse
 * files as they come pass `[]` and call `loadGrammar` per file.
 */
export function initParsers(load: WasmLoader, grammars: readonly Grammar[] = GRAMMARS): Promise<Parsers> {
  if (!runtime) {
    runtime = (async () => {
      const wasm = await load('web-tree-sitter.wasm');
      // locateFile needs no base URL: web-tree-sitter resolves its runtime's name against the
      // bundle's URL even when handed the bytes, and a web extension host has no valid base.
      // Emscripten makes the options object the module: its exports and memory are read directly (ts-direct.ts).
      const module = { wasmBinary: wasm, locateFile: (file: string) => file };
      await Parser.init(module as never);
      if (!bound()) bindModule(module);
      return new LazyParsers(load);
    })();
    runtime.catch(() => {
      runtime = undefined;
    });
  }
  return runtime.then(async (p) => {
    await Promise.all(grammars.map((g) => p.grammar(g, load)));
    return p;
  });
}

/** The tree-sitter grammar a language's frontend parses with (none for WGSL). */
export function grammarOf(language: SourceLanguage): Grammar | undefined {
  return language === 'triton' ? 'python' : language === 'cuda' ? 'cuda' : undefined;
}

/** Is everything the language's frontend parses with loaded? */
export function grammarLoaded(parsers: Parsers, language: SourceLanguage): boolean {
  const g = grammarOf(language);
  return g === undefined || !(parsers instanceof LazyParsers) || parsers.has(g);
}

/** Loads the grammar a file of `language` needs (at most once per process); resolves at once when it is loaded or none is needed. */
export async function loadGrammar(parsers: Parsers, language: SourceLanguage): Promise<void> {
  const g = grammarOf(language);
  if (g === undefined || !(parsers instanceof LazyParsers) || parsers.has(g)) return;
  await parsers.grammar(g);
}

/** Parses with a progress budget, so a pathological file cannot stall the host. */
export function parseWithBudget(parser: Parser, source: string, oldTree: Tree | null, budgetMs: number | undefined): Tree | null {
  const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
  try {
    return parser.parse(source, oldTree, (deadline === Infinity ? {} : { progressCallback: () => Date.now() > deadline }) as never);
  } catch {
    parser.reset();
    return null;
  }
}

interface CachedTree {
  source: string;
  tree: Tree;
  /** This text's version (every new text of a document gets a new one), and the edit from the version before. */
  frame: DocFrame;
}

/**
 * Which text of a document a tree is of: a version number, and the one edit
 * that made it from the previous version (rows of the text before and after),
 * so that what was read of the previous version can be found again where the
 * edit moved it (engine/driver.ts reuses a kernel an Enter above it moved).
 */
export interface DocFrame {
  doc: string;
  version: number;
  /**
   * The version before and the edit, in rows of the text parsed; `lines`: the
   * same edit in the lines reports give, where they differ (a CUDA file read
   * with its headers in front).
   */
  prev?: { version: number; edit: RowEdit; lines?: RowEdit };
}

let versions = 0;

const MAX_CACHED_TREES = 32;
const treeCache = new Map<string, CachedTree>();

/**
 * A parse halted by its time budget that the next call may resume: tree-sitter
 * keeps a halted parse's state in the parser and continues it when parse is
 * called again with the same text and old tree. Any other parse with that
 * parser must reset it first, or it would continue this one on other text.
 */
interface HaltedParse {
  parser: Parser;
  cacheKey: string;
  source: string;
  /** The document's previous tree, as it was. */
  prev: Tree | null;
  /** Where the text changed since `prev`'s (the view's carry-over needs it). */
  span?: TextSpan;
  /** A copy of it edited to this source (the halted parse reuses it). */
  base: Tree | null;
  /** The prefix the text is parsed from (`parseCached`'s `prefix`), and whether the prefix's own parse is what halted. */
  prefix?: string;
  stage?: 'prefix';
}

let halted: HaltedParse | undefined;

/** Forgets a halted parse: its parser starts the next parse from scratch. */
function abandonHalted(): void {
  if (!halted) return;
  halted.parser.reset();
  const { prev, base } = halted;
  halted = undefined;
  base?.delete();
  if (prev) retire(prev);
}

/**
 * Trees the cache let go of that a view may still read from (nodes carried
 * over into the view of a later tree: syntax-tree.ts); each is deleted once
 * no view of a cached tree uses it.
 */
const retired = new Set<Tree>();

/** Trees let go of by the cache and still alive for a view (tests check it stays bounded). */
export function retiredTreeCount(): number {
  return retired.size;
}

function retire(tree: Tree): void {
  retired.add(tree);
  const live: Tree[] = [];
  for (const v of treeCache.values()) live.push(v.tree);
  if (halted?.prev) live.push(halted.prev);
  const inUse = treesInUse(live);
  for (const t of retired) {
    if (inUse.has(t)) continue;
    t.delete();
    retired.delete(t);
  }
}

/** Point (row, column) of a string index. */
function pointAt(source: string, index: number): { row: number; column: number } {
  // An edit asks for the same place twice (its rows, the tree's edit): the last answer is kept.
  if (lastPoint?.source === source && lastPoint.index === index) return lastPoint.point;
  const point = pointAfter(source, 0, { row: 0, column: 0 }, index);
  lastPoint = { source, index, point };
  return point;
}

let lastPoint: { source: string; index: number; point: { row: number; column: number } } | undefined;

/** The row and column of `index`, counted on from `from` (at `at`): only the text between them is read. */
function pointAfter(source: string, from: number, at: { row: number; column: number }, index: number): { row: number; column: number } {
  let row = at.row;
  let last = from - at.column - 1;
  for (let i = source.indexOf('\n', from); i !== -1 && i < index; i = source.indexOf('\n', i + 1)) {
    row++;
    last = i;
  }
  return { row, column: index - last - 1 };
}

function cacheKeyOf(parser: Parser, key: string): string {
  return `${parser.language?.name ?? '?'}:${key}`;
}

function remember(cacheKey: string, source: string, tree: Tree, frame: DocFrame): void {
  treeCache.set(cacheKey, { source, tree, frame });
  while (treeCache.size > MAX_CACHED_TREES) {
    const [k, v] = treeCache.entries().next().value as [string, CachedTree];
    treeCache.delete(k);
    retire(v.tree);
  }
}

/**
 * Parses `source` for the document `key`, reusing the previous tree of that
 * document: the changed span is found by comparing common prefix and suffix,
 * the old tree is edited, and tree-sitter re-parses only what changed. The
 * returned tree belongs to the cache: callers must not delete it.
 *
 * Null when the parse ran out of `budgetMs`. With `resumable` the halted parse
 * is kept and the next call for the same document and text continues it
 * (`parseSlice`); otherwise it is dropped.
 */
export function parseCached(parser: Parser, key: string, source: string, budgetMs: number | undefined, resumable = false, prefix?: string): Tree | null {
  const cacheKey = cacheKeyOf(parser, key);
  if (halted && (halted.parser !== parser || halted.cacheKey !== cacheKey || halted.source !== source || halted.prefix !== prefix)) abandonHalted();
  // The document's previous tree stays as it was (the nodes its view made stay valid: tree-sitter
  // invalidates the nodes of a tree it edits); a copy of it, edited to the new text, is where the
  // parse starts, deleted once the parse is done.
  let prevTree: Tree | null = null;
  let base: Tree | null = null;
  let span: TextSpan | undefined;
  const frame: DocFrame = { doc: cacheKey, version: ++versions };
  // A parse from the prefix halted in a slice: the prefix's own parse goes on (`fromPrefix`).
  let resume: HaltedParse['stage'];
  // This call goes on with a parse halted in an earlier one.
  const continued = halted !== undefined;
  if (halted) {
    prevTree = halted.prev;
    base = halted.base;
    span = halted.span;
    resume = halted.stage;
    halted = undefined;
  } else {
    const prev = treeCache.get(cacheKey);
    if (prev && prev.source === source) {
      treeCache.delete(cacheKey);
      treeCache.set(cacheKey, prev);
      return prev.tree;
    }
    if (prev) {
      treeCache.delete(cacheKey);
      prevTree = prev.tree;
      span = changedSpan(prev.source, source);
      frame.prev = { version: prev.frame.version, edit: rowEdit(prev.source, source, span) };
      // A tree whose view reads from too many earlier trees is not built on: parsed afresh, they can all be let go.
      // Nor one with syntax errors: its next text most likely has them too, and is then parsed from scratch
      // anyway (below); tree-sitter's re-parse of an erroneous tree costs almost half a parse from scratch.
      if (reusable(prev.tree) && !prev.tree.rootNode.hasError) base = editedCopy(prev.tree, prev.source, source, span);
    }
  }
  // A text that starts with a fixed prefix (CUDA: the project headers read in front of a file) is parsed, when
  // not from its previous tree, from the prefix's own tree with the rest inserted after it: the same result for
  // the same text, whatever came before, for the cost of the rest.
  // Resumable (a parse in slices), the prefix's parse may halt (`stage`) and the next call goes on with it; the
  // rest is parsed from the prefix's tree in one run: tree-sitter going on with a halted parse that reuses a tree
  // can halt again and again without getting further where the text has syntax errors (measured: thousands of
  // 1 ms slices for a rest that one run parses in ~10 ms).
  let stage: HaltedParse['stage'];
  const fromPrefix = (budget: number | undefined): Tree | null => {
    const head = prefix ? prefixTree(parser, prefix, budget, resume === 'prefix') : null;
    if (!head && resumable && prefix) {
      stage = 'prefix';
      return null;
    }
    if (!head) return parseWithBudget(parser, source, null, budget);
    parseStats.fromPrefix++;
    const start = head.copy();
    start.edit({ startIndex: prefix!.length, oldEndIndex: prefix!.length, newEndIndex: source.length, startPosition: pointAt(prefix!, prefix!.length), oldEndPosition: pointAt(prefix!, prefix!.length), newEndPosition: pointAt(source, source.length) } as never);
    const tree = parseWithBudget(parser, source, start, resumable ? undefined : budget);
    start.delete();
    return tree;
  };
  const usable = prefix !== undefined && source.startsWith(prefix);
  // A parse from an earlier tree halted in a slice is finished in this one (for the reason above); a parse from
  // scratch, which always gets further, goes on slice by slice.
  let tree = (base || !usable) && resume !== 'prefix' ? parseWithBudget(parser, source, base, continued && base ? undefined : budgetMs) : fromPrefix(budgetMs);
  // The tree is that of a parse halted in an earlier call and gone on with here.
  let resumed = continued && resume !== 'prefix' && tree !== null;
  if (tree && base && tree.rootNode.hasError) {
    // Error recovery after an edit may not match a parse from scratch (tree-sitter does not promise
    // it): a file with syntax errors is parsed from scratch (or from its prefix's tree, as the first
    // parse of that text is), so the analysis of a text never depends on the edits that led to it.
    tree.delete();
    base.delete();
    base = null;
    tree = usable ? fromPrefix(budgetMs) : parseWithBudget(parser, source, null, budgetMs);
    resumed = false;
  }
  if (tree && resumed && tree.rootNode.hasError) {
    // Nor on where a parse in slices halted: a parse halted and gone on with can recover from an error
    // otherwise than one run through (tree-sitter; measured: 5 of 200 halting points in a CUDA file). A text
    // with syntax errors whose parse was halted is parsed again in one run, from scratch or its prefix's tree.
    tree.delete();
    base?.delete();
    base = null;
    tree = usable ? fromPrefix(undefined) : parseWithBudget(parser, source, null, undefined);
  }
  if (!tree) {
    halted = { parser, cacheKey, source, prev: prevTree, base, span, prefix, stage };
    if (!resumable) abandonHalted();
    return null;
  }
  // A new text of a document: re-parsed from its previous tree, or from scratch (a text with syntax errors, a view
  // that reads from too many trees).
  if (prevTree) parseStats[base ? 'incremental' : 'scratch']++;
  base?.delete();
  // The new tree's view takes over the unchanged statements of the previous one (syntax-tree.ts): on a file with
  // syntax errors (parsed from scratch) too, its statements without errors, each where the edit moved it. Not
  // from a view that reads from too many trees (`reusable`): its statements would carry those trees on into the
  // new view, which then read from as many, and every later keystroke was parsed from scratch (edits spread
  // over more than MAX_DONORS statements: the CUDA generated file, in-kernel edits, from the 64th on).
  if (prevTree && reusable(prevTree)) noteReparse(tree, prevTree, span);
  remember(cacheKey, source, tree, frame);
  if (prevTree) retire(prevTree);
  return tree;
}

/** Texts parsed from their prefix's tree; new texts of a document parsed from its previous tree and from scratch (tests). */
export const parseStats = { fromPrefix: 0, incremental: 0, scratch: 0 };

/** Fresh parses of the prefixes texts start with (CUDA's headers), a few per grammar, never edited. */
const prefixTrees = new Map<Parser, Map<string, Tree>>();
const MAX_PREFIX_TREES = 4;

function prefixTree(parser: Parser, prefix: string, budgetMs: number | undefined, resumed = false): Tree | null {
  let per = prefixTrees.get(parser);
  if (!per) prefixTrees.set(parser, (per = new Map()));
  const hit = per.get(prefix);
  if (hit) {
    per.delete(prefix);
    per.set(prefix, hit);
    return hit;
  }
  let tree = parseWithBudget(parser, prefix, null, budgetMs);
  if (!tree) return null;
  // A parse halted and gone on with (in slices) is parsed again in one run where it met syntax errors (`parseCached`).
  if (resumed && tree.rootNode.hasError) {
    tree.delete();
    tree = parseWithBudget(parser, prefix, null, undefined);
    if (!tree) return null;
  }
  per.set(prefix, tree);
  while (per.size > MAX_PREFIX_TREES) {
    const [oldest, t] = per.entries().next().value as [string, Tree];
    per.delete(oldest);
    t.delete();
  }
  return tree;
}

/** The changed span between two texts, by common prefix and suffix: where it starts, and where it ends in each. */
function changedSpan(before: string, after: string): TextSpan {
  const start = commonPrefix(before, after);
  const end = commonSuffix(before, after, Math.min(before.length, after.length) - start);
  return { start, endA: before.length - end, endB: after.length - end };
}

/**
 * How many characters `a` and `b` share at their start: compared a block at
 * a time (growing, then halved around the first difference), character by
 * character only at the end: comparing two slices is one memory comparison
 * in V8, a loop over a long file's characters is not.
 */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let lo = 0;
  let step = 64;
  while (lo + step <= n && a.slice(lo, lo + step) === b.slice(lo, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(n, lo + step);
  while (hi - lo > 32) {
    const mid = (lo + hi) >> 1;
    if (a.slice(lo, mid) === b.slice(lo, mid)) lo = mid;
    else hi = mid;
  }
  while (lo < n && a.charCodeAt(lo) === b.charCodeAt(lo)) lo++;
  return lo;
}

/** How many characters `a` and `b` share at their end, at most `max`. */
function commonSuffix(a: string, b: string, max: number): number {
  const la = a.length;
  const lb = b.length;
  let lo = 0;
  let step = 64;
  while (lo + step <= max && a.slice(la - lo - step, la - lo) === b.slice(lb - lo - step, lb - lo)) {
    lo += step;
    step *= 2;
  }
  let hi = Math.min(max, lo + step);
  while (hi - lo > 32) {
    const mid = (lo + hi) >> 1;
    if (a.slice(la - mid, la - lo) === b.slice(lb - mid, lb - lo)) lo = mid;
    else hi = mid;
  }
  while (lo < max && a.charCodeAt(la - lo - 1) === b.charCodeAt(lb - lo - 1)) lo++;
  return lo;
}

/**
 * The rows an edit spans, before and after it. An edit of whole lines (from
 * the start of a line to the start of a line, as Enter and Backspace at a
 * line's end give) spans only the lines it replaced: the line after it is
 * not touched (`oldEndRow` is then `startRow - 1` for lines only added).
 */
function rowEdit(before: string, after: string, span = changedSpan(before, after)): RowEdit {
  const { start, endA, endB } = span;
  const at = pointAt(before, start);
  const oldRows = newlines(before, start, endA);
  const newRows = newlines(after, start, endB);
  const whole = at.column === 0 && (endA === start || before.charCodeAt(endA - 1) === 10) && (endB === start || after.charCodeAt(endB - 1) === 10);
  return whole
    ? { startRow: at.row, oldEndRow: at.row + oldRows - 1, newEndRow: at.row + newRows - 1 }
    : { startRow: at.row, oldEndRow: at.row + oldRows, newEndRow: at.row + newRows };
}

/** The last text of documents analysed without a tree of this cache (WGSL: `wesl` parses), and its version. */
const textFrames = new Map<string, { source: string; frame: DocFrame }>();

/** The version of `source` as the text of document `key`, with the edit from the document's previous text. */
export function textFrame(key: string, source: string): DocFrame {
  const prev = textFrames.get(key);
  if (prev && prev.source === source) return prev.frame;
  const frame: DocFrame = { doc: key, version: ++versions, ...(prev ? { prev: { version: prev.frame.version, edit: rowEdit(prev.source, source) } } : {}) };
  textFrames.delete(key);
  textFrames.set(key, { source, frame });
  while (textFrames.size > MAX_CACHED_TREES) textFrames.delete(textFrames.keys().next().value as string);
  return frame;
}

/** The version of the text `source` of the document `key` whose tree is cached (undefined: none cached for that text). */
export function documentFrame(parser: Parser, key: string, source: string): DocFrame | undefined {
  const c = treeCache.get(cacheKeyOf(parser, key));
  return c && c.source === source ? c.frame : undefined;
}

/** A copy of `tree` (parsed from `before`) edited to `after` (`span`: where they differ, by common prefix and suffix). */
function editedCopy(tree: Tree, before: string, after: string, span: TextSpan): Tree {
  const { start, endA, endB } = span;
  const base = tree.copy();
  // The texts are the same up to `start`: its place is counted once, the ends from it.
  const at = pointAt(before, start);
  base.edit({
    startIndex: start,
    oldEndIndex: endA,
    newEndIndex: endB,
    startPosition: at,
    oldEndPosition: pointAfter(before, start, at, endA),
    newEndPosition: pointAfter(after, start, at, endB),
  } as never);
  return base;
}

/**
 * One slice of parsing `source` as the document `key` (the key the frontends
 * use: the analysis's `path`): true once its tree is in the cache (the
 * frontend's own parse is then a cache hit), false when the slice ended first
 * (call again with the same text to continue where it stopped). Lets an
 * interactive host split the first parse of a large file, which is one
 * tree-sitter call, into pieces of about `sliceMs`.
 */
export function parseSlice(parser: Parser, key: string, source: string, sliceMs: number, prefix?: string): boolean {
  return parseCached(parser, key, source, Math.max(1, sliceMs), true, prefix) !== null;
}

/** Drops the cached trees of one document (every grammar's): a batch run that will not see it again frees it. */
export function forgetTree(key: string): void {
  if (halted?.cacheKey.endsWith(`:${key}`)) abandonHalted();
  for (const [k, v] of [...treeCache]) {
    if (k.endsWith(`:${key}`) && k.indexOf(':') === k.length - key.length - 1) {
      treeCache.delete(k);
      retire(v.tree);
    }
  }
  textFrames.delete(`wgsl:${key}`);
}

/** Drops every cached tree (benchmarks measure cold analyses with it). */
export function clearTreeCache(): void {
  abandonHalted();
  for (const per of prefixTrees.values()) for (const t of per.values()) t.delete();
  prefixTrees.clear();
  textFrames.clear();
  const trees = [...treeCache.values()].map((v) => v.tree);
  treeCache.clear();
  for (const t of trees) retire(t);
}
