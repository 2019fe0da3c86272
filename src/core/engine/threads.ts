/**
 * Active threads (COUNTING.md: "Conditions on the thread/lane/local index
 * count only the threads that satisfy them"), once for CUDA thread blocks and
 * WGSL workgroups. A frontend describes the unit's threads (`ThreadSpace`) and
 * each condition (`ThreadPred`); this module counts the threads for which
 * every condition holds:
 *
 * - when the unit's size is known, by enumerating its threads (exact for any
 *   condition the frontend can evaluate per thread, bitwise tricks included);
 * - otherwise symbolically, for comparisons of one index with a bound
 *   (`tid < s`, `tid == 0`, `tid >= B − k`) and of a lane or warp number
 *   (`tid % 32 == 0`, `tid / 32 == 0`).
 */
import { add, cdiv, equals, evaluate, freeSymbols, min, mod, mul, num, ONE, sub, type Expr } from '../sym/expr';
import { evalCond, flipOp, negateOp, type CmpOp, type Cond } from './cond';
import { linearIn } from '../sym/linear';

export interface ThreadPred {
  /** Evaluates the condition for one thread (the environment holds its indices). */
  test?: (env: ReadonlyMap<string, number>) => boolean | undefined;
  /** The condition over expressions, for a symbolic count when the unit's size is unknown. */
  cond?: Cond;
  /** Loop counters whose values the test needs (a loop must be unrolled to count it). */
  loops?: string[];
}

export interface ThreadSpace {
  /** The thread index symbols along x, y, z with the unit's size along each. */
  axes: { sym: string; size: Expr }[];
  /** A linear index over every thread (`local_invocation_index`), if the language names one. */
  linear?: string;
  /** Bindings (and, while a loop is unrolled, its counter's value). */
  env: ReadonlyMap<string, number>;
  /** True when an expression depends on a thread index. */
  dependsOnThread(e: Expr): boolean;
  /** The expression with every other index (unit, loop, clipped variable) replaced by a representative. */
  eliminate(e: Expr): Expr;
}

export type ThreadCount = { ok: true; count: Expr } | { ok: false; missingLoops: string[] };

/** Enumerating the threads of a unit stops being worth it beyond this many. */
const MAX_ENUMERATED = 65536;

function testOf(p: ThreadPred): ((env: ReadonlyMap<string, number>) => boolean | undefined) | undefined {
  if (p.test) return p.test;
  const c = p.cond;
  return c ? (env) => evalCond(c, env) : undefined;
}

/**
 * The threads of one unit for which every condition of `preds` holds.
 * `current` is the count before the last condition was added (the symbolic
 * count narrows it).
 */
/**
 * Whether a size of the unit's threads along an axis is one a launch can
 * have (a CUDA block's, a WGSL workgroup's): a whole number of at least 1.
 * Another (`<<<g, 0>>>`, `@workgroup_size(.5)`) fails at launch or at
 * compile: it is said, and not taken (counts that depend on it stay unknown).
 */
export function isUnitSize(n: number): boolean {
  return Number.isInteger(n) && n >= 1;
}

export function countThreads(space: ThreadSpace, preds: ThreadPred[], current: Expr): ThreadCount {
  const total = mul(...space.axes.map((a) => a.size));
  if (preds.length === 0) return { ok: true, count: total };
  const exact = enumerate(space, preds);
  if (exact !== undefined) return { ok: true, count: num(exact) };
  const missing = [...new Set(preds.flatMap((p) => p.loops ?? []).filter((l) => !space.env.has(l)))];
  if (missing.length && sizes(space) !== undefined) return { ok: false, missingLoops: missing };
  const last = preds[preds.length - 1];
  const sym = last.cond ? symbolicCount(space, last.cond, current) : undefined;
  return sym ? { ok: true, count: sym } : { ok: false, missingLoops: missing };
}

/**
 * The threads for which every predicate holds, the predicates nested (an
 * `if` in an `if`): counted one prefix at a time, each count the next one's
 * `current` (the symbolic count of a condition needs the threads the ones
 * around it left); when one enumeration of the unit answers for all of them,
 * that answer. It is the prefixes' last: a thread's tests stop at its first
 * false one, so a prefix's enumeration asks a subset of what the whole one
 * asked, and answers where it does. Counting every prefix by enumeration
 * was quadratic in the depth of the nesting (a fuzz finding: ~50 nested
 * `if`s in a loop of a 256-invocation workgroup, over a second past a
 * 400 ms budget).
 */
export function countNested(space: ThreadSpace, preds: ThreadPred[], start: Expr): ThreadCount {
  const exact = preds.length > 1 ? enumerate(space, preds) : undefined;
  if (exact !== undefined) return { ok: true, count: num(exact) };
  let count = start;
  for (let i = 0; i < preds.length; i++) {
    const r = countThreads(space, preds.slice(0, i + 1), count);
    if (!r.ok) return r;
    count = r.count;
  }
  return { ok: true, count };
}

function sizes(space: ThreadSpace): number[] | undefined {
  const out: number[] = [];
  for (const a of space.axes) {
    const v = evaluateSize(a.size, space.env);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

function evaluateSize(e: Expr, env: ReadonlyMap<string, number>): number | undefined {
  const v = evaluate(e, env);
  return v !== undefined && v >= 1 && Number.isInteger(v) ? v : undefined;
}

function enumerate(space: ThreadSpace, preds: ThreadPred[]): number | undefined {
  const dims = sizes(space);
  if (!dims) return undefined;
  const [dx, dy = 1, dz = 1] = dims;
  if (dx * dy * dz > MAX_ENUMERATED) return undefined;
  const tests = preds.map(testOf);
  if (tests.some((t) => !t)) return undefined;
  const env = new Map(space.env);
  const [ax, ay, az] = space.axes;
  let count = 0;
  for (let z = 0; z < dz; z++)
    for (let y = 0; y < dy; y++)
      for (let x = 0; x < dx; x++) {
        env.set(ax.sym, x);
        if (ay) env.set(ay.sym, y);
        if (az) env.set(az.sym, z);
        if (space.linear) env.set(space.linear, x + dx * (y + dy * z));
        let all = true;
        for (const t of tests) {
          const v = t!(env);
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

/** A symbolic count of the threads satisfying `c` among `cur` (the unit's size unknown). */
function symbolicCount(space: ThreadSpace, c: Cond, cur: Expr): Expr | undefined {
  switch (c.k) {
    case 'and': {
      const l = symbolicCount(space, c.l, cur);
      return l ? symbolicCount(space, c.r, l) : undefined;
    }
    case 'not':
      return c.c.k === 'cmp' ? cmpCount(space, { ...c.c, op: negateOp(c.c.op) }, cur) : undefined;
    case 'cmp':
      return cmpCount(space, c, cur);
    default:
      return undefined;
  }
}

function cmpCount(space: ThreadSpace, c: Extract<Cond, { k: 'cmp' }>, cur: Expr): Expr | undefined {
  const d = sub(c.a, c.b);
  const axes = space.linear ? [...space.axes, { sym: space.linear, size: mul(...space.axes.map((a) => a.size)) }] : space.axes;
  for (const axis of axes) {
    const lin = linearIn(d, axis.sym);
    if (!lin || !freeSymbols(d).has(axis.sym)) continue;
    const sel = selected(space, lin, c.op, axis.size);
    if (!sel) return undefined;
    const isLinear = axis.sym === space.linear;
    const others = isLinear ? [] : space.axes.filter((a) => a.sym !== axis.sym).map((a) => a.size);
    const count = mul(sel, ...others);
    const full = isLinear ? axis.size : mul(axis.size, ...others);
    return equals(cur, full) ? count : min(cur, count);
  }
  return groupCount(space, d, c.op, cur);
}

/** Values of `t` in [0, D) with `c0 + c1·t OP 0` (c1 = ±1). */
function selected(space: ThreadSpace, lin: { c0: Expr; c1: Expr }, op: CmpOp, D: Expr): Expr | undefined {
  const c1 = lin.c1.constant;
  if (c1 !== 1 && c1 !== -1) return undefined;
  if (space.dependsOnThread(lin.c0)) return undefined;
  const bound = space.eliminate(c1 === 1 ? sub(num(0), lin.c0) : lin.c0);
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
function groupCount(space: ThreadSpace, d: Expr, op: CmpOp, cur: Expr): Expr | undefined {
  for (const m of d.terms.values()) {
    if (m.factors.length !== 1 || m.factors[0].pow !== 1) continue;
    const a = m.factors[0].atom;
    if (a.kind !== 'fn' || (a.fn !== 'mod' && a.fn !== 'floordiv')) continue;
    const w = a.args[1].constant;
    if (w === undefined || !space.dependsOnThread(a.args[0])) continue;
    if (a.fn === 'floordiv') return op === '==' ? min(cur, num(w)) : undefined;
    const rest = sub(d, mul(num(m.coef), mod(a.args[0], a.args[1])));
    const sel = selected(space, { c0: rest, c1: num(m.coef) }, op, num(w));
    return sel ? mul(sel, cdiv(cur, num(w))) : undefined;
  }
  return undefined;
}
