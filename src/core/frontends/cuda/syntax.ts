/**
 * Small helpers over the tree-sitter-cuda syntax tree, and the parsing of
 * code snippets that do not come from the file itself (macro bodies, the
 * arguments of a `dim3 grid(…)` that the grammar read as a declarator).
 */
import type { Parser, Tree } from 'web-tree-sitter';
import { syntaxRoot, type SyntaxNode as Node } from '../../syntax-tree';

export type { Node };

/** 1-based line of a node. */
/**
 * Lines of the analysed text as the file's lines: headers of the project read
 * in front of the file (`#include "utils.h"`) are said at their `#include`
 * line, and the file's own rows are shifted back. Set by the frontend for the
 * duration of one analysis.
 */
let rowMap: ((row: number) => number) | undefined;

export function withRowMap<T>(map: ((row: number) => number) | undefined, run: () => T): T {
  const prev = rowMap;
  rowMap = map;
  try {
    return run();
  } finally {
    rowMap = prev;
  }
}

/** 0-based row in the file of a row of the analysed text. */
export function fileRow(row: number): number {
  return rowMap ? rowMap(row) - 1 : row;
}

export function lineOf(n: Node): number {
  return fileRow(n.startPosition.row) + 1;
}

/** Named children without comments. */
export function named(n: Node): Node[] {
  // A type read without recording: the list's read says which are comments (deps: `units:` of a wrapper's list).
  return n.namedChildren.filter((c) => c.rawType() !== 'comment');
}

/** True when an anonymous token such as `__global__` is a direct child of `n`. */
export function hasToken(n: Node, token: string): boolean {
  for (const c of n.children) if (c.type === token) return true;
  return false;
}

/** True when a qualifier (`__shared__`, `const`, `extern`, …) appears among the node's direct children or their qualifiers. */
export function hasQualifier(n: Node, word: string): boolean {
  for (const c of n.children) {
    if (c.type === word) return true;
    if ((c.type === 'type_qualifier' || c.type === 'storage_class_specifier') && c.text === word) return true;
  }
  return false;
}

/** The source text on one line, shortened for hovers and diagnostics. */
export function brief(n: Node, max = 60): string {
  return briefText(n.text, max);
}

export function briefText(text: string, max = 60): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

/** Removes the line continuations of a multi-line `#define`. */
export function joinContinuations(text: string): string {
  return text.split('\\\n').join(' ').split('\\\r\n').join(' ');
}

/**
 * Parses code that is not part of the file (a macro body, a re-read argument
 * list). Keeps the trees alive until `dispose()`: nodes from them are used
 * while the kernel is analysed.
 */
export class Snippets {
  /** Each text is parsed once (a file's scan is reused across analyses: its snippets with it), with its tree. */
  private readonly parsed = new Map<string, { node: Node | null; tree: Tree }>();

  /**
   * `from`: the snippets of the file's previous scan, whose parses this one
   * takes over as it asks for the same texts (the macros an edit elsewhere
   * left alone are not parsed again); what it does not take is freed with it.
   */
  constructor(
    private readonly parser: Parser,
    private from?: Snippets,
  ) {}

  /** Parses `text` as the body of a function and returns its first statement, or null. */
  statement(text: string): Node | null {
    const hit = this.parsed.get(text) ?? this.from?.handOver(text);
    if (hit !== undefined) {
      this.parsed.set(text, hit);
      return hit.node;
    }
    const tree = this.parser.parse(`void __roofline_snippet__() {\n${text}\n;}`);
    if (!tree) return null;
    const fn = syntaxRoot(tree).namedChildren.find((c) => c.type === 'function_definition');
    const body = fn?.childForFieldName('body');
    const first = body ? (named(body)[0] ?? null) : null;
    this.parsed.set(text, { node: first, tree });
    return first;
  }

  /** Gives up the parse of `text` to the scan after this one. */
  private handOver(text: string): { node: Node | null; tree: Tree } | undefined {
    const hit = this.parsed.get(text);
    if (hit) this.parsed.delete(text);
    return hit;
  }

  /** Frees the previous scan's snippets this one did not take over (and stops taking any). */
  releaseEarlier(): void {
    this.from?.dispose();
    this.from = undefined;
  }

  /** Parses `text` as an expression; returns it when the snippet reads as one expression statement. */
  expression(text: string): Node | null {
    const st = this.statement(text);
    if (!st || st.type !== 'expression_statement' || st.hasError) return null;
    return named(st)[0] ?? null;
  }

  dispose(): void {
    this.releaseEarlier();
    for (const { tree } of this.parsed.values()) tree.delete();
    this.parsed.clear();
  }
}
