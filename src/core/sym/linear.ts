/**
 * Linear coefficients over the shared `Expr` polynomials.
 */
import { add, freeSymbols, mapAtom, mul, num, pow, type Expr } from './expr';

/**
 * The coefficients of `e = c0 + c1·name`, when `e` is linear in `name`
 * (and `name` does not occur inside a function such as `floordiv`).
 */
export function linearIn(e: Expr, name: string): { c0: Expr; c1: Expr } | undefined {
  if (e.poisoned) return undefined;
  const c0: Expr[] = [];
  const c1: Expr[] = [];
  for (const m of e.terms.values()) {
    let hit = 0;
    const rest: Expr[] = [num(m.coef)];
    for (const fac of m.factors) {
      if (fac.atom.kind === 'sym' && fac.atom.name === name) {
        hit += fac.pow;
        continue;
      }
      if (fac.atom.kind === 'fn' && fac.atom.args.some((x) => freeSymbols(x).has(name))) return undefined;
      rest.push(pow(mapAtom(fac.atom, () => undefined), num(fac.pow)));
    }
    if (hit > 1) return undefined;
    (hit === 1 ? c1 : c0).push(mul(...rest));
  }
  return { c0: add(...c0), c1: add(...c1) };
}

