/**
 * Index symbols: the values that differ between threads, blocks and loop
 * iterations (`threadIdx.x`, `blockIdx.y`, the iteration of a loop, a variable
 * clipped by a bounds check). They appear in index expressions — for
 * footprints and thread conditions — but never in counts: before an
 * expression becomes a count, `eliminate` replaces them by a representative
 * value. Each has a range [lo, hi] over size symbols only.
 *
 * Also here: symbolic substitution, intervals and linear coefficients over
 * the shared `Expr` polynomials.
 */
import {
  add,
  cdiv,
  div,
  floordiv,
  freeSymbols,
  log2,
  max,
  min,
  mul,
  num,
  ONE,
  pow,
  scale,
  sub,
  sym,
  ZERO,
  mapAtom,
  mapSyms,
  type Atom,
  type Expr,
} from '../../sym/expr';


/** The highest power of one factor an interval is computed for (`interval`). */
const MAX_INTERVAL_POWER = 16;
export type SymKind = 'thread' | 'block' | 'iter' | 'geom' | 'clip' | 'opaque';

export interface SymInfo {
  kind: SymKind;
  lo: Expr;
  hi: Expr;
  /** Mean value over a symbolic geometric loop (`s = B/2, B/4, …, 1`). */
  avg?: Expr;
  /** For a clipped variable: the value it stands for (counts use it, footprints use the clipped range). */
  rep?: Expr;
}

export interface Interval {
  lo: Expr;
  hi: Expr;
}

export { mapSyms };

export { linearIn } from '../../sym/linear';

/** The registry of index symbols of one kernel analysis. */
export class IndexSyms {
  private readonly info = new Map<string, SymInfo>();
  private counter = 0;

  /** Declares a fixed-name index symbol (`threadIdx.x`). */
  declare(name: string, info: SymInfo): Expr {
    this.info.set(name, info);
    return sym(name);
  }

  /** A new index symbol with a unique name derived from `base`. */
  fresh(base: string, info: SymInfo): Expr {
    const name = `${base}#${++this.counter}`;
    this.info.set(name, info);
    return sym(name);
  }

  /** Takes over another registry's symbols and its count (an interpreter copied from another: launch.ts). */
  adopt(other: IndexSyms): void {
    for (const [name, info] of other.info) this.info.set(name, info);
    this.counter = Math.max(this.counter, other.counter);
  }

  get(name: string): SymInfo | undefined {
    return this.info.get(name);
  }

  /** Kinds of index symbols an expression depends on. */
  kinds(e: Expr): Set<SymKind> {
    const out = new Set<SymKind>();
    for (const n of freeSymbols(e)) {
      const i = this.info.get(n);
      if (i) out.add(i.kind);
    }
    return out;
  }

  /** True when the expression depends on no index symbol. */
  uniform(e: Expr): boolean {
    for (const n of freeSymbols(e)) if (this.info.has(n)) return false;
    return true;
  }

  /**
   * Replaces index symbols by a representative value so the expression can
   * be a count: thread, block and clipped indices by their first value (the
   * first thread does the most work in a strided loop), loop iterations by
   * their middle (exact on average for triangular loops), geometric loop
   * variables by their mean. Opaque symbols stay (the caller checks).
   */
  eliminate(e: Expr, keep?: ReadonlySet<SymKind>): Expr {
    let cur = e;
    for (let round = 0; round < 8 && !this.uniformExceptOpaque(cur, keep); round++) {
      cur = mapSyms(cur, (n) => {
        const i = this.info.get(n);
        if (!i || i.kind === 'opaque' || keep?.has(i.kind)) return undefined;
        if (i.kind === 'iter') return scale(add(i.lo, i.hi), 0.5);
        if (i.kind === 'geom') return i.avg ?? i.lo;
        return i.rep ?? i.lo;
      });
    }
    return cur;
  }

  private uniformExceptOpaque(e: Expr, keep?: ReadonlySet<SymKind>): boolean {
    for (const n of freeSymbols(e)) {
      const i = this.info.get(n);
      if (i && i.kind !== 'opaque' && !keep?.has(i.kind)) return false;
    }
    return true;
  }

  hasOpaque(e: Expr): boolean {
    return this.kinds(e).has('opaque');
  }

  /**
   * The range of an index expression over all threads, blocks and
   * iterations, assuming every symbol is non-negative. Undefined when it
   * depends on an opaque value.
   */
  interval(e: Expr, depth = 0): Interval | undefined {
    if (e.poisoned || depth > 16) return undefined;
    let lo: Expr = ZERO;
    let hi: Expr = ZERO;
    for (const m of e.terms.values()) {
      let mlo: Expr = ONE;
      let mhi: Expr = ONE;
      for (const fac of m.factors) {
        // A power past any index's (a macro that squares a macro, twenty times over: x^4194304) is multiplied out
        // one factor at a time below, each a polynomial: not bounded, rather than seconds spent bounding it.
        if (fac.pow > MAX_INTERVAL_POWER) return undefined;
        const r = this.atomInterval(fac.atom, depth);
        if (!r) return undefined;
        for (let p = 0; p < fac.pow; p++) {
          mlo = mul(mlo, r.lo);
          mhi = mul(mhi, r.hi);
        }
      }
      if (m.coef >= 0) {
        lo = add(lo, scale(mlo, m.coef));
        hi = add(hi, scale(mhi, m.coef));
      } else {
        lo = add(lo, scale(mhi, m.coef));
        hi = add(hi, scale(mlo, m.coef));
      }
    }
    return { lo, hi };
  }

  private atomInterval(a: Atom, depth: number): Interval | undefined {
    if (a.kind === 'sym') {
      const i = this.info.get(a.name);
      if (!i) return { lo: sym(a.name), hi: sym(a.name) };
      if (i.kind === 'opaque') return undefined;
      return { lo: i.lo, hi: i.hi };
    }
    const rs: Interval[] = [];
    for (const x of a.args) {
      const r = this.interval(x, depth + 1);
      if (!r) return undefined;
      rs.push(r);
    }
    switch (a.fn) {
      case 'floordiv':
        return { lo: floordiv(rs[0].lo, rs[1].hi), hi: floordiv(rs[0].hi, rs[1].lo) };
      case 'cdiv':
        return { lo: cdiv(rs[0].lo, rs[1].hi), hi: cdiv(rs[0].hi, rs[1].lo) };
      case 'div':
        return { lo: div(rs[0].lo, rs[1].hi), hi: div(rs[0].hi, rs[1].lo) };
      case 'mod':
        return { lo: ZERO, hi: min(sub(rs[1].hi, ONE), rs[0].hi) };
      case 'min':
        return { lo: min(rs[0].lo, rs[1].lo), hi: min(rs[0].hi, rs[1].hi) };
      case 'max':
        return { lo: max(rs[0].lo, rs[1].lo), hi: max(rs[0].hi, rs[1].hi) };
      case 'log2':
        return { lo: log2(rs[0].lo), hi: log2(rs[0].hi) };
      default:
        return undefined;
    }
  }
}
