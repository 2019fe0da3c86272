/**
 * WGSL builtin functions: what each costs (COUNTING.md's FLOP table, extended
 * in docs/counting-wgsl.md) and what type it returns. Memory builtins
 * (textures, atomics, `arrayLength`, `workgroupUniformLoad`) are handled by the
 * walker, which knows the resources; this module only knows arithmetic.
 */
import type { FlopClass } from '../../ir';
import { BOOL, F32, U32, lanes, scalar, scalarOf, vec, type WType } from './types';

export interface BuiltinCost {
  /** FLOPs per invocation. */
  flops: number;
  /** Transcendental operations per invocation (also in `flops`). */
  special: number;
  cls: FlopClass;
}

/** Transcendentals: 1 FLOP per lane, also counted as special ops. */
const SPECIAL = new Set([
  'exp', 'exp2', 'log', 'log2', 'sqrt', 'inverseSqrt', 'pow', 'sin', 'cos', 'tan', 'tanh',
  'sinh', 'cosh', 'asin', 'acos', 'atan', 'atan2', 'asinh', 'acosh', 'atanh',
]);

/** Builtins that cost nothing: selects, comparisons, casts, bit tricks, rounding. */
const FREE = new Set([
  'abs', 'sign', 'floor', 'ceil', 'round', 'trunc', 'min', 'max', 'clamp', 'select', 'step', 'saturate',
  'all', 'any', 'transpose', 'countOneBits', 'countLeadingZeros', 'countTrailingZeros', 'firstLeadingBit',
  'firstTrailingBit', 'extractBits', 'insertBits', 'reverseBits', 'quantizeToF16', 'bitcast',
  'pack4x8snorm', 'pack4x8unorm', 'pack2x16snorm', 'pack2x16unorm', 'pack2x16float', 'pack4xI8', 'pack4xU8',
  'unpack4x8snorm', 'unpack4x8unorm', 'unpack2x16snorm', 'unpack2x16unorm', 'unpack2x16float', 'unpack4xI8', 'unpack4xU8',
  'workgroupBarrier', 'storageBarrier', 'textureBarrier', 'dpdx', 'dpdy', 'fwidth',
  'subgroupMin', 'subgroupMax', 'subgroupAnd', 'subgroupOr', 'subgroupXor', 'subgroupBroadcast',
  'subgroupBroadcastFirst', 'subgroupShuffle', 'subgroupShuffleXor', 'subgroupShuffleUp', 'subgroupShuffleDown',
  'subgroupBallot', 'subgroupElect', 'subgroupAll', 'subgroupAny', 'frexp', 'modf',
]);

/** Per-lane FLOPs of simple elementwise builtins. */
const PER_LANE: Record<string, number> = { fma: 2, mix: 3, smoothstep: 7, fract: 1, degrees: 1, radians: 1, ldexp: 1 };

/** Subgroup reductions: one reduction tree per 32-wide subgroup (COUNTING.md's warp rule). */
export const SUBGROUP_REDUCE = new Set(['subgroupAdd', 'subgroupMul', 'subgroupInclusiveAdd', 'subgroupExclusiveAdd', 'subgroupInclusiveMul', 'subgroupExclusiveMul']);

export function isKnownBuiltin(name: string): boolean {
  return SPECIAL.has(name) || FREE.has(name) || name in PER_LANE || SUBGROUP_REDUCE.has(name) || GEOMETRIC.has(name);
}

const GEOMETRIC = new Set(['dot', 'length', 'distance', 'normalize', 'cross', 'reflect', 'refract', 'faceForward', 'determinant', 'dot4U8Packed', 'dot4I8Packed']);

/** The arithmetic cost of one call, per invocation; undefined for builtins that are not arithmetic. */
export function builtinCost(name: string, args: WType[]): BuiltinCost | undefined {
  const a0 = args[0] ?? F32;
  const n = lanes(a0);
  if (SPECIAL.has(name)) return { flops: n, special: n, cls: 'special' };
  if (FREE.has(name)) return { flops: 0, special: 0, cls: 'builtin' };
  if (name in PER_LANE) return { flops: PER_LANE[name] * lanes(widest(args)), special: 0, cls: name === 'fma' ? 'fma' : 'builtin' };
  const geo = geometricCost(name, a0, n);
  return geo && { ...geo, cls: 'builtin' };
}

function geometricCost(name: string, a0: WType, n: number): { flops: number; special: number } | undefined {
  switch (name) {
    case 'dot':
      return { flops: 2 * n - 1, special: 0 };
    case 'length':
      // Squares, a sum and a square root; the length of a scalar is its absolute value.
      return n === 1 ? { flops: 0, special: 0 } : { flops: 2 * n, special: 1 };
    case 'distance':
      return n === 1 ? { flops: 1, special: 0 } : { flops: 3 * n, special: 1 };
    case 'normalize':
      return { flops: 3 * n, special: 1 };
    case 'cross':
      return { flops: 9, special: 0 };
    case 'reflect':
      return { flops: 4 * n, special: 0 };
    case 'refract':
      return { flops: 5 * n + 7, special: 1 };
    case 'faceForward':
      return { flops: 2 * n - 1, special: 0 };
    case 'determinant':
      return { flops: a0.k === 'mat' ? ({ 2: 3, 3: 14, 4: 63 } as Record<number, number>)[a0.c] ?? 0 : 0, special: 0 };
    default:
      return undefined;
  }
}

function widest(args: WType[]): WType {
  return args.reduce((w, t) => (lanes(t) > lanes(w) ? t : w), args[0] ?? F32);
}

/** The result type of an arithmetic builtin, from its argument types. */
export function builtinResult(name: string, args: WType[]): WType {
  const a0 = args[0] ?? F32;
  const s = scalarOf(a0) ?? 'f32';
  switch (name) {
    case 'dot':
    case 'length':
    case 'distance':
    case 'determinant':
      return scalar(s === 'ai' ? 'af' : s);
    case 'all':
    case 'any':
    case 'subgroupElect':
    case 'subgroupAll':
    case 'subgroupAny':
      return BOOL;
    case 'transpose':
      return a0.k === 'mat' ? { k: 'mat', c: a0.r, r: a0.c, s } : a0;
    case 'dot4U8Packed':
    case 'pack4x8snorm':
    case 'pack4x8unorm':
    case 'pack2x16snorm':
    case 'pack2x16unorm':
    case 'pack2x16float':
    case 'pack4xI8':
    case 'pack4xU8':
      return U32;
    case 'dot4I8Packed':
      return scalar('i32');
    case 'unpack4x8snorm':
    case 'unpack4x8unorm':
      return vec(4, 'f32');
    case 'unpack2x16snorm':
    case 'unpack2x16unorm':
    case 'unpack2x16float':
      return vec(2, 'f32');
    case 'unpack4xI8':
      return vec(4, 'i32');
    case 'unpack4xU8':
      return vec(4, 'u32');
    case 'subgroupBallot':
      return vec(4, 'u32');
    case 'select':
      return widest(args.slice(0, 2));
    default:
      return widest(args);
  }
}
