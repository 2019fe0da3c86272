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
  | { k: 'struct'; name: string; args: Ty[] }
  | { k: 'void' }
  | { k: 'unknown'; name: string };

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
  int2: ['int32', 2],
  int4: ['int32', 4],
  uint2: ['int32', 2],
  uint4: ['int32', 4],
  char: ['int8', 1],
  int8_t: ['int8', 1],
  uint8_t: ['int8', 1],
  char4: ['int8', 4],
  uchar4: ['int8', 4],
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

/** Bytes of one value of the type (pointers 8, unknown 4). */
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
    default:
      return 4;
  }
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
