/**
 * Tree-sitter set-up. The core never touches the file system: the host (CLI,
 * extension, web extension, tests) hands in a loader that returns the bytes of
 * each `.wasm` file, read however that host reads files.
 */
import { Language, Parser, type Tree } from 'web-tree-sitter';

export type WasmName = 'web-tree-sitter.wasm' | 'tree-sitter-python.wasm' | 'tree-sitter-cuda.wasm';
export type WasmLoader = (name: WasmName) => Promise<Uint8Array>;

export interface Parsers {
  python: Parser;
  cuda: Parser;
}

let initPromise: Promise<Parsers> | undefined;

/** Initialises tree-sitter once per process and returns parsers for Python and CUDA. */
export function initParsers(load: WasmLoader): Promise<Parsers> {
  if (!initPromise) {
    initPromise = (async () => {
      const runtime = await load('web-tree-sitter.wasm');
      // locateFile needs no base URL: web-tree-sitter resolves its runtime's name against the
      // bundle's URL even when handed the bytes, and a web extension host has no valid base.
      await Parser.init({ wasmBinary: runtime, locateFile: (file: string) => file } as never);
      const [py, cu] = await Promise.all([load('tree-sitter-python.wasm'), load('tree-sitter-cuda.wasm')]);
      const python = new Parser();
      python.setLanguage(await Language.load(py));
      const cuda = new Parser();
      cuda.setLanguage(await Language.load(cu));
      return { python, cuda };
    })();
    initPromise.catch(() => {
      initPromise = undefined;
    });
  }
  return initPromise;
}

/** Parses with a progress budget, so a pathological file cannot stall the host. */
export function parseWithBudget(parser: Parser, source: string, oldTree: Tree | null, budgetMs: number | undefined): Tree | null {
  const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
  try {
    return parser.parse(source, oldTree, (deadline === Infinity ? {} : { progressCallback: () => Date.now() > deadline }) as never);
  } catch {
    return null;
  }
}

interface CachedTree {
  source: string;
  tree: Tree;
}

const MAX_CACHED_TREES = 32;
const treeCache = new Map<string, CachedTree>();

/** Point (row, column) of a string index. */
function pointAt(source: string, index: number): { row: number; column: number } {
  let row = 0;
  let last = -1;
  for (let i = source.indexOf('\n'); i !== -1 && i < index; i = source.indexOf('\n', i + 1)) {
    row++;
    last = i;
  }
  return { row, column: index - last - 1 };
}

/**
 * Parses `source` for the document `key`, reusing the previous tree of that
 * document: the changed span is found by comparing common prefix and suffix,
 * the old tree is edited, and tree-sitter re-parses only what changed. The
 * returned tree belongs to the cache: callers must not delete it.
 */
export function parseCached(parser: Parser, key: string, source: string, budgetMs: number | undefined): Tree | null {
  const cacheKey = `${parser.language?.name ?? '?'}:${key}`;
  const prev = treeCache.get(cacheKey);
  if (prev && prev.source === source) {
    treeCache.delete(cacheKey);
    treeCache.set(cacheKey, prev);
    return prev.tree;
  }
  let old: Tree | null = null;
  if (prev) {
    const a = prev.source;
    let start = 0;
    const maxStart = Math.min(a.length, source.length);
    while (start < maxStart && a.charCodeAt(start) === source.charCodeAt(start)) start++;
    let endA = a.length;
    let endB = source.length;
    while (endA > start && endB > start && a.charCodeAt(endA - 1) === source.charCodeAt(endB - 1)) {
      endA--;
      endB--;
    }
    old = prev.tree;
    old.edit({
      startIndex: start,
      oldEndIndex: endA,
      newEndIndex: endB,
      startPosition: pointAt(a, start),
      oldEndPosition: pointAt(a, endA),
      newEndPosition: pointAt(source, endB),
    } as never);
  }
  const tree = parseWithBudget(parser, source, old, budgetMs);
  if (prev) {
    prev.tree.delete();
    treeCache.delete(cacheKey);
  }
  if (!tree) return null;
  treeCache.set(cacheKey, { source, tree });
  while (treeCache.size > MAX_CACHED_TREES) {
    const [k, v] = treeCache.entries().next().value as [string, CachedTree];
    v.tree.delete();
    treeCache.delete(k);
  }
  return tree;
}

/** Drops every cached tree (benchmarks measure cold analyses with it). */
export function clearTreeCache(): void {
  for (const v of treeCache.values()) v.tree.delete();
  treeCache.clear();
}
