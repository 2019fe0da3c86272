/**
 * Conditions (COUNTING.md "Which code counts"): each `if`/`?:` condition is
 * classified here — the engine decides what counts (engine/branch.ts):
 *   - compile-time (template parameters, `#define`s, bound sizes): evaluated;
 *     not bound: the costlier arm;
 *   - on the thread index only (`tid < s`, `lane == 0`): counted by thread
 *     (engine/threads.ts);
 *   - a bounds check (involves block indices or loop iterations): its
 *     in-bounds arm (the engine reads which from the comparisons), and the
 *     variables it tests are clipped for footprints; as an early-exit guard
 *     (`if (i >= n) return;`) it is not taken;
 *   - data-dependent (or on a runtime scalar): the costlier arm.
 */
import { decide, interiorArm, type BoundsShape, type CondClass as EngineClass, type Side } from '../../engine/branch';
import { condExprs, evalCond, flipOp, negateOp, type CmpOp, type Cond } from '../../engine/cond';
import { countThreads, type ThreadSpace } from '../../engine/threads';
import { evaluate, freeSymbols, ONE, sub, type Expr } from '../../sym/expr';
import { condOf, evalExpr } from './expr';
import type { Active, Interp } from './state';
import { brief, lineOf, named, type Node } from './syntax';
import { not, type Val } from './values';

export { evalCond };

export type CondClass =
  | { k: 'const'; value: boolean }
  | { k: 'compile'; names: string[] }
  | { k: 'thread'; cond: Cond }
  | { k: 'bounds'; shape: BoundsShape; unknownAxes?: string[] }
  | { k: 'data' }
  | { k: 'runtime' }
  | { k: 'periodic'; period: Expr; on: 'then' | 'else'; counter: string };

export interface Branches {
  yes?: () => void;
  no?: () => void;
  /** An early-exit guard: the consequence only returns (or only continues the loop). */
  guard: 'return' | 'continue' | false;
  /** The condition's syntax, for clipping the variables a bounds check tests. */
  condNode?: Node | null;
  /** A `?:` (its arms are values). */
  ternary?: boolean;
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
  const mixed = kinds.has('thread') && (kinds.has('block') || kinds.has('iter') || kinds.has('clip')) ? threadWithinBounds(st, c) : undefined;
  if (mixed) return mixed;
  const env = st.env();
  if (kinds.has('block') || kinds.has('iter') || kinds.has('clip')) {
    return { k: 'bounds', shape: boundsShape(st, c), unknownAxes: firstBlockAxes(c, env) };
  }
  const unbound = [...names].filter((n) => !env.has(n));
  const runtime = unbound.some((n) => st.runtimeParams.has(n));
  if (kinds.has('thread') || kinds.has('geom')) return runtime ? { k: 'bounds', shape: boundsShape(st, c) } : { k: 'thread', cond: c };
  const value = evalCond(c, env);
  if (value !== undefined) return { k: 'const', value };
  return runtime ? { k: 'runtime' } : { k: 'compile', names: unbound };
}

/**
 * The grid axes of unknown size along which a comparison of a block-dependent
 * index with a number (`i == 0`, `blockIdx.x < 2`) is decided by the first
 * block: the launch may have one block there. A thread-only comparison
 * (`warp == 0`) is not one.
 */
function firstBlockAxes(c: Cond, env: ReadonlyMap<string, number>): string[] {
  const axes = new Set<string>();
  const visit = (x: Cond): void => {
    if (x.k === 'and' || x.k === 'or') {
      visit(x.l);
      visit(x.r);
    } else if (x.k === 'not') visit(x.c);
    else if (x.k === 'cmp')
      for (const [side, other] of [[x.a, x.b], [x.b, x.a]] as const) {
        if (evaluate(other, new Map()) === undefined) continue;
        for (const n of freeSymbols(side)) if (/^blockIdx\.[xyz]$/.test(n) && !env.has(`gridDim.${n.slice(9)}`)) axes.add(`gridDim.${n.slice(9)}`);
      }
  };
  visit(c);
  return [...axes].sort();
}

/**
 * `tid == 0 && blockIdx.x < n`: a thread condition joined to a bounds check.
 * The bounds part holds in the interior tile (the engine's rule, read from its
 * comparisons), so the condition selects the threads of the thread part —
 * not an edge tile because `tid == 0` reads like `pid == 0`. Undefined when
 * the parts do not separate that way.
 */
function threadWithinBounds(st: Interp, c: Cond): CondClass | undefined {
  const parts: Cond[] = [];
  const flat = (x: Cond): void => (x.k === 'and' ? (flat(x.l), flat(x.r)) : void parts.push(x));
  flat(c);
  const kindsOf = (x: Cond): Set<string> => new Set((condExprs(x) ?? []).flatMap((e) => [...st.syms.kinds(e)]));
  const thread: Cond[] = [];
  const bounds: Cond[] = [];
  for (const p of parts) {
    const k = kindsOf(p);
    // A comparison that involves the block index (a global index `blockIdx.x * B + threadIdx.y * 8 < n`) is a
    // bounds check, decided by the interior; one of thread indices only (`warp == 0`) counts its threads.
    const isThread = k.has('thread') || k.has('geom');
    const isBounds = k.has('block') || k.has('iter') || k.has('clip');
    (isThread && !isBounds ? thread : bounds).push(p);
  }
  if (!thread.length || !bounds.length) return undefined;
  const join = (xs: Cond[]): Cond => xs.reduce((l, r) => ({ k: 'and', l, r }));
  if (interiorArm(boundsShape(st, join(bounds))) !== 'then') return undefined;
  st.notes.assume('interiorTile');
  return { k: 'thread', cond: join(thread) };
}

/** What each side of a bounds check's comparisons is, for the engine's choice of the interior arm. */
function boundsShape(st: Interp, c: Cond): BoundsShape {
  switch (c.k) {
    case 'cmp': {
      const side = (e: Expr): Side => (st.syms.kinds(e).size ? 'index' : freeSymbols(e).size === 0 ? (evaluate(e, new Map()) ?? 'size') : 'size');
      return { k: 'cmp', op: c.op, a: side(c.a), b: side(c.b) };
    }
    case 'and':
    case 'or':
      return { k: c.k, l: boundsShape(st, c.l), r: boundsShape(st, c.r) };
    case 'not':
      return { k: 'not', c: boundsShape(st, c.c) };
    default:
      return { k: 'opaque' };
  }
}

/** Runs the branches of an `if` or `?:` the way COUNTING.md counts them (engine/branch.ts). */
export function chooseBranch(st: Interp, v: Val, n: Node, br: Branches): void {
  const periodic = br.condNode ? periodicOf(st, br.condNode) : undefined;
  const c = periodic ?? classify(st, v);
  const text = br.condNode ? brief(br.condNode, 50) : brief(n, 50);
  const cls: EngineClass = c.k === 'runtime' ? { k: 'data' } : c.k === 'thread' ? { k: 'thread' } : c;
  // A decided guard that returns ends the function for every thread.
  const yes = c.k === 'const' && c.value && br.guard === 'return' ? () => (st.frame.returned = true) : br.yes;
  decide(
    { rec: st.rec, notes: st.notes },
    st.host || st.silent > 0 ? quietClass(cls) : cls,
    { line: st.line(n), text, then: yes, else: br.no, exits: !!br.guard && c.k !== 'const', ternary: br.ternary },
    {
      threads:
        c.k === 'thread'
          ? (holds, arm, rest) => {
              const cond = holds ? c.cond : not(c.cond);
              if (rest) st.active = restrict(st, st.active, cond, n);
              else if (arm) st.withActive(restrict(st, st.active, cond, n), arm);
            }
          : undefined,
      narrow: (holds, arm) => {
        if (!arm) {
          clipVariables(st, br.condNode ?? null, true);
          return;
        }
        st.pushScope();
        try {
          clipVariables(st, br.condNode ?? null, !holds);
          arm();
        } finally {
          st.popScope();
        }
      },
    },
  );
}

/** `v == c` / `v != c` on a wrapping counter of an enclosing loop (loops.ts `wrappingCounters`). */
function periodicOf(st: Interp, cond: Node): CondClass | undefined {
  let n = cond;
  while ((n.type === 'parenthesized_expression' || n.type === 'condition_clause') && named(n)[0]) n = named(n)[0];
  const op = n.childForFieldName('operator')?.text;
  if (n.type !== 'binary_expression' || (op !== '==' && op !== '!=') || st.counters.size === 0) return undefined;
  const l = n.childForFieldName('left');
  const r = n.childForFieldName('right');
  const name = l?.type === 'identifier' && st.counters.has(l.text) ? l.text : r?.type === 'identifier' && st.counters.has(r.text) ? r.text : undefined;
  if (!name) return undefined;
  return { k: 'periodic', period: st.counters.get(name)!, on: op === '==' ? 'then' : 'else', counter: name };
}

/** While evaluating silently (a loop condition, host code) nothing is said, and a choice just runs its first arm. */
function quietClass(c: EngineClass): EngineClass {
  return c.k === 'data' || c.k === 'compile' ? { k: 'const', value: true } : c;
}

// ------------------------------------------------------------------ counting threads

function space(st: Interp): ThreadSpace {
  return {
    axes: ['x', 'y', 'z'].map((a) => ({ sym: `threadIdx.${a}`, size: st.dim(`blockDim.${a}`) })),
    env: st.env(),
    dependsOnThread: (e) => st.syms.kinds(e).has('thread'),
    eliminate: (e) => st.syms.eliminate(e),
  };
}

/** The active threads that also satisfy `c`. */
function restrict(st: Interp, a: Active, c: Cond, n: Node): Active {
  const conds = [...a.conds, c];
  const r = countThreads(space(st), conds.map((x) => ({ cond: x })), a.count);
  if (r.ok) return { conds, count: r.count };
  st.say('threadCondition', n, brief(n, 50));
  return { conds, count: a.count };
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
