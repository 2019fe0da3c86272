/**
 * Related files: the other files of a project a kernel file names, whose text
 * the analysis reads when its host can supply it (docs/counting.md "Helpers of
 * other modules", docs/counting-cuda.md, docs/counting-wgsl.md).
 *
 *   source ──► relatedRequests(language, source): each `#import name` (WGSL:
 *              vello / naga_oil style), `import x from './k.wgsl'` (a WebGPU
 *              host), `#include "x.h"` (CUDA) or `from .module import name`
 *              (Python), with the paths it may live at, relative to the
 *              file's folder
 *   host (CLI: the file system; extension: the workspace) reads the first
 *   candidate that exists ──► AnalyzeOptions.related (spec → path + text)
 *   ──► the frontend reads them as part of the file; what is not supplied is
 *       said (`importNotRead`, `includeNotRead`, an unknown call)
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
  /** Python: the names imported from it that the analysis wants (it reads the module for them, and follows only their re-exports). */
  names?: string[];
}

export interface RelatedFile {
  /** The path it was read from, as the host shows it. */
  path: string;
  text: string;
  /** CUDA: a header past the first MAX_RELATED, read for its macros only: `text` holds its preprocessor lines (`macroLines`). */
  macrosOnly?: true;
}

/** Related files read whole per file at most, and their size (a host stops there). */
export const MAX_RELATED = 16;
export const MAX_RELATED_BYTES = 512 * 1024;
/**
 * CUDA: headers read per file at most, counting those read whole. nvcc reads every header a file includes,
 * and a macro one of them defines (an export or qualifier macro: `API float f(…);`) changes how the others
 * read; past the first MAX_RELATED only their preprocessor lines are kept (a few lines, cheap to parse).
 */
export const MAX_RELATED_MACROS = 64;

/** Related files a host reads at most for a file of this language (`relatedFile` says how much of each). */
export function maxRelated(language: Language): number {
  return language === 'cuda' ? MAX_RELATED_MACROS : MAX_RELATED;
}

/** The related file to supply as the `index`-th (0-based) read: whole, or (a CUDA header past MAX_RELATED) its macros only. */
export function relatedFile(language: Language, index: number, path: string, text: string): RelatedFile {
  if (language !== 'cuda' || index < MAX_RELATED) return { path, text };
  // The editor reads the headers at every keystroke: each one's lines are kept while its text is the same.
  let lines = macroLinesKept.get(text);
  if (lines === undefined) {
    lines = macroLines(text);
    macroLinesKept.set(text, lines);
    if (macroLinesKept.size > MAX_RELATED_MACROS) macroLinesKept.delete(macroLinesKept.keys().next().value as string);
  }
  return { path, text: lines, macrosOnly: true };
}

const macroLinesKept = new Map<string, string>();

/**
 * A C/C++ text's preprocessor lines (`#define`, `#if`…, with their `\` continuations), each ending with a
 * newline, and nothing else: what a header read for its macros keeps. A `#` line inside a block comment is
 * not one.
 */
export function macroLines(text: string): string {
  if (!text.includes('#')) return '';
  const out: string[] = [];
  const lines = text.split('\n');
  let comment = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!comment && /^[ \t]*#/.test(l)) {
      out.push(l);
      while (/\\\r?$/.test(lines[i]) && i + 1 < lines.length) out.push(lines[++i]);
      comment = opensComment(lines[i], comment);
      // A comment it opens runs on over lines not kept: closed where it is cut.
      if (comment) out[out.length - 1] += ' */';
      continue;
    }
    if (comment || l.includes('/*')) comment = opensComment(l, comment);
  }
  return out.length ? `${out.join('\n')}\n` : '';
}

/** Whether a block comment is open at the end of `line` (open at its start: `open`); `//` comments and string literals skipped. */
function opensComment(line: string, open: boolean): boolean {
  for (let i = 0; i < line.length; i++) {
    if (open) {
      const end = line.indexOf('*/', i);
      if (end < 0) return true;
      open = false;
      i = end + 1;
      continue;
    }
    const c = line[i];
    if (c === '/' && line[i + 1] === '/') return false;
    if (c === '/' && line[i + 1] === '*') {
      open = true;
      i++;
    } else if (c === '"' || c === "'") {
      for (i++; i < line.length && line[i] !== c; i++) if (line[i] === '\\') i++;
    }
  }
  return open;
}

/** `#import name` / `#import a::b` at the start of a line (WGSL preprocessors: vello, naga_oil). */
export const WGSL_IMPORT = /^[ \t]*#import[ \t]+([A-Za-z_][\w]*(?:::[A-Za-z_][\w]*)*)[ \t]*(?:\/\/.*)?$/;

/**
 * `from .utils import f`, `from ..ops.shared import g`, `from pkg.utils import h`
 * at the start of a line (Python: the Triton helpers of other modules of the
 * project).
 */
const PY_FROM = /^[ \t]*from[ \t]+(\.*)([A-Za-z_][\w.]*)?[ \t]+import\b/;

/** Packages that are never files of the project (the analysis knows what it needs of them, or nothing). */
const PY_EXTERNAL = /^(triton|torch|numpy|math|os|sys|typing|typing_extensions|functools|itertools|dataclasses|enum|collections|abc|contextlib|warnings|logging|re|json|time|copy|inspect|importlib|pytest|einops|transformers|packaging|operator|random|pathlib|argparse|__future__)(\.|$)/;

/** Folders an absolute import is looked for above the file. */
const PY_UP = 6;

/** `import name from './shader.wgsl'` in a JS/TS host: [, local name, the path as written]. */
export const JS_WGSL_IMPORT = /^[ \t]*import[ \t]+([A-Za-z_$][\w$]*)[ \t]+from[ \t]+['"]([^'"]+?\.wgsl(?:\?raw)?)['"]/;

/**
 * The related files a source names, with where each may be. `wanted`: for a
 * module read for some of its names, those names (Python: only the imports
 * that re-export them are followed); otherwise every imported name the source
 * uses.
 */
export function relatedRequests(language: Language, source: string, wanted?: readonly string[]): RelatedRequest[] {
  if (language === 'triton') return pythonRequests(source, wanted);
  if (language === 'cuda') return cudaRequests(source);
  if (language !== 'wgsl') return [];
  const out: RelatedRequest[] = [];
  const seen = new Set<string>();
  const lines = source.split('\n');
  for (let i = 0; i < lines.length && out.length < MAX_RELATED; i++) {
    // A WebGPU host's shader in a file of its own: `import blurWGSL from './blur.wgsl'` (bundlers' `?raw` too).
    const js = lines[i].includes('.wgsl') ? JS_WGSL_IMPORT.exec(lines[i]) : null;
    if (js && !seen.has(js[2])) {
      seen.add(js[2]);
      out.push({ spec: js[2], line: i + 1, candidates: [js[2].replace(/\?raw$/, '').replace(/^\.\//, '')] });
      continue;
    }
    if (!lines[i].includes('#import')) continue;
    const m = WGSL_IMPORT.exec(lines[i].replace(/\r$/, ''));
    if (!m || seen.has(m[1])) continue;
    seen.add(m[1]);
    out.push({ spec: m[1], line: i + 1, candidates: wgslCandidates(m[1]) });
  }
  return out;
}

/** `#include "name.h"` at the start of a line (quotes: a header of the project; `<…>` is a system or library header). */
const C_INCLUDE = /^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"/gm;

/** Folders a project keeps its headers in, tried beside the file and up to two folders above. */
const C_DIRS = ['', 'include/', 'utils/', 'common/', 'src/'];

function cudaRequests(source: string): RelatedRequest[] {
  if (!source.includes('#')) return [];
  const out: RelatedRequest[] = [];
  const seen = new Set<string>();
  // The file is read at every keystroke: one pass over its text, lines counted between the matches.
  let line = 1;
  let counted = 0;
  C_INCLUDE.lastIndex = 0;
  for (let m = C_INCLUDE.exec(source); m && out.length < MAX_RELATED_MACROS; m = C_INCLUDE.exec(source)) {
    for (let nl = source.indexOf('\n', counted); nl >= 0 && nl < m.index; nl = source.indexOf('\n', nl + 1)) line++, (counted = nl + 1);
    if (seen.has(m[1])) continue;
    seen.add(m[1]);
    const candidates = ['', '../', '../../'].flatMap((up) => C_DIRS.map((d) => `${up}${d}${m![1]}`));
    out.push({ spec: m[1], line, candidates });
  }
  return out;
}

/**
 * The line of each Python `from X import …` of a project module, by spec (`.utils`, `pkg.ops`): where
 * the analysis says what went wrong in a helper read from it. Cheap: no scan of the names the file uses.
 */
export function pythonImportLines(source: string): ReadonlyMap<string, number> {
  // A pipeline's launches each analyse the file again: the last text's answer is kept.
  if (lastImportLines?.source === source) return lastImportLines.out;
  const out = new Map<string, number>();
  lastImportLines = { source, out };
  if (!source.includes('import')) return out;
  source.split('\n').forEach((l, i) => {
    const m = l.includes('from') ? PY_FROM.exec(l) : null;
    const spec = m && m[2] && (m[1] || !PY_EXTERNAL.test(m[2])) ? `${m[1]}${m[2]}` : undefined;
    if (spec && !out.has(spec)) out.set(spec, i + 1);
  });
  return out;
}

let lastImportLines: { source: string; out: Map<string, number> } | undefined;

function pythonRequests(source: string, wanted?: readonly string[]): RelatedRequest[] {
  if (!source.includes('import')) return [];
  const out: RelatedRequest[] = [];
  const seen = new Map<string, RelatedRequest>();
  const lines = source.split('\n');
  let used: Set<string> | undefined;
  for (let i = 0; i < lines.length && out.length < MAX_RELATED; i++) {
    if (!lines[i].includes('from')) continue;
    const m = PY_FROM.exec(lines[i]);
    if (!m) continue;
    const dots = m[1].length;
    const mod = m[2] ?? '';
    // `from . import x` names modules, not functions: their attributes are not followed.
    if (!mod || (dots === 0 && PY_EXTERNAL.test(mod))) continue;
    const start = i;
    const { names, end } = importedNames(lines, i, m[0].length);
    used ??= wanted ? new Set(wanted) : usedNames(lines);
    const want = names.filter(([, local]) => used!.has(local)).map(([name]) => name);
    i = end;
    if (want.length === 0) continue;
    const spec = `${m[1]}${mod}`;
    const known = seen.get(spec);
    if (known) {
      for (const n of want) if (!known.names!.includes(n)) known.names!.push(n);
      continue;
    }
    const rel = mod.split('.').join('/');
    const files = [`${rel}.py`, `${rel}/__init__.py`];
    const candidates =
      dots > 0
        ? files.map((f) => `${'../'.repeat(dots - 1)}${f}`)
        : Array.from({ length: PY_UP + 1 }, (_, up) => files.map((f) => `${'../'.repeat(up)}${f}`)).flat();
    const q = { spec, line: start + 1, candidates, names: want };
    seen.set(spec, q);
    out.push(q);
  }
  return out;
}

/** `from m import a, b as c` / `from m import (\n a,\n b)`: [name, local name] pairs, and the statement's last line. */
function importedNames(lines: string[], i: number, at: number): { names: [string, string][]; end: number } {
  let text = lines[i].slice(at);
  let end = i;
  if (text.includes('(')) while (!text.includes(')') && end + 1 < lines.length && end - i < 50) text += ' ' + lines[++end];
  else while (/\\\s*$/.test(text) && end + 1 < lines.length && end - i < 50) text = text.replace(/\\\s*$/, ' ') + lines[++end];
  const names: [string, string][] = [];
  for (const part of text.replace(/#.*$/gm, '').replace(/[()]/g, ' ').split(',')) {
    const m = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
    if (m && m[1] !== '*') names.push([m[1], m[2] ?? m[1]]);
  }
  return { names, end };
}

/** The names a source uses outside its import statements. */
function usedNames(lines: string[]): Set<string> {
  const out = new Set<string>();
  // Not `@name` (a decorator), `x.name` (an attribute) or `name.attr` (a module or object: its attributes are not followed).
  const re = /(^|[^@.\w])([A-Za-z_]\w*)(?![\w]|\s*\.)/g;
  let inImport = false;
  for (const l of lines) {
    const starts = /^\s*(from|import)\b/.test(l);
    if (starts || inImport) {
      inImport = (starts && l.includes('(') && !l.includes(')')) || (inImport && !l.includes(')'));
      continue;
    }
    // Names inside strings (`__all__ = ["abs", …]`) are not uses.
    for (const m of l.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '""').matchAll(re)) out.add(m[2]);
  }
  return out;
}

/** Where `#import name` may live: beside the file, in a `shared`/`imports` folder, or one level up; `a::b` as `a/b.wgsl`. */
function wgslCandidates(spec: string): string[] {
  const rel = spec.split('::').join('/');
  const file = `${rel}.wgsl`;
  return [file, `shared/${file}`, `imports/${file}`, `../${file}`, `../shared/${file}`];
}
