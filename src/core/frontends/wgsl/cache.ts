/**
 * The last good analysis of each entry point, per file. wesl drops a whole
 * function when its braces do not balance (the usual state of a function
 * being typed), so while a file has a syntax error the editor keeps showing
 * that function's last good numbers, marked stale, instead of nothing.
 *
 * An entry holds the kernel of the file's latest analysis as it is (the text
 * it was read from is that version's, alive while it is the document's); it
 * is made a copy with strings of its own (detach.ts) only once it is shown
 * stale, when it may outlive that text. An analysis without a syntax error
 * forgets the kernels it no longer has (renamed, deleted: nothing to show
 * stale), and a stale one is shown only while its function is still in the
 * text.
 */
import type { KernelIR } from '../../ir';
import { assumption, say } from '../../messages';
import { detachStrings } from '../../detach';
import { keepLatest } from '../common';

/** Entries kept across all files (least recently stored are dropped first). */
const MAX_ENTRIES = 256;

interface Entry {
  k: KernelIR;
  /** Its strings are copies of their own (it was shown stale). */
  detached: boolean;
}

const lastGood = new Map<string, Entry>();

/** A function's name where it is defined (`fn name(`; WGSL names are Unicode identifiers). */
const FN_NAME = /\bfn\s+([\p{XID_Start}_]\p{XID_Continue}*)\s*\(/gu;

function key(path: string, name: string): string {
  return `${path}\u0000${name}`;
}

/** Remembers a kernel analysed from source that parsed. */
export function remember(path: string, k: KernelIR): void {
  const id = key(path, k.name);
  const had = lastGood.get(id);
  keepLatest(lastGood, id, had?.k === k ? had : { k, detached: false }, MAX_ENTRIES);
}

/**
 * After an analysis of `path` without a syntax error: its kernels not in
 * `present` are gone, not dropped by the parser (all of them with none
 * present: a document closed, a file the CLI is done with).
 */
export function forgetMissing(path: string, present: ReadonlySet<string> = new Set()): void {
  const prefix = `${path}\u0000`;
  for (const [id, e] of lastGood) if (id.startsWith(prefix) && !present.has(e.k.name)) lastGood.delete(id);
}

/**
 * Cached kernels of `path` that the current (broken) parse no longer has,
 * marked stale: those whose function `source` still has (`fn name(`).
 */
export function staleKernels(path: string, present: Set<string>, source: string): KernelIR[] {
  const prefix = `${path}\u0000`;
  const out: KernelIR[] = [];
  let defined: Set<string> | undefined;
  for (const [id, e] of lastGood) {
    if (!id.startsWith(prefix) || present.has(e.k.name)) continue;
    defined ??= new Set(Array.from(source.matchAll(FN_NAME), (m) => m[1]));
    if (!defined.has(e.k.name)) {
      lastGood.delete(id);
      continue;
    }
    if (!e.detached) {
      // Kept across versions from now on: its strings become copies of their own, not views into that version's text.
      e.k = detachStrings({ ...e.k, bindings: { ...e.k.bindings }, assumptions: [...e.k.assumptions] });
      e.detached = true;
    }
    const k = e.k;
    out.push({
      ...k,
      bindings: { ...k.bindings },
      footprints: [...k.footprints],
      assumptions: [...k.assumptions, assumption('staleResult')],
      diagnostics: [say('stale', k.line, k.name)],
      needed: [...k.needed],
    });
  }
  return out;
}
