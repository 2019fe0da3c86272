/**
 * Abstract values of the Triton interpreter.
 *
 * A numeric value (scalar or block) carries its shape, element type, its
 * symbolic scalar value when it has one, whether it is a compile-time
 * constant, whether it derives from loaded data, and — for index and pointer
 * arithmetic — the information the footprint (compulsory traffic) needs:
 * per-dimension index intervals over the whole launch, and the program-id axes
 * and loops a scalar offset depends on.
 */
import type { Dtype } from '../../gpus/types';
import { equals, max as emax, min as emin, mul, num, ONE, type Expr } from '../../sym/expr';
import type { Offsets } from './offsets';

export interface NumVal {
  k: 'num';
  shape: Expr[];
  dtype: Dtype;
  /** Symbolic value of a scalar, when known (`pid * BLOCK`, `K`, `3`). */
  value?: Expr;
  /** Known at compile time (literal, constexpr, arithmetic on those). */
  isConst: boolean;
  /** Derived from loaded data (arithmetic on it is real work). */
  data: boolean;
  /** Pointer into this tensor (a kernel parameter name). */
  ptr?: string;
  /** The product of a tl.dot (its `+=` accumulation is fused into the MMA). */
  fromDot?: boolean;
  /** Set by an explicit `.to(dtype)` cast (a hint for the element type of the pointer it is stored to). */
  castTo?: Dtype;
  /** A Python float literal: it does not widen a block's type. */
  literalFloat?: boolean;
  /** Loaded through a pointer whose element type was assumed (fp32): may well be integer indices. */
  assumedType?: boolean;
  /** Tensors of assumed element type whose loaded values this one is computed from (to tell indices from data). */
  fromLoads?: string[];
  /** A comparison result: effective extent per dimension (for masks). */
  maskExtent?: Expr[];
  /** Lanes that carry data (a masked load under the min(BLOCK, bound) rule): FLOPs count these. */
  eff?: Expr[];
  /** Mask bounds per dimension (counted from the right), for footprints. */
  clips?: Map<number, Expr>;
  /** 1-D index built from tl.arange with a compile-time start and no program/loop offset. */
  pureArange?: { start: Expr; len: Expr; dimR: number };
  /** Program-id axes this value depends on (any part). */
  pids: number[];
  /** Loop ids this value varies with. */
  loops: number[];
  /** Index / pointer offsets as a linear form, for footprints. */
  off?: Offsets;
}

export interface BlockPtrVal {
  k: 'blockptr';
  target: string;
  dtype: Dtype;
  /** Tensor shape given to make_block_ptr / make_tensor_descriptor (footprint bound). */
  tensorShape: Expr[] | null;
  block: Expr[];
  pids: number[];
  loops: number[];
  /** Offsets of the base pointer (a per-(batch, head) shift multiplies the footprint). */
  baseOff?: Offsets;
  descriptor: boolean;
}

export interface TupleVal {
  k: 'tuple';
  items: Val[];
}

export interface StrVal {
  k: 'str';
  s: string;
}

export interface DtypeVal {
  k: 'dtype';
  dtype: Dtype;
  /** `tl.pointer_type(dtype)`: a pointer to elements of `dtype`. */
  pointer?: boolean;
  /** The element type of a pointer whose type was assumed (fp32): a cast to it says nothing about the pointer. */
  assumed?: boolean;
}

export interface FuncVal {
  k: 'func';
  /** Canonical dotted name: `tl.load`, `libdevice.exp`, or a jit helper name. */
  name: string;
  /** Bound receiver for methods (`x.to`, `desc.load`). */
  self?: Val;
}

export interface NoneVal {
  k: 'none';
}

export interface UnknownVal {
  k: 'unknown';
  why: string;
}

export interface DictVal {
  k: 'dict';
  entries: Map<string, Val>;
}

export type Val = NumVal | BlockPtrVal | TupleVal | StrVal | DtypeVal | FuncVal | NoneVal | UnknownVal | DictVal;

export const NONE: NoneVal = { k: 'none' };

export function unknown(why: string): UnknownVal {
  return { k: 'unknown', why };
}

export function scalar(value: Expr | undefined, dtype: Dtype, isConst: boolean, extra: Partial<NumVal> = {}): NumVal {
  return { k: 'num', shape: [], dtype, value, isConst, data: false, pids: [], loops: [], ...extra };
}

export function constInt(v: number): NumVal {
  return scalar(num(v), 'int32', true);
}

export function numel(shape: Expr[]): Expr {
  return shape.length ? mul(...shape) : ONE;
}

export function union<T>(...lists: T[][]): T[] {
  const nonEmpty = lists.filter((l) => l.length);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? [];
  const s = new Set<T>();
  for (const l of nonEmpty) for (const x of l) s.add(x);
  return [...s].sort();
}

function isOne(e: Expr): boolean {
  return e.constant === 1;
}

/** NumPy-style broadcast of two shapes (right-aligned). */
export function broadcast(a: Expr[], b: Expr[]): Expr[] {
  const n = Math.max(a.length, b.length);
  const out: Expr[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i];
    const y = b[b.length - n + i];
    if (x === undefined) out.push(y);
    else if (y === undefined) out.push(x);
    else if (isOne(x)) out.push(y);
    else if (isOne(y)) out.push(x);
    else if (equals(x, y)) out.push(x);
    else out.push(emax(x, y));
  }
  return out;
}

/** Aligns a per-dimension array to a broadcast shape of rank n (right-aligned), filling with `fill`. */
export function alignDims<T>(xs: T[], n: number, fill: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const j = xs.length - n + i;
    out.push(j >= 0 ? xs[j] : fill);
  }
  return out;
}

/** The elementwise min of two mask extents (a & b). */
export function combineExtents(a: Expr[] | undefined, b: Expr[] | undefined, shape: Expr[]): Expr[] | undefined {
  if (!a && !b) return undefined;
  const n = shape.length;
  const x = a ? alignDims(a, n, ONE) : shape;
  const y = b ? alignDims(b, n, ONE) : shape;
  return shape.map((s, i) => {
    const xi = a && !isOne(x[i]) ? x[i] : s;
    const yi = b && !isOne(y[i]) ? y[i] : s;
    return equals(xi, s) ? yi : equals(yi, s) ? xi : emin(xi, yi);
  });
}

