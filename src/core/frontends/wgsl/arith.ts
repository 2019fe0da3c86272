/**
 * Operators on abstract WGSL values (pure): negation, logical operators,
 * comparisons, arithmetic and bitwise operators with their symbolic, interval
 * and concrete parts, `min`/`max`/`clamp`/`select` on indices, and the types
 * of matrix products, and builtins folded on compile-time numbers. Costs are
 * charged by the callers (expr.ts, calls.ts), which know the invocations
 * executing the code.
 */
import { add, div, floordiv, freeSymbols, max as emax, min as emin, mod, mul, neg, num, sub, type Expr } from '../../sym/expr';
import { arithResult, BOOL, vec, type ScalarKind, type WType } from './types';
import {
  constOf,
  joinDeps,
  mergeLoops,
  rangeAdd,
  rangeMax,
  rangeMin,
  rangeMul,
  rangeNeg,
  rangeSub,
  rangeUnion,
  type ConcEnv,
  type Range,
  type Val,
} from './values';

export function negate(v: Val): Val {
  return {
    type: v.type,
    deps: v.deps,
    loops: v.loops,
    sym: v.sym && neg(v.sym),
    range: v.range && rangeNeg(v.range),
    fn: v.fn && ((env) => lift1(v.fn!(env), (a) => -a)),
    comps: v.comps?.map(negate),
  };
}

export function logical(op: string, l: Val, r: Val): Val {
  const fn =
    l.fn && r.fn
      ? (env: ConcEnv) => {
          const a = l.fn!(env);
          if (a === undefined) return undefined;
          if (op === '&&' && !a) return 0;
          if (op === '||' && a) return 1;
          const b = r.fn!(env);
          return b === undefined ? undefined : b ? 1 : 0;
        }
      : undefined;
  return { type: BOOL, deps: joinDeps(l, r), loops: mergeLoops(l, r), fn, names: namesOf(l, r) };
}

/** Named symbols of the operands of a comparison or a logical operator. */
function namesOf(...vs: Val[]): string[] {
  const out = new Set<string>();
  for (const v of vs) {
    if (v.sym) freeSymbols(v.sym, out);
    for (const n of v.names ?? []) out.add(n);
  }
  return [...out];
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

export function compare(op: string, l: Val, r: Val): Val {
  const test = (a: number, b: number): boolean => {
    switch (op) {
      case '==':
        return a === b;
      case '!=':
        return a !== b;
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      default:
        return a >= b;
    }
  };
  const fn = l.fn && r.fn ? (env: ConcEnv) => lift2(l.fn!(env), r.fn!(env), (a, b) => (test(a, b) ? 1 : 0)) : undefined;
  const type = l.type.k === 'vec' ? vec(l.type.n, 'bool') : BOOL;
  const out: Val = { type, deps: joinDeps(l, r), loops: mergeLoops(l, r), fn, names: namesOf(l, r) };
  if (l.lid && r.sym) out.pred = { comp: l.lid, op, bound: r.sym };
  else if (r.lid && l.sym) out.pred = { comp: r.lid, op: FLIP[op], bound: l.sym };
  return out;
}

/** The symbolic, interval and concrete parts of `l op r` for scalars (costs are charged by the caller). */
export function combine(op: string, l: Val, r: Val, int: boolean): Val {
  const out: Val = { type: arithResult(l.type, r.type), deps: joinDeps(l, r), loops: mergeLoops(l, r) };
  if (l.sym && r.sym) out.sym = symOp(op, l.sym, r.sym, int);
  if (l.range && r.range) out.range = rangeOp(op, l.range, r.range, int);
  if (l.fn && r.fn) {
    const f = numOp(op, int);
    if (f) out.fn = (env) => lift2(l.fn!(env), r.fn!(env), f);
  }
  return out;
}

function symOp(op: string, a: Expr, b: Expr, int: boolean): Expr | undefined {
  switch (op) {
    case '+':
      return add(a, b);
    case '-':
      return sub(a, b);
    case '*':
      return mul(a, b);
    case '/':
      return int ? floordiv(a, b) : div(a, b);
    case '%':
      return mod(a, b);
    case '<<':
      return b.constant !== undefined ? mul(a, num(2 ** b.constant)) : undefined;
    case '>>':
      return b.constant !== undefined ? floordiv(a, num(2 ** b.constant)) : undefined;
    case '&':
      return b.constant !== undefined && isMask(b.constant) ? mod(a, num(b.constant + 1)) : undefined;
    default:
      return undefined;
  }
}

function isMask(c: number): boolean {
  return c >= 0 && Number.isInteger(Math.log2(c + 1));
}

function rangeOp(op: string, a: Range, b: Range, int: boolean): Range | undefined {
  const c = constOf(b);
  switch (op) {
    case '+':
      return rangeAdd(a, b);
    case '-':
      return rangeSub(a, b);
    case '*':
      return rangeMul(a, b);
    case '/':
      return c !== undefined && c > 0 ? [int ? floordiv(a[0], num(c)) : div(a[0], num(c)), int ? floordiv(a[1], num(c)) : div(a[1], num(c))] : undefined;
    case '%': {
      const hiA = a[1].constant;
      if (c !== undefined && hiA !== undefined && hiA < c && (a[0].constant ?? -1) >= 0) return a;
      return [num(0), sub(b[1], num(1))];
    }
    case '<<':
      return c !== undefined ? rangeMul(a, [num(2 ** c), num(2 ** c)]) : undefined;
    case '>>':
      return c !== undefined ? [floordiv(a[0], num(2 ** c)), floordiv(a[1], num(2 ** c))] : undefined;
    case '&':
      return c !== undefined && c >= 0 ? [num(0), num(c)] : undefined;
    default:
      return undefined;
  }
}

function numOp(op: string, int: boolean): ((a: number, b: number) => number | undefined) | undefined {
  switch (op) {
    case '+':
      return (a, b) => a + b;
    case '-':
      return (a, b) => a - b;
    case '*':
      return (a, b) => a * b;
    case '/':
      return (a, b) => (b === 0 ? undefined : int ? Math.trunc(a / b) : a / b);
    case '%':
      return (a, b) => (b === 0 ? undefined : a % b);
    case '&':
      return (a, b) => (a & b) >>> 0;
    case '|':
      return (a, b) => (a | b) >>> 0;
    case '^':
      return (a, b) => (a ^ b) >>> 0;
    case '<<':
      return (a, b) => (a << b) >>> 0;
    case '>>':
      return (a, b) => a >>> b;
    default:
      return undefined;
  }
}

export function lift1(a: number | undefined, f: (a: number) => number): number | undefined {
  return a === undefined ? undefined : f(a);
}

export function lift2(a: number | undefined, b: number | undefined, f: (a: number, b: number) => number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : f(a, b);
}

/** `min`, `max`, `clamp`, `select` keep the symbolic / interval / concrete value of index expressions. */
export function indexBuiltin(name: string, args: Val[]): Val | undefined {
  const [a, b, c] = args;
  if (name === 'min' || name === 'max') return a && b ? minMax(name, a, b) : undefined;
  if (name === 'clamp') return a && b && c ? minMax('min', minMax('max', a, b), c) : undefined;
  if (name === 'select' && a && b && c) {
    const fn = a.fn && b.fn && c.fn ? (env: ConcEnv) => (c.fn!(env) ? b.fn!(env) : a.fn!(env)) : undefined;
    return { type: a.type, deps: joinDeps(a, b, c), loops: mergeLoops(a, b, c), range: a.range && b.range ? rangeUnion(a.range, b.range) : undefined, fn };
  }
  return undefined;
}

export function minMax(name: 'min' | 'max', a: Val, b: Val): Val {
  const scalarOp = (x: Val, y: Val): Val => ({
    type: x.type,
    deps: joinDeps(x, y),
    loops: mergeLoops(x, y),
    sym: x.sym && y.sym ? (name === 'min' ? emin(x.sym, y.sym) : emax(x.sym, y.sym)) : undefined,
    range: x.range && y.range ? (name === 'min' ? rangeMin(x.range, y.range) : rangeMax(x.range, y.range)) : undefined,
    fn: x.fn && y.fn ? (env) => lift2(x.fn!(env), y.fn!(env), name === 'min' ? Math.min : Math.max) : undefined,
  });
  const out = scalarOp(a, b);
  out.type = arithResult(a.type, b.type);
  if (a.comps) out.comps = a.comps.map((x, i) => scalarOp(x, b.comps?.[i] ?? b));
  return out;
}

/** FLOPs of a matrix product (`mat × vec`, `vec × mat`, `mat × mat`); undefined for elementwise products. */
export function matrixFlops(a: WType, b: WType): number | undefined {
  if (a.k === 'mat' && b.k === 'vec') return a.r * (2 * a.c - 1);
  if (a.k === 'vec' && b.k === 'mat') return b.c * (2 * b.r - 1);
  if (a.k === 'mat' && b.k === 'mat') return a.r * b.c * (2 * a.c - 1);
  return undefined;
}

export function mulType(a: WType, b: WType): WType {
  if (a.k === 'mat' && b.k === 'vec') return vec(a.r, a.s);
  if (a.k === 'vec' && b.k === 'mat') return vec(b.c, b.s);
  if (a.k === 'mat' && b.k === 'mat') return { k: 'mat', c: b.c, r: a.r, s: a.s };
  return arithResult(a, b);
}

// ---------------------------------------------------------------------------
// Builtins on constants

const U32_MAX = 0xffffffff;

/**
 * The value of a builtin whose arguments are compile-time numbers
 * (`firstTrailingBit(256u)` = 8, `max(WG / 2u, 1u)`), by the WGSL
 * definitions on 32-bit integers; undefined when the builtin is not folded or
 * the arguments do not fit it. `kind` is the scalar kind of the first argument.
 */
export function foldBuiltin(name: string, xs: number[], kind: ScalarKind | undefined): number | undefined {
  const int = kind === 'u32' || kind === 'i32' || kind === 'ai';
  const float = kind === 'f32' || kind === 'f16' || kind === 'af';
  const [a, b, c, d] = xs;
  const out = (v: number): number | undefined => (Number.isFinite(v) ? (int ? toKind(v, kind) : v) : undefined);
  switch (name) {
    case 'min':
      return xs.length === 2 ? out(Math.min(a, b)) : undefined;
    case 'max':
      return xs.length === 2 ? out(Math.max(a, b)) : undefined;
    case 'clamp':
      return xs.length === 3 ? out(Math.min(Math.max(a, b), c)) : undefined;
    case 'select':
      return xs.length === 3 ? out(c ? b : a) : undefined;
    case 'abs':
      return out(Math.abs(a));
    case 'sign':
      return out(Math.sign(a));
    case 'floor':
    case 'ceil':
    case 'trunc':
      return out(Math[name](a));
    case 'round':
      return out(roundHalfEven(a));
    case 'sqrt':
    case 'log2':
      return float && a >= 0 ? out(Math[name](a)) : undefined;
    case 'exp2':
      return float ? out(2 ** a) : undefined;
    case 'pow':
      return float && xs.length === 2 ? out(a ** b) : undefined;
  }
  if (!int || !xs.every(Number.isInteger)) return undefined;
  const bits = a >>> 0;
  switch (name) {
    case 'countOneBits':
      return out(popcount(bits));
    case 'countLeadingZeros':
      return out(Math.clz32(bits));
    case 'countTrailingZeros':
      return out(bits === 0 ? 32 : ctz(bits));
    case 'firstTrailingBit':
      return bits === 0 ? (kind === 'u32' ? U32_MAX : -1) : out(ctz(bits));
    case 'firstLeadingBit':
      if (kind === 'u32') return bits === 0 ? U32_MAX : out(31 - Math.clz32(bits));
      if (a === 0 || a === -1) return -1;
      return out(31 - Math.clz32(a < 0 ? ~a >>> 0 : bits));
    case 'reverseBits': {
      let r = 0;
      for (let i = 0; i < 32; i++) r = r * 2 + ((bits >>> i) & 1);
      return out(r);
    }
    case 'extractBits': {
      if (xs.length !== 3) return undefined;
      const o = Math.min(b >>> 0, 32);
      const n = Math.min(c >>> 0, 32 - o);
      if (n === 0) return 0;
      let v = Math.floor(bits / 2 ** o) % 2 ** n;
      if (kind !== 'u32' && v >= 2 ** (n - 1)) v -= 2 ** n;
      return out(v);
    }
    case 'insertBits': {
      if (xs.length !== 4) return undefined;
      const o = Math.min(c >>> 0, 32);
      const n = Math.min(d >>> 0, 32 - o);
      const mask = (n === 32 ? U32_MAX : ((2 ** n - 1) * 2 ** o) >>> 0) >>> 0;
      return out((((bits & ~mask) >>> 0) | (((b >>> 0) * 2 ** o) & mask)) >>> 0);
    }
    default:
      return undefined;
  }
}

/** A 32-bit result as its kind reads it: `u32` wraps to [0, 2³²), `i32` to [−2³¹, 2³¹). */
function toKind(v: number, kind: ScalarKind | undefined): number {
  if (!Number.isInteger(v)) return v;
  if (kind === 'u32') return v >>> 0;
  if (kind === 'i32') return v | 0;
  return v;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v >>>= 1) n += v & 1;
  return n;
}

function ctz(x: number): number {
  let n = 0;
  for (let v = x >>> 0; (v & 1) === 0 && n < 32; v >>>= 1) n++;
  return n;
}

function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const r = x - f;
  if (r > 0.5) return f + 1;
  if (r < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}
