/**
 * Lines that end a Python statement where Python would end it, but the
 * grammar did not. tree-sitter-python's scanner emits a line end only where
 * its parser can take one, so `y = x * 2.0 +` followed by
 * `tl.store(out, x)` reads as one statement, `y = x * 2.0 + tl.store(…)`,
 * with no syntax error (half-typed code, in the editor: the store's bytes
 * and FLOPs counted into an assignment). Python continues a statement on the
 * next line only inside brackets or after a backslash.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';

/** Statements that hold no block: one logical line each. */
const SIMPLE = new Set([
  'expression_statement',
  'return_statement',
  'assert_statement',
  'delete_statement',
  'raise_statement',
  'global_statement',
  'nonlocal_statement',
]);
/** Statements that hold blocks, searched for the simple statements in them. */
const COMPOUND = new Set(['block', 'if_statement', 'elif_clause', 'else_clause', 'for_statement', 'while_statement', 'with_statement', 'try_statement', 'except_clause', 'finally_clause', 'function_definition', 'decorated_definition', 'match_statement', 'case_clause']);

/**
 * Where a statement of `fn` runs on past a line end Python stops at: the
 * 1-based line and its text. Kept with the function's node (a function an
 * edit left alone is the same node in the next tree: only the edited one is
 * read again), its lines counted from the function's own.
 */
export function unendedLines(fn: Node, line: (n: Node) => number): { line: number; text: string }[] {
  const at = line(fn);
  let kept = unendedKept.get(fn);
  if (!kept) unendedKept.set(fn, (kept = readUnended(fn, line).map((u) => ({ by: u.line - at, text: u.text }))));
  return kept.map((u) => ({ line: at + u.by, text: u.text }));
}

const unendedKept = new WeakMap<Node, { by: number; text: string }[]>();

function readUnended(fn: Node, line: (n: Node) => number): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const todo: Node[] = [fn];
  for (let n = todo.pop(); n; n = todo.pop()) {
    if (SIMPLE.has(n.type)) {
      if (n.endPosition.row === n.startPosition.row) continue;
      const text = n.text;
      const rows = text.split('\n');
      for (const r of unendedRows(text)) out.push({ line: line(n) + r, text: rows[r].trim() });
    } else if (COMPOUND.has(n.type)) {
      for (const c of n.namedChildren) todo.push(c);
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * The rows (0-based, in `text`) whose line end is outside brackets, strings
 * and comments and not after a backslash: where Python ends the statement.
 */
export function unendedRows(text: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let row = 0;
  let last = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      if (depth === 0 && last !== '\\') out.push(row);
      row++;
      last = '';
      continue;
    }
    if (c === '#') {
      const eol = text.indexOf('\n', i);
      if (eol < 0) break;
      i = eol - 1;
      continue;
    }
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const quote = triple ? c.repeat(3) : c;
      let j = i + quote.length;
      let open = false;
      for (; j < text.length; j++) {
        if (text[j] === '\\') {
          if (text[j + 1] === '\n') row++;
          j++;
        } else if (text.startsWith(quote, j)) break;
        else if (text[j] === '\n') {
          // A one-line string left open ends at its line's end (the line end is read as any other).
          if (!triple) {
            open = true;
            break;
          }
          row++;
        }
      }
      i = open ? j - 1 : j + quote.length - 1;
      last = c;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    if (c !== ' ' && c !== '\t' && c !== '\r') last = c;
  }
  return out;
}
