/**
 * Related files: the other files of a project a kernel file names, whose text
 * the analysis reads when its host can supply it (docs/related.md).
 *
 *   source ──► relatedRequests(language, source): each `#import name` (WGSL:
 *              vello / naga_oil style) with the paths it may live at, relative
 *              to the file's folder
 *   host (CLI: the file system; extension: the workspace) reads the first
 *   candidate that exists ──► AnalyzeOptions.related (spec → path + text)
 *   ──► the frontend reads them as part of the file; what is not supplied is
 *       said (`importNotRead`)
 *
 * Pure: no file access here. The core never guesses a text it was not given.
 */
import type { Language } from './ir';

export interface RelatedRequest {
  /** As written (`config`, `bevy_pbr::mesh_functions`). */
  spec: string;
  /** 1-based line of the directive. */
  line: number;
  /** Paths to try, in order, relative to the file's folder ('/'-separated). */
  candidates: string[];
}

export interface RelatedFile {
  /** The path it was read from, as the host shows it. */
  path: string;
  text: string;
}

/** Related files read per file at most, and their size (a host stops there). */
export const MAX_RELATED = 16;
export const MAX_RELATED_BYTES = 512 * 1024;

/** `#import name` / `#import a::b` at the start of a line (WGSL preprocessors: vello, naga_oil). */
export const WGSL_IMPORT = /^[ \t]*#import[ \t]+([A-Za-z_][\w]*(?:::[A-Za-z_][\w]*)*)[ \t]*(?:\/\/.*)?$/;

/** The related files a source names, with where each may be. */
export function relatedRequests(language: Language, source: string): RelatedRequest[] {
  if (language !== 'wgsl') return [];
  const out: RelatedRequest[] = [];
  const seen = new Set<string>();
  const lines = source.split('\n');
  for (let i = 0; i < lines.length && out.length < MAX_RELATED; i++) {
    if (!lines[i].includes('#import')) continue;
    const m = WGSL_IMPORT.exec(lines[i].replace(/\r$/, ''));
    if (!m || seen.has(m[1])) continue;
    seen.add(m[1]);
    out.push({ spec: m[1], line: i + 1, candidates: wgslCandidates(m[1]) });
  }
  return out;
}

/** Where `#import name` may live: beside the file, in a `shared`/`imports` folder, or one level up; `a::b` as `a/b.wgsl`. */
function wgslCandidates(spec: string): string[] {
  const rel = spec.split('::').join('/');
  const file = `${rel}.wgsl`;
  return [file, `shared/${file}`, `imports/${file}`, `../${file}`, `../shared/${file}`];
}
