/**
 * Math functions by what they cost (COUNTING.md, "FLOPs"), for every
 * language at once: `tl.exp`, `libdevice.exp`, `expf`, `__expf`, `hexp`,
 * `h2exp` and WGSL's `exp` are all one transcendental. A frontend asks with the
 * name as written; this module strips the language's decorations (namespaces,
 * `__` prefixes, `f`/`h`/`h2` variants, rounding suffixes) and answers with
 * one kind:
 *
 * - `special`: 1 FLOP per element, also a special op (exp, log, sqrt, rsqrt,
 *   sin, tanh, sigmoid, erf, pow, …);
 * - `fma`: 2 FLOPs per element;
 * - `plain`: 1 FLOP per element (rounded add/mul/div, reciprocal, division);
 * - `free`: 0 FLOPs — min, max, abs, clamp, rounding, comparisons, selects,
 *   casts; the result keeps its argument's kind (an integer stays an integer);
 * - undefined: not a math function this table knows.
 */
export type MathKind = 'special' | 'fma' | 'plain' | 'free';

const SPECIAL = [
  'exp', 'exp2', 'exp10', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'inversesqrt', 'cbrt', 'rcbrt',
  'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'sinpi', 'cospi',
  'erf', 'erfc', 'erfinv', 'erfcinv', 'erfcx', 'pow', 'powi', 'normcdf', 'normcdfinv', 'lgamma', 'tgamma', 'hypot',
  'sigmoid', 'gelu', 'softplus', 'logb', 'ilogb', 'j0', 'j1', 'y0', 'y1', 'tanh_approx', 'exp2_approx',
];
const FMA = ['fma', 'fma_sat', 'fma_relu', 'fmaf_ieee'];
const PLAIN = ['add', 'sub', 'mul', 'div', 'fdiv', 'dividef', 'fdividef', 'fdivide', 'rcp', 'frcp', 'drcp', 'fadd', 'fsub', 'fmul', 'dadd', 'dsub', 'dmul', 'ddiv', 'add_sat', 'sub_sat', 'mul_sat'];
const FREE = [
  'min', 'max', 'minimum', 'maximum', 'fmin', 'fmax', 'umin', 'umax', 'llmin', 'llmax', 'min2', 'max2', 'max_nan', 'min_nan', 'clamp',
  'abs', 'fabs', 'labs', 'llabs', 'neg', 'copysign', 'saturate', 'saturatef', 'fdim', 'sign', 'step',
  'floor', 'ceil', 'round', 'trunc', 'rint', 'nearbyint', 'llrint', 'lrint', 'float2int',
  'isnan', 'isinf', 'isfinite', 'isfinited', 'isinfd', 'isnand', 'finite', 'signbit', 'where', 'select',
];

const TABLE = new Map<string, MathKind>();
for (const n of SPECIAL) TABLE.set(n, 'special');
for (const n of FMA) TABLE.set(n, 'fma');
for (const n of PLAIN) TABLE.set(n, 'plain');
for (const n of FREE) TABLE.set(n, 'free');

const cache = new Map<string, MathKind | null>();

/** The cost kind of a math function, from its name as written in any of the languages. */
export function mathKind(name: string): MathKind | undefined {
  const hit = cache.get(name);
  if (hit !== undefined) return hit ?? undefined;
  const k = classify(name);
  cache.set(name, k ?? null);
  return k;
}

function classify(written: string): MathKind | undefined {
  // Namespaces: tl.exp, libdevice.exp, tl.math.exp, std::exp, cuda::std::exp, math.exp.
  let n = written.replace(/^.*(::|\.)/, '').toLowerCase();
  const direct = TABLE.get(n);
  if (direct) return direct;
  n = n.replace(/^__+/, '').replace(/^fast_/, '');
  // Rounding and variant suffixes: _rn, _rz, _ru, _rd, _ieee_rn, _sat, _relu, _approx, _ftz.
  n = n.replace(/(_ieee)?(_r[nzud])?(_sat|_relu|_approx|_ftz)?$/, '');
  const candidates = [n];
  // Half and half2 variants (hexp, h2exp, hadd2), float variants (expf, fmaf, sqrtf), double (__dsqrt).
  if (/^h2/.test(n)) candidates.push(n.slice(2));
  if (/^h/.test(n)) candidates.push(n.slice(1));
  for (const c of [...candidates]) {
    if (/2$/.test(c)) candidates.push(c.slice(0, -1));
    if (/f$/.test(c)) candidates.push(c.slice(0, -1));
    if (/^[fd](sqrt|rsqrt|rcp|add|sub|mul|div|fma)/.test(c)) candidates.push(c.slice(1));
  }
  for (const c of candidates) {
    const k = TABLE.get(c);
    if (k) return k;
  }
  return undefined;
}
