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
import { add, evaluate, max as emax, min as emin, mul, neg, num, scale, sub, type Env, type Expr } from '../../sym/expr';
import type { WType } from './types';

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
