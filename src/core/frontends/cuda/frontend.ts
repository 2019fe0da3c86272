/**
 * The CUDA frontend: tree-sitter-cuda syntax tree → kernel IR, one per
 * `__global__` function. See docs/counting-cuda.md for the rules.
 *
 *   source ──► parse ──► file facts (macros, #if, functions, structs, launches)
 *          ──► per kernel: bindings (user > launch > template > define > launch_bounds)
 *          ──► abstract run of the body for one block ──► KernelIR
 *
 * Never throws on user input: what cannot be read becomes a diagnostic.
 */
import type { Frontend, FrontendContext } from '../../analyze';
import type { Diagnostic, FileIR, KernelIR } from '../../ir';
import { diag, MSG } from '../../messages';
import { FileInfo } from './file';
import { analyzeKernel } from './kernel';
import type { Tree } from 'web-tree-sitter';
import { brief, lineOf, Snippets, type Node } from './syntax';

const MAX_SYNTAX_DIAGNOSTICS = 5;
const MAX_SEARCH_DEPTH = 500;

export const cudaFrontend: Frontend = (ctx) => {
  const diagnostics: Diagnostic[] = [];
  const tree = ctx.parsers.cuda.parse(ctx.source);
  if (!tree) return { language: 'cuda', kernels: [], diagnostics: [diag('parseError', 1, 'error', MSG.parseError('the file could not be parsed'))] };
  const snippets = new Snippets(ctx.parsers.cuda);
  const closed = closeBraces(ctx, tree.rootNode);
  try {
    diagnostics.push(...syntaxErrors(tree.rootNode));
    const file = new FileInfo((closed ?? tree).rootNode, snippets, userValues(ctx));
    diagnostics.push(...file.diagnostics, ...includeNotes(file));
    const kernels = analyzeKernels(ctx, file, diagnostics);
    if (file.kernels.length === 0) diagnostics.push(diag('noKernels', 1, 'info', MSG.noKernels('CUDA (`__global__`)')));
    return { language: 'cuda', kernels, diagnostics } satisfies FileIR;
  } finally {
    snippets.dispose();
    closed?.delete();
    tree.delete();
  }
};

/**
 * Half-typed code often ends inside an unclosed function, which the parser
 * then cannot read as a function at all. The file is re-read with the missing
 * `}` appended (lines are unchanged), so the kernel being typed is analysed
 * up to where the text stops.
 */
function closeBraces(ctx: FrontendContext, root: Node): Tree | null {
  if (!root.hasError) return null;
  const count = (t: string) => root.descendantsOfType(t).filter((n) => !n.isMissing).length;
  const missing = count('{') - count('}');
  if (missing <= 0) return null;
  return ctx.parsers.cuda.parse(`${ctx.source}\n;${'}'.repeat(missing)}\n`);
}

function analyzeKernels(ctx: FrontendContext, file: FileInfo, diagnostics: Diagnostic[]): KernelIR[] {
  const out: KernelIR[] = [];
  for (const def of file.kernels) {
    if (ctx.budget.spent()) break;
    try {
      out.push(analyzeKernel(ctx, file, def));
    } catch (e) {
      diagnostics.push(diag('internal', lineOf(def.node), 'error', MSG.internal(`kernel \`${def.name}\`: ${String((e as Error)?.message ?? e)}`)));
    }
  }
  return out;
}

/** Numeric `--set` values and pragmas, for `#if` / `#ifdef`. */
function userValues(ctx: FrontendContext): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of ctx.pragmas) if (typeof p.value === 'number') out.set(p.name, p.value);
  for (const [n, v] of Object.entries(ctx.user.set)) if (typeof v === 'number') out.set(n, v);
  return out;
}

/** Parse errors: the first few error nodes and missing tokens. */
function syntaxErrors(root: Node): Diagnostic[] {
  if (!root.hasError) return [];
  const out: Diagnostic[] = [];
  for (const e of root.descendantsOfType('ERROR')) {
    if (out.length >= MAX_SYNTAX_DIAGNOSTICS) break;
    out.push(diag('parseError', lineOf(e), 'warning', MSG.parseError(`cannot read \`${brief(e, 40)}\``)));
  }
  const missing: Node[] = [];
  findMissing(root, missing);
  for (const m of missing.slice(0, MAX_SYNTAX_DIAGNOSTICS)) {
    const opener = m.parent ? lineOf(m.parent) : lineOf(m);
    out.push(diag('parseError', opener, 'warning', MSG.parseError(`missing \`${m.type}\` (the construct starting at line ${opener} is not closed)`)));
  }
  return out;
}

function findMissing(n: Node, out: Node[], depth = 0): void {
  if (out.length >= MAX_SYNTAX_DIAGNOSTICS || !n.hasError || depth > MAX_SEARCH_DEPTH) return;
  for (const c of n.children) {
    if (c.isMissing) out.push(c);
    else findMissing(c, out, depth + 1);
  }
}

/** Local headers are not read: say so once per header. */
function includeNotes(file: FileInfo): Diagnostic[] {
  return file.includes
    .filter((i) => !i.system)
    .map((i) => diag('unknownCall', i.line, 'info', `\`#include "${i.path}"\` is not analysed: macros and helpers defined there are unknown here`));
}
