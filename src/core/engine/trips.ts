/**
 * Loop trip counts (COUNTING.md, "Which code counts"), once for every
 * language. A frontend reads a loop header into a `LoopHeader` — start,
 * bound, comparison, step — with the symbols of the unit index (and how many
 * units there are along it) and of the thread index; the rules:
 *
 * - additive steps run `cdiv(hi − lo, step)` times (`+1` for `<=`/`>=`);
 *   unit-dependent parts of `lo` and `hi` cancel in the subtraction
 *   (`range(pid*W, (pid+1)*W)` runs `W` times — not a persistent loop);
 * - a span that still depends on the unit index, with a step that is a
 *   multiple of the number of units, is a persistent loop
 *   (`range(pid, n, num_programs)`): the units share the span, each runs
 *   `span(pid = 0) / step` trips on average;
 * - a span that depends on the unit index otherwise (a causal mask's diagonal)
 *   is averaged over the units: the unit index at its mean, `(P − 1) / 2`;
 * - a span that depends on the thread index (a block-strided loop starting at
 *   `threadIdx.x`) counts the first thread's trips;
 * - geometric steps (`*`, `/`, `<<`, `>>`) run once per value when the values
 *   are known (returned, for frontends that unroll), `log2` trips otherwise;
 * - anything else is a named symbol (`trips_L12`) the user can bind — never a
 *   guess.
 */
import { add, cdiv, div, evaluate, exprKey, freeSymbols, log2, mapSyms, num, ONE, printExpr, scale, sub, sym, type Env, type Expr } from '../sym/expr';
import type { Notes } from './recorder';

export type Cmp = '<' | '<=' | '>' | '>=' | '!=';
export type StepOp = '+' | '-' | '*' | '/' | '<<' | '>>';

export interface LoopHeader {
  line: number;
  start: Expr;
  bound: Expr;
  cmp: Cmp;
  op: StepOp;
  step: Expr;
  /** Unit-index symbols (`tl.program_id(0)`, `blockIdx.x`) → the number of units along that axis. */
  unitIndex: ReadonlyMap<string, Expr>;
  /** Thread-index symbols (`threadIdx.x`, `@lid.x`) → their lower bound (0, usually). */
  threadIndex: ReadonlyMap<string, Expr>;
  env: Env;
}

export interface Trips {
  trips: Expr;
  /** The loop variable's values, when the loop is geometric and they are known (≤ 64). */
  values?: number[];
  /** The variable's mean over a symbolic geometric loop (conditions inside use it). */
  mean?: Expr;
  /** True when the count is a placeholder symbol. */
  unknown: boolean;
}

const MAX_GEOMETRIC = 64;

/** The placeholder of a loop the analysis cannot bound. */
export function unknownTrips(line: number): Trips {
  return { trips: sym(`trips_L${line}`), unknown: true };
}

/**
 * Whether a loop that does nothing but test its condition is a spin-wait: the
 * condition calls nothing but atomics and loads (`atomicCAS(lock, 0, 1) != 0`,
 * `flag[0] < 1`). A condition that calls a function doing work
 * (`rayQueryProceed(&rq)`) is not: its trips are work. `calls`: the names the
 * condition calls.
 */
export function isSpinCondition(calls: readonly string[]): boolean {
  return calls.every((c) => /atomic|(^|[._])ld|load/i.test(c));
}

/**
 * A spin-wait: a loop that does nothing but test its condition (`while
 * (atomicCAS(lock, 0, 1) != 0) {}`, `while tl.atomic_cas(L, 0, 1) == 1: pass`).
 * How often it spins is contention, not work: it is counted as one test (the
 * uncontended case), and said. The same rule in every language.
 */
export function spinWaitTrips(what: string, line: number, notes: Notes): Trips {
  notes.assume('spinWait', what, line);
  return { trips: ONE, unknown: false };
}

export function loopTrips(h: LoopHeader, notes: Notes): Trips {
  if (h.op === '+' || h.op === '-') {
    const stepC = evaluate(h.step, h.env);
    // The direction: `i += s` with s > 0 (or unknown, taken as positive) counts up; `i -= s` down.
    const negStep = stepC !== undefined && stepC < 0;
    const up = h.op === '+' ? !negStep : negStep;
    const stride = negStep ? scale(h.step, -1) : h.step;
    let span: Expr | undefined;
    if (up && (h.cmp === '<' || h.cmp === '!=')) span = sub(h.bound, h.start);
    else if (up && h.cmp === '<=') span = add(sub(h.bound, h.start), ONE);
    else if (!up && (h.cmp === '>' || h.cmp === '!=')) span = sub(h.start, h.bound);
    else if (!up && h.cmp === '>=') span = add(sub(h.start, h.bound), ONE);
    if (!span || span.poisoned) return unknownTrips(h.line);
    return additiveTrips(h.line, span, stride, h, notes);
  }
  const c = evaluate(h.step, h.env);
  if (c === undefined) return unknownTrips(h.line);
  const factor = h.op === '<<' || h.op === '>>' ? 2 ** c : c;
  const up = h.op === '*' || h.op === '<<';
  const b = evaluate(h.bound, h.env);
  const test = TEST[h.cmp];
  return geometricTrips(
    { line: h.line, start: h.start, factor, up, env: h.env, holds: b === undefined ? undefined : (v) => test(v, b), cmp: { op: h.cmp, bound: h.bound } },
    notes,
  );
}

export interface SpanContext {
  unitIndex: ReadonlyMap<string, Expr>;
  threadIndex: ReadonlyMap<string, Expr>;
  env: Env;
}

/**
 * Trips of a loop that runs while `span − k·stride > 0`: `cdiv(span, stride)`,
 * with the unit- and thread-dependent spans handled as the header says.
 */
export function additiveTrips(line: number, span: Expr, stride: Expr, h: SpanContext, notes: Notes): Trips {
  const free = freeSymbols(span);
  const units = [...h.unitIndex.keys()].filter((u) => free.has(u));
  if (units.length) {
    const P = units.map((u) => h.unitIndex.get(u)!);
    if (P.some((p) => isMultiple(stride, p))) {
      const atZero = mapSyms(span, (s) => (units.includes(s) || h.threadIndex.has(s) ? num(0) : undefined));
      const trips = div(atZero, stride);
      notes.assume('persistentLoop', line, printExpr(trips));
      return { trips, unknown: false };
    }
    const mean = mapSyms(span, (s) => (units.includes(s) ? scale(sub(h.unitIndex.get(s)!, ONE), 0.5) : h.threadIndex.get(s)));
    const trips = clampTrips(cdiv(mean, stride), h.env);
    notes.assume('unitDependentTrips', line, printExpr(trips));
    return { trips, unknown: false };
  }
  const threads = [...h.threadIndex.keys()].filter((t) => free.has(t));
  if (threads.length) {
    const first = mapSyms(span, (s) => (h.threadIndex.has(s) ? h.threadIndex.get(s)! : undefined));
    const trips = clampTrips(cdiv(first, stride), h.env);
    notes.assume('threadDependentTrips', line, printExpr(trips));
    return { trips, unknown: false };
  }
  return { trips: clampTrips(cdiv(span, stride), h.env), unknown: false };
}

/** A count that evaluates negative runs 0 times. */
function clampTrips(t: Expr, env: Env): Expr {
  const v = evaluate(t, env);
  return v !== undefined && v < 0 ? num(0) : t;
}

/** True when `step` is a whole multiple of `p` (a grid-stride step: `blockDim.x * gridDim.x`, `tl.num_programs(0)`). */
function isMultiple(step: Expr, p: Expr): boolean {
  if (exprKey(step) === exprKey(p)) return true;
  if (p.constant !== undefined) return false;
  const q = div(step, p);
  if (q.poisoned) return false;
  for (const m of q.terms.values()) for (const f of m.factors) if (f.atom.kind === 'fn' && f.atom.fn === 'div') return false;
  return q.terms.size === 1;
}

const TEST: Record<Cmp, (v: number, b: number) => boolean> = {
  '<': (v, b) => v < b,
  '<=': (v, b) => v <= b,
  '>': (v, b) => v > b,
  '>=': (v, b) => v >= b,
  '!=': (v, b) => v !== b,
};

export interface Geometric {
  line: number;
  start: Expr;
  /** The factor the variable is multiplied (up) or divided (down) by each trip. */
  factor: number;
  up: boolean;
  env: Env;
  /** Whether the loop goes on at a value (undefined when it cannot be told). */
  holds?: (v: number) => boolean | undefined;
  /** The condition as `v op bound`, for a symbolic count when the start is not known. */
  cmp?: { op: Cmp | '=='; bound: Expr };
}

/**
 * Halving and doubling loops: once per value when the start is known (the
 * values are returned: conditions inside often depend on them), else
 * `log_factor` trips over symbolic bounds (exact for powers of the factor),
 * with the variable's mean for conditions inside.
 */
export function geometricTrips(g: Geometric, notes: Notes): Trips {
  if (!(g.factor > 1) || !Number.isFinite(g.factor)) return unknownTrips(g.line);
  const v0 = evaluate(g.start, g.env);
  if (v0 !== undefined && Number.isInteger(v0) && g.holds) {
    const values: number[] = [];
    for (let v = v0; values.length <= MAX_GEOMETRIC; v = g.up ? v * g.factor : Math.trunc(v / g.factor)) {
      const h = g.holds(v);
      if (h === undefined) break;
      if (!h) return { trips: num(values.length), values, unknown: false };
      values.push(v);
      if (v === 0) break;
    }
  }
  if (!g.cmp) return unknownTrips(g.line);
  const { op, bound } = g.cmp;
  const perStep = 1 / Math.log2(g.factor);
  const b = evaluate(bound, g.env);
  let out: Trips | undefined;
  if (!g.up && (op === '>' || op === '!=') && b === 0) {
    const trips = add(scale(log2(g.start), perStep), ONE);
    out = { trips, unknown: false, mean: div(scale(sub(scale(g.start, g.factor), ONE), 1 / (g.factor - 1)), trips) };
  } else if (!g.up && op === '>') out = { trips: scale(log2(div(g.start, bound)), perStep), unknown: false };
  else if (!g.up && op === '>=') out = { trips: add(scale(log2(div(g.start, bound)), perStep), ONE), unknown: false };
  else if (g.up && op === '<') out = { trips: scale(log2(div(bound, g.start)), perStep), unknown: false };
  else if (g.up && op === '<=') out = { trips: add(scale(log2(div(bound, g.start)), perStep), ONE), unknown: false };
  if (!out) return unknownTrips(g.line);
  notes.assume('tripsPow2', g.line, printExpr(out.trips));
  return out;
}
