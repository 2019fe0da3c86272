/**
 * The import graph of src/, for the architecture tests: every import of every
 * source file read with TypeScript's parser (not a regular expression), each
 * marked type-only or run-time, and a cycle finder over the graph.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

export interface Import {
  /** As written: `../core/analyze`, `vscode`, `node:fs`. */
  specifier: string;
  /** The file it names (absolute), when the specifier is relative and resolves; else undefined (a package). */
  target?: string;
  /** `import type`, `export type`, `import { type A }` with every name marked, `import('x').T` in a type. */
  typeOnly: boolean;
  line: number;
}

/** Every .ts file below `dir`, sorted. */
export function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? sourceFiles(p) : /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
    })
    .sort();
}

const EXTENSIONS = ['.ts', '.tsx', '.json', '/index.ts'];

/** The file a relative specifier names, as the bundler resolves it. */
export function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  if (/\.(ts|json|cjs|mjs|js)$/.test(base) && fs.existsSync(base)) return base;
  for (const ext of EXTENSIONS) if (fs.existsSync(base + ext)) return base + ext;
  return undefined;
}

/** True when an import clause brings in no value: `import type …`, or only `type`-marked names. */
function clauseIsTypeOnly(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // `import './x'` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const b = clause.namedBindings;
  if (!b) return false;
  if (ts.isNamespaceImport(b)) return false;
  return b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
}

/** The imports of one source text (`file` names it, for resolving relative specifiers). */
export function importsOfSource(file: string, text: string): Import[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const out: Import[] = [];
  const add = (lit: ts.Node, specifier: string, typeOnly: boolean): void => {
    out.push({ specifier, target: resolveSpecifier(file, specifier), typeOnly, line: sf.getLineAndCharacterOfPosition(lit.getStart(sf)).line + 1 });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier, node.moduleSpecifier.text, clauseIsTypeOnly(node.importClause));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const typeOnly = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression, node.moduleReference.expression.text, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal, node.argument.literal.text, true);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteral(node.arguments[0])) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require')) add(node.arguments[0], node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const cache = new Map<string, Import[]>();

/** The imports of a file (read once per test run: the tests do not change the sources). */
export function importsOf(file: string): Import[] {
  let found = cache.get(file);
  if (!found) cache.set(file, (found = importsOfSource(file, fs.readFileSync(file, 'utf8'))));
  return found;
}

/** file → the files it imports (relative imports that resolve), optionally leaving type-only imports out. */
export type Graph = Map<string, Set<string>>;

export function importGraph(files: readonly string[], opts: { typeOnly: boolean }): Graph {
  const g: Graph = new Map();
  for (const f of files) {
    const edges = new Set<string>();
    for (const i of importsOf(f)) if (i.target && (opts.typeOnly || !i.typeOnly)) edges.add(i.target);
    g.set(f, edges);
  }
  return g;
}

/**
 * The strongly connected components of the graph that hold a cycle (two or
 * more files, or one file importing itself), each as its files sorted
 * (Tarjan's algorithm, iterative so a deep graph cannot overflow the stack).
 */
export function cyclicComponents(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  let next = 0;
  const nodes = [...new Set([...g.keys(), ...[...g.values()].flatMap((s) => [...s])])].sort();
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: string; edges: string[]; i: number }[] = [];
    const enter = (n: string): void => {
      index.set(n, next);
      low.set(n, next);
      next++;
      stack.push(n);
      onStack.add(n);
      work.push({ node: n, edges: [...(g.get(n) ?? [])].sort(), i: 0 });
    };
    enter(root);
    while (work.length) {
      const top = work[work.length - 1];
      if (top.i < top.edges.length) {
        const m = top.edges[top.i++];
        if (!index.has(m)) enter(m);
        else if (onStack.has(m)) low.set(top.node, Math.min(low.get(top.node)!, index.get(m)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) === index.get(top.node)) {
        const comp: string[] = [];
        let m: string;
        do {
          m = stack.pop()!;
          onStack.delete(m);
          comp.push(m);
        } while (m !== top.node);
        if (comp.length > 1 || g.get(top.node)?.has(top.node)) out.push(comp.sort());
      }
    }
  }
  return out.sort((a, b) => a[0].localeCompare(b[0]));
}

/** One shortest cycle through `start` inside the graph (breadth-first), e.g. [a, b, c, a]; undefined when there is none. */
export function cycleThrough(g: Graph, start: string): string[] | undefined {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const n = queue.shift()!;
    for (const m of [...(g.get(n) ?? [])].sort()) {
      if (m === start) {
        const pathBack = [n];
        while (pathBack[0] !== start) pathBack.unshift(prev.get(pathBack[0])!);
        return [...pathBack, start];
      }
      if (!prev.has(m)) {
        prev.set(m, n);
        queue.push(m);
      }
    }
  }
  return undefined;
}

/** The graph without some edges (each `[from, to]`). */
export function withoutEdges(g: Graph, edges: readonly (readonly [string, string])[]): Graph {
  const out: Graph = new Map([...g].map(([k, v]) => [k, new Set(v)]));
  for (const [from, to] of edges) out.get(from)?.delete(to);
  return out;
}
