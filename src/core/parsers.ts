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
      await Parser.init({ wasmBinary: runtime } as never);
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
export function parseWithBudget(parser: Parser, source: string, oldTree: Tree | null, budgetMs: number): Tree | null {
  const deadline = Date.now() + budgetMs;
  try {
    return parser.parse(source, oldTree, {
      progressCallback: () => Date.now() > deadline,
    } as never);
  } catch {
    return null;
  }
}
