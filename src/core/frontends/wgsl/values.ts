/**
 * Abstract values of WGSL expressions.
 *
 * Every expression evaluates to a `Val` that says what the counter needs to
 * know about it:
 *   - its type (lanes for FLOPs, bytes for loads);
 *   - what it depends on (`deps`): compile-time constants cost nothing, index
 *     arithmetic on invocation ids and loop counters is free, arithmetic on
 *     loaded data is counted;
 *   - a symbolic value (`sym`) over *named* symbols (consts, overrides,
 *     uniform fields, `arrayLength(buf)`), for trip counts and sizes;
 *   - an interval (`range`) over the whole launch, for footprints;
 *   - a concrete evaluator (`fn`) over invocation ids and loop counters, to
 *     count the invocations that satisfy `lid.x < s` exactly.
 */
import { add, evaluate, max as emax, min as emin, mul, neg, num, scale, sub, sym, type Env, type Expr } from '../../sym/expr';
import { scalar, scalarOf, U32, UNKNOWN, vec, type WType } from './types';

/** Dependency bits. A value with no bits set is a compile-time constant. */
export const DEP = {
  /** `local_invocation_id` / `local_invocation_index`. */
  LID: 1,
  /** `global_invocation_id`. */
  GID: 2,
  /** `workgroup_id`. */
  WID: 4,
  /** Loaded from storage / workgroup memory / a texture, or computed from such. */
  DATA: 8,
  /** Read from a uniform buffer, `arrayLength`, `num_workgroups`, `textureDimensions`. */
  UNIFORM: 16,
  /** A loop counter. */
  LOOP: 32,
  /** A variable whose value changes at run time in a way not tracked (loop-carried). */
  MUT: 64,
} as const;

/** Concrete environment: named bindings plus `@lid.x`, `@lidx`, `@L12`, … during enumeration. */
export type ConcEnv = ReadonlyMap<string, number>;

export type Range = readonly [Expr, Expr];

/** Where a pointer or a memory place points. */
export interface Place {
  /** Root variable: a module-scope resource or a function-local variable. */
  root: PlaceRoot;
  /** Type at this point of the access chain. */
  type: WType;
  /** Member path without indices, e.g. `particlesA.particles` (names `arrayLength(…)`). */
  path: string;
  /** Name for a bindable symbol when the whole chain is static (`params.n`, `size.x`). */
  symName: string | undefined;
  /** Member and index steps from the root (to read function-local values). */
  steps: Step[];
  /** The index into the outermost array, for footprints. */
  outerIndex: Val | undefined;
  /** The array that `outerIndex` indexes (its element, fixed length, and `arrayLength` path). */
  outerArray: { elem: WType; count: number | undefined; path: string } | undefined;
}

export type Step = { kind: 'member'; name: string } | { kind: 'index'; idx: Val };

export type PlaceRoot =
  | { kind: 'global'; name: string; space: string; access: string }
  | { kind: 'local'; name: string; slot: Slot };

/** A function-scope variable or value binding. */
export interface Slot {
  val: Val;
  mutable: boolean;
  /** Loop counter slots keep their loop value: updates are the loop's own step. */
  loopVar: boolean;
}

export interface Val {
  type: WType;
  deps: number;
  sym?: Expr;
  range?: Range;
  fn?: (env: ConcEnv) => number | undefined;
  /** Loop counters this value depends on (their `@L…` keys). */
  loops?: string[];
  /** Per-component values of a vector (for `gid.xy`, `vec2i(x, y)`). */
  comps?: Val[];
  /** A pointer (`&x`) or an unevaluated memory place. */
  place?: Place;
  /** Member values of a struct value whose members are known (builtin input structs). */
  fields?: Record<string, Val>;
  /** Set on the raw local invocation id components and index. */
  lid?: LidComp;
  /** Set on comparisons of a local id with a symbolic bound (`lid.x < s`). */
  pred?: LidPred;
  /** Named symbols a comparison or logical value depends on (what an undecided condition needs). */
  names?: string[];
}

export type LidComp = 'x' | 'y' | 'z' | 'idx';

/** `lid.comp op bound`, normalised so the local id is on the left. */
export interface LidPred {
  comp: LidComp;
  op: string;
  bound: Expr;
}

export function isConst(v: Val): boolean {
  return v.deps === 0;
}

export function hasDep(v: Val, bit: number): boolean {
  return (v.deps & bit) !== 0;
}

/** A constant value with a symbolic (possibly named) value. */
export function constVal(type: WType, sym: Expr | undefined, env: Env): Val {
  if (!sym) return { type, deps: 0 };
  const v = evaluate(sym, env);
  const point = v === undefined ? sym : num(v);
  return { type, deps: 0, sym, range: [point, point], fn: () => evaluate(sym, env) };
}

/** A run-time value nothing is known about except its type and dependencies. */
export function opaqueVal(type: WType, deps: number, loops?: string[]): Val {
  return { type, deps, loops };
}

export function mergeLoops(...vs: (Val | undefined)[]): string[] | undefined {
  let out: string[] | undefined;
  for (const v of vs)
    for (const l of v?.loops ?? []) {
      out ??= [];
      if (!out.includes(l)) out.push(l);
    }
  return out;
}

export function joinDeps(...vs: (Val | undefined)[]): number {
  let d = 0;
  for (const v of vs) d |= v?.deps ?? 0;
  return d;
}

// ---------------------------------------------------------------------------
// Interval arithmetic on symbolic bounds. Values are assumed non-negative where
// a product of two symbolic intervals is taken (indices and sizes are).

export function rangeAdd(a: Range, b: Range): Range {
  return [add(a[0], b[0]), add(a[1], b[1])];
}

export function rangeSub(a: Range, b: Range): Range {
  return [sub(a[0], b[1]), sub(a[1], b[0])];
}

export function rangeMul(a: Range, b: Range): Range | undefined {
  const ca = constOf(a);
  const cb = constOf(b);
  if (ca !== undefined) return scaleRange(b, ca);
  if (cb !== undefined) return scaleRange(a, cb);
  return [mul(a[0], b[0]), mul(a[1], b[1])];
}

function scaleRange(r: Range, c: number): Range {
  return c >= 0 ? [scale(r[0], c), scale(r[1], c)] : [scale(r[1], c), scale(r[0], c)];
}

/** The constant of a point interval, when it has one. */
export function constOf(r: Range): number | undefined {
  const lo = r[0].constant;
  return lo !== undefined && lo === r[1].constant ? lo : undefined;
}

export function rangeMin(a: Range, b: Range): Range {
  return [emin(a[0], b[0]), emin(a[1], b[1])];
}

export function rangeMax(a: Range, b: Range): Range {
  return [emax(a[0], b[0]), emax(a[1], b[1])];
}

export function rangeUnion(a: Range, b: Range): Range {
  return [emin(a[0], b[0]), emax(a[1], b[1])];
}

export function rangeNeg(a: Range): Range {
  return [neg(a[1]), neg(a[0])];
}

/** `[0, n − 1]`. */
export function upTo(n: Expr): Range {
  return [num(0), sub(n, num(1))];
}

// ---------------------------------------------------------------------------
// Vectors, uniforms, members and indices (pure)

const COMPONENTS = 'xyzw';

export function vector(comps: Val[]): Val {
  return { type: vec(comps.length, scalarOf(comps[0]?.type ?? U32) ?? 'u32'), deps: joinDeps(...comps), comps, loops: mergeLoops(...comps) };
}

/** A value read from a uniform buffer (or a uniform query): a bindable symbol when it is a static scalar. */
export function uniformValue(type: WType, name: string | undefined, env: ReadonlyMap<string, number>): Val {
  if (name && type.k === 'scalar') {
    const s = sym(name);
    return { type, deps: DEP.UNIFORM, sym: s, range: [s, s], fn: () => evaluate(s, env) };
  }
  if (name && type.k === 'vec') return { ...vector(Array.from({ length: type.n }, (_, i) => uniformValue(scalar(type.s), `${name}.${COMPONENTS[i]}`, env))), type };
  return opaqueVal(type, DEP.UNIFORM);
}

/** The type of the value held at a place (`atomic<u32>` holds a `u32`, `atomic<vec2u>` a `vec2u`). */
export function valueType(t: WType): WType {
  return t.k === 'atomic' ? (t.n ? vec(t.n, t.s) : scalar(t.s)) : t;
}

export function memberPlace(base: Place, name: string): Place | undefined {
  const t = base.type;
  const step = { kind: 'member' as const, name };
  if (t.k === 'struct') {
    const m = t.members.find((x) => x.name === name);
    if (!m) return undefined;
    return { ...base, type: m.type, path: `${base.path}.${name}`, symName: base.symName && `${base.symName}.${name}`, steps: [...base.steps, step] };
  }
  if (t.k === 'vec') {
    const type = name.length === 1 ? scalar(t.s) : vec(name.length, t.s);
    return { ...base, type, symName: base.symName && `${base.symName}.${name}`, steps: [...base.steps, step] };
  }
  return { ...base, type: UNKNOWN, steps: [...base.steps, step] };
}

export function indexPlace(base: Place, idx: Val): Place {
  const t = base.type;
  const step = { kind: 'index' as const, idx };
  const k = idx.sym && isConst(idx) ? idx.sym.constant : undefined;
  const symName = base.symName && k !== undefined ? `${base.symName}[${k}]` : undefined;
  if (t.k === 'array') {
    const outer = base.outerArray ? {} : { outerIndex: idx, outerArray: { elem: t.elem, count: t.count, path: base.path } };
    return { ...base, ...outer, type: t.elem, symName, steps: [...base.steps, step] };
  }
  if (t.k === 'vec') return { ...base, type: scalar(t.s), symName, steps: [...base.steps, step] };
  if (t.k === 'mat') return { ...base, type: vec(t.r, t.s), symName, steps: [...base.steps, step] };
  return { ...base, type: UNKNOWN, symName, steps: [...base.steps, step] };
}

/** `v.name` on a value (swizzles, struct members of known values). */
export function valueMember(v: Val, name: string): Val {
  const t = v.type;
  if (v.fields?.[name]) return v.fields[name];
  if (t.k === 'struct') {
    const m = t.members.find((x) => x.name === name);
    return opaqueVal(m?.type ?? UNKNOWN, v.deps, v.loops);
  }
  if (t.k === 'vec' || t.k === 'scalar') {
    const s = scalarOf(t) ?? 'f32';
    const idx = [...name].map((ch) => swizzleIndex(ch));
    const comps = v.comps && idx.every((i) => i >= 0 && v.comps![i]) ? idx.map((i) => v.comps![i]) : undefined;
    if (idx.length === 1) return comps ? comps[0] : opaqueVal(scalar(s), v.deps, v.loops);
    return { type: vec(idx.length, s), deps: v.deps, loops: v.loops, comps };
  }
  return opaqueVal(UNKNOWN, v.deps, v.loops);
}

function swizzleIndex(ch: string): number {
  const i = 'xyzw'.indexOf(ch);
  return i >= 0 ? i : 'rgba'.indexOf(ch);
}

/** `v[i]` on a value (local arrays, vectors, matrices). */
export function valueIndex(v: Val, idx: Val): Val {
  const t = v.type;
  const deps = v.deps;
  if (t.k === 'array') return opaqueVal(t.elem, deps, mergeLoops(v, idx));
  if (t.k === 'vec') {
    const k = idx.sym && isConst(idx) ? idx.sym.constant : undefined;
    if (k !== undefined && v.comps?.[k]) return v.comps[k];
    return opaqueVal(scalar(t.s), deps, v.loops);
  }
  if (t.k === 'mat') return opaqueVal(vec(t.r, t.s), deps, v.loops);
  return opaqueVal(UNKNOWN, deps, v.loops);
}
