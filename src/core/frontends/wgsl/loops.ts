/**
 * Trip counts of WGSL loops.
 *
 * A loop is recognised by its counter `v`: a start value, a condition
 * `v op bound` and a step (`v++`, `v += c`, `v = v - c`, `v >>= 1u`, `v *= 2u`).
 * Additive steps give exact symbolic counts (`cdiv(bound − start, step)`);
 * multiplicative steps are simulated when their values are known (a halving
 * reduction loop over 256 runs 8 times) and fall back to `log2` otherwise.
 * Counts that depend on the invocation (a block-stride loop starting at
 * `lid.x`) take the largest count, and say so; counts that depend on data stay
 * a named symbol the user can bind.
 */
import type { AssignElem, DecrementElem, ExpressionElem, IncrementElem, CallElem } from 'wesl/core';
import { add, cdiv, evaluate, log2, max, min, mul, num, printExpr, sub, sym, div, type Env, type Expr } from '../../sym/expr';
import { DEP, hasDep, type Range, type Val } from './values';

/** Loops longer than this are not unrolled to count per-iteration predicates. */
export const MAX_UNROLL = 1024;

export interface StepSyntax {
  /** `+`, `-`, `*`, `/`, `<<`, `>>`. */
  op: string;
  /** The step operand; undefined means 1 (`v++`, `v--`). */
  rhs: ExpressionElem | undefined;
}

const COMPOUND: Record<string, string> = { '+=': '+', '-=': '-', '*=': '*', '/=': '/', '<<=': '<<', '>>=': '>>' };

/** The counter update of a `for` update clause or loop body statement, if it updates `v`. */
export function stepOf(stmt: AssignElem | IncrementElem | DecrementElem | CallElem | undefined, v: string): StepSyntax | undefined {
  if (!stmt) return undefined;
  if (stmt.kind === 'increment' || stmt.kind === 'decrement')
    return isRef(stmt.target, v) ? { op: stmt.kind === 'increment' ? '+' : '-', rhs: undefined } : undefined;
  if (stmt.kind !== 'assign' || stmt.lhs.kind === 'phony' || !isRef(stmt.lhs, v)) return undefined;
  const op = stmt.op.value;
  if (op in COMPOUND) return { op: COMPOUND[op], rhs: stmt.rhs };
  if (op !== '=') return undefined;
  const r = unparen(stmt.rhs);
  if (r.kind !== 'binary-expression') return undefined;
  const bop = r.operator.value;
  if (!['+', '-', '*', '/', '<<', '>>'].includes(bop)) return undefined;
  if (isRef(r.left, v)) return { op: bop, rhs: r.right };
  if ((bop === '+' || bop === '*') && isRef(r.right, v)) return { op: bop, rhs: r.left };
  return undefined;
}

export function unparen(e: ExpressionElem): ExpressionElem {
  return e.kind === 'parenthesized-expression' ? unparen(e.expression) : e;
}

export function isRef(e: ExpressionElem, v: string): boolean {
  const u = unparen(e);
  return u.kind === 'ref' && u.ident.originalName === v;
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
const NEGATE: Record<string, string> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };

/** `v op bound` from a condition, with `v` moved to the left. */
export function counterCondition(cond: ExpressionElem, negate: boolean): { v: string; op: string; bound: ExpressionElem } | undefined {
  const c = unparen(cond);
  if (c.kind !== 'binary-expression' || !(c.operator.value in FLIP)) return undefined;
  let op: string = c.operator.value;
  if (negate) op = NEGATE[op];
  const l = unparen(c.left);
  const r = unparen(c.right);
  if (l.kind === 'ref') return { v: l.ident.originalName, op, bound: c.right };
  if (r.kind === 'ref') return { v: r.ident.originalName, op: FLIP[op], bound: c.left };
  return undefined;
}

export interface TripInfo {
  trips: Expr;
  /** The counter's values, when known and few enough to unroll. */
  values: number[] | undefined;
  /** The counter's interval over all trips. */
  range: Range | undefined;
  /** Why the count is only an upper bound or approximate, for the hover. */
  note?: string;
  /** True when the count is a placeholder symbol. */
  unknown: boolean;
}

/** The trip count of `for (v = start; v op bound; v = v step c)`. */
export function tripCount(op: string, start: Val, bound: Val, step: string, c: Val, env: Env, line: number): TripInfo {
  if ([start, bound, c].some((x) => hasDep(x, DEP.DATA) || hasDep(x, DEP.MUT))) return unknownTrips(line);
  if (step === '+' || step === '-') return additive(op, start, bound, step, c, env, line);
  return multiplicative(op, start, bound, step, c, env, line);
}

export function unknownTrips(line: number): TripInfo {
  return { trips: sym(`trips_L${line}`), values: undefined, range: undefined, unknown: true };
}

function additive(op: string, start: Val, bound: Val, step: string, c: Val, env: Env, line: number): TripInfo {
  if (!c.sym || c.deps !== 0) return unknownTrips(line);
  const cv = evaluate(c.sym, env);
  const up = step === '+' ? cv === undefined || cv > 0 : cv !== undefined && cv < 0;
  const stride = cv !== undefined && cv < 0 ? mul(num(-1), c.sym) : c.sym;
  const a = start.sym ?? (up ? start.range?.[0] : start.range?.[1]);
  const b = bound.sym ?? (up ? bound.range?.[1] : bound.range?.[0]);
  if (!a || !b) return unknownTrips(line);
  const varies = !start.sym || !bound.sym;
  let span: Expr | undefined;
  if (up && (op === '<' || op === '!=')) span = sub(b, a);
  else if (up && op === '<=') span = add(sub(b, a), num(1));
  else if (!up && (op === '>' || op === '!=')) span = sub(a, b);
  else if (!up && op === '>=') span = add(sub(a, b), num(1));
  if (!span) return unknownTrips(line);
  const trips = cdiv(span, stride);
  const last = mul(stride, sub(trips, num(1)));
  const range: Range | undefined = start.range && (up ? [start.range[0], add(start.range[1], last)] : [sub(start.range[0], last), start.range[1]]);
  const info: TripInfo = { trips, values: additiveValues(a, trips, stride, up, env, varies), range, unknown: false };
  if (varies) info.note = `trip count of the loop at line ${line} varies across invocations; the largest (${printExpr(trips)}) is counted`;
  return info;
}

function additiveValues(a: Expr, trips: Expr, stride: Expr, up: boolean, env: Env, varies: boolean): number[] | undefined {
  const [av, tv, sv] = [evaluate(a, env), evaluate(trips, env), evaluate(stride, env)];
  if (varies || av === undefined || tv === undefined || sv === undefined || tv > MAX_UNROLL) return undefined;
  return Array.from({ length: Math.max(0, tv) }, (_, i) => (up ? av + i * sv : av - i * sv));
}

const STEPS: Record<string, (v: number, c: number) => number> = {
  '*': (v, c) => v * c,
  '/': (v, c) => Math.trunc(v / c),
  '<<': (v, c) => v * 2 ** c,
  '>>': (v, c) => Math.floor(v / 2 ** c),
};

const TESTS: Record<string, (v: number, b: number) => boolean> = {
  '<': (v, b) => v < b,
  '<=': (v, b) => v <= b,
  '>': (v, b) => v > b,
  '>=': (v, b) => v >= b,
  '!=': (v, b) => v !== b,
};

function multiplicative(op: string, start: Val, bound: Val, step: string, c: Val, env: Env, line: number): TripInfo {
  const [a, b, cv] = [start.sym && evaluate(start.sym, env), bound.sym && evaluate(bound.sym, env), c.sym && evaluate(c.sym, env)];
  const next = STEPS[step];
  const test = TESTS[op];
  if (!next || !test) return unknownTrips(line);
  if (typeof a === 'number' && typeof b === 'number' && typeof cv === 'number') return simulate(a, b, cv, next, test, line);
  return symbolicLog(op, start, bound, step, c, env, line);
}

function simulate(a: number, b: number, c: number, next: (v: number, c: number) => number, test: (v: number, b: number) => boolean, line: number): TripInfo {
  const values: number[] = [];
  let v = a;
  while (test(v, b)) {
    values.push(v);
    const w = next(v, c);
    if (w === v || values.length > 64) return unknownTrips(line);
    v = w;
  }
  const lo = values.length ? Math.min(...values) : a;
  const hi = values.length ? Math.max(...values) : a;
  return { trips: num(values.length), values, range: [num(lo), num(hi)], unknown: false };
}

/** Halving and doubling loops over symbolic bounds: exact for powers of two. */
function symbolicLog(op: string, start: Val, bound: Val, step: string, c: Val, env: Env, line: number): TripInfo {
  const unit = (step === '<<' || step === '>>') && c.sym && evaluate(c.sym, env) === 1;
  const two = (step === '*' || step === '/') && c.sym && evaluate(c.sym, env) === 2;
  if (!(unit || two) || !start.sym || !bound.sym) return unknownTrips(line);
  const shrinking = step === '>>' || step === '/';
  let trips: Expr | undefined;
  if (shrinking && (op === '>' || op === '>=')) {
    const toZero = evaluate(bound.sym, env) === 0 && op === '>';
    trips = toZero ? add(log2(start.sym), num(1)) : add(log2(div(start.sym, bound.sym)), num(op === '>=' ? 1 : 0));
  } else if (!shrinking && (op === '<' || op === '<=')) trips = add(log2(div(bound.sym, start.sym)), num(op === '<=' ? 1 : 0));
  if (!trips) return unknownTrips(line);
  const range: Range = [min(start.sym, bound.sym), max(start.sym, bound.sym)];
  return {
    trips,
    values: undefined,
    range,
    unknown: false,
    note: `trip count of the loop at line ${line} (${printExpr(trips)}) assumes power-of-two bounds`,
  };
}
