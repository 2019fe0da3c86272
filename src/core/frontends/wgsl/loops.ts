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
import type { Notes } from '../../engine/recorder';
import { loopTrips, type Cmp, type StepOp } from '../../engine/trips';
import { add, evaluate, freeSymbols, max, min, mul, num, sub, sym, type Env, type Expr } from '../../sym/expr';
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
  /** True when the count is a placeholder symbol. */
  unknown: boolean;
}

/**
 * The trip count of `for (v = start; v op bound; v = v step c)`, by the
 * engine's rules (engine/trips.ts): the frontend only reads the header.
 * Invocation and workgroup ids are the symbols `@lid.*`, `@lidx`, `@wid.*`.
 */
export function tripCount(op: string, start: Val, bound: Val, step: string, c: Val, env: Env, line: number, notes: Notes, wg: Expr[]): TripInfo {
  if ([start, bound, c].some((x) => hasDep(x, DEP.DATA) || hasDep(x, DEP.MUT))) return unknownTrips(line);
  if (!start.sym || !bound.sym || !c.sym || !isCmp(op) || !isStep(step)) return unknownTrips(line);
  const t = loopTrips(
    {
      line,
      start: start.sym,
      bound: bound.sym,
      cmp: op,
      op: step,
      step: c.sym,
      unitIndex: new Map(['x', 'y', 'z'].map((d) => [`@wid.${d}`, sym(`num_workgroups.${d}`)])),
      threadIndex: new Map(['@lid.x', '@lid.y', '@lid.z', '@lidx'].map((n) => [n, num(0)])),
      env,
    },
    notes,
  );
  if (t.unknown) return unknownTrips(line);
  if (step === '+' || step === '-') {
    const cv = evaluate(c.sym, env);
    const up = step === '+' ? cv === undefined || cv > 0 : cv !== undefined && cv < 0;
    const stride = cv !== undefined && cv < 0 ? mul(num(-1), c.sym) : c.sym;
    const last = mul(stride, sub(t.trips, num(1)));
    const range: Range | undefined = start.range && (up ? [start.range[0], add(start.range[1], last)] : [sub(start.range[0], last), start.range[1]]);
    const varies = !isIdFree(start.sym) || !isIdFree(bound.sym);
    return { trips: t.trips, values: varies ? undefined : additiveValues(start.sym, t.trips, stride, up, env), range, unknown: false };
  }
  const values = t.values;
  const range: Range | undefined = values && values.length ? [num(Math.min(...values)), num(Math.max(...values))] : [min(start.sym, bound.sym), max(start.sym, bound.sym)];
  return { trips: t.trips, values, range, unknown: false };
}

function isIdFree(e: Expr): boolean {
  for (const s of freeSymbols(e)) if (s.startsWith('@')) return false;
  return true;
}

function isCmp(op: string): op is Cmp {
  return op === '<' || op === '<=' || op === '>' || op === '>=' || op === '!=';
}

function isStep(op: string): op is StepOp {
  return ['+', '-', '*', '/', '<<', '>>'].includes(op);
}

export function unknownTrips(line: number): TripInfo {
  return { trips: sym(`trips_L${line}`), values: undefined, range: undefined, unknown: true };
}

function additiveValues(a: Expr, trips: Expr, stride: Expr, up: boolean, env: Env): number[] | undefined {
  const [av, tv, sv] = [evaluate(a, env), evaluate(trips, env), evaluate(stride, env)];
  if (av === undefined || tv === undefined || sv === undefined || tv > MAX_UNROLL || !Number.isInteger(tv)) return undefined;
  return Array.from({ length: Math.max(0, tv) }, (_, i) => (up ? av + i * sv : av - i * sv));
}
