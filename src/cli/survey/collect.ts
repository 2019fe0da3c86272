/**
 * Which files the survey analyses: every kernel file below the folders, minus
 * vendored folders, files without a kernel marker, `--exclude`d paths, and
 * (with `--sample DIR=N`) all but a fixed pseudo-random N of the files below
 * DIR. Deterministic: the same tree gives the same list.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileJob } from './file';
import { groupOf, hasKernelMarker, type SurveyGroup } from './scan';

/** Folders never entered: dependencies, build output, vendored code. */
export const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'out', 'build', '__pycache__', '.venv', 'venv', 'site-packages', 'third_party', 'third-party', '3rdparty', 'vendor', 'vendored', 'external', 'extern']);

export interface CollectOptions {
  /** Only these extensions (without dot), when given. */
  ext?: string[];
  /** Skip files whose root-relative path contains one of these. */
  exclude?: string[];
  /** Keep N files below a root-relative folder (chosen by a seeded hash of the path). */
  sample?: { dir: string; n: number }[];
  seed?: string;
  /** Larger files are skipped (bytes). */
  maxBytes?: number;
}

export interface Collected {
  jobs: FileJob[];
  /** Files seen with a kernel extension, by reason they were not analysed. */
  skipped: Record<string, number>;
  /** Per sampled folder: candidates and kept. */
  sampled: { root: string; dir: string; candidates: number; kept: number }[];
  missing: string[];
}

/** FNV-1a, 32 bit: a stable hash for sampling. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 30) return;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(p, out, depth + 1);
    } else if (e.isFile()) out.push(p);
  }
}

export function collect(roots: string[], opts: CollectOptions = {}): Collected {
  const skipped: Record<string, number> = {};
  const skip = (why: string): void => {
    skipped[why] = (skipped[why] ?? 0) + 1;
  };
  const jobs: FileJob[] = [];
  const sampled: Collected['sampled'] = [];
  const missing: string[] = [];
  const ext = opts.ext?.map((e) => e.replace(/^\./, '').toLowerCase());
  const maxBytes = opts.maxBytes ?? 4 * 1024 * 1024;
  for (const root of roots) {
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch {
      missing.push(root);
      continue;
    }
    const rootName = path.basename(path.resolve(root));
    const files: string[] = [];
    if (st.isDirectory()) walk(root, files);
    else files.push(root);
    const candidates: (FileJob & { rel: string })[] = [];
    for (const f of files) {
      const language: SurveyGroup | undefined = groupOf(f);
      if (!language) continue;
      const rel = st.isDirectory() ? path.relative(root, f).split(path.sep).join('/') : path.basename(f);
      if (ext && !ext.some((e) => f.toLowerCase().endsWith('.' + e))) {
        skip('extension not selected');
        continue;
      }
      if (opts.exclude?.some((x) => rel.includes(x))) {
        skip('excluded');
        continue;
      }
      let text: string;
      try {
        const size = fs.statSync(f).size;
        if (size > maxBytes) {
          skip('too large');
          continue;
        }
        text = fs.readFileSync(f, 'utf8');
      } catch {
        skip('unreadable');
        continue;
      }
      if (!hasKernelMarker(language, text)) {
        skip('no kernel marker');
        continue;
      }
      candidates.push({ path: f, display: `${rootName}/${rel}`, root: rootName, language, rel });
    }
    let kept = candidates;
    for (const s of opts.sample ?? []) {
      const dir = s.dir.replace(/\/+$/, '') + '/';
      const inside = kept.filter((c) => c.rel.startsWith(dir));
      if (inside.length === 0) continue;
      const chosen = new Set([...inside].sort((a, b) => fnv1a(`${opts.seed ?? '1'}:${a.rel}`) - fnv1a(`${opts.seed ?? '1'}:${b.rel}`)).slice(0, s.n));
      for (let i = 0; i < inside.length - chosen.size; i++) skip('not in sample');
      kept = kept.filter((c) => !c.rel.startsWith(dir) || chosen.has(c));
      sampled.push({ root: rootName, dir: s.dir, candidates: inside.length, kept: chosen.size });
    }
    for (const { rel: _rel, ...job } of kept) jobs.push(job);
  }
  return { jobs, skipped, sampled, missing };
}
