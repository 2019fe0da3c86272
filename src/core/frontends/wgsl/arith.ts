/**
 * Operators on abstract WGSL values (pure): negation, logical operators,
 * comparisons, arithmetic and bitwise operators with their symbolic, interval
 * and concrete parts, `min`/`max`/`clamp`/`select` on indices, and the types
 * of matrix products. Costs are charged by the callers (expr.ts, calls.ts),
 * which know the invocations executing the code.
 */
import { add, div, floordiv, freeSymbols, max as emax, min as emin, mod, mul, neg, num, sub, type Expr } from '../../sym/expr';
import { arithResult, BOOL, vec, type WType } from './types';
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
