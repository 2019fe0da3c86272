/**
 * The CLI's side of related files (src/core/related.ts): the project files a
 * kernel file names (`#import config`), read from disk — or, for `diff`, from
 * the revision being analysed — relative to the file that names them, up to
 * MAX_RELATED files of at most MAX_RELATED_BYTES each.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language } from '../core/ir';
import { MAX_RELATED, MAX_RELATED_BYTES, relatedRequests, type RelatedFile } from '../core/related';
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
 * The texts of the related files `source` (at `file`) names, by spec, and of
 * the files they name in turn; undefined when it names none.
 */
export function readRelated(file: string, language: Language | undefined, source: string, read: (file: string) => string | undefined = readFromDisk): Record<string, RelatedFile> | undefined {
  if (!language) return undefined;
  const first = relatedRequests(language, source);
  if (first.length === 0) return undefined;
  const out: Record<string, RelatedFile> = {};
  const read_ = new Set<string>();
  const queue = [{ dir: path.dirname(file), requests: first }];
  while (queue.length && read_.size < MAX_RELATED) {
    const { dir, requests } = queue.shift()!;
    for (const r of requests) {
      if (read_.size >= MAX_RELATED) break;
      for (const c of r.candidates) {
        const p = path.normalize(path.join(dir, c));
        if (p === path.normalize(file)) break;
        if (read_.has(p)) break;
        const text = read(p);
        if (text === undefined || text.length > MAX_RELATED_BYTES) continue;
        read_.add(p);
        // The same spec from another folder names another file: keyed apart.
        out[out[r.spec] ? `${r.spec} ${p}` : r.spec] = { path: p, text };
        queue.push({ dir: path.dirname(p), requests: relatedRequests(language, text, r.names) });
        break;
      }
    }
  }
  return out;
}
