/**
 * Loops of a WGSL entry point: `for`, `while` and `loop` (with a leading
 * `if (…) { break; }` or a `break if`), their trip counts, and their walk.
 *
 * A loop is recognised by its counter `v`: a start value, a condition
 * `v op bound` and a step (`v++`, `v += c`, `v = v - c`, `v >>= 1u`, `v *= 2u`).
 * Additive steps give exact symbolic counts (`cdiv(bound − start, step)`);
 * multiplicative steps are simulated when their values are known (a halving
 * reduction loop over 256 runs 8 times) and fall back to `log2` otherwise.
 * Counts that depend on the invocation (a block-stride loop starting at
 * `lid.x`) take the largest count, and say so; counts that depend on data stay
 * a named symbol the user can bind.
 *
 * A loop body is walked once into a loop region multiplied by its trips; a
 * loop whose body has a local-id predicate on its counter is unrolled (up to
 * MAX_UNROLL iterations) and its iterations summed.
 */
import type { AssignElem, CallElem, DecrementElem, ExpressionElem, ForElem, IncrementElem, LoopElem, Statement, WhileElem } from 'wesl/core';
import { accumulate, Notes, scaleRegion } from '../../engine/recorder';
import { isSpinCondition, loopTrips, spinWaitTrips, type Cmp, type StepOp } from '../../engine/trips';
import type { Region } from '../../ir';
import { add, evaluate, freeSymbols, max, min, mul, num, sub, sym, type Env, type Expr } from '../../sym/expr';
import type { WgslState } from './state';
import { I32, U32 } from './types';
import { constVal, DEP, hasDep, mergeLoops, opaqueVal, type Range, type Slot, type Val } from './values';

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

// ---------------------------------------------------------------------------
// The walk

export function walkFor(st: WgslState, s: ForElem): void {
  const f = st.frames[st.frames.length - 1];
  f.scopes.push(new Map());
  if (s.init) st.ops.walkStatement(s.init);
  const header = s.condition ? counterCondition(s.condition, false) : undefined;
  const step = header ? stepOf(s.update, header.v) : undefined;
  const line = st.lineOf(s.start);
  const clause = (e: { start: number; end: number } | undefined) => (e ? st.text(e).replace(/;\s*$/, '') : '');
  const label = `for (${clause(s.init)}; ${clause(s.condition)}; ${clause(s.update)})`;
  const info = trips(st, header, step, line);
  const body = [...s.body.body, ...(s.update ? [s.update] : [])];
  walkLoop(st, info, header?.v, line, label, body, s.condition);
  f.scopes.pop();
}

/** The names an expression calls (`atomicCompareExchangeWeak`, `rayQueryProceed`). */
function calledNames(e: ExpressionElem): string[] {
  const out: string[] = [];
  const visit = (x: ExpressionElem | undefined, depth: number): void => {
    if (!x || depth > 64) return;
    switch (x.kind) {
      case 'call-expression': {
        const f = x.function;
        out.push(f.kind === 'ref' ? f.ident.originalName : f.name.originalName);
        for (const a of x.arguments) visit(a, depth + 1);
        return;
      }
      case 'binary-expression':
        visit(x.left, depth + 1);
        visit(x.right, depth + 1);
        return;
      case 'unary-expression':
      case 'parenthesized-expression':
        visit(x.expression, depth + 1);
        return;
      case 'component-expression':
        visit(x.base, depth + 1);
        visit(x.access, depth + 1);
        return;
      case 'component-member-expression':
        visit(x.base, depth + 1);
        return;
      default:
        return;
    }
  };
  visit(e, 0);
  return out;
}

export function walkWhile(st: WgslState, s: WhileElem): void {
  const header = counterCondition(s.condition, false);
  const step = header ? lastStep(s.body.body, header.v) : undefined;
  const line = st.lineOf(s.start);
  const label = `while (${st.text(unparen(s.condition))})`;
  // `while (atomicCompareExchangeWeak(&lock, 0u, 1u).exchanged == false) {}`: a spin-wait, one test (engine/trips.ts).
  const info: TripInfo =
    s.body.body.length === 0 && isSpinCondition(calledNames(s.condition)) ? { trips: spinWaitTrips(label, line, st.quiet ? new Notes() : st.notes).trips, values: undefined, range: undefined, unknown: false } : trips(st, header, step, line);
  walkLoop(st, info, header?.v, line, label, s.body.body, s.condition);
}

export function walkLoopStmt(st: WgslState, s: LoopElem): void {
  const line = st.lineOf(s.start);
  const stmts = s.body.body.filter((x) => x.kind !== 'continuing');
  const cont = s.continuing?.body.body.filter((x) => x.kind !== 'break') ?? [];
  const first = stmts[0];
  let header: ReturnType<typeof counterCondition>;
  let body = [...stmts, ...cont];
  if (first?.kind === 'if' && !first.else && first.body.body.length === 1 && first.body.body[0].kind === 'break') {
    header = counterCondition(first.condition, true);
    body = [...stmts.slice(1), ...cont];
  } else if (s.continuing?.breakIf) header = counterCondition(s.continuing.breakIf, true);
  const step = header ? lastStep([...cont, ...stmts], header.v) : undefined;
  walkLoop(st, trips(st, header, step, line), header?.v, line, 'loop', body);
}

/** Derives a loop's trip count from its counter (engine/trips.ts); unknown counts become the symbol `trips_L<line>`. */
function trips(st: WgslState, header: ReturnType<typeof counterCondition>, step: StepSyntax | undefined, line: number): TripInfo {
  const slot = header && st.lookup(header.v);
  let info: TripInfo;
  if (!header || !step || !slot) info = unknownTrips(line);
  else {
    const bound = st.ops.evalExpr(header.bound);
    const int = slot.val.type.k === 'scalar' && slot.val.type.s === 'i32' ? I32 : U32;
    const c = step.rhs ? st.ops.evalExpr(step.rhs) : constVal(int, num(1), st.env);
    info = tripCount(header.op, slot.val, bound, step.op, c, st.env, line, st.quiet ? new Notes() : st.notes, st.wg);
  }
  // An unknown count is reported by the pipeline (analyze.ts), once per kernel and only while
  // `trips_L<line>` is unbound: saying it here too printed it twice, and also after a --set.
  return info;
}

/**
 * `cond`: the loop's condition, tested once per trip (COUNTING.md: a load counts
 * each time it executes — `while (flags[k] != 0u)` reads memory every trip).
 */
function walkLoop(st: WgslState, info: TripInfo, counter: string | undefined, line: number, label: string, body: Statement[], cond?: ExpressionElem): void {
  const key = `@L${line}`;
  const slot = counter ? st.lookup(counter) : undefined;
  const start = slot?.val;
  const mark = markLog(st);
  const counters = wrappingCounters(st, body);
  markMutated(st, body, counter);
  for (const [v, p] of counters) st.counters.set(v, p);
  const counterVal = (value: number | undefined): Val => ({
    type: start?.type ?? U32,
    deps: DEP.LOOP | ((start?.deps ?? 0) & ~DEP.UNIFORM),
    loops: mergeLoops(start, { type: U32, deps: 0, loops: [key] }),
    range: value === undefined ? info.range : [num(value), num(value)],
    sym: value === undefined ? undefined : num(value),
    fn: (env) => env.get(key),
  });
  let region = loopBody(st, info.trips, line, label, body, slot, counterVal(undefined), cond);
  if (st.needsUnroll.has(key) && info.values && info.values.length <= MAX_UNROLL) {
    resetLog(st, mark);
    const parts = info.values.map((v) => {
      st.unrollEnv.set(key, v);
      return loopBody(st, num(1), line, label, body, slot, counterVal(v), cond);
    });
    st.unrollEnv.delete(key);
    region = mergeUnrolled(parts, line, `${label} (unrolled: ${parts.length} iterations)`);
  }
  st.needsUnroll.delete(key);
  for (const v of counters.keys()) st.counters.delete(v);
  if (slot && start) slot.val = opaqueVal(start.type, start.deps | DEP.MUT);
  if (!st.quiet) st.rec.region.children.push(region);
}

function loopBody(st: WgslState, tripsExpr: Expr, line: number, label: string, body: Statement[], slot: Slot | undefined, counter: Val, cond?: ExpressionElem): Region {
  const region: Region = { kind: 'loop', line, trips: tripsExpr, label, events: [], children: [] };
  const base = st.preds.length;
  if (slot) {
    slot.val = counter;
    slot.loopVar = true;
  }
  const f = st.frames[st.frames.length - 1];
  f.scopes.push(new Map());
  // Walked apart and attached by the caller (an unrolled loop merges its iterations first).
  const quiet = st.quiet;
  st.rec.detached(region, () => {
    st.rec.quiet = quiet;
    if (cond) st.ops.evalExpr(cond);
    st.ops.walkStatements(body);
  });
  f.scopes.pop();
  if (slot) slot.loopVar = false;
  st.restorePreds(base);
  return region;
}

/**
 * Counters the body steps by 1 and wraps at P, as a statement of the body:
 * `v = select(v + 1, 0, v == E);` with E known before the loop (P = E + 1).
 */
function wrappingCounters(st: WgslState, body: Statement[]): Map<string, Expr> {
  const out = new Map<string, Expr>();
  for (const s of body) {
    if (s.kind !== 'assign' || s.op.value !== '=' || s.lhs.kind === 'phony') continue;
    const l = unparen(s.lhs);
    const r = unparen(s.rhs);
    if (l.kind !== 'ref' || r.kind !== 'call-expression') continue;
    const f = r.function;
    const name = f.kind === 'ref' ? f.ident.originalName : f.name.originalName;
    const v = l.ident.originalName;
    const [next, zero, cond] = r.arguments.map(unparen);
    if (name !== 'select' || !next || !zero || !cond) continue;
    const isNext = next.kind === 'binary-expression' && next.operator.value === '+' && isRef(next.left, v) && unparen(next.right).kind === 'literal' && /^1[iu]?$/.test((unparen(next.right) as { value: string }).value);
    const isZero = zero.kind === 'literal' && /^0[iu]?$/.test(zero.value);
    const isCmp = cond.kind === 'binary-expression' && cond.operator.value === '==' && isRef(cond.left, v);
    if (!isNext || !isZero || !isCmp || cond.kind !== 'binary-expression') continue;
    const last = st.quietly(() => st.ops.evalExpr(cond.right));
    if (last.sym && !hasDep(last, DEP.DATA)) out.set(v, add(last.sym, num(1)));
  }
  return out;
}

/** Variables assigned in a loop body change from trip to trip: their values are no longer constants. */
function markMutated(st: WgslState, body: Statement[], counter: string | undefined): void {
  for (const name of assignedNames(body)) {
    if (name === counter) continue;
    const slot = st.lookup(name);
    if (slot && !slot.loopVar) slot.val = opaqueVal(slot.val.type, slot.val.deps | DEP.MUT, slot.val.loops);
  }
}

function markLog(st: WgslState): { notes: [number, number]; accesses: number } {
  return { notes: st.notes.mark(), accesses: st.log.accesses.length };
}

function resetLog(st: WgslState, m: { notes: [number, number]; accesses: number }): void {
  st.notes.reset(m.notes);
  st.log.accesses.length = m.accesses;
}

/** The last top-level statement of a body that steps the counter `v`. */
function lastStep(stmts: Statement[], v: string): StepSyntax | undefined {
  for (let i = stmts.length - 1; i >= 0; i--) {
    const s = stmts[i];
    if (s.kind === 'assign' || s.kind === 'increment' || s.kind === 'decrement') {
      const st = stepOf(s, v);
      if (st) return st;
    }
  }
  return undefined;
}

/** Names of the local variables a statement list assigns (also in nested blocks). */
function assignedNames(stmts: Statement[], out = new Set<string>()): Set<string> {
  const root = (e: ExpressionElem): string | undefined => {
    const u = unparen(e);
    if (u.kind === 'ref') return u.ident.originalName;
    if (u.kind === 'component-expression' || u.kind === 'component-member-expression') return root(u.base);
    return undefined;
  };
  for (const s of stmts) {
    if (s.kind === 'assign' && s.lhs.kind !== 'phony') {
      const n = root(s.lhs);
      if (n) out.add(n);
    } else if (s.kind === 'increment' || s.kind === 'decrement') {
      const n = root(s.target);
      if (n) out.add(n);
    }
    for (const b of childBlocks(s)) assignedNames(b, out);
  }
  return out;
}

function childBlocks(s: Statement): Statement[][] {
  switch (s.kind) {
    case 'block':
      return [s.body];
    case 'if':
      return [s.body.body, ...(s.else ? [s.else.kind === 'if' ? [s.else] : s.else.body] : [])];
    case 'for':
      return [s.body.body, ...(s.update ? [[s.update]] : [])];
    case 'while':
    case 'loop':
      return [s.body.body];
    case 'continuing':
      return [s.body.body];
    case 'switch':
      return s.clauses.map((c) => c.body.body);
    default:
      return [];
  }
}

/** Sums the regions of an unrolled loop's iterations into one loop region that holds their mean. */
function mergeUnrolled(parts: Region[], line: number, label: string): Region {
  const merged: Region = { kind: 'loop', line, trips: num(parts.length), label, events: [], children: [] };
  for (const p of parts) accumulate(merged, p);
  scaleRegion(merged, 1 / Math.max(1, parts.length));
  return merged;
}
