/**
 * Footprints for the compulsory traffic: for each global tensor, the range
 * of bytes read and written over the whole launch. Each access contributes
 * the interval of its byte offset over all blocks, threads and loop
 * iterations (index symbols range over [lo, hi]; bounds checks clip the
 * variables they test), widened by the bytes it moves. Distinct elements =
 * (hi − lo) ÷ element size: the accesses of real kernels cover their range
 * densely.
 */
import type { TensorFootprint } from '../../ir';
import { add, evaluate, exprKey, max, min, num, scale, sub, type Env, type Expr } from '../../sym/expr';
import type { IndexSyms } from './indexsyms';
import { sizeOf } from './types';
import type { Ptr } from './values';

interface Range {
  lo: Expr;
  hi: Expr;
}

interface Tensor {
  elemBytes: number;
  read?: Range;
  written?: Range;
  /** Why a range cannot be derived (first reason). */
  why?: string;
}

export class Footprints {
  private readonly tensors = new Map<string, Tensor>();

  constructor(
    private readonly syms: IndexSyms,
    /** The current numeric bindings (they grow while the kernel is read). */
    private readonly env: () => Env,
  ) {}

  /** One global access of `extent` bytes at `ptr`. */
  record(kind: 'load' | 'store', ptr: Ptr, extent: Expr, line: number): void {
    const t = this.tensors.get(ptr.base) ?? { elemBytes: sizeOf(ptr.baseTy) };
    this.tensors.set(ptr.base, t);
    if (t.why) return;
    const r = ptr.exact ? this.syms.interval(ptr.off) : undefined;
    if (!r) {
      t.why = ptr.why ?? `the index into \`${ptr.base}\` at line ${line} depends on loaded data or on values the analysis cannot follow`;
      return;
    }
    const range = { lo: r.lo, hi: add(r.hi, extent) };
    if (kind === 'load') t.read = this.merge(t.read, range);
    else t.written = this.merge(t.written, range);
  }

  private merge(a: Range | undefined, b: Range): Range {
    if (!a) return b;
    return { lo: this.pick(a.lo, b.lo, min, (x, y) => x <= y), hi: this.pick(a.hi, b.hi, max, (x, y) => x >= y) };
  }

  /** The smaller (or larger) of two bounds: numerically when both evaluate, else symbolically. */
  private pick(a: Expr, b: Expr, f: (x: Expr, y: Expr) => Expr, better: (x: number, y: number) => boolean): Expr {
    if (exprKey(a) === exprKey(b)) return a;
    const va = evaluate(a, this.env());
    const vb = evaluate(b, this.env());
    if (va !== undefined && vb !== undefined) return better(va, vb) ? a : b;
    return f(a, b);
  }

  /** The footprints, or none and the reason when one tensor's cannot be derived. */
  result(): { footprints: TensorFootprint[]; note?: string } {
    const out: TensorFootprint[] = [];
    for (const [target, t] of this.tensors) {
      if (t.why) return { footprints: [], note: `compulsory traffic unknown: ${t.why}` };
      const elems = (r?: Range) => (r ? scale(sub(r.hi, r.lo), 1 / t.elemBytes) : null);
      out.push({ target, elemBytes: t.elemBytes, read: elems(t.read), written: elems(t.written) });
    }
    return { footprints: out };
  }
}

/** The footprint of a strided 2-D tile (`wmma` loads): rows·ld + cols elements of `elemBytes`. */
export function tileExtent(rows: number, cols: number, ld: Expr, elemBytes: number): Expr {
  return scale(add(scale(ld, rows - 1), num(cols)), elemBytes);
}
