/**
 * The CUDA types the analysis distinguishes: numbers (scalars and the vector
 * types `float4`, `half2`, …), pointers, `wmma` fragments, structs (including
 * cooperative-groups handles and `dim3`) and everything else as unknown.
 */
import type { Dtype } from '../../gpus/types';
import { DTYPE_BYTES, isFloat } from '../common';

export type FragUse = 'matrix_a' | 'matrix_b' | 'accumulator';

export interface FragTy {
  k: 'frag';
  use: FragUse;
  m: number;
  n: number;
  kk: number;
  dtype: Dtype;
  /** Element layout of a matrix_a / matrix_b fragment; null for accumulators. */
  colMajor: boolean;
}

export type Ty =
  | { k: 'num'; dtype: Dtype; lanes: number; name: string }
  | { k: 'ptr'; to: Ty }
  | FragTy
  | StructTy
  | { k: 'void' }
  | { k: 'unknown'; name: string };

/** A struct, class or union: one defined in the file carries its C++ layout. */
export interface StructTy {
  k: 'struct';
  name: string;
  args: Ty[];
  layout?: Layout;
}

/** Where each member of a struct lives, as C++ lays it out (natural alignment, padding, `alignas`/`__align__`). */
export interface Layout {
  size: number;
  align: number;
  fields: Map<string, FieldInfo>;
  /** False when a member's type is not known here (from a header): its size, and the offsets after it, are guesses. */
  complete: boolean;
  /** The member type that made the layout incomplete. */
  unknown?: string;
}

export interface FieldInfo {
  off: number;
  ty: Ty;
  /** Array dimensions of an array member (`float v[3]` → [3]). */
  dims: number[];
}

export function numTy(dtype: Dtype, lanes = 1, name?: string): Ty {
  return { k: 'num', dtype, lanes, name: name ?? dtype };
}

export const INT: Ty = numTy('int32', 1, 'int');
export const INT64: Ty = numTy('int64', 1, 'long');
export const BOOL: Ty = numTy('bool', 1, 'bool');
export const FLOAT: Ty = numTy('fp32', 1, 'float');
export const DOUBLE: Ty = numTy('fp64', 1, 'double');
const VOID: Ty = { k: 'void' };
export const UNKNOWN: Ty = { k: 'unknown', name: '?' };

export function ptrTo(t: Ty): Ty {
  return { k: 'ptr', to: t };
}

/** Scalar and vector type names of CUDA C++, with their element type and lane count. */
const NAMED: Record<string, [Dtype, number]> = {
  float: ['fp32', 1],
  double: ['fp64', 1],
  half: ['fp16', 1],
  __half: ['fp16', 1],
  half2: ['fp16', 2],
  __half2: ['fp16', 2],
  __nv_bfloat16: ['bf16', 1],
  nv_bfloat16: ['bf16', 1],
  __nv_bfloat162: ['bf16', 2],
  nv_bfloat162: ['bf16', 2],
  __nv_fp8_e4m3: ['fp8', 1],
  __nv_fp8_e5m2: ['fp8', 1],
  float1: ['fp32', 1],
  float2: ['fp32', 2],
  float3: ['fp32', 3],
  float4: ['fp32', 4],
  double1: ['fp64', 1],
  double2: ['fp64', 2],
  double4: ['fp64', 4],
  int: ['int32', 1],
  signed: ['int32', 1],
  unsigned: ['int32', 1],
  uint: ['int32', 1],
  int32_t: ['int32', 1],
  uint32_t: ['int32', 1],
  double3: ['fp64', 3],
  int1: ['int32', 1],
  int2: ['int32', 2],
  int3: ['int32', 3],
  int4: ['int32', 4],
  uint1: ['int32', 1],
  uint2: ['int32', 2],
  uint4: ['int32', 4],
  char: ['int8', 1],
  int8_t: ['int8', 1],
  uint8_t: ['int8', 1],
  char2: ['int8', 2],
  char3: ['int8', 3],
  char4: ['int8', 4],
  uchar2: ['int8', 2],
  uchar3: ['int8', 3],
  uchar4: ['int8', 4],
  short2: ['int16', 2],
  short4: ['int16', 4],
  ushort2: ['int16', 2],
  ushort4: ['int16', 4],
  long2: ['int64', 2],
  ulong2: ['int64', 2],
  longlong2: ['int64', 2],
  ulonglong2: ['int64', 2],
  short: ['int16', 1],
  int16_t: ['int16', 1],
  uint16_t: ['int16', 1],
  long: ['int64', 1],
  int64_t: ['int64', 1],
  uint64_t: ['int64', 1],
  size_t: ['int64', 1],
  ptrdiff_t: ['int64', 1],
  bool: ['bool', 1],
};

/** The type named by a plain identifier (`float`, `half2`, `uint32_t`), or undefined. */
export function namedType(name: string): Ty | undefined {
  const e = NAMED[name];
  if (e) return numTy(e[0], e[1], name);
  if (name === 'void') return VOID;
  return undefined;
}

/** Bytes of one value of the type (pointers 8, a struct its laid-out size, `dim3` 12, unknown 4). */
export function sizeOf(t: Ty): number {
  switch (t.k) {
    case 'num':
      return DTYPE_BYTES[t.dtype] * t.lanes;
    case 'ptr':
      return 8;
    case 'frag':
      return DTYPE_BYTES[t.dtype];
    case 'void':
      return 1;
    case 'struct':
      return t.layout?.size ?? (t.name === 'dim3' ? 12 : 4);
    default:
      return 4;
  }
}

/**
 * Alignment of a type as nvcc lays it out: scalars their size; the 2- and
 * 4-lane vector types their whole size up to 16 (`float2` 8, `float4` 16,
 * `double4` 16, `half2` 4); 3-lane ones their element (`float3` 4); a
 * struct its largest member's or its `alignas`.
 */
export function alignOf(t: Ty): number {
  switch (t.k) {
    case 'num': {
      const e = DTYPE_BYTES[t.dtype];
      return t.lanes === 2 || t.lanes === 4 ? Math.min(16, e * t.lanes) : e;
    }
    case 'ptr':
      return 8;
    case 'frag':
      return DTYPE_BYTES[t.dtype];
    case 'struct':
      return t.layout?.align ?? 4;
    default:
      return 4;
  }
}

/** The element type a struct's bytes are mostly made of (for labels): its widest kind of member. */
export function structDtype(t: StructTy): Dtype {
  const bytes = new Map<Dtype, number>();
  const visit = (ty: Ty, n: number, depth: number): void => {
    if (ty.k === 'num') bytes.set(ty.dtype, (bytes.get(ty.dtype) ?? 0) + n * sizeOf(ty));
    else if (ty.k === 'ptr') bytes.set('int64', (bytes.get('int64') ?? 0) + n * 8);
    else if (ty.k === 'struct' && ty.layout && depth < 8) for (const f of ty.layout.fields.values()) visit(f.ty, n * f.dims.reduce((a, b) => a * b, 1), depth + 1);
  };
  visit(t, 1, 0);
  let best: Dtype = 'int32';
  let most = 0;
  for (const [d, b] of bytes) if (b > most) [best, most] = [d, b];
  return best;
}

export function isFloatTy(t: Ty): boolean {
  return t.k === 'num' && isFloat(t.dtype);
}

export function isIntTy(t: Ty): boolean {
  return t.k === 'num' && !isFloat(t.dtype);
}

/** One lane of a vector type (`float4` → `float`). */
export function scalarOf(t: Ty): Ty {
  return t.k === 'num' && t.lanes > 1 ? numTy(t.dtype, 1) : t;
}

export function lanesOf(t: Ty): number {
  return t.k === 'num' ? t.lanes : 1;
}

export function tyName(t: Ty): string {
  switch (t.k) {
    case 'num':
      return t.name;
    case 'ptr':
      return tyName(t.to) + '*';
    case 'frag':
      return `fragment<${t.use}, ${t.m}, ${t.n}, ${t.kk}, ${t.dtype}>`;
    case 'struct':
      return t.name;
    case 'void':
      return 'void';
    default:
      return t.name;
  }
}

/** Element type of a `wmma::fragment` type argument (`half`, `wmma::precision::tf32`, `signed char`). */
export function fragDtype(name: string): Dtype | undefined {
  const last = name.split('::').pop()!.trim();
  if (last === 'tf32') return 'tf32';
  if (last === 'bf16') return 'bf16';
  if (/^(signed|unsigned) char$/.test(last) || last === 'char' || last === 's8' || last === 'u8') return 'int8';
  if (last === 'int') return 'int32';
  const t = namedType(last);
  return t && t.k === 'num' ? t.dtype : undefined;
}
