/**
 * Conditions on the local invocation id (`if (lid.x < s)`, `if (lid.x == 0u)`)
 * count only the invocations that satisfy them. With a numeric workgroup size
 * the invocations are enumerated (exact for any predicate the concrete
 * evaluators understand, bitwise tricks included); otherwise simple
 * comparisons of one id component with a bound give a symbolic count.
 */
import { add, evaluate, max, min, mul, num, sub, type Env, type Expr } from '../../sym/expr';
import type { ConcEnv, LidComp, LidPred } from './values';

export interface ActivePred {
  fn: ((env: ConcEnv) => number | undefined) | undefined;
  sym: LidPred | undefined;
  loops: string[];
}

export type ActiveCount =
  | { ok: true; count: Expr }
  /** Loop counters whose concrete values the predicate needs (the loop must be unrolled). */
  | { ok: false; missingLoops: string[] };

/** Enumeration stops being worth it beyond this many invocations per workgroup. */
const MAX_ENUMERATED = 65536;

/** The number of invocations of one workgroup for which every predicate holds. */
export function countActive(preds: ActivePred[], wg: Expr[], env: Env, extra: ConcEnv): ActiveCount {
  if (preds.length === 0) return { ok: true, count: mul(...wg) };
  const sizes = wg.map((e) => evaluate(e, env));
  const total = sizes.reduce<number | undefined>((p, s) => (p === undefined || s === undefined ? undefined : p * s), 1);
  if (total !== undefined && total <= MAX_ENUMERATED) {
    const n = enumerate(preds, sizes as number[], env, extra);
    if (n !== undefined) return { ok: true, count: num(n) };
    const missing = preds.flatMap((p) => p.loops).filter((l) => !extra.has(l));
    if (missing.length > 0) return { ok: false, missingLoops: [...new Set(missing)] };
  }
  const sym = symbolicCount(preds, wg);
  return sym ? { ok: true, count: sym } : { ok: false, missingLoops: [] };
}

function enumerate(preds: ActivePred[], sizes: number[], env: Env, extra: ConcEnv): number | undefined {
  if (preds.some((p) => !p.fn)) return undefined;
  const conc = new Map<string, number>(env);
  for (const [k, v] of extra) conc.set(k, v);
  const [sx, sy, sz] = sizes;
  let count = 0;
  for (let z = 0; z < sz; z++)
    for (let y = 0; y < sy; y++)
      for (let x = 0; x < sx; x++) {
        conc.set('@lid.x', x);
        conc.set('@lid.y', y);
        conc.set('@lid.z', z);
        conc.set('@lidx', x + sx * (y + sy * z));
        let all = true;
        for (const p of preds) {
          const v = p.fn!(conc);
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

/** Per-component counts for `lid.c op bound` predicates; undefined when a predicate has another shape. */
function symbolicCount(preds: ActivePred[], wg: Expr[]): Expr | undefined {
  const dims: Record<LidComp, Expr> = { x: wg[0], y: wg[1], z: wg[2], idx: mul(...wg) };
  const counts: Record<LidComp, Expr> = { ...dims };
  for (const p of preds) {
    if (!p.sym) return undefined;
    const c = counts[p.sym.comp];
    const size = dims[p.sym.comp];
    const b = p.sym.bound;
    const next = compCount(p.sym.op, b, c, size);
    if (!next) return undefined;
    counts[p.sym.comp] = next;
  }
  const usesIdx = preds.some((p) => p.sym?.comp === 'idx');
  const xyz = mul(counts.x, counts.y, counts.z);
  return usesIdx ? min(xyz, counts.idx) : xyz;
}

function compCount(op: string, b: Expr, cur: Expr, size: Expr): Expr | undefined {
  switch (op) {
    case '<':
      return min(cur, max(num(0), b));
    case '<=':
      return min(cur, max(num(0), add(b, num(1))));
    case '==':
      return num(1);
    case '!=':
      return sub(size, num(1));
    case '>=':
      return min(cur, max(num(0), sub(size, b)));
    case '>':
      return min(cur, max(num(0), sub(sub(size, b), num(1))));
    default:
      return undefined;
  }
}
