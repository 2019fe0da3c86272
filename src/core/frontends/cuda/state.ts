/**
 * The state of one abstract run of a kernel (or of the host code around a
 * launch): scopes, the current region of the IR, the set of active threads,
 * bindings, and the sinks for events, diagnostics and assumptions.
 *
 * Counts are per thread block: every event is emitted with the number of
 * threads (or warps) that execute it, `active.count`.
 */
import type { FrontendContext } from '../../frontend';
import type { BindingSet } from '../../bindings';
import { Notes, Recorder } from '../../engine/recorder';
import type { Dtype } from '../../gpus/types';
import type { BindingSource, Event, FlopClass, Region } from '../../ir';
import type { ASSUMPTIONS, AssumptionId, MESSAGES, MessageId } from '../../messages';
import { cdiv, evaluate, mul, num, sym, type Expr } from '../../sym/expr';
import type { FileInfo, FnDef, MacroDef } from './file';
import { Footprints } from './footprint';
import { IndexSyms } from './indexsyms';
import { brief, lineOf, type Node } from './syntax';
import { isFloatTy, lanesOf, sizeOf, structDtype, type Ty } from './types';
import type { Cond } from '../../engine/cond';
import type { Ptr, Val } from './values';

/** A variable: its declared type and current abstract value, or a reference to memory. */
/** Where an assignment writes or a read comes from. */
export type LRef =
  | { k: 'var'; cell: Cell }
  /** `name`: what a pointer read from there is called (`nodes.next`). */
  | { k: 'mem'; ptr: Ptr; view: Ty; name?: string }
  /** A component of a `dim3` variable (`block.x = 256` in host code). */
  | { k: 'dim'; cell: Cell; index: number }
  /** A member (of a member …) of a struct held in a variable: registers, its value is followed. */
  | { k: 'field'; cell: Cell; path: string[] }
  /** Nowhere the analysis follows; `lost`: a pointer whose target is not known (its accesses are said, not silently dropped). */
  | { k: 'none'; lost?: boolean };

export interface Cell {
  ty: Ty;
  val: Val;
  /** Macro parameter: evaluates the argument node in the caller's scope. */
  alias?: { node: Node; scope: Scope; line: number };
  /** Reference parameter bound to an element in memory. */
  memRef?: { ptr: Ptr; view: Ty };
}

export class Scope {
  readonly vars = new Map<string, Cell>();
  constructor(
    readonly parent: Scope | null,
    /** The outermost scope of a function: lookups stop here and go to file scope. */
    readonly fnScope: boolean,
  ) {}

  lookup(name: string): Cell | undefined {
    for (let s: Scope | null = this; s; s = s.fnScope ? null : s.parent) {
      const c = s.vars.get(name);
      if (c) return c;
    }
    return undefined;
  }
}

/** One inlined function (or the kernel itself). */
export interface Frame {
  def: FnDef | null;
  scope: Scope;
  typeParams: Map<string, Ty>;
  ret: Val | null;
  returned: boolean;
  /** The struct value a method runs on. */
  self?: Val;
  /** Where that struct lives, when it has a place (memory, a variable): members named in the method are read there. */
  selfRef?: LRef;
}

/** The threads of the block that execute the current code. */
export interface Active {
  conds: Cond[];
  count: Expr;
}

/** Numeric environments by binding set, dropped whenever a binding is added through `Interp.bind`. */
const envCache = new WeakMap<BindingSet, Map<string, number>>();

export class Interp {
  readonly syms = new IndexSyms();
  readonly fp: Footprints;
  readonly notes = new Notes();
  readonly rec: Recorder;
  /** Names of the kernel's runtime scalar parameters. */
  readonly runtimeParams = new Set<string>();
  /** Symbolic values of `blockDim.*` / `gridDim.*` that the launch gives as expressions. */
  readonly dimValues = new Map<string, Expr>();
  /** Object-like macros whose value is a compile-time constant, evaluated once. */
  readonly macroConstants = new Map<MacroDef, Val>();
  /** Macros being expanded (a macro is not re-expanded inside itself). */
  readonly expanding = new Set<string>();
  readonly callStack: FnDef[] = [];
  /** Line and position of the macro use being expanded, for events and lookups inside the macro body. */
  siteLine: number | null = null;
  sitePos: number | null = null;
  /** Names used but declared nowhere in the file (reported once). */
  readonly unknownNames = new Set<string>();
  /** Values of `const`/`constexpr` globals, once evaluated. */
  readonly constants = new Map<string, Val>();
  /** Counters of the loops being walked that step by 1 and wrap (`ki = ki == P - 1 ? 0 : ki + 1;`), by name: their period. */
  readonly counters = new Map<string, Expr>();
  active: Active;
  frame: Frame;
  /** > 0 while evaluating something whose events must not count (a loop condition): the recorder's quiet count. */
  get silent(): number {
    return this.rec.quiet;
  }

  set silent(v: number) {
    this.rec.quiet = v;
  }
  /** Nesting of the expression and of the blocks being evaluated (both are bounded). */
  exprDepth = 0;
  blockDepth = 0;
  stopped = false;
  /** The kernel's source text (from its `template` line to its closing brace). */
  kernelText = '';

  constructor(
    readonly ctx: FrontendContext,
    readonly file: FileInfo,
    readonly b: BindingSet,
    root: Region,
    threads: Expr,
    /** True when evaluating host code around a launch: no events, unknown names become symbols. */
    readonly host = false,
  ) {
    this.rec = new Recorder(root);
    // Host code around a launch records nothing.
    if (host) this.rec.quiet = 1;
    this.active = { conds: [], count: threads };
    this.frame = { def: null, scope: new Scope(null, true), typeParams: new Map(), ret: null, returned: false };
    this.fp = new Footprints(this.syms, () => this.env());
  }

  // ---------------------------------------------------------------- bindings

  /** The numeric bindings (shared by the kernel and the host code of its launch). */
  env(): Map<string, number> {
    let env = envCache.get(this.b);
    if (!env) envCache.set(this.b, (env = this.b.env()));
    return env;
  }

  bind(name: string, value: number | boolean | string, source: BindingSource, detail: string): boolean {
    const took = this.b.bind(name, value, source, detail);
    if (took) envCache.delete(this.b);
    return took;
  }

  /** Numeric value of an expression with the current bindings. */
  value(e: Expr | undefined): number | undefined {
    return e ? evaluate(e, this.env()) : undefined;
  }

  /** `blockDim.x`, `gridDim.y`, …: the bound symbol, the launch's expression, or a free symbol. */
  dim(name: string): Expr {
    const b = this.b.get(name);
    if (b && b.value === 1 && !name.endsWith('.x')) return num(1);
    if (b && typeof b.value === 'number') return this.userSymbol(name, b.value, b.source);
    return this.dimValues.get(name) ?? sym(name);
  }

  /**
   * A user-bound symbol, kept symbolic when the kernel's text names it (the
   * report keeps user bindings only for names that appear in the kernel).
   */
  private userSymbol(name: string, value: number, source: BindingSource): Expr {
    if ((source === 'user' || source === 'pragma') && !this.kernelText.includes(name)) return num(value);
    return sym(name);
  }

  // ---------------------------------------------------------------- scopes

  pushScope(): Scope {
    const s = new Scope(this.frame.scope, false);
    this.frame.scope = s;
    return s;
  }

  popScope(): void {
    if (this.frame.scope.parent && !this.frame.scope.fnScope) this.frame.scope = this.frame.scope.parent;
  }

  declare(name: string, cell: Cell): void {
    this.frame.scope.vars.set(name, cell);
  }

  // ---------------------------------------------------------------- reporting

  line(n: Node): number {
    return this.siteLine ?? lineOf(n);
  }

  /** Evaluates nodes parsed from a snippet as if they stood at `site` in the file (lines, macro lookups). */
  atSite<T>(site: Node, run: () => T): T {
    if (this.siteLine !== null) return run();
    this.siteLine = lineOf(site);
    this.sitePos = site.startIndex;
    try {
      return run();
    } finally {
      this.siteLine = null;
      this.sitePos = null;
    }
  }

  /** A diagnostic (not while evaluating silently or host code). */
  say<K extends MessageId>(id: K, n: Node | number, ...args: Parameters<(typeof MESSAGES)[K]['text']>): void {
    if (this.host || this.silent > 0) return;
    this.notes.say(id, typeof n === 'number' ? n : this.line(n), ...args);
  }

  assume<K extends AssumptionId>(id: K, ...args: Parameters<(typeof ASSUMPTIONS)[K]>): void {
    if (!this.host) this.notes.assume(id, ...args);
  }

  need(name: string): void {
    if (!this.host) this.notes.need(name);
  }

  get region(): Region {
    return this.rec.region;
  }

  /** True when work must stop (time budget, or the function returned). */
  halted(): boolean {
    if (this.stopped) return true;
    if (this.ctx.budget.spent()) {
      this.stopped = true;
      return true;
    }
    return this.frame.returned;
  }

  // ---------------------------------------------------------------- events

  private push(e: Event): void {
    if (this.silent > 0 || this.host) return;
    this.rec.event(e);
  }

  threads(): Expr {
    return this.active.count;
  }

  warps(): Expr {
    return cdiv(this.active.count, num(32));
  }

  /**
   * A memory access through `ptr` of one value of type `view` by every
   * active thread — or, for warp-wide tile moves (`wmma`, `ldmatrix`),
   * `perWarp.elems` elements per warp spanning `perWarp.extent` bytes (per
   * `perWarp.group` threads instead, for a group-wide copy).
   */
  access(kind: 'load' | 'store', ptr: Ptr, view: Ty, n: Node, perWarp?: { elems: Expr; extent: Expr; group?: Expr }): void {
    if (ptr.space === 'local' || this.silent > 0 || this.host) return;
    const lanes = lanesOf(view);
    const elemBytes = sizeOf(view) / lanes;
    if (view.k === 'struct' && view.name !== 'dim3' && !view.layout?.complete && ptr.space === 'global')
      this.say('structLayoutUnknown', n, view.name, view.layout?.unknown ? '`' + view.layout.unknown + '`' : 'it');
    const dtype: Dtype = view.k === 'num' || view.k === 'frag' ? view.dtype : view.k === 'struct' ? structDtype(view) : view.k === 'ptr' ? 'int64' : elemBytes === 1 ? 'int8' : 'int32';
    const groups = perWarp?.group ? cdiv(this.active.count, perWarp.group) : this.warps();
    const elems = perWarp ? mul(groups, perWarp.elems) : mul(this.threads(), num(lanes));
    this.push({
      kind,
      space: ptr.space,
      target: ptr.base,
      elems,
      elemBytes,
      dtype,
      line: this.line(n),
      what: `${kind} ${brief(n, 50)}`,
    });
    if (ptr.space === 'global') this.fp.record(kind, ptr, perWarp ? perWarp.extent : num(sizeOf(view)), this.line(n));
  }

  /**
   * Arithmetic by every active thread (`per` FLOPs each), or once per group
   * of `group` threads (a warp for shuffles and `mma`).
   */
  flop(cls: FlopClass, op: string, dtype: Dtype, per: Expr, n: Node, opts: { special?: boolean; tensorCore?: boolean; group?: number } = {}): void {
    const who = opts.group ? cdiv(this.active.count, num(opts.group)) : this.threads();
    this.push({
      kind: 'flop',
      class: cls,
      op,
      count: mul(who, per),
      dtype,
      tensorCore: opts.tensorCore ?? false,
      special: opts.special ?? false,
      line: this.line(n),
    });
  }

  /** Integer ops on data by every active thread, or once per group of `group` threads. */
  intOp(op: string, per: Expr, n: Node, group?: number): void {
    const who = group ? cdiv(this.active.count, num(group)) : this.threads();
    this.push({ kind: 'int', op, count: mul(who, per), line: this.line(n) });
  }

  /** FLOPs of an elementwise operation producing a value of type `t`: one per lane. */
  arith(op: string, t: Ty, n: Node): void {
    if (!isFloatTy(t) || t.k !== 'num') return;
    this.flop('elementwise', op, t.dtype, num(t.lanes), n);
  }

  // ---------------------------------------------------------------- regions

  /** Runs `body` with `r` as the current region (added as a child of the current one, unless silent). */
  inRegion<T>(r: Region, body: () => T): T {
    return this.rec.within(r, body);
  }

  /** Runs `body` with a different set of active threads. */
  withActive<T>(a: Active, body: () => T): T {
    const outer = this.active;
    this.active = a;
    try {
      return body();
    } finally {
      this.active = outer;
    }
  }
}
