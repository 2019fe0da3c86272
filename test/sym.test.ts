/**
 * Symbolic sizes (src/core/sym/expr.ts): the canonical form that makes equal
 * formulas print equally. `mul` takes short cuts (a factor of one, a
 * constant side, sorted factor lists merged): on random expressions it must
 * give the forms the algebra says, whichever way the product is written.
 */
import { strict as assert } from 'node:assert';
import { add, cdiv, type Expr, evaluate, mul, num, ONE, sub, sym, ZERO } from '../src/core/sym/expr';

/** An expression's canonical form: its printing and its terms' keys in order (what the reports and caches see). */
const form = (e: Expr): string => `${e.poisoned ? 'poisoned ' : ''}${String(e)} [${[...e.terms.keys()].join('|')}]`;

/** The same form up to the order of the terms (a product's terms come in the order its factors were multiplied). */
const terms = (e: Expr): string => `${e.poisoned ? 'poisoned ' : ''}${[...e.terms.keys()].sort().join('|')} = ${[...e.terms.values()].map((m) => `${m.key}:${m.coef}`).sort().join('|')}`;

function randomExpr(rnd: () => number, depth: number): Expr {
  const r = rnd();
  if (depth <= 0 || r < 0.25) return rnd() < 0.5 ? num([0, 1, 2, -1, 0.5, 3][Math.floor(rnd() * 6)]) : sym(['a', 'b', 'BLOCK', 'K', 'n'][Math.floor(rnd() * 5)]);
  const x = randomExpr(rnd, depth - 1);
  const y = randomExpr(rnd, depth - 1);
  if (r < 0.55) return mul(x, y);
  if (r < 0.75) return add(x, y);
  if (r < 0.9) return sub(x, y);
  return cdiv(x, y);
}

describe('symbolic sizes: products', () => {
  it('print as the algebra says (like factors combined, constants folded, sorted by name)', () => {
    const bm = sym('BM');
    const k = sym('K');
    assert.equal(String(mul(bm, k, num(2))), '2·BM·K');
    assert.equal(String(add(mul(bm, k), mul(k, bm))), '2·BM·K');
    assert.equal(String(mul(add(bm, ONE), sub(bm, ONE))), 'BM^2 − 1');
    assert.equal(String(mul(cdiv(k, bm), bm, bm)), 'cdiv(K, BM)·BM^2');
    assert.equal(String(mul(bm, mul(num(1), k))), 'BM·K');
    assert.equal(mul(bm, ZERO).isZero(), true);
    assert.equal(String(mul(bm, num(0.5), num(2))), 'BM');
  });

  it('on random expressions: one is neutral, and the order and grouping of factors do not change the terms', () => {
    let seed = 17;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const env = new Map([['a', 3], ['b', 5], ['BLOCK', 64], ['K', 96], ['n', 1000]]);
    for (let i = 0; i < 3000; i++) {
      const [x, y, z] = [randomExpr(rnd, 3), randomExpr(rnd, 3), randomExpr(rnd, 3)];
      assert.equal(form(mul(x, ONE)), form(x));
      assert.equal(form(mul(ONE, x)), form(x));
      assert.equal(form(mul(x, num(1))), form(x));
      // (A product past the terms' limit is poisoned: a zero factor met before or after it decides, as written.)
      const same = (p: Expr, q: Expr) => p.poisoned || q.poisoned || assert.equal(terms(p), terms(q));
      same(mul(x, y), mul(y, x));
      same(mul(mul(x, y), z), mul(x, mul(y, z)));
      same(mul(x, y, z), mul(z, y, x));
      same(mul(x, add(y, z)), add(mul(x, y), mul(x, z)));
      const v = evaluate(mul(x, y), env);
      const vx = evaluate(x, env);
      const vy = evaluate(y, env);
      if (v !== undefined && vx !== undefined && vy !== undefined) assert.ok(Math.abs(v - vx * vy) <= 1e-9 * Math.max(1, Math.abs(v)), `${String(x)} × ${String(y)}`);
    }
  });
});
