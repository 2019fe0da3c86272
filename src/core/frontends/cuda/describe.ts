/**
 * A CUDA scan entry as the text a kernel's recorded read is answered with
 * (./deps.ts), and the nodes such an answer covers (syntax-tree.ts `cover`).
 */
import { answerRow, recording, statementHash } from '../../deps';
import { cover, SyntaxNode } from '../../syntax-tree';

export const NONE = '\u2205';

/** A scan entry as text: nodes by row and text, arrays, maps and objects by their fields (a few levels deep). */
export function describe(x: unknown, depth = 0): string {
  if (x === null || x === undefined) return NONE;
  // A node's text by its hash, kept with the node (an edit elsewhere does not hash it again).
  if (x instanceof SyntaxNode) return `${answerRow(x.startPosition.row)}:${statementHash(x)}`;
  if (typeof x !== 'object') return typeof x === 'function' ? '' : String(x);
  if (depth > 3) return '…';
  if (Array.isArray(x)) return `[${x.map((v) => describe(v, depth + 1)).join(',')}]`;
  if (x instanceof Map) return `{${[...Map.prototype.entries.call(x)].map(([k, v]) => `${String(k)}=${describe(v, depth + 1)}`).join(',')}}`;
  return `{${Object.keys(x)
    .sort()
    .filter((k) => k !== 'pos')
    .map((k) => `${k}=${describe((x as Record<string, unknown>)[k], depth + 1)}`)
    .join(',')}}`;
}

/**
 * The nodes `describe(x)` answers with (by row and text hash), marked as
 * covered by that answer (syntax-tree.ts `cover`): what `describe` hashes,
 * nothing deeper.
 */
export function coverDescribed(x: unknown, depth = 0): void {
  // Nothing records (the scan, an answer): nothing to mark, no walk.
  if (x === null || x === undefined || (depth === 0 && !recording())) return;
  if (x instanceof SyntaxNode) return cover(x);
  if (typeof x !== 'object' || depth > 3) return;
  if (Array.isArray(x)) for (const v of x) coverDescribed(v, depth + 1);
  else if (x instanceof Map) for (const v of Map.prototype.values.call(x)) coverDescribed(v, depth + 1);
  else for (const k of Object.keys(x)) if (k !== 'pos') coverDescribed((x as Record<string, unknown>)[k], depth + 1);
}

