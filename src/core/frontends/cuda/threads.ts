/**
 * Conditions (COUNTING.md "Which code counts"): each `if`/`?:` condition is
 * classified as
 *   - compile-time (template parameters, `#define`s, bound sizes): evaluated;
 *   - on the thread index only (`tid < s`, `lane == 0`): counted by thread —
 *     the block's threads are enumerated when its size is known, else a
 *     symbolic count is derived;
 *   - a bounds check (involves block indices or loop iterations): true, and
 *     the variables it tests are clipped for footprints; as an early-exit
 *     guard (`if (i >= n) return;`) it is not taken;
 *   - data-dependent (or on a runtime scalar): counted as taken.
 */
import type { Region } from '../../ir';
import { add, cdiv, equals, evaluate, freeSymbols, min, mod, mul, num, ONE, sub, type Expr } from '../../sym/expr';
import { condOf, evalExpr } from './expr';
import { linearIn } from './indexsyms';
import type { Active, Interp } from './state';
import { brief, lineOf, named, type Node } from './syntax';
import { not, type CmpOp, type Cond, type Val } from './values';

export type CondClass =
  | { k: 'const'; value: boolean }
  | { k: 'compile'; names: string[] }
  | { k: 'thread'; cond: Cond }
  | { k: 'bounds' }
  | { k: 'data' }
  | { k: 'runtime' };

export interface Branches {
  yes?: () => void;
  no?: () => void;
  /** An early-exit guard: the consequence only returns (or only continues the loop). */
  guard: 'return' | 'continue' | false;
  /** The condition's syntax, for clipping the variables a bounds check tests. */
  condNode?: Node | null;
}

/** All expressions of a condition, or undefined when part of it is opaque. */
function condExprs(c: Cond, out: Expr[] = []): Expr[] | undefined {
  switch (c.k) {
    case 'cmp':
      out.push(c.a, c.b);
      return out;
    case 'and':
    case 'or':
      return condExprs(c.l, out) && condExprs(c.r, out);
    case 'not':
      return condExprs(c.c, out);
    default:
      return undefined;
  }
}

export function evalCond(c: Cond, env: ReadonlyMap<string, number>): boolean | undefined {
  switch (c.k) {
    case 'cmp': {
      const a = evaluate(c.a, env);
      const b = evaluate(c.b, env);
      if (a === undefined || b === undefined) return undefined;
      return compare(c.op, a, b);
    }
    case 'and': {
      const l = evalCond(c.l, env);
      const r = evalCond(c.r, env);
      if (l === false || r === false) return false;
      return l === undefined || r === undefined ? undefined : true;
    }
    case 'or': {
      const l = evalCond(c.l, env);
      const r = evalCond(c.r, env);
      if (l === true || r === true) return true;
      return l === undefined || r === undefined ? undefined : false;
    }
    case 'not': {
      const x = evalCond(c.c, env);
      return x === undefined ? undefined : !x;
    }
    default:
      return undefined;
  }
}

function compare(op: CmpOp, a: number, b: number): boolean {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    default:
      return a !== b;
  }
}

function classify(st: Interp, v: Val): CondClass {
  if (v.data) return { k: 'data' };
  const c = condOf(v);
  const exprs = condExprs(c);
  if (!exprs) return v.konst ? { k: 'compile', names: [] } : { k: 'runtime' };
  const kinds = new Set<string>();
  const names = new Set<string>();
  for (const e of exprs) {
    for (const k of st.syms.kinds(e)) kinds.add(k);
    for (const n of freeSymbols(e)) if (!st.syms.get(n)) names.add(n);
  }
  if (kinds.has('opaque')) return { k: 'data' };
  if (kinds.has('block') || kinds.has('iter') || kinds.has('clip')) return { k: 'bounds' };
  const env = st.env();
  const unbound = [...names].filter((n) => !env.has(n));
  const runtime = unbound.some((n) => st.runtimeParams.has(n));
  if (kinds.has('thread') || kinds.has('geom')) return runtime ? { k: 'bounds' } : { k: 'thread', cond: c };
  const value = evalCond(c, env);
  if (value !== undefined) return { k: 'const', value };
  return runtime ? { k: 'runtime' } : { k: 'compile', names: unbound };
}

/** Runs the branches of an `if` or `?:` the way COUNTING.md counts them. */
export function chooseBranch(st: Interp, v: Val, n: Node, br: Branches): void {
  const c = classify(st, v);
  const line = st.line(n);
  const text = br.condNode ? brief(br.condNode, 50) : brief(n, 50);
  switch (c.k) {
    case 'const':
      if (c.value && br.guard === 'return') st.frame.returned = true;
      else (c.value ? br.yes : br.no)?.();
      return;
    case 'compile':
      for (const name of c.names) st.needed.add(name);
      st.warn('unknownCondition', n, `condition \`${text}\` cannot be evaluated at compile time: both branches counted (upper bound)`, 'info');
      br.yes?.();
      br.no?.();
      return;
    case 'thread':
      if (br.guard) {
        st.active = restrict(st, st.active, not(c.cond), n);
        return;
      }
      if (br.yes) st.withActive(restrict(st, st.active, c.cond, n), br.yes);
      if (br.no) st.withActive(restrict(st, st.active, not(c.cond), n), br.no);
      return;
    case 'bounds':
      st.assume('masks and bounds checks assumed true (interior tile)');
      if (br.guard) {
        st.assume(`early-exit guard \`${text}\` at line ${line} assumed not taken`);
        clipVariables(st, br.condNode ?? null, true);
        return;
      }
      st.pushScope();
      try {
        clipVariables(st, br.condNode ?? null, false);
        br.yes?.();
      } finally {
        st.popScope();
      }
      return;
    default:
      if (br.guard) {
        st.assume(`early-exit guard \`${text}\` at line ${line} assumed not taken`);
        return;
      }
      takenBranch(st, n, text, br, c.k === 'data' ? 'data-dependent branch' : 'branch on a runtime value');
  }
}

function takenBranch(st: Interp, n: Node, text: string, br: Branches, what: string): void {
  const line = st.line(n);
  st.assume(`${what} \`${text}\` at line ${line} counted as taken`);
  st.warn('dataBranch', n, `${what} \`${text}\` counted as taken (upper bound)`, 'info');
  if (!br.yes) return;
  const r: Region = { kind: 'branch', line, trips: ONE, label: `if (${text})`, events: [], children: [] };
  st.inRegion(r, br.yes);
}

// ------------------------------------------------------------------ counting threads

const MAX_ENUMERATED = 8192;

/** The active threads that also satisfy `c`. */
function restrict(st: Interp, a: Active, c: Cond, n: Node): Active {
  const conds = [...a.conds, c];
  const exact = enumerate(st, conds);
  if (exact !== undefined) return { conds, count: num(exact) };
  const sym = symbolicCount(st, c, a.count);
  if (sym) return { conds, count: sym };
  st.warn('unknownCondition', n, `thread condition \`${brief(n, 50)}\` could not be counted by thread: all active threads counted`, 'info');
  return { conds, count: a.count };
}

/** Counts the threads of the block satisfying every condition, when the block size is known. */
function enumerate(st: Interp, conds: Cond[]): number | undefined {
  const dims = ['x', 'y', 'z'].map((d) => st.value(st.dim(`blockDim.${d}`)));
  if (dims.some((d) => d === undefined || d < 1 || !Number.isInteger(d))) return undefined;
  const [dx, dy, dz] = dims as number[];
  if (dx * dy * dz > MAX_ENUMERATED) return undefined;
  const env = new Map(st.env());
  let count = 0;
  for (let z = 0; z < dz; z++)
    for (let y = 0; y < dy; y++)
      for (let x = 0; x < dx; x++) {
        env.set('threadIdx.x', x);
        env.set('threadIdx.y', y);
        env.set('threadIdx.z', z);
        let all = true;
        for (const c of conds) {
          const v = evalCond(c, env);
          if (v === undefined) return undefined;
          if (!v) {
            all = false;
            break;
          }
        }
        if (all) count++;
      }
  return count;
}

/** A symbolic count of the threads satisfying `c` among `cur` (block size unknown). */
function symbolicCount(st: Interp, c: Cond, cur: Expr): Expr | undefined {
  switch (c.k) {
    case 'and': {
      const l = symbolicCount(st, c.l, cur);
      return l ? symbolicCount(st, c.r, l) : undefined;
    }
    case 'not':
      return c.c.k === 'cmp' ? cmpCount(st, { ...c.c, op: negateOp(c.c.op) }, cur) : undefined;
    case 'cmp':
      return cmpCount(st, c, cur);
    default:
      return undefined;
  }
}

function cmpCount(st: Interp, c: Extract<Cond, { k: 'cmp' }>, cur: Expr): Expr | undefined {
  const d = sub(c.a, c.b);
  for (const axis of ['x', 'y', 'z']) {
    const t = `threadIdx.${axis}`;
    const lin = linearIn(d, t);
    if (!lin || !freeSymbols(d).has(t)) continue;
    const sel = selected(st, lin, c.op, st.dim(`blockDim.${axis}`));
    if (!sel) return undefined;
    const others = ['x', 'y', 'z'].filter((a) => a !== axis).map((a) => st.dim(`blockDim.${a}`));
    const count = mul(sel, ...others);
    return equals(cur, mul(st.dim(`blockDim.${axis}`), ...others)) ? count : min(cur, count);
  }
  return groupCount(st, d, c.op, cur);
}

/** Values of `t` in [0, D) with `c0 + c1·t OP 0` (c1 = ±1). */
function selected(st: Interp, lin: { c0: Expr; c1: Expr }, op: CmpOp, D: Expr): Expr | undefined {
  const c1 = lin.c1.constant;
  if (c1 !== 1 && c1 !== -1) return undefined;
  if (st.syms.kinds(lin.c0).has('thread')) return undefined;
  const bound = st.syms.eliminate(c1 === 1 ? sub(num(0), lin.c0) : lin.c0);
  const o = c1 === 1 ? op : flipOp(op);
  switch (o) {
    case '<':
      return min(bound, D);
    case '<=':
      return min(add(bound, ONE), D);
    case '==':
      return ONE;
    case '!=':
      return sub(D, ONE);
    case '>':
      return sub(D, min(add(bound, ONE), D));
    default:
      return sub(D, min(bound, D));
  }
}

/** Conditions on the lane (`tid % 32`) or the warp (`tid / 32`) of a thread. */
function groupCount(st: Interp, d: Expr, op: CmpOp, cur: Expr): Expr | undefined {
  for (const m of d.terms.values()) {
    if (m.factors.length !== 1 || m.factors[0].pow !== 1) continue;
    const a = m.factors[0].atom;
    if (a.kind !== 'fn' || (a.fn !== 'mod' && a.fn !== 'floordiv')) continue;
    const w = a.args[1].constant;
    if (w === undefined || !st.syms.kinds(a.args[0]).has('thread')) continue;
    if (a.fn === 'floordiv') return op === '==' ? min(cur, num(w)) : undefined;
    const rest = sub(d, mul(num(m.coef), mod(a.args[0], a.args[1])));
    const sel = selected(st, { c0: rest, c1: num(m.coef) }, op, num(w));
    return sel ? mul(sel, cdiv(cur, num(w))) : undefined;
  }
  return undefined;
}

function negateOp(op: CmpOp): CmpOp {
  const m: Record<CmpOp, CmpOp> = { '<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=', '!=': '==' };
  return m[op];
}

function flipOp(op: CmpOp): CmpOp {
  const m: Record<CmpOp, CmpOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
  return m[op];
}

// ------------------------------------------------------------------ clipping for footprints

interface Comparison {
  name: string;
  op: CmpOp;
  bound: Node;
}

/** The `var OP bound` comparisons that hold when `n` is true (or false, with `negate`). */
function comparisons(n: Node | null, negate: boolean, out: Comparison[] = []): Comparison[] {
  if (!n) return out;
  if (n.type === 'parenthesized_expression' || n.type === 'condition_clause') return comparisons(n.childForFieldName('value') ?? named(n)[0] ?? null, negate, out);
  const op = n.childForFieldName('operator')?.text ?? '';
  if (n.type === 'unary_expression' && op === '!') return comparisons(n.childForFieldName('argument'), !negate, out);
  if (n.type !== 'binary_expression') return out;
  const l = n.childForFieldName('left');
  const r = n.childForFieldName('right');
  if (op === (negate ? '||' : '&&')) {
    comparisons(l, negate, out);
    comparisons(r, negate, out);
    return out;
  }
  if (!['<', '<=', '>', '>=', '==', '!='].includes(op) || !l || !r) return out;
  const o = negate ? negateOp(op as CmpOp) : (op as CmpOp);
  if (l.type === 'identifier') out.push({ name: l.text, op: o, bound: r });
  else if (r.type === 'identifier') out.push({ name: r.text, op: flipOp(o), bound: l });
  return out;
}

/**
 * A bounds check `row < M` holds on the interior path: inside it, `row`
 * ranges only up to M − 1. The variable is rebound to a clipped index symbol.
 * A loop condition clips its loop variable the same way (`only`).
 */
export function clipVariables(st: Interp, condNode: Node | null, negate: boolean, only?: Set<string>): void {
  for (const c of comparisons(condNode, negate)) {
    if ((c.op !== '<' && c.op !== '<=') || (only && !only.has(c.name))) continue;
    const cell = st.frame.scope.lookup(c.name);
    const e = cell?.val.e;
    if (!cell || !e || cell.alias || cell.memRef) continue;
    const kinds = st.syms.kinds(e);
    if (!kinds.has('block') && !kinds.has('iter') && !kinds.has('clip')) continue;
    const r = st.syms.interval(e);
    st.silent++;
    const bound = evalExpr(st, c.bound).e;
    st.silent--;
    if (!r || !bound || !st.syms.uniform(bound)) continue;
    const limit = c.op === '<' ? sub(bound, ONE) : bound;
    const a = st.value(r.hi);
    const b = st.value(limit);
    const hi = a !== undefined && b !== undefined && a < b ? r.hi : limit;
    const clipped = st.syms.fresh(`${c.name}@${lineOf(condNode!)}`, { kind: 'clip', lo: r.lo, hi, rep: e });
    st.declare(c.name, { ...cell, val: { ...cell.val, e: clipped } });
  }
}
