/**
 * Small helpers over tree-sitter-python nodes.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';

/**
 * Trees of other modules of the project read for their helpers (src/core/related.ts),
 * each with the line of the import that brought it: their nodes are said at that line.
 */
export const foreignTrees = new WeakMap<object, number>();

export function line(n: Node): number {
  return foreignTrees.get(n.tree) ?? n.startPosition.row + 1;
}

export function field(n: Node, name: string): Node | null {
  return n.childForFieldName(name);
}

/** A node's named children but comments (the node's own list when it has none: read-only). */
export function named(n: Node): readonly Node[] {
  // A type read without recording: the list's read says which are comments (deps: `units:` of a wrapper's list).
  const all = n.namedChildren;
  for (const c of all) if (c.rawType() === 'comment') return all.filter((x) => x.rawType() !== 'comment');
  return all;
}

/** Dotted name of an identifier / attribute chain (`tl.extra.cuda.libdevice.exp`), else undefined. */
export function dotted(n: Node | null): string | undefined {
  if (!n) return undefined;
  if (n.type === 'identifier') return n.text;
  if (n.type === 'attribute') {
    const o = dotted(field(n, 'object'));
    const a = field(n, 'attribute');
    return o && a ? `${o}.${a.text}` : undefined;
  }
  return undefined;
}

/** The value of a Python string literal node (no escapes processed beyond the obvious). */
export function stringValue(n: Node): string | undefined {
  if (n.type !== 'string') return undefined;
  const parts = n.namedChildren.filter((c) => c?.type === 'string_content');
  return parts.map((p) => p!.text).join('');
}

/** Positional and keyword arguments of a call. */
export function callArgs(call: Node): { pos: Node[]; kw: Map<string, Node> } {
  const args = field(call, 'arguments');
  const pos: Node[] = [];
  const kw = new Map<string, Node>();
  if (!args) return { pos, kw };
  for (const a of named(args)) {
    if (a.type === 'keyword_argument') {
      const k = field(a, 'name');
      const v = field(a, 'value');
      if (k && v) kw.set(k.text, v);
    } else pos.push(a);
  }
  return { pos, kw };
}

export function shorten(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}
