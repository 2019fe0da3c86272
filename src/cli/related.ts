/**
 * The CLI's side of related files (src/core/related.ts): the project files a
 * kernel file names (`#import config`), read from disk — or, for `diff`, from
 * the revision being analysed — relative to the file that names them, up to
 * maxRelated(language) files of at most MAX_RELATED_BYTES each (CUDA headers past
 * MAX_RELATED: their macros only).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language } from '../core/ir';
import { MAX_RELATED_BYTES, maxRelated, relatedFile, relatedRequests, type RelatedFile, type RelatedRequest } from '../core/related';
import { decode } from './inputs';

/** Reads a file's text, or undefined (missing, a folder, too large, unreadable). */
export function readFromDisk(file: string): string | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_RELATED_BYTES) return undefined;
    return decode(fs.readFileSync(file));
  } catch {
    return undefined;
  }
}

/**
 * The project files read, and what each names, kept for the process (the
 * files of a folder import the same modules and headers): a file is read
 * again when its size or time of change is not the one read. A few hundred
 * at most, the least recently used let go first.
 */
const MAX_KEPT = 512;
const readBefore = new Map<string, { stamp: string; text: string }>();
const namedBefore = new Map<string, { text: string; requests: RelatedRequest[] }>();

function kept<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.delete(key);
  map.set(key, value);
  while (map.size > MAX_KEPT) map.delete(map.keys().next().value as K);
  return value;
}

/** `readFromDisk`, a file not changed since it was read not read again. */
export function readKept(file: string): string | undefined {
  let stamp: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_RELATED_BYTES) return undefined;
    stamp = `${st.size}:${st.mtimeMs}:${st.ino}`;
  } catch {
    return undefined;
  }
  const hit = readBefore.get(file);
  if (hit?.stamp === stamp) return kept(readBefore, file, hit).text;
  const text = readFromDisk(file);
  if (text === undefined) readBefore.delete(file);
  else kept(readBefore, file, { stamp, text });
  return text;
}

/** `relatedRequests` of the file at `p`, scanned again only when its text is not the one scanned before. */
function requestsOf(language: Language, p: string, text: string, names: readonly string[] | undefined): RelatedRequest[] {
  const key = `${language}\u0000${p}\u0000${names?.join(',') ?? '*'}`;
  const hit = namedBefore.get(key);
  if (hit && hit.text === text) return kept(namedBefore, key, hit).requests;
  return kept(namedBefore, key, { text, requests: relatedRequests(language, text, names) }).requests;
}

/**
 * The texts of the related files `source` (at `file`) names, by spec, and of
 * the files they name in turn; undefined when it names none.
 */
export function readRelated(file: string, language: Language | undefined, source: string, read: (file: string) => string | undefined = readKept): Record<string, RelatedFile> | undefined {
  if (!language) return undefined;
  const first = relatedRequests(language, source);
  if (first.length === 0) return undefined;
  const out: Record<string, RelatedFile> = {};
  const read_ = new Set<string>();
  const queue = [{ dir: path.dirname(file), requests: first }];
  const max = maxRelated(language);
  while (queue.length && read_.size < max) {
    const { dir, requests } = queue.shift()!;
    for (const r of requests) {
      if (read_.size >= max) break;
      for (const c of r.candidates) {
        const p = path.normalize(path.join(dir, c));
        if (p === path.normalize(file)) break;
        if (read_.has(p)) break;
        const text = read(p);
        if (text === undefined || text.length > MAX_RELATED_BYTES) continue;
        // The same spec from another folder names another file: keyed apart.
        out[out[r.spec] ? `${r.spec} ${p}` : r.spec] = relatedFile(language, read_.size, p, text);
        read_.add(p);
        queue.push({ dir: path.dirname(p), requests: requestsOf(language, p, text, r.names) });
        break;
      }
    }
  }
  return out;
}
