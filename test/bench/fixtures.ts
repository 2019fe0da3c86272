/**
 * Benchmark files built from the project's real-style fixtures
 * (test/fixtures/{triton,cuda,wgsl}/, the broken/ folders left out): whole
 * fixture files appended in name order, again and again, until the file has
 * the requested number of lines. Each copy's top-level names (functions,
 * kernels, macros, module constants, WGSL declarations) get a suffix of their
 * own, so copies never share a name and each kernel stays what it was in its
 * fixture.
 *
 * And the two edits the benchmark makes: one character inside a kernel, and
 * one character outside every kernel (host code, a launcher, a module
 * constant), the latter being what the editor sees while a user types in a
 * kernel file's host code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Language } from '../../src/core/ir';

const EXT: Record<Language, string> = { triton: '.py', cuda: '.cu', wgsl: '.wgsl' };
const DIR: Record<Language, string> = { triton: 'triton', cuda: 'cuda', wgsl: 'wgsl' };

/** Names declared at the top level of one fixture, per language. */
function topLevelNames(lang: Language, text: string): string[] {
  const names = new Set<string>();
  const add = (re: RegExp): void => {
    for (const m of text.matchAll(re)) if (m[1]) names.add(m[1]);
  };
  if (lang === 'triton') {
    add(/^def\s+(\w+)/gm);
    add(/^class\s+(\w+)/gm);
    add(/^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)/gm);
  } else if (lang === 'cuda') {
    add(/^\s*#\s*define\s+(\w+)/gm);
    // Functions start at column 0 (a statement inside a body never does in the fixtures).
    add(/^(?:template\s*<[^>]*>\s*)?(?:(?:static|inline|__global__|__device__|__host__|__forceinline__|extern|"C"|const|unsigned|struct)\s+)*(?!if\b|for\b|while\b|switch\b|return\b)[A-Za-z_][\w:<>,*& ]*?\b(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{/gm);
    // A kernel whose name follows __launch_bounds__(…) on the next line.
    add(/__launch_bounds__\s*\([^)]*\)\s*\n\s*(\w+)\s*\(/g);
    add(/^(?:__constant__|__device__|static|const)\s+[\w\s*]+?\b(\w+)\s*(?:\[[^\]]*\])*\s*[;=]/gm);
  } else {
    add(/^\s*(?:@[\w]+(?:\([^)]*\))?\s*)*fn\s+(\w+)/gm);
    add(/^\s*(?:@[\w]+(?:\([^)]*\))?\s*)*(?:var(?:<[^>]*>)?|const|override|let)\s+(\w+)/gm);
    add(/^\s*struct\s+(\w+)/gm);
    add(/^\s*alias\s+(\w+)/gm);
  }
  // Never rename what the language or a library owns.
  for (const keep of ['main', 'torch', 'triton', 'tl', 'np', 'os', 'sys', 'math', 'if', 'for', 'while', 'switch', 'return', 'sizeof']) names.delete(keep);
  return [...names].filter((n) => !n.startsWith('__'));
}

function renamed(lang: Language, text: string, suffix: string): string {
  let out = text;
  for (const name of topLevelNames(lang, text)) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), `${name}${suffix}`);
  return out;
}

/** The fixtures of a language, in name order. */
export function fixtureTexts(root: string, lang: Language): { file: string; text: string }[] {
  const dir = path.join(root, 'test', 'fixtures', DIR[lang]);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(EXT[lang]))
    .sort()
    .map((f) => ({ file: f, text: fs.readFileSync(path.join(dir, f), 'utf8') }));
}

/** A file of at least `lines` lines made of the language's fixtures (see above). */
export function fixtureFile(root: string, lang: Language, lines: number): string {
  const all = fixtureTexts(root, lang);
  const out: string[] = [];
  // WGSL directives (enable, requires, diagnostic) must come before every declaration: hoisted.
  const directives = new Set<string>();
  const directive = /^\s*(?:enable|requires|diagnostic)\b[^;]*;\s*$/;
  let n = 0;
  for (let copy = 0; n < lines; copy++)
    for (const [i, f] of all.entries()) {
      if (n >= lines) break;
      let text = renamed(lang, f.text, `_c${copy}f${i}`);
      if (lang === 'wgsl')
        text = text
          .split('\n')
          .filter((l) => !(directive.test(l) && directives.add(l.trim())))
          .join('\n');
      out.push(`${lang === 'triton' ? '#' : '//'} ---- ${f.file} (copy ${copy})`, text.replace(/\n*$/, ''), '');
      n += text.split('\n').length + 1;
    }
  return [...directives, ...out].join('\n') + '\n';
}

/** 0-based line ranges of the kernels of a report (1-based `line`..`endLine`). */
export type KernelSpan = { start: number; end: number };

/** Flips one digit (2 ↔ 3, other digits ↔ their neighbour) at `at`. */
function flipDigit(src: string, at: number): string {
  const d = Number(src[at]);
  const to = d === 2 ? 3 : d === 3 ? 2 : d === 9 ? 8 : d + 1;
  return src.slice(0, at) + String(to) + src.slice(at + 1);
}

function lineStarts(src: string): number[] {
  const starts = [0];
  for (let i = src.indexOf('\n'); i !== -1; i = src.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * A one-character edit on one of the given lines (the n-th candidate, in
 * turn): a digit flipped when the line has one outside a comment, else a
 * space added at the end of the line (or removed, when there is one).
 */
function editOnLines(src: string, candidates: number[], n: number, lang: Language): string {
  if (candidates.length === 0) return src + ' ';
  const starts = lineStarts(src);
  const line = candidates[n % candidates.length];
  const from = starts[line];
  const to = line + 1 < starts.length ? starts[line + 1] - 1 : src.length;
  const text = src.slice(from, to);
  const comment = lang === 'triton' ? text.indexOf('#') : text.indexOf('//');
  const code = comment >= 0 ? text.slice(0, comment) : text;
  const digit = code.search(/(?<![\w.])\d/);
  if (digit >= 0) return flipDigit(src, from + digit);
  return text.endsWith(' ') ? src.slice(0, to - 1) + src.slice(to) : src.slice(0, to) + ' ' + src.slice(to);
}

function codeLine(text: string, lang: Language): boolean {
  const t = text.trim();
  if (!t) return false;
  if (lang === 'triton') return !t.startsWith('#') && !t.startsWith('@') && !t.startsWith('import') && !t.startsWith('from') && !t.startsWith('"""');
  return !t.startsWith('//') && !t.startsWith('#include') && !t.startsWith('*') && !t.startsWith('/*');
}

/** The n-th edit inside a kernel: a line of the body of kernel n (mod the number of kernels). */
export function editInside(src: string, spans: KernelSpan[], n: number, lang: Language): string {
  if (spans.length === 0) return src + ' ';
  const k = spans[n % spans.length];
  const lines = src.split('\n');
  const body: number[] = [];
  for (let l = k.start + 1; l <= k.end && l < lines.length; l++) if (codeLine(lines[l], lang)) body.push(l);
  return editOnLines(src, body.length ? body : [k.start], Math.floor(n / spans.length), lang);
}

/**
 * The n-th Enter inside a kernel: an empty line added after the first code
 * line of kernel n (mod the number of kernels), `spans` being the kernels of
 * `src` as they are now (every statement below moves down a line; the text
 * never returns to an earlier version, so nothing is taken from a cache of one).
 */
export function editNewline(src: string, spans: KernelSpan[], n: number, lang: Language): string {
  if (spans.length === 0) return src + '\n';
  const k = spans[n % spans.length];
  const lines = src.split('\n');
  let at = k.start + 1;
  while (at < k.end && at < lines.length - 1 && !codeLine(lines[at], lang)) at++;
  lines.splice(at + 1, 0, '');
  return lines.join('\n');
}

/** The n-th edit outside every kernel: a code line no kernel contains (host code, launchers, constants). */
export function editOutside(src: string, spans: KernelSpan[], n: number, lang: Language): string {
  const lines = src.split('\n');
  const inside = new Uint8Array(lines.length);
  for (const k of spans) for (let l = k.start; l <= k.end && l < lines.length; l++) inside[l] = 1;
  const outside: number[] = [];
  for (let l = 0; l < lines.length; l++) if (!inside[l] && codeLine(lines[l], lang)) outside.push(l);
  // Spread over the file: every 7th candidate, so successive edits land in different places.
  const spread = outside.filter((_, i) => i % 7 === 0);
  return editOnLines(src, spread.length ? spread : outside, n, lang);
}
