/**
 * WGSL types as the counter needs them: how many lanes an arithmetic operation
 * works on, how many bytes a load moves (host-shareable layout of the WGSL
 * spec: sizes, alignments, struct member offsets), and which texel format a
 * texture reads.
 */
import type { Dtype } from '../../gpus/types';

/** Scalar kinds; `af`/`ai` are the abstract (untyped literal) float and int. */
export type ScalarKind = 'f32' | 'f16' | 'i32' | 'u32' | 'bool' | 'af' | 'ai';

export interface StructMember {
  name: string;
  type: WType;
  offset: number;
}

export type WType =
  | { k: 'scalar'; s: ScalarKind }
  | { k: 'vec'; n: number; s: ScalarKind }
  | { k: 'mat'; c: number; r: number; s: ScalarKind }
  | { k: 'array'; elem: WType; count: number | undefined }
  | { k: 'struct'; name: string; members: StructMember[]; size: number; align: number }
  /** `atomic<u32>`; `n` for the atomic vectors of extensions (`atomic<vec2u>`). */
  | { k: 'atomic'; s: ScalarKind; n?: number }
  | { k: 'texture'; name: string; format: string | undefined; sampled: ScalarKind }
  | { k: 'sampler' }
  | { k: 'ptr'; space: string; elem: WType }
  | { k: 'unknown' };

export const UNKNOWN: WType = { k: 'unknown' };
export const BOOL: WType = { k: 'scalar', s: 'bool' };
export const U32: WType = { k: 'scalar', s: 'u32' };
export const I32: WType = { k: 'scalar', s: 'i32' };
export const F32: WType = { k: 'scalar', s: 'f32' };

export function scalar(s: ScalarKind): WType {
  return { k: 'scalar', s };
}

export function vec(n: number, s: ScalarKind): WType {
  return n === 1 ? scalar(s) : { k: 'vec', n, s };
}

/** The scalar kind of a numeric type (vector and matrix elements, atomics). */
export function scalarOf(t: WType): ScalarKind | undefined {
  if (t.k === 'scalar' || t.k === 'vec' || t.k === 'mat' || t.k === 'atomic') return t.s;
  if (t.k === 'array') return scalarOf(t.elem);
  return undefined;
}

export function isFloatKind(s: ScalarKind | undefined): boolean {
  return s === 'f32' || s === 'f16' || s === 'af';
}

export function isIntKind(s: ScalarKind | undefined): boolean {
  return s === 'i32' || s === 'u32' || s === 'ai';
}

/** Lanes an elementwise operation on a value of this type works on. */
export function lanes(t: WType): number {
  if (t.k === 'vec') return t.n;
  if (t.k === 'mat') return t.c * t.r;
  return 1;
}

function scalarBytes(s: ScalarKind): number {
  return s === 'f16' ? 2 : 4;
}

/** Alignment in bytes (WGSL "AlignOf"). */
export function alignOf(t: WType): number {
  switch (t.k) {
    case 'scalar':
      return scalarBytes(t.s);
    case 'atomic':
      return scalarBytes(t.s) * (t.n ?? 1);
    case 'vec':
      return scalarBytes(t.s) * (t.n === 3 ? 4 : t.n);
    case 'mat':
      return alignOf(vec(t.r, t.s));
    case 'array':
      return alignOf(t.elem);
    case 'struct':
      return t.align;
    default:
      return 4;
  }
}

function roundUp(k: number, n: number): number {
  return Math.ceil(n / k) * k;
}

/** Size in bytes (WGSL "SizeOf"); runtime-sized arrays count one element. */
export function sizeOf(t: WType): number {
  switch (t.k) {
    case 'scalar':
      return scalarBytes(t.s);
    case 'atomic':
      return scalarBytes(t.s) * (t.n ?? 1);
    case 'vec':
      return scalarBytes(t.s) * t.n;
    case 'mat':
      return t.c * roundUp(alignOf(vec(t.r, t.s)), sizeOf(vec(t.r, t.s)));
    case 'array':
      return (t.count ?? 1) * strideOf(t.elem);
    case 'struct':
      return t.size;
    default:
      return 4;
  }
}

/** Distance between consecutive array elements. */
export function strideOf(elem: WType): number {
  return roundUp(alignOf(elem), sizeOf(elem));
}

/** Lays out a struct: members at their aligned offsets, `@align`/`@size` honoured. */
export function makeStruct(
  name: string,
  members: { name: string; type: WType; align?: number; size?: number }[],
): WType {
  let offset = 0;
  let align = 1;
  const laid: StructMember[] = [];
  for (const m of members) {
    const a = m.align ?? alignOf(m.type);
    offset = roundUp(a, offset);
    laid.push({ name: m.name, type: m.type, offset });
    offset += m.size ?? sizeOf(m.type);
    align = Math.max(align, a);
  }
  return { k: 'struct', name, members: laid, size: roundUp(align, offset), align };
}

/** The result of `a op b` for arithmetic operators (WGSL's vector/scalar broadcast rules). */
export function arithResult(a: WType, b: WType): WType {
  if (a.k === 'unknown') return b.k === 'unknown' ? F32 : b;
  if (b.k === 'unknown') return a;
  const s = concreteOf(scalarOf(a), scalarOf(b));
  if (a.k === 'vec') return vec(a.n, s);
  if (b.k === 'vec') return vec(b.n, s);
  if (a.k === 'mat') return { k: 'mat', c: a.c, r: a.r, s };
  if (b.k === 'mat') return { k: 'mat', c: b.c, r: b.r, s };
  return scalar(s);
}

/** The concrete scalar kind of a mixed operation (`f32` op abstract → `f32`). */
function concreteOf(a: ScalarKind | undefined, b: ScalarKind | undefined): ScalarKind {
  if (!a) return b ?? 'f32';
  if (!b) return a;
  if (a === 'af' || a === 'ai') return b === 'ai' && a === 'af' ? 'af' : b;
  return a;
}

/** A type with another scalar kind (same shape). */
export function withScalar(t: WType, s: ScalarKind): WType {
  if (t.k === 'scalar') return scalar(s);
  if (t.k === 'vec') return vec(t.n, s);
  if (t.k === 'mat') return { ...t, s };
  if (t.k === 'array') return { ...t, elem: withScalar(t.elem, s) };
  return t;
}

/** The dtype a value of this type is stored as (for the report). */
export function dtypeOf(t: WType): Dtype {
  const s = scalarOf(t) ?? (t.k === 'struct' ? structScalar(t) : undefined);
  if (s === 'f16') return 'fp16';
  if (s === 'i32' || s === 'u32' || s === 'ai') return 'int32';
  if (s === 'bool') return 'bool';
  return 'fp32';
}

function structScalar(t: Extract<WType, { k: 'struct' }>): ScalarKind | undefined {
  const kinds = new Set(t.members.map((m) => scalarOf(m.type) ?? (m.type.k === 'struct' ? structScalar(m.type) : undefined)));
  return kinds.size === 1 ? [...kinds][0] : undefined;
}

/** WGSL scalar kind for a user `--dtype` (only the types WGSL has). */
export function scalarForDtype(d: Dtype): ScalarKind | undefined {
  if (d === 'fp32') return 'f32';
  if (d === 'fp16') return 'f16';
  if (d === 'int32') return 'i32';
  return undefined;
}

/** Printable type name, e.g. `vec2<f32>`. */
export function typeName(t: WType): string {
  switch (t.k) {
    case 'scalar':
      return t.s === 'af' ? 'f32' : t.s === 'ai' ? 'i32' : t.s;
    case 'vec':
      return `vec${t.n}<${typeName(scalar(t.s))}>`;
    case 'mat':
      return `mat${t.c}x${t.r}<${typeName(scalar(t.s))}>`;
    case 'array':
      return t.count === undefined ? `array<${typeName(t.elem)}>` : `array<${typeName(t.elem)}, ${t.count}>`;
    case 'struct':
      return t.name;
    case 'atomic':
      return t.n ? `atomic<vec${t.n}<${t.s}>>` : `atomic<${t.s}>`;
    case 'texture':
      return t.format ? `${t.name}<${t.format}>` : t.name;
    case 'ptr':
      return `ptr<${t.space}, ${typeName(t.elem)}>`;
    default:
      return t.k;
  }
}

/** Shorthand vector/matrix type names (`vec3f`, `mat4x4h`, `vec2u`). */
export function shorthandType(name: string): WType | undefined {
  const suffix: Record<string, ScalarKind> = { f: 'f32', h: 'f16', i: 'i32', u: 'u32' };
  let m = /^vec([234])([fhiu])$/.exec(name);
  if (m) return vec(Number(m[1]), suffix[m[2]]);
  m = /^mat([234])x([234])([fh])$/.exec(name);
  if (m) return { k: 'mat', c: Number(m[1]), r: Number(m[2]), s: suffix[m[3]] };
  return undefined;
}

const SCALARS: Record<string, ScalarKind> = { f32: 'f32', f16: 'f16', i32: 'i32', u32: 'u32', bool: 'bool' };

export function scalarNamed(name: string): ScalarKind | undefined {
  return SCALARS[name];
}
