/**
 * The hand-checked accuracy set (test/accuracy/cases.json): its types, a
 * validator, and the tiny arithmetic evaluator that checks every `derive`
 * string against its expected number.
 *
 * Shared by the runner (`npm run accuracy`, test/accuracy/accuracy.ts) and the
 * mocha test that runs without the corpora (test/accuracy/cases.test.ts).
 */

export type Language = 'triton' | 'cuda' | 'wgsl';
export type Metric = 'flops' | 'loadBytes' | 'storeBytes';
export const METRICS: readonly Metric[] = ['flops', 'loadBytes', 'storeBytes'];

export interface AccuracyCase {
  id: string;
  /** owner/name on GitHub; the corpus folder is owner+name. */
  project: string;
  commit: string;
  /** Path of the kernel's file inside the repository. */
  path: string;
  kernel: string;
  /** 1-based line of the `def` / `__global__` / `fn`. */
  line: number;
  language: Language;
  kind: string;
  familiarity: 'well-known' | 'less-known';
  /** Issue-13 patterns (P1–P12) and other constructs the case exercises. */
  patterns: string[];
  /** CLI flags, one per entry: `--set NAME=V`, `--dtype NAME=T`, `--grid X[,Y[,Z]]`. */
  bindings: string[];
  expected: Record<Metric, number>;
  /** Arithmetic that yields each expected number; `[…]` are comments, `= N` checks. */
  derive: Record<Metric, string>;
  notes: string[];
}

export interface CaseFile {
  schemaVersion: 1;
  contract: string;
  description: string;
  cases: AccuracyCase[];
}

// ---------------------------------------------------------------------------
// Arithmetic evaluator: numbers, + − × * · / and parentheses. No eval, no Function.

export class DeriveError extends Error {}

/** Removes `[…]` comments (they may nest: `[X[y] bf16]`). */
export function stripComments(s: string): string {
  let depth = 0;
  let out = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    else if (ch === ']') {
      if (depth === 0) throw new DeriveError(`unbalanced ']' in "${s}"`);
      depth--;
    } else if (depth === 0) out += ch;
  }
  if (depth !== 0) throw new DeriveError(`unclosed '[' in "${s}"`);
  return out;
}

type Token = { kind: 'num'; value: number } | { kind: 'op'; value: string };

function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const ch = expr[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (/[0-9.]/.test(ch)) {
      let j = i;
      while (j < expr.length && /[0-9.]/.test(expr[j])) j++;
      const text = expr.slice(i, j);
      if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) throw new DeriveError(`bad number '${text}'`);
      tokens.push({ kind: 'num', value: Number(text) });
      i = j;
      continue;
    }
    const op = ch === '×' || ch === '·' ? '*' : ch === '−' ? '-' : ch;
    if (!'+-*/()'.includes(op)) throw new DeriveError(`unexpected '${ch}' (only numbers, + − × * · / and parentheses; put words in [brackets])`);
    tokens.push({ kind: 'op', value: op });
    i++;
  }
  return tokens;
}

/** Evaluates one arithmetic expression (comments in `[…]` allowed). */
export function evalArithmetic(source: string): number {
  const tokens = tokenize(stripComments(source));
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (t: Token | undefined, ops: string): t is { kind: 'op'; value: string } => t?.kind === 'op' && ops.includes(t.value);
  const expr = (): number => {
    let v = term();
    while (isOp(peek(), '+-')) {
      const op = tokens[pos++].value;
      const r = term();
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const term = (): number => {
    let v = factor();
    while (isOp(peek(), '*/')) {
      const op = tokens[pos++].value;
      const r = factor();
      if (op === '/' && r === 0) throw new DeriveError('division by zero');
      v = op === '*' ? v * r : v / r;
    }
    return v;
  };
  const factor = (): number => {
    const t = tokens[pos++];
    if (!t) throw new DeriveError('unexpected end of expression');
    if (t.kind === 'num') return t.value;
    if (t.value === '-') return -factor();
    if (t.value === '(') {
      const v = expr();
      const close = tokens[pos++];
      if (!isOp(close, ')')) throw new DeriveError("missing ')'");
      return v;
    }
    throw new DeriveError(`unexpected '${t.value}'`);
  };
  if (tokens.length === 0) throw new DeriveError('empty expression');
  const v = expr();
  if (pos !== tokens.length) throw new DeriveError(`unexpected '${(tokens[pos] as { value: unknown }).value}' after a complete expression`);
  return v;
}

const same = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * Evaluates a derivation `expr [= expr]...`: every side must have the same
 * value, which is returned.
 */
export function evalDerive(derive: string): number {
  // split on '=' outside [comments] (a comment may say `x += y`)
  const sides: string[] = [''];
  let depth = 0;
  for (const ch of derive) {
    if (ch === '[') depth++;
    else if (ch === ']') depth--;
    if (ch === '=' && depth === 0) sides.push('');
    else sides[sides.length - 1] += ch;
  }
  const values = sides.map((s) => evalArithmetic(s));
  for (let i = 1; i < values.length; i++)
    if (!same(values[i], values[0])) throw new DeriveError(`"${sides[0].trim()}" is ${values[0]}, not ${values[i]}`);
  return values[0];
}

// ---------------------------------------------------------------------------
// Validation

const KINDS_OK = /^[a-z0-9 ,/()+\-–.'&]+$/i;
const FLAG = /^(--set [A-Za-z_][\w.]*(\([\w.,&]*\))?(\.[xyz])?=\S+|--dtype [A-Za-z_][\w.]*=[a-z0-9_]+|--grid \d+(,\d+){0,2})$/;

function extensionLanguage(path: string): Language | undefined {
  if (/\.py$/.test(path)) return 'triton';
  if (/\.(cu|cuh)$/.test(path)) return 'cuda';
  if (/\.(wgsl|js|mjs|ts|tsx)$/.test(path)) return 'wgsl';
  return undefined;
}

/** Problems with one case (empty when it is well-formed and every derivation equals its number). */
export function validateCase(c: AccuracyCase): string[] {
  const errs: string[] = [];
  const at = `${c?.id ?? '(no id)'}`;
  const need = (ok: boolean, msg: string): void => {
    if (!ok) errs.push(`${at}: ${msg}`);
  };
  if (typeof c !== 'object' || c === null) return ['a case is not an object'];
  need(typeof c.id === 'string' && /^[TCW]\d\d-[a-z0-9-]+$/.test(c.id), 'id must look like T01-short-name (T/C/W by language)');
  need(typeof c.project === 'string' && /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(c.project), 'project must be owner/name');
  need(typeof c.commit === 'string' && /^[0-9a-f]{40}$/.test(c.commit), 'commit must be 40 hex digits');
  need(typeof c.path === 'string' && c.path.length > 0 && !c.path.startsWith('/') && !c.path.split('/').includes('..'), 'path must be relative, without ..');
  need(typeof c.kernel === 'string' && /^[A-Za-z_]\w*$/.test(c.kernel), 'kernel must be an identifier');
  need(Number.isInteger(c.line) && c.line > 0, 'line must be a positive integer');
  need(c.language === 'triton' || c.language === 'cuda' || c.language === 'wgsl', 'language must be triton, cuda or wgsl');
  need(typeof c.path === 'string' && extensionLanguage(c.path) === c.language, `path extension does not match language ${c.language}`);
  need(typeof c.id === 'string' && c.id[0] === { triton: 'T', cuda: 'C', wgsl: 'W' }[c.language], 'id prefix must match the language (T, C, W)');
  need(typeof c.kind === 'string' && c.kind.length > 0 && KINDS_OK.test(c.kind), 'kind must be a short label');
  need(c.familiarity === 'well-known' || c.familiarity === 'less-known', 'familiarity must be well-known or less-known');
  need(Array.isArray(c.patterns) && c.patterns.every((p) => typeof p === 'string' && p.length > 0), 'patterns must be strings');
  need(Array.isArray(c.notes) && c.notes.every((n) => typeof n === 'string' && n.length > 0), 'notes must be strings');
  if (Array.isArray(c.bindings)) {
    for (const b of c.bindings) need(typeof b === 'string' && FLAG.test(b), `binding '${b}' is not --set NAME=V, --dtype NAME=T or --grid X[,Y[,Z]]`);
    const grids = c.bindings.filter((b) => typeof b === 'string' && b.startsWith('--grid ')).length;
    need(grids <= 1, 'at most one --grid');
  } else errs.push(`${at}: bindings must be an array of flags`);
  if (typeof c.expected !== 'object' || c.expected === null || typeof c.derive !== 'object' || c.derive === null) {
    errs.push(`${at}: expected and derive must be objects with ${METRICS.join(', ')}`);
    return errs;
  }
  for (const m of METRICS) {
    const e = c.expected[m];
    if (!(Number.isInteger(e) && e >= 0)) {
      errs.push(`${at}: expected.${m} must be a non-negative integer`);
      continue;
    }
    const d = c.derive[m];
    if (typeof d !== 'string' || d.trim() === '') {
      errs.push(`${at}: derive.${m} is missing`);
      continue;
    }
    try {
      const v = evalDerive(d);
      if (!same(v, e)) errs.push(`${at}: derive.${m} evaluates to ${v}, expected.${m} is ${e}`);
    } catch (err) {
      errs.push(`${at}: derive.${m}: ${(err as Error).message}`);
    }
  }
  return errs;
}

export const LANGUAGE_MIX: Record<Language, [number, number]> = { triton: [20, 24], cuda: [8, 12], wgsl: [6, 10] };

/** Problems with the whole file: schema, 40 unique cases, the language mix, and every case. */
export function validateCaseFile(doc: unknown): string[] {
  const errs: string[] = [];
  const d = doc as CaseFile;
  if (typeof d !== 'object' || d === null) return ['cases.json is not an object'];
  if (d.schemaVersion !== 1) errs.push('schemaVersion must be 1');
  if (typeof d.contract !== 'string' || !d.contract.includes('COUNTING.md')) errs.push('contract must name the COUNTING.md version the numbers follow');
  if (!Array.isArray(d.cases)) return [...errs, 'cases must be an array'];
  if (d.cases.length !== 40) errs.push(`there must be 40 cases (found ${d.cases.length})`);
  const ids = new Set<string>();
  for (const c of d.cases) {
    if (ids.has(c?.id)) errs.push(`duplicate id ${c.id}`);
    ids.add(c?.id);
    errs.push(...validateCase(c));
  }
  const count = (lang: Language): number => d.cases.filter((c) => c?.language === lang).length;
  for (const [lang, [lo, hi]] of Object.entries(LANGUAGE_MIX) as [Language, [number, number]][]) {
    const n = count(lang);
    if (n < lo || n > hi) errs.push(`${lang}: ${n} cases, the mix wants ${lo}–${hi}`);
  }
  const fam = new Set(d.cases.map((c) => c?.familiarity));
  if (!fam.has('well-known') || !fam.has('less-known')) errs.push('the set must mix well-known and less-known projects');
  return errs;
}

// ---------------------------------------------------------------------------
// Scoring

/** Within ±10 % of the expected number; an expected 0 needs exactly 0; null / non-numbers miss. */
export function within10(expected: number, got: unknown): boolean {
  if (typeof got !== 'number' || !Number.isFinite(got)) return false;
  if (expected === 0) return got === 0;
  return Math.abs(got - expected) <= 0.1 * Math.abs(expected);
}

/** Splits the binding strings into argv words: `--set K=4096` → [`--set`, `K=4096`]. */
export function bindingArgs(bindings: string[]): string[] {
  return bindings.flatMap((b) => {
    const sp = b.indexOf(' ');
    return [b.slice(0, sp), b.slice(sp + 1)];
  });
}

/** The corpus folder of a project: owner/name → owner+name. */
export function corpusDir(project: string): string {
  return project.replace('/', '+');
}
