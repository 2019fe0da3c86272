/**
 * Abstract values of the CUDA interpreter. The analysis does not run the
 * kernel: every expression evaluates to what matters for counting — its type
 * (for FLOPs and bytes), its integer value as a symbolic expression (for
 * sizes, trip counts, thread conditions and footprints), where a pointer
 * points (global, shared, constant or registers), and whether the value
 * depends on loaded data (for data-dependent branches and integer ops).
 */
import type { MemorySpace } from '../../ir';
import type { Expr } from '../../sym/expr';
import { BOOL, INT, UNKNOWN, type FragTy, type Ty } from './types';

export type Space = MemorySpace | 'local';

/** Where a pointer points: a named object and a byte offset into it. */
export interface Ptr {
  /** The pointer parameter, shared array or global it derives from. */
  base: string;
  space: Space;
  /** Type of one element of the base object (footprints count these). */
  baseTy: Ty;
  /** Byte offset from the start of the base object. */
  off: Expr;
  /** False when the offset could not be followed (data-dependent or unknown). */
  exact: boolean;
  /** Inner dimensions of a multi-dimensional array (`As[BM][BK]` → [BK]). */
  rows: Expr[];
  /** Why the offset is not exact, when it is known better than "data-dependent" (a texture's coordinates). */
  why?: string;
}

export type { CmpOp, Cond } from '../../engine/cond';
import type { Cond } from '../../engine/cond';

/** A cooperative-groups handle, `dim3`, or a struct defined in the file. */
export interface Obj {
  kind: 'block' | 'tile' | 'grid' | 'dim3' | 'struct';
  /** Tile size of a `thread_block_tile<N>`. */
  size?: Expr;
  /** Components of a `dim3`. */
  dims?: Expr[];
  /** Members of a struct value (pointer members of a struct parameter, …). */
  fields?: Map<string, Val>;
}

/** The result of a warp shuffle, so the arithmetic that consumes it counts per warp. */
export interface Shuffle {
  kind: 'down' | 'xor' | 'up' | 'idx';
  offset: Expr;
}

export interface Val {
  ty: Ty;
  /** Integer value (also the symbol of a scalar parameter), when known. */
  e?: Expr;
  /** A compile-time constant: arithmetic on constants folds. */
  konst: boolean;
  /** Depends on loaded memory or on values the analysis cannot follow. */
  data: boolean;
  ptr?: Ptr;
  cond?: Cond;
  frag?: FragTy;
  shfl?: Shuffle;
  obj?: Obj;
}

export function intVal(e: Expr, konst = false): Val {
  return { ty: INT, e, konst, data: false };
}

export function unknownVal(data = true, ty: Ty = UNKNOWN): Val {
  return { ty, konst: false, data };
}

export function boolVal(cond: Cond, data: boolean): Val {
  return { ty: BOOL, konst: false, data, cond };
}

export { not } from '../../engine/cond';
