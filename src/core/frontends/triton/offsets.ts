/**
 * Offsets for footprints: an index or pointer offset is kept as a linear form
 * Σ strideᵢ · indexᵢ, one entry per distinct stride, each with the interval
 * `[lo, hi)` its index covers over the whole launch (all programs, all loop
 * trips). Entries with different strides are taken as independent directions,
 * so the distinct elements an access touches over the launch are the product
 * of the entries' extents (hi − lo), clipped by the masks' bounds.
 *
 * This is what turns `a_ptr + offs_am[:, None]*stride_am + offs_k[None, :]*stride_ak`
 * with `offs_am = (pid_m*BM + arange(BM)) % M` and `offs_k < K` into M·K.
 */
import { add, exprKey, floordiv, freeSymbols, max as emax, min as emin, mul, ONE, printExpr, scale, sub, ZERO, type Expr } from '../../sym/expr';

export interface OffEntry {
  stride: Expr;
  lo: Expr;
  hi: Expr;
  /** Dimension (counted from the right) the index varies along; null for scalars. */
  dimR: number | null;
}

export interface Offsets {
  entries: Map<string, OffEntry>;
  /** Depends on something that cannot be bounded (loaded data, unknown calls). */
  unknown: boolean;
}

export function offConst(v: Expr): Offsets {
  // A fixed value contributes a single point (extent 1): it shifts, never widens.
  return { entries: new Map([['1', { stride: ONE, lo: v, hi: add(v, ONE), dimR: null }]]), unknown: false };
}

export function offRange(lo: Expr, hi: Expr, dimR: number | null): Offsets {
  return { entries: new Map([['1', { stride: ONE, lo, hi, dimR }]]), unknown: false };
}

export function offUnknown(): Offsets {
  return { entries: new Map(), unknown: true };
}

export function offAdd(a: Offsets | undefined, b: Offsets | undefined): Offsets {
  if (!a || !b) return offUnknown();
  const entries = new Map<string, OffEntry>(a.entries);
  for (const [k, e] of b.entries) {
    const cur = entries.get(k);
    if (!cur) entries.set(k, e);
    else
      entries.set(k, {
        stride: cur.stride,
        lo: add(cur.lo, e.lo),
        hi: sub(add(cur.hi, e.hi), ONE),
        dimR: cur.dimR ?? e.dimR,
      });
  }
  return { entries, unknown: a.unknown || b.unknown };
}

/** Negation only shifts a scalar point; a range negated is still a range of the same extent. */
export function offNeg(a: Offsets | undefined): Offsets {
  if (!a) return offUnknown();
  const entries = new Map<string, OffEntry>();
  for (const [k, e] of a.entries) entries.set(k, { ...e, lo: scale(sub(e.hi, ONE), -1), hi: add(scale(e.lo, -1), ONE) });
  return { entries, unknown: a.unknown };
}

/** Multiplies by a compile-time constant (scales the intervals) or by a runtime scalar (becomes a stride). */
export function offMul(a: Offsets | undefined, factor: Expr, factorIsConst: boolean): Offsets {
  if (!a) return offUnknown();
  const c = factor.constant;
  const entries = new Map<string, OffEntry>();
  for (const e of a.entries.values()) {
    if (factorIsConst && c !== undefined && c >= 0) {
      const lo = scale(e.lo, c);
      const hi = add(scale(sub(e.hi, ONE), c), ONE);
      put(entries, { ...e, lo, hi });
    } else if (factorIsConst && c === undefined) {
      // Compile-time symbolic constant (a constexpr): still a scaling of the index.
      put(entries, { ...e, lo: mul(e.lo, factor), hi: add(mul(sub(e.hi, ONE), factor), ONE) });
    } else {
      put(entries, { ...e, stride: mul(e.stride, factor) });
    }
  }
  return { entries, unknown: a.unknown || (c !== undefined && c < 0) };
}

function put(m: Map<string, OffEntry>, e: OffEntry): void {
  const k = exprKey(e.stride);
  const cur = m.get(k);
  if (!cur) m.set(k, e);
  else m.set(k, { stride: cur.stride, lo: add(cur.lo, e.lo), hi: sub(add(cur.hi, e.hi), ONE), dimR: cur.dimR ?? e.dimR });
}

/**
 * `x % M`: an index wrapped into [0, M), whatever it was before (program-id
 * arithmetic such as grouped ordering included), as long as it is an index
 * (not loaded data: callers check that) with unit stride.
 */
export function offMod(a: Offsets | undefined, m: Expr): Offsets {
  if (!a) return offUnknown();
  const es = [...a.entries.values()];
  if (es.some((e) => e.stride.constant !== 1)) return offUnknown();
  const dimR = es.find((e) => e.dimR !== null)?.dimR ?? null;
  const single = !a.unknown && es.length === 1 ? es[0] : undefined;
  // A modulus that varies per program (grouped ordering's `% group_size_m`) bounds nothing
  // launch-wide: then x % m ≤ x is all we know.
  if (perProgram(m)) return single ? { entries: new Map([['1', { ...single, lo: ZERO }]]), unknown: false } : offUnknown();
  const hi = single && !perProgram(single.hi) ? emin(single.hi, m) : m;
  return { entries: new Map([['1', { stride: ONE, lo: ZERO, hi, dimR }]]), unknown: false };
}

/** `x // c` for a positive c (compile-time or runtime): floor division is monotone. */
export function offFloorDiv(a: Offsets | undefined, c: Expr): Offsets {
  if (!a || a.entries.size !== 1) return offUnknown();
  const [k, e] = [...a.entries][0];
  // A per-program divisor: x // c ≤ x is all that holds launch-wide.
  if (perProgram(c)) return { entries: new Map([[k, { ...e, lo: ZERO }]]), unknown: a.unknown };
  return { entries: new Map([[k, { ...e, lo: floordiv(e.lo, c), hi: add(floordiv(sub(e.hi, ONE), c), ONE) }]]), unknown: a.unknown };
}

/** Does a value change from program to program or trip to trip (program ids, loop variables)? */
function perProgram(e: Expr): boolean {
  for (const s of freeSymbols(e)) if (s.startsWith('tl.program_id') || s.startsWith('⟨')) return true;
  return false;
}

/** Moves every entry's dimension when a block is reshaped by `[:, None]` / `[None, :]`. */
export function offRemap(a: Offsets | undefined, map: (dimR: number) => number | null): Offsets | undefined {
  if (!a) return a;
  const entries = new Map<string, OffEntry>();
  for (const [k, e] of a.entries) entries.set(k, { ...e, dimR: e.dimR === null ? null : map(e.dimR) });
  return { entries, unknown: a.unknown };
}

/** The single varying entry of an index (for masks), if it has exactly one. */
export function varyingEntry(a: Offsets | undefined): OffEntry | undefined {
  if (!a || a.unknown) return undefined;
  const vs = [...a.entries.values()].filter((e) => e.dimR !== null || !(sub(e.hi, e.lo).constant === 1));
  return vs.length === 1 ? vs[0] : undefined;
}

/** The offsets with every masked dimension's upper end replaced by the mask's bound. */
export function clipOffsets(a: Offsets | undefined, clips: Map<number, Expr> | undefined): Offsets | undefined {
  if (!a || !clips || clips.size === 0) return a;
  const entries = new Map<string, OffEntry>();
  for (const [k, e] of a.entries) {
    const clip = e.dimR !== null ? clips.get(e.dimR) : undefined;
    entries.set(k, clip ? { ...e, hi: clip } : e);
  }
  return { entries, unknown: a.unknown };
}

/** Distinct elements an access touches over the launch: the product of its entries' extents. */
export function footprint(a: Offsets | undefined): Expr | null {
  if (!a || a.unknown) return null;
  let total: Expr = ONE;
  for (const e of a.entries.values()) {
    const extent = sub(e.hi, e.lo);
    if (extent.poisoned) return null;
    total = mul(total, extent);
  }
  return total;
}

/**
 * The union of two accesses to one tensor, when they vary along the same
 * strides (`x1 = base + d` and `x2 = base + d + half` cover [0, 2·half)):
 * each entry's interval becomes the hull of both. Undefined when the
 * accesses run along different strides (then the larger one is kept).
 */
export function offUnion(a: Offsets, b: Offsets): Offsets | undefined {
  if (a.unknown || b.unknown || a.entries.size !== b.entries.size) return undefined;
  const entries = new Map<string, OffEntry>();
  for (const [k, e] of a.entries) {
    const f = b.entries.get(k);
    if (!f) return undefined;
    entries.set(k, { ...e, lo: emin(e.lo, f.lo), hi: emax(e.hi, f.hi) });
  }
  return { entries, unknown: false };
}

/** Widens the entry with stride `key` by `step · (trips − 1)` (a pointer advanced each loop trip). */
export function offAdvance(a: Offsets | undefined, step: Offsets | undefined, trips: Expr): Offsets {
  if (!a || !step) return offUnknown();
  const entries = new Map<string, OffEntry>(a.entries);
  let unknown = a.unknown || step.unknown;
  for (const [k, s] of step.entries) {
    const width = sub(s.hi, s.lo);
    if (width.constant !== 1) {
      unknown = true;
      continue;
    }
    const span = mul(s.lo, sub(trips, ONE));
    const cur = entries.get(k);
    if (cur) entries.set(k, { ...cur, hi: add(cur.hi, span) });
    else entries.set(k, { stride: s.stride, lo: ZERO, hi: add(span, ONE), dimR: null });
  }
  return { entries, unknown };
}

export function describeOffsets(a: Offsets | undefined): string {
  if (!a) return '?';
  if (a.unknown) return 'unknown';
  return [...a.entries.values()].map((e) => `${printExpr(e.stride)}·[${printExpr(e.lo)}, ${printExpr(e.hi)})`).join(' + ');
}

