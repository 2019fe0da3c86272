/**
 * Loops. The body runs once, in a loop region whose trip count comes from
 * the header (exact bounds: `cdiv`, `<=`, strides such as
 * `blockDim.x * gridDim.x`, two-variable headers). Variables stepped by the
 * loop become `start + it·step` with `it` an iteration index symbol, so
 * pointers advanced in the loop (`A += BK`) still index correctly for
 * footprints.
 *
 * Geometric loops (`s >>= 1`, `offset /= 2`) with known bounds run once per
 * step instead — tree reductions and warp shuffles depend on the step's
 * value — and their counts are averaged over a region of log2 trips. With an
 * unknown start they stay symbolic (log2 trips).
 */
import { flipOp } from '../../engine/cond';
import { Notes } from '../../engine/recorder';
import { additiveTrips, geometricTrips, isSpinCondition, spinWaitTrips } from '../../engine/trips';
import type { Region } from '../../ir';
import {
  add,
  cdiv,
  div,
  freeSymbols,
  log2,
  min,
  mul,
  num,
  ONE,
  printExpr,
  scale,
  sub,
  sym,
  ZERO,
  type Expr,
} from '../../sym/expr';
import { condOf, evalExpr } from './expr';
import { linearIn, mapSyms } from './indexsyms';
import type { Cell, Interp } from './state';
import { execStmt } from './stmt';
import { briefText, lineOf, named, type Node } from './syntax';
import { clipVariables, evalCond } from './threads';
import { sizeOf } from './types';
import type { Cond, Val } from './values';

type Step =
  | { kind: 'add'; delta: Expr }
  | { kind: 'geo'; factor: number; up: boolean }
  | { kind: 'vary' };

const MAX_UNROLL = 64;

export function forStatement(st: Interp, n: Node): void {
  st.pushScope();
  try {
    const init = n.childForFieldName('initializer');
    if (init) {
      if (init.type === 'declaration') execStmt(st, init);
      else evalExpr(st, init);
    }
    const steps = new Map<string, Step>();
    collectSteps(st, n.childForFieldName('update'), steps);
    runLoop(st, n, n.childForFieldName('condition'), steps, n.childForFieldName('body'));
  } finally {
    st.popScope();
  }
}

/** `while`/`do`: the variables the body steps at its top level drive the trip count. */
export function whileStatement(st: Interp, n: Node): void {
  const body = n.childForFieldName('body');
  // `while (atomicCAS(lock, 0, 1) != 0);`: a spin-wait, one test (engine/trips.ts).
  const cond = n.childForFieldName('condition');
  const calls = cond ? cond.descendantsOfType('call_expression').map((c) => c.childForFieldName('function')?.text ?? '') : [];
  if (body && (body.type === 'expression_statement' || body.type === 'compound_statement') && named(body).length === 0 && isSpinCondition(calls)) {
    const what = n.type === 'do_statement' ? 'do … while' : `while ${briefText(n.childForFieldName('condition')?.text ?? '', 60)}`;
    const trips = st.host ? ONE : spinWaitTrips(what, lineOf(n), st.notes).trips;
    return regionLoop(st, n, trips, new Map(), body);
  }
  runLoop(st, n, n.childForFieldName('condition'), new Map(), body);
}

// ------------------------------------------------------------------ steps

/** Steps of the loop variables in a header update (or a top-level statement of a `while` body). */
function collectSteps(st: Interp, n: Node | null, out: Map<string, Step>): void {
  if (!n) return;
  if (n.type === 'comma_expression') {
    collectSteps(st, n.childForFieldName('left'), out);
    collectSteps(st, n.childForFieldName('right'), out);
    return;
  }
  const target = n.type === 'update_expression' ? n.childForFieldName('argument') : n.type === 'assignment_expression' ? n.childForFieldName('left') : null;
  if (!target || target.type !== 'identifier') return;
  const step = stepOf(st, n, target.text);
  const prev = out.get(target.text);
  if (prev && prev.kind === 'add' && step.kind === 'add') out.set(target.text, { kind: 'add', delta: add(prev.delta, step.delta) });
  else out.set(target.text, prev ? { kind: 'vary' } : step);
}

function stepOf(st: Interp, n: Node, name: string): Step {
  const op = n.childForFieldName('operator')?.text ?? '';
  if (n.type === 'update_expression') return { kind: 'add', delta: num(op === '--' ? -1 : 1) };
  let right = n.childForFieldName('right');
  let aop = op.slice(0, -1);
  if (op === '=') {
    const l = right?.type === 'binary_expression' ? right.childForFieldName('left') : null;
    if (!l || l.type !== 'identifier' || l.text !== name) return { kind: 'vary' };
    aop = right!.childForFieldName('operator')?.text ?? '';
    right = right!.childForFieldName('right');
  }
  st.silent++;
  const v = right ? evalExpr(st, right) : undefined;
  st.silent--;
  const e = v?.e;
  if (!e || v.data || !st.syms.uniform(e)) return { kind: 'vary' };
  const c = e.constant;
  switch (aop) {
    case '+':
      return { kind: 'add', delta: e };
    case '-':
      return { kind: 'add', delta: scale(e, -1) };
    case '*':
      return c !== undefined && c > 1 ? { kind: 'geo', factor: c, up: true } : { kind: 'vary' };
    case '/':
      return c !== undefined && c > 1 ? { kind: 'geo', factor: c, up: false } : { kind: 'vary' };
    case '<<':
      return c !== undefined && c > 0 ? { kind: 'geo', factor: Math.pow(2, c), up: true } : { kind: 'vary' };
    case '>>':
      return c !== undefined && c > 0 ? { kind: 'geo', factor: Math.pow(2, c), up: false } : { kind: 'vary' };
    default:
      return { kind: 'vary' };
  }
}

/** Variables of enclosing scopes that the body assigns anywhere (not through a clean top-level step). */
function assignedInBody(st: Interp, body: Node | null, steps: Map<string, Step>): Map<string, Step> {
  const out = new Map<string, Step>(steps);
  if (!body) return out;
  const top = new Set<number>();
  const topSteps = new Map<string, Step>();
  for (const s of body.type === 'compound_statement' ? named(body) : [body])
    if (s.type === 'expression_statement' && named(s)[0]) {
      const e = named(s)[0];
      if (e.type === 'assignment_expression' || e.type === 'update_expression') {
        top.add(e.startIndex);
        collectSteps(st, e, topSteps);
      }
    }
  for (const a of body.descendantsOfType(['assignment_expression', 'update_expression'])) {
    let t = a.type === 'update_expression' ? a.childForFieldName('argument') : a.childForFieldName('left');
    // A member of a struct held in a variable (`acc.sum += v`): the variable varies.
    let member = false;
    while (t && t.type === 'field_expression' && t.childForFieldName('operator')?.text !== '->') {
      t = t.childForFieldName('argument');
      member = true;
    }
    if (member && t?.type === 'identifier' && st.frame.scope.lookup(t.text) && !out.has(t.text)) {
      out.set(t.text, { kind: 'vary' });
      continue;
    }
    if (!t || t.type !== 'identifier' || !st.frame.scope.lookup(t.text)) continue;
    if (out.has(t.text) && steps.has(t.text)) {
      out.set(t.text, { kind: 'vary' });
      continue;
    }
    if (!top.has(a.startIndex)) out.set(t.text, { kind: 'vary' });
    else if (!out.has(t.text)) out.set(t.text, topSteps.get(t.text) ?? { kind: 'vary' });
  }
  return out;
}

/** The value of a stepped variable after `k` steps. */
function advance(st: Interp, v: Val, step: Step, k: Expr): Val {
  if (step.kind !== 'add') return varying(st, v);
  if (v.ptr) {
    const view = v.ty.k === 'ptr' ? v.ty.to : v.ptr.baseTy;
    return { ...v, ptr: { ...v.ptr, off: add(v.ptr.off, mul(k, step.delta, num(sizeOf(view)))) } };
  }
  if (v.e) return { ...v, e: add(v.e, mul(k, step.delta)), konst: false };
  return { ...v, konst: false };
}

/** A value that changes in ways the analysis does not follow (a struct's members too). */
function varying(st: Interp, v: Val, depth = 0): Val {
  if (v.ptr) return { ...v, ptr: { ...v.ptr, exact: false } };
  if (v.e) return { ...v, e: st.syms.fresh('?', { kind: 'opaque', lo: ZERO, hi: ZERO }), konst: false };
  if (v.obj?.fields && v.obj.kind === 'struct' && depth < 8) {
    const fields = new Map([...v.obj.fields].map(([f, x]) => [f, varying(st, x, depth + 1)] as const));
    return { ...v, konst: false, obj: { ...v.obj, fields } };
  }
  return { ...v, konst: false };
}

// ------------------------------------------------------------------ trip counts

/** Evaluates the loop condition with each stepped variable as a placeholder symbol. */
function symbolicCondition(st: Interp, condNode: Node, names: string[]): Cond | undefined {
  st.pushScope();
  st.silent++;
  try {
    for (const name of names) {
      const cell = st.frame.scope.lookup(name);
      if (cell?.val.e) st.declare(name, { ...cell, val: { ...cell.val, e: sym(placeholder(name)) } });
    }
    const v = evalExpr(st, condNode);
    return v.data && !v.cond ? undefined : condOf(v);
  } finally {
    st.silent--;
    st.popScope();
  }
}

function placeholder(name: string): string {
  return `$loop.${name}`;
}

/** Trip count of `cond` with variables starting at `start` and moving by `delta` per iteration (engine/trips.ts). */
function tripsOf(st: Interp, n: Node, c: Cond, start: Map<string, Expr>, delta: Map<string, Expr>): Expr | undefined {
  if (c.k === 'and') {
    const l = tripsOf(st, n, c.l, start, delta);
    const r = tripsOf(st, n, c.r, start, delta);
    return l && r ? min(l, r) : (l ?? r);
  }
  if (c.k !== 'cmp') return undefined;
  const d = c.op === '>' || c.op === '>=' ? sub(c.a, c.b) : sub(c.b, c.a);
  let d0 = d;
  let rate: Expr = ZERO;
  let uses = false;
  for (const [name, s] of start) {
    const lin = linearIn(d, placeholder(name));
    if (!lin) return undefined;
    if (!lin.c1.isZero()) uses = true;
    rate = add(rate, mul(lin.c1, delta.get(name) ?? ZERO));
    d0 = mapSyms(d0, (x) => (x === placeholder(name) ? s : undefined));
  }
  const stride = scale(rate, -1);
  if (!uses || stride.isZero() || (stride.constant !== undefined && stride.constant < 0)) return undefined;
  const span = c.op === '<=' || c.op === '>=' ? add(d0, ONE) : d0;
  return countOf(st, n, span, stride);
}

const UNIT_AND_THREAD = new Set(['thread', 'block'] as const);

/**
 * The count of `cdiv(span, stride)` (engine/trips.ts decides unit- and
 * thread-dependent spans); loop iterations and clipped variables of enclosing
 * code are replaced by their representatives first.
 */
function countOf(st: Interp, n: Node, span: Expr, stride: Expr): Expr {
  const s = st.syms.eliminate(span, UNIT_AND_THREAD);
  const d = st.syms.eliminate(stride, UNIT_AND_THREAD);
  if (st.syms.hasOpaque(s) || st.syms.hasOpaque(d)) return unknownTrips(n);
  const axes = ['x', 'y', 'z'] as const;
  const t = additiveTrips(
    st.line(n),
    s,
    d,
    {
      unitIndex: new Map(axes.map((a) => [`blockIdx.${a}`, st.dim(`gridDim.${a}`)])),
      threadIndex: new Map(axes.map((a) => [`threadIdx.${a}`, ZERO])),
      env: st.env(),
    },
    st.host || st.silent > 0 ? new Notes() : st.notes,
  );
  return st.syms.eliminate(t.trips);
}

/** A loop the analysis cannot bound: its trip count is a named symbol the user can bind (`trips_L12`). */
function unknownTrips(n: Node): Expr {
  return sym(`trips_L${lineOf(n)}`);
}

/** `while (false)` runs 0 times, `do … while (false)` once; other constant conditions are not bounded here. */
function constantTrips(st: Interp, n: Node, condNode: Node | null): Expr | undefined {
  if (!condNode) return undefined;
  st.silent++;
  const v = evalExpr(st, condNode);
  st.silent--;
  const holds = v.data ? undefined : evalCond(condOf(v), st.env());
  if (holds !== false) return undefined;
  return n.type === 'do_statement' ? ONE : ZERO;
}

// ------------------------------------------------------------------ running loops

function runLoop(st: Interp, n: Node, condNode: Node | null, header: Map<string, Step>, body: Node | null): void {
  if (st.halted()) return;
  const steps = assignedInBody(st, body, header);
  const geo = [...steps].find(([name, s]) => s.kind === 'geo' && condNode && mentions(condNode, name));
  if (geo && condNode) return geometricLoop(st, n, condNode, geo[0], geo[1] as Extract<Step, { kind: 'geo' }>, steps, body);
  const start = new Map<string, Expr>();
  const delta = new Map<string, Expr>();
  for (const [name, s] of steps) {
    const cell = st.frame.scope.lookup(name);
    if (s.kind === 'add' && cell?.val.e && condNode && mentions(condNode, name)) {
      start.set(name, cell.val.e);
      delta.set(name, s.delta);
    }
  }
  const cond = condNode && start.size > 0 ? symbolicCondition(st, condNode, [...start.keys()]) : undefined;
  const raw = cond ? tripsOf(st, n, cond, start, delta) : undefined;
  const trips = raw ?? constantTrips(st, n, condNode) ?? unknownTrips(n);
  regionLoop(st, n, trips, steps, body);
}

function mentions(n: Node, name: string): boolean {
  if (n.type === 'identifier') return n.text === name;
  return n.descendantsOfType('identifier').some((x) => x.text === name);
}

function header(n: Node): string {
  const body = n.childForFieldName('body');
  if (n.type === 'do_statement') return `do … while ${briefText(n.childForFieldName('condition')?.text ?? '', 60)}`;
  return briefText(body ? n.text.slice(0, body.startIndex - n.startIndex) : n.text, 70);
}

function loopRegion(st: Interp, n: Node, trips: Expr): Region {
  return { kind: 'loop', line: st.line(n), trips, label: header(n), events: [], children: [] };
}

/** A loop whose body runs once with symbolic iteration; `steps` say how variables move. */
function regionLoop(st: Interp, n: Node, trips: Expr, steps: Map<string, Step>, body: Node | null, geoVar?: { name: string; value: Expr }): void {
  const condNode = n.childForFieldName('condition');
  const outer = new Map<string, { cell: Cell; start: Val }>();
  for (const name of steps.keys()) {
    const cell = st.frame.scope.lookup(name);
    if (cell && !cell.alias && !cell.memRef) outer.set(name, { cell, start: cell.val });
  }
  const counters = wrappingCounters(st, body, outer);
  st.inRegion(loopRegion(st, n, trips), () => {
    const it = st.syms.fresh(`it@${st.line(n)}`, { kind: 'iter', lo: ZERO, hi: sub(trips, ONE) });
    st.pushScope();
    for (const [v, p] of counters) st.counters.set(v, p);
    try {
      for (const [name, { cell, start }] of outer) {
        const value = geoVar?.name === name ? { ...start, e: geoVar.value } : advance(st, start, steps.get(name)!, it);
        st.declare(name, { ...cell, val: value });
      }
      if (!geoVar) clipVariables(st, condNode, false, new Set(outer.keys()));
      // The condition is tested once per trip (COUNTING.md: a load counts each time it executes).
      if (condNode) evalExpr(st, condNode);
      execStmt(st, body);
    } finally {
      st.popScope();
      for (const v of counters.keys()) st.counters.delete(v);
    }
  });
  for (const [name, { cell, start }] of outer) cell.val = advance(st, start, steps.get(name)!, trips);
}

/**
 * Counters the body steps by 1 and wraps at P, as a statement of the body:
 * `v = (v == E) ? 0 : v + 1;` with E known before the loop (P = E + 1).
 */
function wrappingCounters(st: Interp, body: Node | null, outer: Map<string, unknown>): Map<string, Expr> {
  const out = new Map<string, Expr>();
  for (const s of body?.type === 'compound_statement' ? named(body) : body ? [body] : []) {
    const a = s.type === 'expression_statement' ? named(s)[0] : undefined;
    if (a?.type !== 'assignment_expression' || a.childForFieldName('operator')?.text !== '=') continue;
    const v = a.childForFieldName('left');
    let r = a.childForFieldName('right');
    while (r?.type === 'parenthesized_expression' && named(r)[0]) r = named(r)[0];
    if (v?.type !== 'identifier' || !outer.has(v.text) || r?.type !== 'conditional_expression') continue;
    let c = r.childForFieldName('condition');
    while (c?.type === 'parenthesized_expression' && named(c)[0]) c = named(c)[0];
    const zero = r.childForFieldName('consequence');
    const next = r.childForFieldName('alternative');
    const isCmp = c?.type === 'binary_expression' && c.childForFieldName('operator')?.text === '==' && c.childForFieldName('left')?.text === v.text;
    const isNext = next?.type === 'binary_expression' && next.childForFieldName('operator')?.text === '+' && next.childForFieldName('left')?.text === v.text && next.childForFieldName('right')?.text === '1';
    if (!isCmp || zero?.text !== '0' || !isNext) continue;
    st.silent++;
    const last = evalExpr(st, c!.childForFieldName('right'));
    st.silent--;
    if (last.e && !last.data) out.set(v.text, add(last.e, ONE));
  }
  return out;
}

function geometricLoop(
  st: Interp,
  n: Node,
  condNode: Node,
  name: string,
  step: { kind: 'geo'; factor: number; up: boolean },
  steps: Map<string, Step>,
  body: Node | null,
): void {
  const cell = st.frame.scope.lookup(name);
  const start = cell?.val.e;
  const cond = start ? symbolicCondition(st, condNode, [name]) : undefined;
  if (!cell || !start || !cond) return regionLoop(st, n, unknownTrips(n), steps, body);
  const env = new Map(st.env());
  const t = geometricTrips(
    {
      line: st.line(n),
      start,
      factor: step.factor,
      up: step.up,
      env: st.env(),
      holds: (v) => {
        env.set(placeholder(name), v);
        return evalCond(cond, env);
      },
      cmp: simpleComparison(cond, name),
    },
    st.host || st.silent > 0 ? new Notes() : st.notes,
  );
  if (t.values) return unrolledLoop(st, n, cell, name, t.values, body);
  if (t.unknown) return regionLoop(st, n, t.trips, steps, body);
  st.assume('geometricSymbolic', st.line(n), printExpr(t.trips));
  const value = st.syms.fresh(`${name}@${st.line(n)}`, { kind: 'geom', lo: ONE, hi: start, avg: t.mean });
  regionLoop(st, n, t.trips, steps, body, { name, value });
}

/** `v op bound` from a loop condition on `v` alone (for a symbolic geometric count). */
function simpleComparison(cond: Cond, name: string): { op: '<' | '<=' | '>' | '>=' | '!=' | '=='; bound: Expr } | undefined {
  if (cond.k !== 'cmp') return undefined;
  const p = placeholder(name);
  const onLeft = freeSymbols(cond.a).has(p);
  const bound = onLeft ? cond.b : cond.a;
  const op = onLeft ? cond.op : flipOp(cond.op);
  if (freeSymbols(bound).has(p) || (onLeft ? cond.a : cond.b).terms.size !== 1) return undefined;
  return { op, bound };
}

/** Runs the body once per value of the loop variable; counts are averaged over a region of `values.length` trips. */
function unrolledLoop(st: Interp, n: Node, cell: Cell, name: string, values: number[], body: Node | null): void {
  st.rec.unrolled(st.line(n), header(n), values.length, (i, stop) => {
    if (st.halted()) return stop();
    st.pushScope();
    try {
      st.declare(name, { ...cell, val: { ...cell.val, e: num(values[i]), konst: false } });
      execStmt(st, body);
    } finally {
      st.popScope();
    }
  });
  cell.val = { ...cell.val, konst: false };
}
