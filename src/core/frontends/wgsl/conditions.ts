/**
 * Conditions on the local invocation id (`if (lid.x < s)`, `if (lid.x == 0u)`)
 * count only the invocations that satisfy them: the engine counts them
 * (engine/threads.ts); this module translates WGSL's predicates — a concrete
 * evaluator over `@lid.*`, `@lidx` and loop counters, and, for a comparison of
 * one id component with a bound, the comparison itself.
 */
import { countNested, type ThreadPred, type ThreadSpace } from '../../engine/threads';
import { freeSymbols, mul, sym, type Env, type Expr } from '../../sym/expr';
import type { ConcEnv, LidPred } from './values';

export interface ActivePred {
  fn: ((env: ConcEnv) => number | undefined) | undefined;
  sym: LidPred | undefined;
  loops: string[];
}

export type ActiveCount =
  | { ok: true; count: Expr }
  /** Loop counters whose concrete values the predicate needs (the loop must be unrolled). */
  | { ok: false; missingLoops: string[] };

function threadPred(p: ActivePred): ThreadPred {
  const fn = p.fn;
  return {
    test: fn ? (env) => {
      const v = fn(env);
      return v === undefined ? undefined : v !== 0;
    } : undefined,
    cond: p.sym ? { k: 'cmp', op: p.sym.op as '<', a: sym(p.sym.comp === 'idx' ? '@lidx' : `@lid.${p.sym.comp}`), b: p.sym.bound } : undefined,
    loops: p.loops,
  };
}

/** The number of invocations of one workgroup for which every predicate holds. */
export function countActive(preds: ActivePred[], wg: Expr[], env: Env, extra: ConcEnv): ActiveCount {
  const all = new Map<string, number>(env);
  for (const [k, v] of extra) all.set(k, v);
  const space: ThreadSpace = {
    axes: ['x', 'y', 'z'].map((c, i) => ({ sym: `@lid.${c}`, size: wg[i] })),
    linear: '@lidx',
    env: all,
    dependsOnThread: (e) => [...freeSymbols(e)].some((s) => s.startsWith('@lid')),
    eliminate: (e) => e,
  };
  return countNested(space, preds.map(threadPred), mul(...wg));
}
