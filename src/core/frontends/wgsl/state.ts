/**
 * The state of one abstract run of a WGSL compute entry point (helper
 * functions inlined): frames of variables, the workgroup size and the
 * invocations executing the current code, the bindings, the accesses recorded
 * for footprints, and the engine's recorder and notes. Counts are per
 * workgroup: the per-invocation amount times `active`.
 *
 * The work is spread over files by syntactic category — expressions
 * (expr.ts), memory places, loads, stores and atomics (memory.ts), calls and
 * builtins (calls.ts), textures (textures.ts), entry-point inputs
 * (inputs.ts), statements (stmt.ts), `if` and `switch` (branches.ts), loops
 * (loops.ts) — as free functions of this state. They reach each other through
 * `ops` (wired in kernel.ts), so no file imports another in a cycle.
 */
import type { BlockElem, ExpressionElem, FnElem, FunctionCallExpression, Statement } from 'wesl/core';
import type { BindingSet } from '../../bindings';
import type { Budget } from '../../budget';
import { Notes, type Recorder } from '../../engine/recorder';
import type { UserInputs } from '../../frontend';
import type { Dtype } from '../../gpus/types';
import type { FlopClass, MemorySpace, Region } from '../../ir';
import { freeSymbols, mul, num, type Expr } from '../../sym/expr';
import { countActive, type ActivePred } from './conditions';
import type { Access } from './footprint';
import { TypeResolver, type ModuleInfo } from './module';
import type { ScalarKind } from './types';
import type { Place, Slot, Val } from './values';

export interface WalkInputs {
  mod: ModuleInfo;
  bindings: BindingSet;
  user: UserInputs;
  budget: Budget;
  /** 1-based host-file line of a module offset. */
  lineOf: (offset: number) => number;
}

/** A function being walked (the entry point or an inlined helper). */
export interface Frame {
  fnName: string;
  scopes: Map<string, Slot>[];
  ret: Val | undefined;
}

/** What a walk records for footprints besides events; loops that unroll roll it back to a mark. */
export interface WalkLog {
  accesses: Access[];
}

/** The functions of the other files, reached through the state (see the header). */
export interface Ops {
  evalExpr(e: ExpressionElem): Val;
  /** The memory place an access chain denotes, or undefined for plain values. */
  evalPlace(e: ExpressionElem): Place | undefined;
  /** A module-scope variable as a place. */
  globalPlace(name: string): Place | undefined;
  /** The value of a module-scope `const` or `override`, binding its name. */
  globalValue(name: string): Val | undefined;
  readPlace(p: Place, at: number, what: string): Val;
  writePlace(p: Place, v: Val, line: number, what: string): void;
  binary(op: string, l: Val, r: Val, line: number): Val;
  call(e: FunctionCallExpression): Val;
  /** Inlines a call to a module function. */
  callUser(fn: FnElem, args: Val[], line: number): Val;
  /** Walks a block in its own scope; true when it ends in an unconditional exit. */
  walkBlock(b: BlockElem): boolean;
  walkStatements(stmts: Statement[]): boolean;
  walkStatement(s: Statement): boolean;
}

export class WgslState {
  readonly mod: ModuleInfo;
  readonly bindings: BindingSet;
  readonly user: UserInputs;
  readonly budget: Budget;
  readonly lineOf: (offset: number) => number;
  readonly types: TypeResolver;
  readonly src: string;
  /** Numeric values of the bindings (kept in step with `bindings`). */
  readonly env = new Map<string, number>();
  /** Loop counter values while a loop is unrolled (`@L12` → 64). */
  readonly unrollEnv = new Map<string, number>();
  /** Loops whose counters a local-id predicate needed. */
  readonly needsUnroll = new Set<string>();
  /** Counters of the loops being walked that step by 1 and wrap (`ki = select(ki + 1, 0, ki == P - 1)`), by name: their period. */
  readonly counters = new Map<string, Expr>();
  readonly log: WalkLog = { accesses: [] };
  readonly notes = new Notes();
  /** How deeply the expression being evaluated is nested (expr.ts `evalExpr`). */
  exprDepth = 0;
  rec!: Recorder;
  /** `arrayLength` paths the shader asks for (their symbols bound footprints). */
  readonly usedLengths = new Set<string>();
  wg: Expr[] = [num(1), num(1), num(1)];
  active: Expr = num(1);
  preds: ActivePred[] = [];
  frames: Frame[] = [];
  /** Depth of data-dependent branches around the current code. */
  dataDepth = 0;
  /** True while a call is evaluated as a statement of its own (its result is not used). */
  discarded = false;
  /** Module-scope consts and overrides, once evaluated. */
  readonly globals = new Map<string, Val>();
  readonly resolvingGlobals = new Set<string>();
  ops!: Ops;

  constructor(inp: WalkInputs) {
    this.mod = inp.mod;
    this.bindings = inp.bindings;
    this.user = inp.user;
    this.budget = inp.budget;
    this.lineOf = inp.lineOf;
    this.src = inp.mod.ast.srcModule.src;
    for (const [k, v] of inp.bindings.env()) this.env.set(k, v);
    this.types = new TypeResolver(inp.mod, (e) => this.constNumber(e));
  }

  // -------------------------------------------------------------------------
  // Bindings, logging, events

  bind(name: string, value: number | boolean, source: 'define' | 'launch' | 'user', detail: string): void {
    this.bindings.bind(name, value, source, detail);
    const v = this.bindings.num(name);
    if (v !== undefined) this.env.set(name, v);
  }

  /** Evaluates without emitting events (for a second look at an expression already counted). */
  quietly<T>(f: () => T): T {
    return this.rec.quietly(f);
  }

  get quiet(): number {
    return this.rec.quiet;
  }

  get region(): Region {
    return this.rec.region;
  }

  text(e: { start: number; end: number }): string {
    return this.src.slice(e.start, e.end).replace(/\s+/g, ' ');
  }

  emitFlop(op: string, cls: FlopClass, perInvocation: number, s: ScalarKind | undefined, line: number, special = false): void {
    if (perInvocation <= 0) return;
    const dtype: Dtype = s === 'f16' ? 'fp16' : 'fp32';
    this.rec.flop(cls, op, mul(num(perInvocation), this.active), dtype, line, { special });
  }

  emitInt(op: string, perInvocation: number, line: number): void {
    if (perInvocation <= 0) return;
    this.rec.int(op, mul(num(perInvocation), this.active), line);
  }

  emitMem(kind: 'load' | 'store', space: MemorySpace, target: string, bytes: number, dtype: Dtype, line: number, what: string, elems = 1): void {
    this.rec.mem(kind, space, target, mul(num(elems), this.active), bytes, dtype, line, what);
  }

  /** A constant expression's number (array lengths, `@align`), if it has one. */
  constNumber(e: ExpressionElem): number | undefined {
    const v = this.ops.evalExpr(e);
    return v.fn?.(this.env);
  }

  // -------------------------------------------------------------------------
  // Names

  lookup(name: string): Slot | undefined {
    const f = this.frames[this.frames.length - 1];
    if (!f) return undefined;
    for (let i = f.scopes.length - 1; i >= 0; i--) {
      const s = f.scopes[i].get(name);
      if (s) return s;
    }
    return undefined;
  }

  declare(name: string, slot: Slot): void {
    const f = this.frames[this.frames.length - 1];
    f?.scopes[f.scopes.length - 1].set(name, slot);
  }

  /** Names a constant condition needs a value for. */
  missingNames(v: Val): string[] {
    const out = new Set<string>();
    for (const c of [v, ...(v.comps ?? [])]) for (const s of [...(c.sym ? freeSymbols(c.sym) : []), ...(c.names ?? [])]) if (!this.env.has(s) && !s.startsWith('@')) out.add(s);
    return [...out];
  }

  // -------------------------------------------------------------------------
  // Active invocations

  pushPreds(preds: ActivePred[]): void {
    this.preds.push(...preds);
    this.recount();
  }

  restorePreds(length: number): void {
    if (this.preds.length === length) return;
    this.preds.length = length;
    this.recount();
  }

  /** Recomputes the active invocations after the predicates changed. */
  private recount(): void {
    const r = countActive(this.preds, this.wg, this.env, this.unrollEnv);
    if (r.ok) {
      this.active = r.count;
      return;
    }
    for (const l of r.missingLoops) this.needsUnroll.add(l);
    const known = this.preds.filter((p) => p.fn && p.loops.every((l) => this.unrollEnv.has(l)));
    const fallback = countActive(known, this.wg, this.env, this.unrollEnv);
    this.active = fallback.ok ? fallback.count : mul(...this.wg);
    this.notes.assume('laneUncountable');
  }
}
