/**
 * Hostile rewrites, per language: the inputs most likely to make an analyser
 * hang, blow its stack or overflow its arithmetic — blocks nested 500 deep,
 * loops of 10^18 trips, sizes like 2**999, constant and #define chains that
 * double at every step, recursive helpers and helpers that call the next one
 * twice (2^40 inlinings if nothing memoises them), expressions 5,000 terms
 * long. Each takes a seed's text and returns it rewritten.
 */
import type { Rng } from './rng';
import { braceStatementLines, indentOf, pythonBlockEnd, pythonBodyLines, spliceLines } from './text';
import { isNumberToken, tokenize } from './tokens';

export type FuzzLanguage = 'triton' | 'cuda' | 'wgsl';

export interface Hostile {
  name: string;
  apply: (text: string, rng: Rng) => string;
}

/** Numbers that overflow, underflow, vanish or go negative, per language. */
export const NASTY_NUMBERS: Record<FuzzLanguage, readonly string[]> = {
  triton: ['2**999', '2**1024', '10**18', '-(2**63)', '1e308', 'float("inf")', '0', '-1', '0.5', '9007199254740993'],
  cuda: ['(1ULL << 63)', '1e308', '0xFFFFFFFFFFFFFFFF', '18446744073709551615ULL', '-1', '0', '2147483648', '1000000000000000000LL', '0.5f'],
  wgsl: ['4294967295u', '0xffffffffu', '1e38', '-2147483648i', '0u', '1e308', '2147483647', '1000000000000000000', '0.5'],
};

// ---------------------------------------------------------------------------
// Shared shapes
// ---------------------------------------------------------------------------

/** Replaces one number literal of the text (chosen at random) with `replacement`. */
function replaceNumber(text: string, rng: Rng, replacement: string): string {
  const toks = tokenize(text);
  const nums = toks.map((t, i) => (isNumberToken(t) ? i : -1)).filter((i) => i >= 0);
  if (nums.length === 0) return text + replacement;
  toks[rng.pick(nums)] = replacement;
  return toks.join('');
}

/** `1 + 1 + … + 1` with `terms` terms, or `((…(1)…))` nested `depth` deep. */
function longExpression(rng: Rng): string {
  if (rng.chance(0.5)) return Array.from({ length: rng.pick([1000, 5000]) }, () => '1').join(' + ');
  const depth = rng.pick([500, 3000]);
  return '('.repeat(depth) + '1' + ')'.repeat(depth);
}

/** Declarations 0 … n: `first`, then each one built by `line` from the name of the one before. */
function chain(n: number, first: string, line: (i: number, prev: string) => string, name: (i: number) => string): string[] {
  const out = [first];
  for (let i = 1; i <= n; i++) out.push(line(i, name(i - 1)));
  return out;
}

/** Inserts `decls` before the first line that contains `marker` (or at the top). */
function insertBefore(text: string, marker: string, decls: string[]): string {
  const lines = text.split('\n');
  const at = Math.max(0, lines.findIndex((l) => l.includes(marker)));
  return spliceLines(lines, at, at - 1, decls).join('\n');
}

// ---------------------------------------------------------------------------
// Triton (Python)
// ---------------------------------------------------------------------------

/** Wraps a statement of a kernel body (with the block it opens) in `headers`, each one level deeper. */
function pyWrap(text: string, rng: Rng, headers: string[]): string {
  const lines = text.split('\n');
  const body = pythonBodyLines(lines);
  if (body.length === 0) return text;
  const start = rng.pick(body);
  const end = pythonBlockEnd(lines, start);
  const base = ' '.repeat(indentOf(lines[start]));
  const opened = headers.map((h, d) => base + '    '.repeat(d) + h);
  const pad = '    '.repeat(headers.length);
  const inner = lines.slice(start, end + 1).map((l) => (l.trim() === '' ? l : pad + l));
  return spliceLines(lines, start, end, [...opened, ...inner]).join('\n');
}

/** Inserts a statement before a random kernel-body line, at that line's indentation. */
function pyInsertStatement(text: string, rng: Rng, stmt: string): string {
  const lines = text.split('\n');
  const body = pythonBodyLines(lines);
  if (body.length === 0) return `${text}\n${stmt}\n`;
  const at = rng.pick(body);
  return spliceLines(lines, at, at - 1, [' '.repeat(indentOf(lines[at])) + stmt]).join('\n');
}

const PY_CONDITIONS = ['True', '1', 'BLOCK > 0', 'tl.program_id(0) >= 0', '_fz_c > 0'];
const PY_HUGE_LOOPS = [
  'for _fz in range(0, 10**18):',
  'for _fz in range(1000000000000000000):',
  'for _fz in range(0, 2**999):',
  'for _fz in tl.range(0, 10**18, 1):',
  'for _fz in tl.static_range(0, 10**18):',
  'for _fz in range(10**18, 0, -1):',
  'for _fz in range(0, 10**18, 0):',
  'while True:',
];

const PY_RECURSIVE = [
  '',
  '@triton.jit',
  'def _fz_a(x):',
  '    return _fz_b(x) * 2.0',
  '',
  '@triton.jit',
  'def _fz_b(x):',
  '    return _fz_a(x) + 1.0',
  '',
];

function pyCallBomb(depth: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < depth; i++) out.push('', '@triton.jit', `def _fz_a${i === 0 ? '' : i}(x):`, `    return _fz_a${i + 1}(x) + _fz_a${i + 1}(x)`);
  out.push('', '@triton.jit', `def _fz_a${depth}(x):`, '    return x * 2.0', '');
  return out;
}

const TRITON: Hostile[] = [
  {
    name: 'deep-nesting',
    apply: (t, r) => pyWrap(t, r, Array.from({ length: r.pick([50, 200, 500]) }, () => `if ${r.pick(PY_CONDITIONS)}:`)),
  },
  { name: 'huge-loop', apply: (t, r) => pyWrap(t, r, [r.pick(PY_HUGE_LOOPS)]) },
  {
    name: 'nested-huge-loops',
    apply: (t, r) => pyWrap(t, r, Array.from({ length: r.pick([3, 40]) }, (_, i) => `for _fz${i} in range(0, 1000000000):`)),
  },
  { name: 'huge-size', apply: (t, r) => replaceNumber(t, r, r.pick(NASTY_NUMBERS.triton)) },
  { name: 'long-expression', apply: (t, r) => replaceNumber(t, r, longExpression(r)) },
  {
    name: 'constant-chain',
    apply: (t, r) => {
      const op = r.pick(['*', '+', '**']);
      const n = r.pick([60, 300]);
      const decls = chain(n, '_FZ0 = 2', (i, p) => `_FZ${i} = ${p} ${op} ${p}`, (i) => `_FZ${i}`);
      return replaceNumber([...decls, t].join('\n'), r, `_FZ${n}`);
    },
  },
  {
    name: 'self-referential-constant',
    apply: (t, r) => replaceNumber(['_FZ = _FZ + 1', '_FZA = _FZB', '_FZB = _FZA', t].join('\n'), r, r.pick(['_FZ', '_FZA'])),
  },
  { name: 'recursive-helper', apply: (t, r) => pyInsertStatement(t + '\n' + PY_RECURSIVE.join('\n'), r, '_fz_r = _fz_a(1.0)') },
  { name: 'call-bomb', apply: (t, r) => pyInsertStatement(t + '\n' + pyCallBomb(40).join('\n'), r, '_fz_r = _fz_a(1.0)') },
  { name: 'many-copies', apply: (t, r) => Array.from({ length: r.pick([20, 60]) }, () => t).join('\n') },
];

// ---------------------------------------------------------------------------
// CUDA
// ---------------------------------------------------------------------------

/** Wraps one statement line of a function body between `open` and `close` lines. */
function braceWrap(text: string, rng: Rng, open: string[], close: string[]): string {
  const lines = text.split('\n');
  const stmts = braceStatementLines(lines);
  if (stmts.length === 0) return text;
  const at = rng.pick(stmts);
  return spliceLines(lines, at, at, [...open, lines[at], ...close]).join('\n');
}

function braceInsertStatement(text: string, rng: Rng, stmt: string): string {
  const lines = text.split('\n');
  const stmts = braceStatementLines(lines);
  if (stmts.length === 0) return `${text}\n${stmt}\n`;
  const at = rng.pick(stmts);
  return spliceLines(lines, at, at - 1, [' '.repeat(indentOf(lines[at])) + stmt]).join('\n');
}

function nested(rng: Rng, conditions: readonly string[], header: (c: string) => string): { open: string[]; close: string[] } {
  const depth = rng.pick([50, 200, 500]);
  const open = Array.from({ length: depth }, () => (rng.chance(0.3) ? '{' : header(rng.pick(conditions))));
  return { open, close: open.map(() => '}') };
}

const CUDA_CONDITIONS = ['true', '1', 'threadIdx.x < 1024', 'blockIdx.x >= 0', '_fz_c > 0'];
const CUDA_HUGE_LOOPS = [
  'for (long long _fz = 0; _fz < 1000000000000000000LL; ++_fz) {',
  'for (int _fz = 0; _fz < (1 << 62); _fz++) {',
  'for (unsigned long long _fz = 0; _fz < 18446744073709551615ULL; _fz += 1) {',
  'for (int _fz = 0; _fz < 1000000000; _fz += 0) {',
  'for (int _fz = 100; _fz > 0; _fz++) {',
  '#pragma unroll\nfor (int _fz = 0; _fz < 100000000; ++_fz) {',
  'while (true) {',
];

const CUDA_RECURSIVE = [
  '__device__ float _fz_b(float x);',
  '__device__ float _fz_a(float x) { return _fz_b(x) * 2.0f; }',
  '__device__ float _fz_b(float x) { return _fz_a(x) + 1.0f; }',
  'template <int N> __device__ float _fz_t(float x) { return _fz_t<N - 1>(x) * 2.0f; }',
];

function cudaCallBomb(depth: number): string[] {
  const out = [`__device__ float _fz_h${depth}(float x) { return x * 2.0f; }`];
  for (let i = depth - 1; i >= 0; i--) out.push(`__device__ float _fz_h${i}(float x) { return _fz_h${i + 1}(x) + _fz_h${i + 1}(x); }`);
  return out;
}

const CUDA: Hostile[] = [
  {
    name: 'deep-nesting',
    apply: (t, r) => {
      const { open, close } = nested(r, CUDA_CONDITIONS, (c) => `if (${c}) {`);
      return braceWrap(t, r, open, close);
    },
  },
  { name: 'huge-loop', apply: (t, r) => braceWrap(t, r, [r.pick(CUDA_HUGE_LOOPS)], ['}']) },
  {
    name: 'nested-huge-loops',
    apply: (t, r) => {
      const n = r.pick([3, 40]);
      const open = Array.from({ length: n }, (_, i) => `for (int _fz${i} = 0; _fz${i} < 1000000000; ++_fz${i}) {`);
      return braceWrap(t, r, open, open.map(() => '}'));
    },
  },
  { name: 'huge-size', apply: (t, r) => replaceNumber(t, r, r.pick(NASTY_NUMBERS.cuda)) },
  { name: 'long-expression', apply: (t, r) => replaceNumber(t, r, longExpression(r)) },
  {
    name: 'define-chain',
    apply: (t, r) => {
      const n = r.pick([40, 300]);
      const body = r.pick(['(P * P)', 'P + P', '(P) << 1']);
      const decls = chain(n, '#define _FZ0 2', (i, p) => `#define _FZ${i} ${body.replaceAll('P', p)}`, (i) => `_FZ${i}`);
      return replaceNumber([...decls, t].join('\n'), r, `_FZ${n}`);
    },
  },
  {
    name: 'self-referential-define',
    apply: (t, r) =>
      replaceNumber(['#define _FZ (_FZ + 1)', '#define _FZA _FZB', '#define _FZB _FZA', '#define _FZF(x) _FZF(x + 1)', t].join('\n'), r, r.pick(['_FZ', '_FZA', '_FZF(1)'])),
  },
  {
    name: 'recursive-helper',
    apply: (t, r) =>
      braceInsertStatement([...CUDA_RECURSIVE, t].join('\n'), r, r.pick(['float _fz_r = _fz_a(1.0f);', 'float _fz_r = _fz_t<1000000>(1.0f);'])),
  },
  { name: 'call-bomb', apply: (t, r) => braceInsertStatement([...cudaCallBomb(40), t].join('\n'), r, 'float _fz_r = _fz_h0(1.0f);') },
  { name: 'many-copies', apply: (t, r) => Array.from({ length: r.pick([20, 60]) }, () => t).join('\n') },
];

// ---------------------------------------------------------------------------
// WGSL (in .wgsl files and in template literals of .ts/.js files)
// ---------------------------------------------------------------------------

const WGSL_CONDITIONS = ['true', '1u > 0u', 'lid.x < 1024u', 'gid.x >= 0u', '_fz_c > 0.0'];
const WGSL_HUGE_LOOPS = [
  'for (var _fz = 0u; _fz < 4294967295u; _fz++) {',
  'for (var _fz: i32 = 0; _fz < 1000000000000000000; _fz++) {',
  'for (var _fz = 0u; _fz < 4294967295u; _fz += 0u) {',
  'for (var _fz = 10u; _fz > 0u; _fz++) {',
  'loop {',
  'while (true) {',
];

const WGSL_RECURSIVE = [
  'fn _fz_a(x: f32) -> f32 { return _fz_b(x) * 2.0; }',
  'fn _fz_b(x: f32) -> f32 { return _fz_a(x) + 1.0; }',
];

function wgslCallBomb(depth: number): string[] {
  const out = [`fn _fz_h${depth}(x: f32) -> f32 { return x * 2.0; }`];
  for (let i = depth - 1; i >= 0; i--) out.push(`fn _fz_h${i}(x: f32) -> f32 { return _fz_h${i + 1}(x) + _fz_h${i + 1}(x); }`);
  return out;
}

const WGSL: Hostile[] = [
  {
    name: 'deep-nesting',
    apply: (t, r) => {
      const { open, close } = nested(r, WGSL_CONDITIONS, (c) => `if (${c}) {`);
      return braceWrap(t, r, open, close);
    },
  },
  { name: 'huge-loop', apply: (t, r) => braceWrap(t, r, [r.pick(WGSL_HUGE_LOOPS)], ['}']) },
  {
    name: 'nested-huge-loops',
    apply: (t, r) => {
      const n = r.pick([3, 40]);
      const open = Array.from({ length: n }, (_, i) => `for (var _fz${i} = 0u; _fz${i} < 1000000000u; _fz${i}++) {`);
      return braceWrap(t, r, open, open.map(() => '}'));
    },
  },
  { name: 'huge-size', apply: (t, r) => replaceNumber(t, r, r.pick(NASTY_NUMBERS.wgsl)) },
  { name: 'long-expression', apply: (t, r) => replaceNumber(t, r, longExpression(r)) },
  {
    name: 'const-chain',
    apply: (t, r) => {
      const n = r.pick([60, 300]);
      const kw = r.pick(['const', 'override']);
      const op = r.pick(['*', '+']);
      const decls = chain(n, `${kw} _FZ0 = 2u;`, (i, p) => `${kw} _FZ${i} = ${p} ${op} ${p};`, (i) => `_FZ${i}`);
      return replaceNumber(insertBefore(t, '@compute', decls), r, `_FZ${n}`);
    },
  },
  {
    name: 'array-type-chain',
    apply: (t, r) => {
      const n = r.pick([40, 300]);
      const decls = chain(n, 'alias _FZT0 = array<f32, 4096>;', (i, p) => `alias _FZT${i} = array<${p}, 2>;`, (i) => `_FZT${i}`);
      return braceInsertStatement(insertBefore(t, '@compute', [...decls, `var<workgroup> _fz_w: _FZT${n};`]), r, '_fz_w = _fz_w;');
    },
  },
  {
    name: 'recursive-helper',
    apply: (t, r) => braceInsertStatement(insertBefore(t, '@compute', WGSL_RECURSIVE), r, 'let _fz_r = _fz_a(1.0);'),
  },
  { name: 'call-bomb', apply: (t, r) => braceInsertStatement(insertBefore(t, '@compute', wgslCallBomb(40)), r, 'let _fz_r = _fz_h0(1.0);') },
  { name: 'many-copies', apply: (t, r) => Array.from({ length: r.pick([20, 60]) }, () => t).join('\n') },
];

export const HOSTILE: Record<FuzzLanguage, readonly Hostile[]> = { triton: TRITON, cuda: CUDA, wgsl: WGSL };
