/**
 * The CUDA math and conversion intrinsics the analysis knows, by what they
 * cost (COUNTING.md "FLOPs"): transcendentals 1 FLOP + a special op, fused
 * multiply-adds 2, rounded arithmetic 1, comparisons / min / max / abs /
 * rounding / conversions 0. `half2` and `bfloat162` variants count per lane
 * (their operands have two lanes).
 */
import type { Ty } from './types';
import { INT, namedType, numTy } from './types';

const roundings = (base: string) => ['rn', 'rz', 'ru', 'rd'].map((r) => `${base}_${r}`);

export const SPECIAL = new Set([
  ...['exp', 'exp2', 'exp10', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt', 'rsqrt', 'cbrt', 'rcbrt'],
  ...['sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'atan2', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh'],
  ...['erf', 'erfc', 'erfinv', 'erfcinv', 'pow', 'normcdf', 'normcdfinv', 'lgamma', 'tgamma', 'hypot', 'sinpi', 'cospi'],
  ...['expf', 'exp2f', 'exp10f', 'expm1f', 'logf', 'log2f', 'log10f', 'log1pf', 'sqrtf', 'rsqrtf', 'cbrtf', 'rcbrtf'],
  ...['sinf', 'cosf', 'tanf', 'asinf', 'acosf', 'atanf', 'atan2f', 'sinhf', 'coshf', 'tanhf', 'asinhf', 'acoshf', 'atanhf'],
  ...['erff', 'erfcf', 'erfinvf', 'erfcinvf', 'powf', 'normcdff', 'normcdfinvf', 'lgammaf', 'tgammaf', 'hypotf', 'sinpif', 'cospif'],
  ...['__expf', '__exp10f', '__logf', '__log2f', '__log10f', '__sinf', '__cosf', '__tanf', '__powf', '__tanhf'],
  ...roundings('__fsqrt'),
  ...roundings('__dsqrt'),
  ...roundings('__frcp'),
  ...roundings('__drcp'),
  '__frsqrt_rn',
  ...['hexp', 'hexp2', 'hexp10', 'hlog', 'hlog2', 'hlog10', 'hsqrt', 'hrsqrt', 'hrcp', 'hsin', 'hcos', 'htanh', 'htanh_approx'],
  ...['h2exp', 'h2exp2', 'h2exp10', 'h2log', 'h2log2', 'h2log10', 'h2sqrt', 'h2rsqrt', 'h2rcp', 'h2sin', 'h2cos', 'h2tanh'],
]);

export const FMA = new Set(['fma', 'fmaf', ...roundings('__fmaf'), ...roundings('__fma'), '__fmaf_ieee_rn', '__hfma', '__hfma2', '__hfma_sat', '__hfma2_sat', '__hfma_relu', '__hfma2_relu']);

export const ARITH = new Set([
  ...['__fadd', '__fsub', '__fmul', '__fdiv', '__dadd', '__dsub', '__dmul', '__ddiv'].flatMap(roundings),
  ...['__fdividef', 'fdividef', 'fdivide', '__hadd', '__hsub', '__hmul', '__hdiv', '__hadd2', '__hsub2', '__hmul2', '__h2div'],
  ...['__hadd_sat', '__hsub_sat', '__hmul_sat', '__hadd2_sat', '__hsub2_sat', '__hmul2_sat', '__hadd_rn', '__hmul_rn', '__hadd2_rn', '__hmul2_rn'],
]);

/** Zero-cost functions that return (a value of the type of) their first argument. */
export const FREE = new Set([
  ...['fminf', 'fmaxf', 'fmin', 'fmax', 'min', 'max', 'umin', 'umax', 'llmin', 'llmax', '__hmax', '__hmin', '__hmax2', '__hmin2', '__hmax_nan', '__hmin_nan'],
  ...['abs', 'fabs', 'fabsf', 'labs', 'llabs', '__habs', '__habs2', '__hneg', '__hneg2', 'copysign', 'copysignf', '__saturatef', 'fdimf'],
  ...['floor', 'floorf', 'ceil', 'ceilf', 'round', 'roundf', 'trunc', 'truncf', 'rint', 'rintf', 'nearbyintf', 'hfloor', 'hceil', 'htrunc', 'hrint'],
  ...['__float2tf32', '__float_to_tf32', '__builtin_expect'],
]);

/** Conversions and constructors, with the type they return. */
export function conversionType(name: string): Ty | undefined {
  const table: Record<string, string> = {
    __float2half: 'half',
    __float2half_rn: 'half',
    __double2half: 'half',
    __half2float: 'float',
    __low2float: 'float',
    __high2float: 'float',
    __low2half: 'half',
    __high2half: 'half',
    __float2bfloat16: '__nv_bfloat16',
    __float2bfloat16_rn: '__nv_bfloat16',
    __bfloat162float: 'float',
    __low2bfloat16: '__nv_bfloat16',
    __high2bfloat16: '__nv_bfloat16',
    __floats2half2_rn: 'half2',
    __float22half2_rn: 'half2',
    __float2half2_rn: 'half2',
    __halves2half2: 'half2',
    __half2half2: 'half2',
    __lows2half2: 'half2',
    __highs2half2: 'half2',
    make_half2: 'half2',
    __half22float2: 'float2',
    __floats2bfloat162_rn: '__nv_bfloat162',
    __float22bfloat162_rn: '__nv_bfloat162',
    __halves2bfloat162: '__nv_bfloat162',
    __bfloat1622float2: 'float2',
    __int2float_rn: 'float',
    __uint2float_rn: 'float',
    __int2double_rn: 'double',
    __double2float_rn: 'float',
    __float2double: 'double',
    __int_as_float: 'float',
    __uint_as_float: 'float',
    __longlong_as_double: 'double',
    make_float2: 'float2',
    make_float3: 'float3',
    make_float4: 'float4',
    make_double2: 'double2',
    make_int2: 'int2',
    make_int4: 'int4',
    make_uint2: 'uint2',
    make_uint4: 'uint4',
  };
  const t = table[name];
  if (t) return namedType(t);
  // `make_uchar4`, `make_int3`, `make_double2`: the vector constructors.
  const made = /^make_(\w+)$/.exec(name);
  if (made) {
    const v = namedType(made[1]) ?? namedType(made[1].replace(/^u(?=(char|short|int|long))/, ''));
    if (v && v.k === 'num') return numTy(v.dtype, v.lanes, made[1]);
  }
  if (/^__(float|double|half|bfloat16)2u?(int|ll|short)_r[nzud]$/.test(name) || /_as_u?(int|longlong|short)$/.test(name)) return INT;
  if (/^__(float|double)2uint_r[nzud]$/.test(name)) return INT;
  if (/^__(short|ushort|int|uint)2half_r[nzud]$/.test(name)) return numTy('fp16', 1, 'half');
  return undefined;
}

export const LOADS = new Set(['__ldg', '__ldca', '__ldcg', '__ldcs', '__ldlu', '__ldcv']);
export const STORES = new Set(['__stcs', '__stcg', '__stwb', '__stwt']);

export const NO_OPS = new Set([
  ...['__syncthreads', '__syncwarp', '__threadfence', '__threadfence_block', '__threadfence_system', '__nanosleep', 'printf', 'assert'],
  ...['__trap', '__brkpt', '__pipeline_commit', '__pipeline_wait_prior', '__builtin_assume', '__assume', '__builtin_unreachable', '__prof_trigger'],
  ...['cudaGridDependencySynchronize', 'cudaTriggerProgrammaticLaunchCompletion', 'wmma::fill_fragment', 'cg::sync', 'cg::wait', 'cg::wait_prior', '__cvta_generic_to_global'],
]);

/** Warp votes and bit tricks: integer results that depend on data. */
export const VOTES = new Set(['__ballot_sync', '__any_sync', '__all_sync', '__uni_sync', '__activemask', '__popc', '__popcll', '__clz', '__clzll', '__ffs', '__ffsll', '__brev', '__match_any_sync', '__match_all_sync', '__syncthreads_count', '__syncthreads_and', '__syncthreads_or', 'isnan', 'isinf', 'isfinite', '__isnanf', '__isinff', '__hisnan', '__hisinf', 'signbit']);

export const ATOMICS = /^(unsafeAtomic|atomic)(Add|Sub|Max|Min|Exch|CAS|And|Or|Xor|Inc|Dec)(_block|_system)?$/;
export const SHUFFLES = /^__shfl(_(up|down|xor))?(_sync)?$/;
