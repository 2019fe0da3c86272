/**
 * What every frontend shares: the start of a kernel's bindings (user values
 * and pragmas first), dtype names, and the element sizes of COUNTING.md.
 */
import type { FrontendContext } from '../frontend';
import { BindingSet } from '../bindings';
import type { Dtype } from '../gpus/types';

/** A kernel's bindings, seeded with what the user said (highest priority). */
export function seedBindings(ctx: FrontendContext): BindingSet {
  const b = new BindingSet();
  for (const [n, v] of Object.entries(ctx.user.set)) b.bind(n, v, 'user', '--set / settings');
  for (const p of ctx.pragmas) b.bind(p.name, p.value, 'pragma', `roofline pragma (line ${p.line})`);
  return b;
}

/** Element sizes in bytes (COUNTING.md "Element sizes"). */
export const DTYPE_BYTES: Record<Dtype, number> = {
  fp64: 8,
  fp32: 4,
  tf32: 4,
  fp16: 2,
  bf16: 2,
  fp8: 1,
  int8: 1,
  int16: 2,
  int32: 4,
  int64: 8,
  bool: 1,
};

/** Normalises a user-facing dtype name (`--dtype a_ptr=fp8e5m2`, `float16`, `half`, `bfloat16`, …). */
export function parseDtype(s: string): Dtype | undefined {
  const t = s.trim().toLowerCase().replace(/^(tl|torch|np|numpy|jnp)\./, '');
  const table: Record<string, Dtype> = {
    fp64: 'fp64', float64: 'fp64', double: 'fp64', f64: 'fp64',
    fp32: 'fp32', float32: 'fp32', float: 'fp32', f32: 'fp32',
    tf32: 'tf32',
    fp16: 'fp16', float16: 'fp16', half: 'fp16', f16: 'fp16', __half: 'fp16',
    bf16: 'bf16', bfloat16: 'bf16', __nv_bfloat16: 'bf16',
    fp8: 'fp8', fp8e4m3: 'fp8', fp8e5m2: 'fp8', fp8e4nv: 'fp8', fp8e4b15: 'fp8', fp8e4m3fn: 'fp8', fp8e5m2fnuz: 'fp8', fp8e4m3fnuz: 'fp8',
    float8_e4m3fn: 'fp8', float8_e5m2: 'fp8', float8_e4m3fnuz: 'fp8', float8_e5m2fnuz: 'fp8', e4m3: 'fp8', e5m2: 'fp8',
    float8e4nv: 'fp8', float8e5: 'fp8', float8e4b15: 'fp8', float8e4b8: 'fp8', float8e5b16: 'fp8', fp8e4b8: 'fp8', fp8e5b16: 'fp8',
    int8: 'int8', uint8: 'int8', i8: 'int8', u8: 'int8', char: 'int8',
    int16: 'int16', uint16: 'int16', short: 'int16',
    int32: 'int32', uint32: 'int32', int: 'int32', i32: 'int32', u32: 'int32', unsigned: 'int32',
    int64: 'int64', uint64: 'int64', long: 'int64', i64: 'int64',
    bool: 'bool', int1: 'bool', bool_: 'bool',
  };
  return table[t];
}

export function isFloat(d: Dtype): boolean {
  return d === 'fp64' || d === 'fp32' || d === 'tf32' || d === 'fp16' || d === 'bf16' || d === 'fp8';
}

/** Rank for type promotion of mixed arithmetic (higher wins). */
export function promote(a: Dtype, b: Dtype): Dtype {
  const rank: Record<Dtype, number> = { bool: 0, int8: 1, int16: 2, int32: 3, int64: 4, fp8: 5, bf16: 6, fp16: 7, tf32: 8, fp32: 9, fp64: 10 };
  if (isFloat(a) && !isFloat(b)) return a;
  if (isFloat(b) && !isFloat(a)) return b;
  return rank[a] >= rank[b] ? a : b;
}

/**
 * Keeps `value` as the newest of a map of per-document memos, dropping the
 * least recently kept past `max` (Map order: oldest first).
 */
export function keepLatest<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
  return value;
}
