/**
 * Line-level helpers the mutators share: where statements are, how deep a
 * line is indented or nested in braces. Rough by design: they only choose
 * where to cut and insert, they never decide what the code means.
 */

export function indentOf(line: string): number {
  let n = 0;
  while (n < line.length && (line[n] === ' ' || line[n] === '\t')) n++;
  return n;
}

/** Lines of a Python file inside a function body: indented, not blank, not a comment or decorator. */
export function pythonBodyLines(lines: string[]): number[] {
  const out: number[] = [];
  lines.forEach((l, i) => {
    const t = l.trim();
    if (indentOf(l) >= 4 && t !== '' && !t.startsWith('#') && !t.startsWith('@')) out.push(i);
  });
  return out;
}

/** The last line of the block a Python line opens (the following lines indented deeper). */
export function pythonBlockEnd(lines: string[], start: number): number {
  const base = indentOf(lines[start]);
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    if (indentOf(lines[i]) <= base) break;
    end = i;
  }
  return end;
}

/** Statement lines of a C-like file inside braces (brace depth ≥ 1, ending with `;`). */
export function braceStatementLines(lines: string[]): number[] {
  const out: number[] = [];
  let depth = 0;
  lines.forEach((l, i) => {
    if (depth >= 1 && l.trimEnd().endsWith(';')) out.push(i);
    for (const c of l) {
      if (c === '{') depth++;
      else if (c === '}') depth = Math.max(0, depth - 1);
    }
  });
  return out;
}

/** Replaces lines [from, to] with `replacement`. */
export function spliceLines(lines: string[], from: number, to: number, replacement: string[]): string[] {
  return [...lines.slice(0, from), ...replacement, ...lines.slice(to + 1)];
}
