/**
 * The state of one abstract run of a `@triton.jit` kernel (jit helpers
 * inlined): frames of variables, the loops around the current code, the
 * accesses recorded for footprints, the element types of pointers, and the
 * engine's recorder and notes. The work is spread over files by syntactic
 * category — statements (stmt.ts), expressions (expr.ts), calls (calls.ts),
 * memory (memory.ts), dots and reductions (dot.ts) — as free functions of
 * this state. They reach each other through `ops`, so no file imports another
 * in a cycle.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { BindingSet } from '../../bindings';
import type { Budget } from '../../budget';
import { Notes, Recorder } from '../../engine/recorder';
import type { Dtype } from '../../gpus/types';
import type { Region } from '../../ir';
import { evaluate, exprKey, freeSymbols, mapSyms, mul, num, ONE, sym, ZERO, type Env, type Expr } from '../../sym/expr';
import { parseDtype } from '../common';
import type { FnInfo, ModuleInfo } from './module';
import { offConst, type Offsets } from './offsets';
import { scalar, type NumVal, type Val } from './values';

export interface Frame {
  vars: Map<string, Val>;
  fn: string;
  returned: Val | undefined;
  done: boolean;
}

export interface LoopInfo {
  id: number;
  trips: Expr;
  carried: Set<string>;
}

/** One global access, for the footprints (compulsory traffic) of the launch. */
export interface Access {
  kind: 'load' | 'store';
  target: string;
  elemBytes: number;
  /** Elements per execution × enclosing trips (per unit). */
  perUnit: Expr;
  /** Index offsets over the launch, already clipped by the mask (pointer accesses). */
  off?: Offsets;
  /** Distinct elements over the launch (block pointers / descriptors); null if unknown. */
  footprint: Expr | null;
}

/** A tensor descriptor made by the host (`TensorDescriptor.from_tensor(x, block_shape=[BM, BK])`). */
export interface HostDescriptor {
  block: Expr[];
  /** Where the block shape was read, for the hover. */
  detail: string;
}

export interface TritonInput {
  mod: ModuleInfo;
  kernel: FnInfo;
  bindings: BindingSet;
  env: Env;
  /** Grid dims in kernel-symbol space (null: unknown). */
  grid: Expr[] | null;
  /** The grid's number of axes when its sizes are not known: the axes beyond have 1 program. */
  gridRank?: number;
  /** Element types: user (--dtype) first, then launch-site tensors. */
  userDtypes: Record<string, Dtype>;
  launchDtypes: Map<string, Dtype>;
  /** Descriptors passed by the launch, by parameter. */
  descriptors: Map<string, HostDescriptor>;
  /** Tensors found (by a first run) to hold indices: their element type is an integer. */
  indexTensors: ReadonlySet<string>;
  budget: Budget;
}

/** The functions of the other files, reached through the state (see the header). */
export interface Ops {
  eval(n: Node): Val;
  execBlock(block: Node): void;
  call(n: Node): Val;
  conditional(n: Node): Val;
  dot(a: Val | undefined, b: Val | undefined, acc: Val | undefined, n: Node, opts: Record<string, Val | undefined>): Val;
}

export class TritonState {
  readonly rec: Recorder;
  readonly notes = new Notes();
  /** How deeply the expression being evaluated is nested (interp.ts `evalNested`). */
  exprDepth = 0;
  readonly frames: Frame[] = [];
  readonly loops: LoopInfo[] = [];
  readonly accesses: Access[] = [];
  readonly ptrDtypes = new Map<string, { dtype: Dtype; how: string }>();
  /** Loop variables' first values (masks are widest at the first trip). */
  readonly loopStarts = new Map<string, Expr>();
  /** Counters of the loops being walked that step by 1 and wrap (`ki = tl.where(ki == P - 1, 0, ki + 1)`), by name: their period. */
  readonly counters = new Map<string, Expr>();
  readonly resolvingGlobals = new Set<string>();
  /** Tensors of assumed element type whose loaded values were used as pointer offsets. */
  readonly indexUses = new Set<string>();
  loopIds = 0;
  ops!: Ops;

  constructor(readonly inp: TritonInput) {
    const k = inp.kernel;
    const root: Region = { kind: 'kernel', line: k.line, trips: ONE, label: `def ${k.name}`, events: [], children: [] };
    this.rec = new Recorder(root);
  }

  get frame(): Frame {
    return this.frames[this.frames.length - 1];
  }

  get env(): Env {
    return this.inp.env;
  }

  lookup(name: string): Val | undefined {
    return this.frame.vars.get(name);
  }

  /** Work stops: the budget is spent or the function returned. */
  halted(): boolean {
    return this.frame.done || this.inp.budget.spent();
  }

  // ---------------------------------------------------------------- values

  scalarExpr(v: Val | undefined): Expr | undefined {
    return v && v.k === 'num' && v.shape.length === 0 ? v.value : undefined;
  }

  axisOf(v: Val | undefined): number {
    const c = v && v.k === 'num' && v.value ? evaluate(v.value, this.env) : undefined;
    return c ?? 0;
  }

  shapeOf(v: Val | undefined): Expr[] | undefined {
    if (!v) return undefined;
    if (v.k === 'tuple') {
      const out: Expr[] = [];
      for (const it of v.items) {
        if (it.k !== 'num' || !it.value) return undefined;
        out.push(it.value);
      }
      return out;
    }
    if (v.k === 'num' && v.value) return [v.value];
    return undefined;
  }

  dtypeOf(v: Val | undefined): Dtype | undefined {
    if (!v) return undefined;
    if (v.k === 'dtype') return v.dtype;
    if (v.k === 'str') return parseDtype(v.s);
    return undefined;
  }

  /** The value of a condition, when it is decided. */
  truth(v: Val): boolean | undefined {
    if (v.k === 'none') return false;
    if (v.k === 'str') return v.s.length > 0;
    if (v.k === 'dtype' || v.k === 'func' || v.k === 'blockptr') return true;
    if (v.k === 'tuple') return v.items.length > 0;
    if (v.k !== 'num' || v.shape.length > 0 || v.data || !v.value) return undefined;
    const x = evaluate(v.value, this.env);
    return x === undefined ? undefined : x !== 0;
  }

  isConst(v: Val): boolean {
    return v.k === 'num' ? v.isConst : v.k !== 'unknown';
  }

  /** Symbols a condition needs a value for (not program ids or loop variables). */
  missing(v: Val): string[] {
    if (v.k !== 'num' || !v.value) return [];
    return [...freeSymbols(v.value)].filter((s) => !this.env.has(s) && !s.startsWith('⟨') && !s.startsWith('tl.program_id'));
  }

  numPrograms(axis: number): Expr {
    const g = this.inp.grid?.[axis];
    if (g) return g;
    if (this.inp.grid && axis >= this.inp.grid.length) return ONE;
    if (!this.inp.grid && this.inp.gridRank !== undefined && axis >= this.inp.gridRank) return ONE;
    return sym(`tl.num_programs(${axis})`);
  }

  // ---------------------------------------------------------------- element types

  paramValue(name: string, constexpr: boolean, annotation: Node | null): Val {
    const b = this.inp.bindings.get(name);
    if (b && typeof b.value === 'string') {
      const d = parseDtype(b.value);
      if (d) return { k: 'dtype', dtype: d };
      return { k: 'str', s: b.value };
    }
    const value = sym(name);
    const ann = annotation ? annotation.text.replace(/\s/g, '') : '';
    const annDtype = annotationDtype(ann);
    if (annDtype && !constexpr) {
      if (/pointer_type|^\*|^"\*|^'\*/.test(ann)) {
        this.ptrDtypes.set(name, { dtype: annDtype, how: 'annotation' });
        return scalar(value, 'int64', false, { ptr: name, off: offConst(ZERO) });
      }
      return scalar(value, annDtype, false, { off: offConst(value) });
    }
    if (constexpr) return scalar(value, 'int32', true, { off: offConst(value) });
    // Untyped runtime parameters may be pointers or integers: as a pointer the base is no index
    // (offset 0); as an integer it shifts an index, which never changes a footprint's extent.
    return scalar(value, 'int32', false, { ptr: name, off: offConst(ZERO) });
  }

  /** The element type of a pointer argument, and how it is known. */
  elemDtype(target: string, storedHint?: NumVal): { dtype: Dtype; how: string } {
    const u = this.inp.userDtypes[target];
    if (u) return { dtype: u, how: '--dtype' };
    const known = this.ptrDtypes.get(target);
    if (known) return known;
    const l = this.inp.launchDtypes.get(target);
    if (l) return { dtype: l, how: 'launch-site tensor' };
    if (this.inp.indexTensors.has(target)) {
      this.notes.assume('indexIsInteger', target);
      this.ptrDtypes.set(target, { dtype: 'int32', how: 'used as an index' });
      return { dtype: 'int32', how: 'used as an index' };
    }
    if (storedHint && storedHint.castTo) {
      this.ptrDtypes.set(target, { dtype: storedHint.castTo, how: 'value cast before the store' });
      this.notes.assume('elemFromCast', target, storedHint.castTo);
      return { dtype: storedHint.castTo, how: 'stored cast' };
    }
    this.notes.assume('elemAssumedFp32', target);
    return { dtype: 'fp32', how: 'assumed' };
  }

  /** Loop variables replaced by their first value (the widest mask bound: `K - k*BK` at k = start). */
  atLoopStart(e: Expr): Expr {
    let env: Map<string, number> | undefined;
    for (const s of freeSymbols(e)) {
      if (!s.startsWith('⟨')) continue;
      const start = this.loopStarts.get(exprKey(sym(s)));
      const v = start ? evaluate(start, this.env) : undefined;
      if (v !== undefined) (env ??= new Map()).set(s, v);
    }
    return env ? mapSyms(e, (x) => (env!.has(x) ? num(env!.get(x)!) : undefined)) : e;
  }

  /** The product of the loop trips around the current code (per unit). */
  loopMultiplier(): Expr {
    let m: Expr = ONE;
    for (const l of this.loops) m = mul(m, l.trips);
    return m;
  }
}

function annotationDtype(ann: string): Dtype | undefined {
  const m = /pointer_type\(([\w.]+)\)/.exec(ann) ?? /^["']?\*(\w+)["']?$/.exec(ann);
  if (m) return parseDtype(m[1]);
  if (!ann || /constexpr|tensor/.test(ann)) return undefined;
  return parseDtype(ann.replace(/^(tl|triton\.language)\./, ''));
}
