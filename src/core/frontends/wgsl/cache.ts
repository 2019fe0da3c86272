/**
 * The last good analysis of each entry point, per file. wesl drops a whole
 * function when its braces do not balance (the usual state of a function
 * being typed), so while a file has a syntax error the editor keeps showing
 * that function's last good numbers, marked stale, instead of nothing.
 */
import type { KernelIR } from '../../ir';
import { assumption, say } from '../../messages';
import { detachStrings } from '../../detach';

/** Entries kept across all files (least recently stored are dropped first). */
const MAX_ENTRIES = 256;

const lastGood = new Map<string, KernelIR>();

function key(path: string, name: string): string {
  return `${path}\u0000${name}`;
}

/** Remembers a kernel analysed from source that parsed. */
export function remember(path: string, k: KernelIR): void {
  const id = key(path, k.name);
  lastGood.delete(id);
  // Kept across versions: its strings are copies of their own, not views into this version's text (detach.ts).
  lastGood.set(id, detachStrings({ ...k, bindings: { ...k.bindings }, assumptions: [...k.assumptions] }));
  while (lastGood.size > MAX_ENTRIES) lastGood.delete(lastGood.keys().next().value as string);
}

/** Cached kernels of `path` that the current (broken) parse no longer has, marked stale. */
export function staleKernels(path: string, present: Set<string>): KernelIR[] {
  const prefix = `${path}\u0000`;
  const out: KernelIR[] = [];
  for (const [id, k] of lastGood) {
    if (!id.startsWith(prefix) || present.has(k.name)) continue;
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
