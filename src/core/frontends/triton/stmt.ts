/**
 * Statements of a Triton kernel: assignments, `if`/`elif`/`else`, `for` over
 * `range`/`tl.range`/`tl.static_range`, `while`, `return`. Conditions are
 * classified here and decided by the engine (engine/branch.ts); loop headers
 * are read here and counted by the engine (engine/trips.ts).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import { decide, type BoundsShape, type CondClass, type Side } from '../../engine/branch';
import type { CmpOp } from '../../engine/cond';
import { isSpinCondition, loopTrips, spinWaitTrips, unknownTrips } from '../../engine/trips';
import { say } from '../../messages';
import { add, evaluate, exprKey, mapSyms, mul, num, ONE, sub, sym, type Expr } from '../../sym/expr';
import { binaryOp } from './expr';
import { canonical } from './module';
import { offAdvance, offRange, offUnknown } from './offsets';
import type { TritonState } from './state';
import { isFloat } from '../common';
import { callArgs, dotted, field, line, named, shorten } from './syntax';
import { constInt, NONE, scalar, union, unknown, type Val } from './values';

export function execBlock(st: TritonState, block: Node): void {
  for (const s of named(block)) {
    if (st.halted()) return;
    execStmt(st, s);
  }
}

function execStmt(st: TritonState, s: Node): void {
  switch (s.type) {
    case 'expression_statement':
      for (const e of named(s)) {
        if (e.type === 'assignment') assign(st, e);
        else if (e.type === 'augmented_assignment') augAssign(st, e);
        else st.ops.eval(e);
      }
      return;
    case 'if_statement':
      return execIf(st, s);
    case 'for_statement':
      return execFor(st, s);
    case 'while_statement':
      return execWhile(st, s);
    case 'return_statement': {
      const v = named(s)[0];
      st.frame.returned = v ? st.ops.eval(v) : NONE;
      st.frame.done = true;
      return;
    }
    case 'with_statement': {
      const b = field(s, 'body');
      if (b) execBlock(st, b);
      return;
    }
    case 'ERROR':
      st.notes.push(say('parseError', line(s), `\`${shorten(s.text, 40)}\``));
      return;
    default:
      // pass, break, continue, assert, comments, imports, nested definitions: nothing to count.
      return;
  }
}

function assign(st: TritonState, a: Node): void {
  const left = field(a, 'left');
  const right = field(a, 'right');
  if (!left || !right) return;
  bindTarget(st, left, st.ops.eval(right));
}

export function bindTarget(st: TritonState, left: Node, v: Val): void {
  if (left.type === 'identifier') st.frame.vars.set(left.text, v);
  else if (left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern') {
    named(left).forEach((t, i) => bindTarget(st, t, v.k === 'tuple' ? (v.items[i] ?? unknown('unpack')) : unknown('unpack')));
  }
}

function augAssign(st: TritonState, a: Node): void {
  const left = field(a, 'left');
  const right = field(a, 'right');
  const op = field(a, 'operator')?.text.replace('=', '') ?? '+';
  if (!left || !right || left.type !== 'identifier') {
    if (right) st.ops.eval(right);
    return;
  }
  const cur = st.lookup(left.text) ?? unknown(left.text);
  // A pointer advanced inside a loop was already widened at loop entry: keep its offsets.
  if (cur.k === 'num' && cur.ptr && st.loops.some((l) => l.carried.has(left.text))) {
    st.ops.eval(right);
    return;
  }
  st.frame.vars.set(left.text, binaryOp(st, op, cur, st.ops.eval(right), a));
}

// ------------------------------------------------------------------ conditions

/** What a condition depends on, for the engine's branch policy. */
function classify(st: TritonState, c: Val, cond: Node | null): CondClass {
  const periodic = cond ? periodicOf(st, cond) : undefined;
  if (periodic) return periodic;
  const t = st.truth(c);
  if (t !== undefined) return { k: 'const', value: t };
  if (c.k !== 'num' || c.data) return { k: 'data' };
  if (c.isConst) return { k: 'compile', names: st.missing(c) };
  if (c.pids.length || c.loops.length) {
    // The grid axes of the program ids the condition compares whose size is unknown (one program along them is possible).
    const unknownAxes = [...new Set(c.pids)].sort().map((a) => `tl.num_programs(${a})`).filter((n) => !st.env.has(n));
    return { k: 'bounds', shape: cond ? boundsShape(st, cond) : { k: 'opaque' }, unknownAxes };
  }
  // A run-time scalar argument that is not bound: it may go either way.
  return { k: 'data' };
}

const CMP_OPS = new Set(['<', '<=', '>', '>=', '==', '!=']);

/** `ki == c` / `ki != c` on a wrapping counter of an enclosing loop (see `wrappingCounters`). */
function periodicOf(st: TritonState, cond: Node): CondClass | undefined {
  let n = cond;
  while (n.type === 'parenthesized_expression' && named(n)[0]) n = named(n)[0];
  if (n.type !== 'comparison_operator' || st.counters.size === 0) return undefined;
  const operands = named(n);
  const ops = n.children.filter((x) => !x.isNamed && CMP_OPS.has(x.type)).map((x) => x.type);
  if (operands.length !== 2 || ops.length !== 1 || (ops[0] !== '==' && ops[0] !== '!=')) return undefined;
  const side = operands.findIndex((o) => o.type === 'identifier' && st.counters.has(o.text));
  if (side < 0) return undefined;
  const other = st.rec.quietly(() => st.ops.eval(operands[1 - side]));
  if (other.k !== 'num' || other.data || other.shape.length) return undefined;
  const name = operands[side].text;
  return { k: 'periodic', period: st.counters.get(name)!, on: ops[0] === '==' ? 'then' : 'else', counter: name };
}

/**
 * Counters a loop body steps by 1 and wraps at P: `v = tl.where(v == E, 0, v + 1)` or
 * `v = 0 if v == E else v + 1` as a statement of the body, E known before the loop (P = E + 1).
 */
function wrappingCounters(st: TritonState, body: Node, carried: Set<string>): Map<string, Expr> {
  const out = new Map<string, Expr>();
  for (const s of named(body)) {
    const a = s.type === 'expression_statement' ? named(s)[0] : undefined;
    if (a?.type !== 'assignment') continue;
    const l = field(a, 'left');
    const r = field(a, 'right');
    if (l?.type !== 'identifier' || !carried.has(l.text) || !r) continue;
    const v = l.text;
    let cond: Node | undefined;
    let zero: Node | undefined;
    let next: Node | undefined;
    if (r.type === 'call' && /(^|\.)where$/.test(field(r, 'function')?.text ?? '')) {
      const args = named(field(r, 'arguments') ?? r).filter((x) => x.type !== 'comment');
      [cond, zero, next] = args;
    } else if (r.type === 'conditional_expression') {
      [zero, cond, next] = named(r);
    }
    if (!cond || zero?.text !== '0' || !next) continue;
    const isNext = next.type === 'binary_operator' && field(next, 'operator')?.text === '+' && field(next, 'left')?.text === v && field(next, 'right')?.text === '1';
    const c = cond.type === 'parenthesized_expression' ? named(cond)[0] : cond;
    const cops = c ? named(c) : [];
    const isCmp = c?.type === 'comparison_operator' && cops.length === 2 && cops[0].text === v && c.children.some((x) => x.type === '==');
    if (!isNext || !isCmp) continue;
    const last = st.rec.quietly(() => st.scalarExpr(st.ops.eval(cops[1])));
    if (last) out.set(v, add(last, ONE));
  }
  return out;
}

/**
 * What each side of a bounds check's comparisons is (an index, a number, a
 * size), for the engine's choice of the interior arm. The sides are looked at
 * a second time, quietly: nothing is counted or said again.
 */
function boundsShape(st: TritonState, n: Node): BoundsShape {
  switch (n.type) {
    case 'parenthesized_expression':
      return named(n)[0] ? boundsShape(st, named(n)[0]) : { k: 'opaque' };
    case 'not_operator': {
      const a = field(n, 'argument');
      return a ? { k: 'not', c: boundsShape(st, a) } : { k: 'opaque' };
    }
    case 'boolean_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      const op = field(n, 'operator')?.text;
      if (!l || !r || (op !== 'and' && op !== 'or')) return { k: 'opaque' };
      return { k: op, l: boundsShape(st, l), r: boundsShape(st, r) };
    }
    case 'comparison_operator': {
      const operands = named(n);
      const ops = n.children.filter((c) => !c.isNamed && CMP_OPS.has(c.type)).map((c) => c.type as CmpOp);
      if (operands.length !== ops.length + 1 || !ops.length) return { k: 'opaque' };
      const sides = operands.map((o) => sideOf(st, o));
      // `a < b < c` is `a < b and b < c`.
      let shape: BoundsShape = { k: 'cmp', op: ops[0], a: sides[0], b: sides[1] };
      for (let i = 1; i < ops.length; i++) shape = { k: 'and', l: shape, r: { k: 'cmp', op: ops[i], a: sides[i], b: sides[i + 1] } };
      return shape;
    }
    default:
      return { k: 'opaque' };
  }
}

function sideOf(st: TritonState, n: Node): Side {
  st.notes.muted++;
  try {
    const v = st.rec.quietly(() => st.ops.eval(n));
    if (v.k !== 'num') return 'size';
    if (v.pids.length || v.loops.length) return 'index';
    const x = v.value && v.isConst ? evaluate(v.value, new Map()) : undefined;
    return x ?? 'size';
  } finally {
    st.notes.muted--;
  }
}

function endsWithReturn(block: Node | null): boolean {
  if (!block) return false;
  const sts = named(block);
  return sts.length > 0 && sts[sts.length - 1].type === 'return_statement' && named(sts[sts.length - 1]).length === 0;
}

function execIf(st: TritonState, s: Node): void {
  const alts = s.childrenForFieldName('alternative').filter((x): x is Node => x !== null);
  conditional(st, field(s, 'condition'), field(s, 'consequence'), alts, 0, line(s));
}

/** `if`/`elif` chains: each condition decided in turn, the rest of the chain is the `else`. */
function conditional(st: TritonState, cond: Node | null, cons: Node | null, alts: Node[], i: number, ln: number): void {
  const c = cond ? st.ops.eval(cond) : NONE;
  const rest = alternative(st, alts, i);
  decide(
    st,
    classify(st, c, cond),
    {
      line: ln,
      text: shorten(cond?.text ?? '?', 50),
      then: cons ? () => execBlock(st, cons) : undefined,
      else: rest,
      // An early exit of the kernel (not of an inlined helper returning a value).
      exits: st.frames.length === 1 && endsWithReturn(cons),
    },
  );
}

function alternative(st: TritonState, alts: Node[], i: number): (() => void) | undefined {
  const a = alts[i];
  if (!a) return undefined;
  if (a.type === 'else_clause') {
    const b = field(a, 'body');
    return b ? () => execBlock(st, b) : undefined;
  }
  return () => conditional(st, field(a, 'condition'), field(a, 'consequence'), alts, i + 1, line(a));
}

// ------------------------------------------------------------------ loops

/** Names assigned anywhere in a loop body (loop-carried candidates). */
function assignedIn(body: Node): Set<string> {
  const out = new Set<string>();
  const visit = (n: Node, d: number): void => {
    if (d > 200) return;
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const l = field(n, 'left');
      if (l?.type === 'identifier') out.add(l.text);
      else if (l) for (const c of named(l)) if (c.type === 'identifier') out.add(c.text);
    }
    for (const c of n.namedChildren) if (c) visit(c, d + 1);
  };
  visit(body, 0);
  return out;
}

function rangeArgs(st: TritonState, call: Node): { start: Val; end: Val; step: Val } | undefined {
  const fn = dotted(field(call, 'function'));
  if (!fn) return undefined;
  const c = canonical(fn, st.inp.mod.imports);
  if (c !== 'range' && c !== 'tl.range' && c !== 'tl.static_range') return undefined;
  const vals = callArgs(call).pos.map((p) => st.ops.eval(p));
  if (vals.length === 1) return { start: constInt(0), end: vals[0], step: constInt(1) };
  if (vals.length === 2) return { start: vals[0], end: vals[1], step: constInt(1) };
  if (vals.length >= 3) return { start: vals[0], end: vals[1], step: vals[2] };
  return undefined;
}

/** Unit-index symbols and how many units there are along each. */
function unitIndex(st: TritonState): Map<string, Expr> {
  const m = new Map<string, Expr>();
  for (let a = 0; a < 3; a++) m.set(`tl.program_id(${a})`, st.numPrograms(a));
  return m;
}

function execFor(st: TritonState, s: Node): void {
  const left = field(s, 'left');
  const right = field(s, 'right');
  const body = field(s, 'body');
  if (!left || !right || !body) return;
  const id = ++st.loopIds;
  const ln = line(s);
  const label = `for ${shorten(left.text, 20)} in ${shorten(right.text, 50)}`;
  let trips: Expr;
  let loopVal: Val = unknown('loop variable');
  const r = right.type === 'call' ? rangeArgs(st, right) : undefined;
  const start = r && st.scalarExpr(r.start);
  const end = r && st.scalarExpr(r.end);
  const step = r && st.scalarExpr(r.step);
  if (r && start && end && step) {
    const down = (evaluate(step, st.env) ?? 1) < 0;
    const t = loopTrips(
      { line: ln, start, bound: end, cmp: down ? '>' : '<', op: '+', step, unitIndex: unitIndex(st), threadIndex: new Map(), env: st.env },
      st.notes,
    );
    trips = t.trips;
    const vsym = sym(`⟨${left.text}@${ln}⟩`);
    const pids = r.start.k === 'num' ? r.start.pids : [];
    // Over every program and trip the variable covers [start at the first program, end at the last).
    const first = mapSyms(start, (x) => (x.startsWith('tl.program_id(') ? num(0) : undefined));
    const last = mapSyms(end, (x) => (x.startsWith('tl.program_id(') ? sub(st.numPrograms(Number(x.slice(14, -1))), ONE) : undefined));
    const hi = pids.length ? last : add(start, mul(sub(trips, ONE), step), ONE);
    const off = down ? offUnknown() : offRange(st.atLoopStart(first), st.atLoopStart(hi), null);
    loopVal = scalar(vsym, 'int32', false, { off, loops: [id], pids });
    st.loopStarts.set(exprKey(vsym), start);
  } else if (r) {
    trips = unknownTrips(ln).trips;
    // A range with a bound read from memory: its variable is still an integer index (`i_t.to(tl.int64) * BT`).
    loopVal = scalar(sym(`⟨${left.text}@${ln}⟩`), 'int32', false, { off: offUnknown(), loops: [id], pids: [] });
  } else {
    const it = st.ops.eval(right);
    if (it.k === 'tuple') {
      trips = num(it.items.length);
      loopVal = it.items[0] ?? unknown('loop');
    } else {
      trips = unknownTrips(ln).trips;
      }
  }
  const carried = assignedIn(body);
  bindTarget(st, left, loopVal);
  widenCarriedPointers(st, body, carried, trips);
  const counters = wrappingCounters(st, body, carried);
  markVarying(st, carried, id, body);
  st.loops.push({ id, trips, carried });
  for (const [v, p] of counters) st.counters.set(v, p);
  try {
    st.rec.loop(ln, label, trips, () => execBlock(st, body));
  } finally {
    st.loops.pop();
    for (const v of counters.keys()) st.counters.delete(v);
  }
}

function execWhile(st: TritonState, s: Node): void {
  const body = field(s, 'body');
  const cond = field(s, 'condition');
  if (!body) {
    if (cond) st.ops.eval(cond);
    return;
  }
  const ln = line(s);
  // `while tl.atomic_cas(lock, 0, 1) == 1: pass`: a spin-wait, one test (engine/trips.ts).
  const spin = named(body).every((x) => x.type === 'pass_statement') && isSpinCondition(cond ? cond.descendantsOfType('call').map((c) => field(c, 'function')?.text ?? '') : []);
  const trips = spin ? spinWaitTrips(`while ${shorten(cond?.text ?? '', 50)}`, ln, st.notes).trips : unknownTrips(ln).trips;
  const id = ++st.loopIds;
  const carried = assignedIn(body);
  widenCarriedPointers(st, body, carried, trips);
  markVarying(st, carried, id, body);
  st.loops.push({ id, trips, carried });
  try {
    // The condition is tested once per trip (COUNTING.md: a load counts each time it executes).
    st.rec.loop(ln, `while ${shorten(cond?.text ?? '', 50)}`, trips, () => {
      if (cond) st.ops.eval(cond);
      execBlock(st, body);
    });
  } finally {
    st.loops.pop();
  }
}

function markVarying(st: TritonState, carried: Set<string>, id: number, body: Node): void {
  const additive = additiveOnly(body, carried);
  for (const n of carried) {
    const v = st.lookup(n);
    // A scalar the loop reassigns has its entry value only on the first trip: a condition on it is not
    // decided by that value. Stepped by a constant (`i4_start += num_jobs * BLOCK`) it is an index that
    // moves with the trip, like a loop variable; reset or selected (`ki = tl.where(ki == k_tiles - 1, 0,
    // ki + 1)`) it depends on the trip like data (a condition on it counts its arm as taken, said).
    if (v?.k === 'num' && v.shape.length === 0 && !v.ptr && v.value !== undefined && !isFloat(v.dtype)) {
      const moving = sym(`⟨${n}@${line(body)}⟩`);
      if (additive.has(n)) st.frame.vars.set(n, { ...v, value: moving, isConst: false, off: offUnknown(), loops: union(v.loops, [id]) });
      else st.frame.vars.set(n, { ...v, value: undefined, isConst: false, data: true, off: offUnknown(), loops: union(v.loops, [id]) });
    } else if (v?.k === 'num') st.frame.vars.set(n, { ...v, loops: union(v.loops, [id]) });
    else if (v?.k === 'blockptr') st.frame.vars.set(n, { ...v, loops: union(v.loops, [id]) });
  }
}

/** Names whose every assignment in the body adds to them (`x += e`, `x = x + e`, `x -= e`). */
function additiveOnly(body: Node, names: Set<string>): Set<string> {
  const ok = new Set(names);
  const visit = (n: Node, d: number): void => {
    if (d > 200) return;
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const l = field(n, 'left');
      const targets = l?.type === 'identifier' ? [l.text] : l ? named(l).filter((c) => c.type === 'identifier').map((c) => c.text) : [];
      for (const t of targets) {
        if (!ok.has(t)) continue;
        const op = n.type === 'augmented_assignment' ? field(n, 'operator')?.text : '=';
        const r = field(n, 'right');
        const selfPlus = r?.type === 'binary_operator' && (field(r, 'operator')?.text === '+' || field(r, 'operator')?.text === '-') && field(r, 'left')?.text === t;
        if (!(l?.type === 'identifier' && (op === '+=' || op === '-=' || (op === '=' && selfPlus)))) ok.delete(t);
      }
    }
    for (const c of n.namedChildren) if (c) visit(c, d + 1);
  };
  visit(body, 0);
  return ok;
}

/** Pointers advanced each trip (`p += BK * stride`) cover trips × step: widen them before the body runs. */
function widenCarriedPointers(st: TritonState, body: Node, carried: Set<string>, trips: Expr): void {
  const visit = (n: Node, d: number): void => {
    if (d > 200) return;
    if (n.type === 'augmented_assignment' && field(n, 'operator')?.text === '+=') {
      const l = field(n, 'left');
      const r = field(n, 'right');
      const cur = l?.type === 'identifier' ? st.lookup(l.text) : undefined;
      if (l && r && cur?.k === 'num' && cur.ptr && carried.has(l.text)) {
        const inc = st.rec.quietly(() => {
          st.notes.muted++;
          try {
            return st.ops.eval(r);
          } finally {
            st.notes.muted--;
          }
        });
        const stepOff = inc.k === 'num' ? inc.off : undefined;
        st.frame.vars.set(l.text, { ...cur, off: offAdvance(cur.off, stepOff, trips) });
      }
    }
    for (const c of n.namedChildren) if (c && c.type !== 'for_statement' && c.type !== 'while_statement') visit(c, d + 1);
  };
  visit(body, 0);
}
