/**
 * Footprints for the compulsory traffic: per storage buffer and texture, the
 * distinct elements read and written over the whole dispatch.
 *
 * Every global access records the interval its index spans over all
 * workgroups, invocations and loop trips (narrowed by the guards seen on the
 * way, clamped to the array's length when that is known). The footprint of a
 * buffer is the hull of its accesses' intervals; a texture's is the product of
 * the hulls of its coordinates. When any access cannot be bounded, there is no
 * footprint for the kernel at all (a partial one would understate the
 * compulsory bytes), and the note says why.
 */
import { assumption, type Assumption } from '../../messages';
import type { TensorFootprint } from '../../ir';
import { add, evaluate, freeSymbols, max, min, mul, num, sub, type Env, type Expr } from '../../sym/expr';
import { hasDep, DEP, rangeUnion, type Range, type Val } from './values';

export interface Access {
  target: string;
  kind: 'read' | 'write';
  /** Bytes per element of the footprint (array stride, struct size, texel size). */
  elemBytes: number;
  /** Elements in the indexed array, when known (fixed size or a bound `arrayLength`). */
  cap: Expr | undefined;
  /** The index into the outermost array (buffers); undefined for a non-array buffer. */
  index: Val | undefined;
  /** Texel coordinates (textures). */
  coords: Val[] | undefined;
  /** Why this access cannot be bounded, when it cannot (sampled textures). */
  unbounded?: string;
  line: number;
}

interface Hull {
  elemBytes: number;
  read: Range[] | null | undefined;
  written: Range[] | null | undefined;
}

export interface FootprintResult {
  footprints: TensorFootprint[];
  note?: string;
  assumptions: Assumption[];
}

/** Folds the accesses into per-tensor footprints, or explains why there are none. */
export function footprintsOf(accesses: Access[], env: Env): FootprintResult {
  const hulls = new Map<string, Hull>();
  const assumptions: Assumption[] = [];
  for (const a of accesses) {
    const h = hulls.get(a.target) ?? { elemBytes: a.elemBytes, read: undefined, written: undefined };
    hulls.set(a.target, h);
    const r = accessRanges(a, assumptions);
    if (typeof r === 'string') return { footprints: [], note: r, assumptions };
    const key = a.kind === 'read' ? 'read' : 'written';
    h[key] = h[key] ? h[key]!.map((x, i) => rangeUnion(x, r[i] ?? x)) : r;
  }
  const footprints: TensorFootprint[] = [];
  for (const [target, h] of hulls)
    footprints.push({ target, elemBytes: h.elemBytes, read: h.read ? extent(h.read) : null, written: h.written ? extent(h.written) : null });
  const missing = new Set<string>();
  for (const f of footprints)
    for (const e of [f.read, f.written])
      if (e && evaluate(e, env) === undefined) for (const s of freeSymbols(e)) if (!env.has(s)) missing.add(s);
  if (missing.size > 0) {
    const names = [...missing].sort().map((s) => '`' + s + '`');
    return { footprints: [], note: `compulsory traffic needs ${names.join(', ')} (bind with --set, or --grid for the dispatch size)`, assumptions };
  }
  return { footprints, assumptions };
}

/** The index interval(s) of one access, clamped to the array; a string says why there is none. */
function accessRanges(a: Access, assumptions: Assumption[]): Range[] | string {
  if (a.unbounded) return a.unbounded;
  if (a.coords) {
    const out: Range[] = [];
    for (const c of a.coords) {
      if (!c.range || hasDep(c, DEP.DATA)) return `texel coordinates of \`${a.target}\` (line ${a.line}) are data-dependent`;
      out.push(c.range);
    }
    return out;
  }
  if (!a.index) return [[num(0), num(0)]];
  if (!a.index.range || hasDep(a.index, DEP.DATA) || hasDep(a.index, DEP.MUT)) {
    const why = hasDep(a.index, DEP.DATA) ? 'depends on loaded data' : 'cannot be bounded';
    if (!a.cap) return `index of \`${a.target}\` (line ${a.line}) ${why} and its length is unknown (bind \`arrayLength(${a.target})\`)`;
    assumptions.push(assumption('footprintWhole', a.target, a.line, why));
    return [[num(0), sub(a.cap, num(1))]];
  }
  const [lo, hi] = a.index.range;
  if (!a.cap) return [[lo, hi]];
  return [[max(lo, num(0)), min(hi, sub(a.cap, num(1)))]];
}

/** Elements in a hull: the product of the per-dimension extents `hi − lo + 1`. */
function extent(rs: Range[]): Expr {
  return mul(...rs.map(([lo, hi]) => max(num(0), add(sub(hi, lo), num(1)))));
}
