/**
 * The Triton interpreter: walks one `@triton.jit` kernel (inlining jit helpers)
 * over abstract values and records, for ONE program, every load, store and
 * FLOP into the IR's region tree. Loops are walked once and multiplied by their
 * trip count; compile-time conditions are decided with the bindings; masks are
 * true except where COUNTING.md's `min(BLOCK, bound)` rule applies.
 */
import type { Node } from 'web-tree-sitter';
import type { Dtype } from '../../gpus/types';
import type { Diagnostic, Event, FlopClass, MemEvent, Region, TensorFootprint } from '../../ir';
import type { BindingSet } from '../../bindings';
import type { Budget } from '../../budget';
import {
  add,
  cdiv,
  div,
  evaluate,
  exprKey,
  freeSymbols,
  max as emax,
  min as emin,
  mul,
  num,
  ONE,
  printExpr,
  sub,
  substitute,
  sym,
  ZERO,
  type Env,
  type Expr,
} from '../../sym/expr';
import { DTYPE_BYTES, isFloat, parseDtype, promote } from '../common';
import { diag, MSG } from '../../messages';
import { binop, canonical, compare, nextPow2, type FnInfo, type ModuleInfo } from './module';
import {
  clipOffsets,
  footprint,
  offAdd,
  offUnion,
  offAdvance,
  offConst,
  offFloorDiv,
  offMod,
  offMul,
  offNeg,
  offRange,
  offRemap,
  offUnknown,
  varyingEntry,
  type Offsets,
} from './offsets';
import { callArgs, dotted, field, line, named, shorten, stringValue } from './syntax';
import {
  alignDims,
  broadcast,
  combineExtents,
  constInt,
  NONE,
  numel,
  scalar,
  union,
  unknown,
  type BlockPtrVal,
  type NumVal,
  type Val,
} from './values';

const MAX_CALL_DEPTH = 16;

const SPECIAL = new Set([
  'exp', 'exp2', 'log', 'log2', 'sqrt', 'sqrt_rn', 'rsqrt', 'sin', 'cos', 'tan', 'sigmoid', 'erf', 'tanh', 'pow',
  'expm1', 'log1p', 'log10', 'sinh', 'cosh', 'asin', 'acos', 'atan', 'atan2', 'erfc', 'exp10', 'cbrt', 'rcbrt',
  'fast_expf', 'fast_exp2f', 'fast_logf', 'fast_log2f', 'fast_powf', 'fast_tanhf', 'fast_dividef', 'div_rn', 'rcp_rn',
  'gelu', 'softplus', 'asinh', 'acosh', 'atanh', 'lgamma', 'tgamma', 'logb', 'normcdf', 'j0', 'j1', 'y0', 'y1',
]);
/** Division-like calls that are one ordinary FLOP, not a special-function op. */
const PLAIN_FLOP = new Set(['fdiv', 'div_rn', 'add_rn', 'add_rz', 'mul_rn', 'mul_rz', 'sub_rn', 'fast_dividef', 'rcp_rn']);
const FREE_ELEMENTWISE = new Set([
  'maximum', 'minimum', 'clamp', 'abs', 'fabs', 'floor', 'ceil', 'round', 'trunc', 'rint', 'nearbyint', 'isnan', 'isinf',
  'isfinited', 'signbit', 'fmax', 'fmin', 'max2', 'min2', 'llrint', 'float2int_rn', 'copysign', 'finitef', 'isinfd', 'isnand',
]);
const NOOP_CALLS = new Set([
  'tl.static_assert', 'tl.device_assert', 'tl.static_print', 'tl.device_print', 'tl.debug_barrier', 'tl.assume', 'print',
]);
const HINTS = new Set(['tl.multiple_of', 'tl.max_contiguous', 'tl.max_constancy', 'tl.optimization_barrier']);

interface Frame {
  vars: Map<string, Val>;
  fn: string;
  returned: Val | undefined;
  done: boolean;
}

interface LoopInfo {
  id: number;
  trips: Expr;
  carried: Set<string>;
}

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

export interface InterpInput {
  mod: ModuleInfo;
  kernel: FnInfo;
  bindings: BindingSet;
  env: Env;
  /** Grid dims in kernel-symbol space (null: unknown). */
  grid: Expr[] | null;
  /** Element types: user (--dtype) first, then launch-site tensors. */
  userDtypes: Record<string, Dtype>;
  launchDtypes: Map<string, Dtype>;
  budget: Budget;
}

export interface InterpResult {
  body: Region;
  accesses: Access[];
  assumptions: string[];
  diagnostics: Diagnostic[];
  needed: string[];
}

const PTR_NAME = /(ptr|Ptr|PTR|_p|pointer|base)$/;

export class TritonInterp {
  private readonly frames: Frame[] = [];
  private readonly regions: Region[] = [];
  private readonly loops: LoopInfo[] = [];
  private readonly accesses: Access[] = [];
  private readonly assumptions = new Set<string>();
  private readonly diagnostics: Diagnostic[] = [];
  private readonly needed = new Set<string>();
  private readonly ptrDtypes = new Map<string, { dtype: Dtype; how: string }>();
  private loopIds = 0;
  /** Suppresses event recording (for evaluating pointer increments ahead of a loop). */
  private quiet = 0;

  constructor(private readonly inp: InterpInput) {}

  run(): InterpResult {
    const k = this.inp.kernel;
    const body: Region = { kind: 'kernel', line: k.line, trips: ONE, label: `def ${k.name}`, events: [], children: [] };
    this.regions.push(body);
    const vars = new Map<string, Val>();
    for (const p of k.params) vars.set(p.name, this.paramValue(p.name, p.constexpr, p.annotation));
    this.frames.push({ vars, fn: k.name, returned: undefined, done: false });
    const block = field(k.node, 'body');
    if (block) this.execBlock(block, true);
    this.assumptions.add('masks and bounds checks are true (interior tile)');
    return {
      body,
      accesses: this.accesses,
      assumptions: [...this.assumptions],
      diagnostics: this.diagnostics,
      needed: [...this.needed],
    };
  }

  // -------------------------------------------------------------------------
  // Parameters and element types

  private paramValue(name: string, constexpr: boolean, annotation: Node | null): Val {
    const b = this.inp.bindings.get(name);
    if (b && typeof b.value === 'string') {
      const d = parseDtype(b.value);
      if (d) return { k: 'dtype', dtype: d };
      return { k: 'str', s: b.value };
    }
    const value = sym(name);
    const ann = annotation ? annotation.text.replace(/\s/g, '') : '';
    const annDtype = this.annotationDtype(ann);
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

  private annotationDtype(ann: string): Dtype | undefined {
    const m = /pointer_type\(([\w.]+)\)/.exec(ann) ?? /^["']?\*(\w+)["']?$/.exec(ann);
    if (m) return parseDtype(m[1]);
    if (!ann || /constexpr|tensor/.test(ann)) return undefined;
    return parseDtype(ann.replace(/^(tl|triton\.language)\./, ''));
  }

  private elemDtype(target: string, storedHint?: NumVal): { dtype: Dtype; how: string } {
    const u = this.inp.userDtypes[target];
    if (u) return { dtype: u, how: '--dtype' };
    const known = this.ptrDtypes.get(target);
    if (known) return known;
    const l = this.inp.launchDtypes.get(target);
    if (l) return { dtype: l, how: 'launch-site tensor' };
    if (storedHint && storedHint.castTo) {
      this.ptrDtypes.set(target, { dtype: storedHint.castTo, how: 'value cast before the store' });
      this.assumptions.add(`element type of \`${target}\` taken from the cast of the stored value (${storedHint.castTo})`);
      return { dtype: storedHint.castTo, how: 'stored cast' };
    }
    this.assumptions.add(`element type of \`${target}\` assumed fp32 (set it with --dtype ${target}=…)`);
    return { dtype: 'fp32', how: 'assumed' };
  }

  // -------------------------------------------------------------------------
  // Statements

  private get frame(): Frame {
    return this.frames[this.frames.length - 1];
  }

  private get region(): Region {
    return this.regions[this.regions.length - 1];
  }

  private lookup(name: string): Val | undefined {
    return this.frame.vars.get(name);
  }

  private execBlock(block: Node, isKernelTop = false): void {
    for (const st of named(block)) {
      if (this.frame.done || this.inp.budget.spent()) return;
      this.execStmt(st, isKernelTop);
    }
  }

  private execStmt(st: Node, isKernelTop: boolean): void {
    switch (st.type) {
      case 'expression_statement': {
        for (const e of named(st)) {
          if (e.type === 'assignment') this.assign(e);
          else if (e.type === 'augmented_assignment') this.augAssign(e);
          else this.eval(e);
        }
        return;
      }
      case 'if_statement':
        return this.execIf(st);
      case 'for_statement':
        return this.execFor(st);
      case 'while_statement':
        return this.execWhile(st);
      case 'return_statement': {
        const v = named(st)[0];
        this.frame.returned = v ? this.eval(v) : NONE;
        this.frame.done = true;
        return;
      }
      case 'with_statement': {
        const b = field(st, 'body');
        if (b) this.execBlock(b, isKernelTop);
        return;
      }
      case 'pass_statement':
      case 'break_statement':
      case 'continue_statement':
      case 'assert_statement':
      case 'comment':
      case 'import_statement':
      case 'import_from_statement':
      case 'function_definition':
      case 'decorated_definition':
      case 'global_statement':
      case 'nonlocal_statement':
        return;
      case 'ERROR':
        this.diagnostics.push(diag('parseError', line(st), 'warning', MSG.parseError(`\`${shorten(st.text, 40)}\``)));
        return;
      default:
        return;
    }
  }

  private assign(a: Node): void {
    const left = field(a, 'left');
    const right = field(a, 'right');
    if (!left || !right) return;
    const v = this.eval(right);
    this.bindTarget(left, v);
  }

  private bindTarget(left: Node, v: Val): void {
    if (left.type === 'identifier') {
      this.frame.vars.set(left.text, v);
    } else if (left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern') {
      const targets = named(left);
      targets.forEach((t, i) => this.bindTarget(t, v.k === 'tuple' ? (v.items[i] ?? unknown('unpack')) : unknown('unpack')));
    }
  }

  private augAssign(a: Node): void {
    const left = field(a, 'left');
    const right = field(a, 'right');
    const op = field(a, 'operator')?.text.replace('=', '') ?? '+';
    if (!left || !right || left.type !== 'identifier') {
      if (right) this.eval(right);
      return;
    }
    const cur = this.lookup(left.text) ?? unknown(left.text);
    // A pointer advanced inside a loop was already widened at loop entry: keep its offsets.
    if (cur.k === 'num' && cur.ptr && this.isCarriedPtr(left.text)) {
      this.eval(right);
      return;
    }
    const r = this.eval(right);
    this.frame.vars.set(left.text, this.binary(op, cur, r, a));
  }

  private isCarriedPtr(name: string): boolean {
    return this.loops.some((l) => l.carried.has(name));
  }

  // -------------------------------------------------------------------------
  // Control flow

  private truth(v: Val): boolean | undefined {
    if (v.k === 'none') return false;
    if (v.k === 'str') return v.s.length > 0;
    if (v.k === 'dtype' || v.k === 'func' || v.k === 'blockptr') return true;
    if (v.k === 'tuple') return v.items.length > 0;
    if (v.k !== 'num' || v.shape.length > 0 || v.data || !v.value) return undefined;
    const x = evaluate(v.value, this.inp.env);
    return x === undefined ? undefined : x !== 0;
  }

  private noteNeeded(v: Val): void {
    if (v.k !== 'num' || !v.value) return;
    for (const s of freeSymbols(v.value)) if (!this.inp.env.has(s) && !s.startsWith('⟨') && !s.startsWith('tl.program_id')) this.needed.add(s);
  }

  private static endsWithReturn(block: Node | null): boolean {
    if (!block) return false;
    const sts = named(block);
    return sts.length > 0 && sts[sts.length - 1].type === 'return_statement';
  }

  private execIf(st: Node): void {
    const cond = field(st, 'condition');
    const cons = field(st, 'consequence');
    const alts = st.childrenForFieldName('alternative').filter((x): x is Node => x !== null);
    const c = cond ? this.eval(cond) : NONE;
    const t = this.truth(c);
    if (t === true) {
      if (cons) this.execBlock(cons);
      return;
    }
    if (t === false) {
      this.execAlternatives(alts, 0);
      return;
    }
    const text = shorten(cond?.text ?? '?', 50);
    // Early exit on the interior path is not taken.
    if (this.frames.length === 1 && TritonInterp.endsWithReturn(cons)) {
      this.assumptions.add(`early exit \`if ${text}: return\` (line ${line(st)}) not taken`);
      this.execAlternatives(alts, 0);
      return;
    }
    this.noteNeeded(c);
    const isData = c.k === 'num' && c.data;
    this.assumptions.add(
      isData
        ? `data-dependent branch \`if ${text}\` (line ${line(st)}) counted as taken (upper bound)`
        : `branch \`if ${text}\` (line ${line(st)}) cannot be decided at compile time: counted as taken`,
    );
    if (cons) this.inRegion({ kind: 'branch', line: line(st), trips: ONE, label: `if ${text}`, events: [], children: [] }, () => this.execBlock(cons));
  }

  private execAlternatives(alts: Node[], i: number): void {
    const a = alts[i];
    if (!a) return;
    if (a.type === 'else_clause') {
      const b = field(a, 'body');
      if (b) this.execBlock(b);
      return;
    }
    // elif: decide like an if.
    const cond = field(a, 'condition');
    const cons = field(a, 'consequence');
    const c = cond ? this.eval(cond) : NONE;
    const t = this.truth(c);
    if (t === true) {
      if (cons) this.execBlock(cons);
    } else if (t === false) this.execAlternatives(alts, i + 1);
    else {
      this.noteNeeded(c);
      this.assumptions.add(`branch \`elif ${shorten(cond?.text ?? '?', 50)}\` (line ${line(a)}) counted as taken`);
      if (cons) this.inRegion({ kind: 'branch', line: line(a), trips: ONE, label: `elif ${shorten(cond?.text ?? '?', 50)}`, events: [], children: [] }, () => this.execBlock(cons));
    }
  }

  private inRegion(r: Region, f: () => void): void {
    this.region.children.push(r);
    this.regions.push(r);
    try {
      f();
    } finally {
      this.regions.pop();
    }
  }

  /** Names assigned anywhere in a loop body (loop-carried candidates). */
  private static assignedIn(body: Node): Set<string> {
    const out = new Set<string>();
    const visit = (n: Node, d: number): void => {
      if (d > 200) return;
      if (n.type === 'assignment' || n.type === 'augmented_assignment') {
        const l = field(n, 'left');
        if (l?.type === 'identifier') out.add(l.text);
        else if (l) for (const c of named(l)) if (c.type === 'identifier') out.add(c.text);
      }
      for (const c of n.namedChildren) if (c) visit(c, d + 1);
    };
    visit(body, 0);
    return out;
  }

  private rangeArgs(call: Node): { start: Val; end: Val; step: Val } | undefined {
    const fn = dotted(field(call, 'function'));
    if (!fn) return undefined;
    const c = canonical(fn, this.inp.mod.imports);
    if (c !== 'range' && c !== 'tl.range' && c !== 'tl.static_range') return undefined;
    const { pos, kw } = callArgs(call);
    const vals = pos.map((p) => this.eval(p));
    for (const k of ['num_stages', 'loop_unroll_factor', 'warp_specialize', 'flatten', 'disallow_acc_multi_buffer']) kw.get(k);
    if (vals.length === 1) return { start: constInt(0), end: vals[0], step: constInt(1) };
    if (vals.length === 2) return { start: vals[0], end: vals[1], step: constInt(1) };
    if (vals.length >= 3) return { start: vals[0], end: vals[1], step: vals[2] };
    return undefined;
  }

  private scalarExpr(v: Val): Expr | undefined {
    return v.k === 'num' && v.shape.length === 0 ? v.value : undefined;
  }

  private execFor(st: Node): void {
    const left = field(st, 'left');
    const right = field(st, 'right');
    const body = field(st, 'body');
    if (!left || !right || !body) return;
    const id = ++this.loopIds;
    const ln = line(st);
    const label = `for ${shorten(left.text, 20)} in ${shorten(right.text, 50)}`;
    let trips: Expr;
    let loopVal: Val = unknown('loop variable');
    const r = right.type === 'call' ? this.rangeArgs(right) : undefined;
    if (r) {
      const s = this.scalarExpr(r.start);
      const e = this.scalarExpr(r.end);
      const stp = this.scalarExpr(r.step);
      if (s && e && stp) {
        trips = this.tripCount(s, e, stp, r.start, r.step, ln);
        const vsym = sym(`⟨${left.text}@${ln}⟩`);
        const stepC = stp.constant;
        const pids = r.start.k === 'num' ? r.start.pids : [];
        // Over all programs and trips the variable covers [start, end); a start that depends on
        // the program id (persistent loops) starts at that id's first value.
        const lo = pids.length ? substitute(s, new Map(pids.map((a) => [`tl.program_id(${a})`, 0]))) : s;
        const hi = pids.length ? e : add(s, add(mul(sub(trips, ONE), stp), ONE));
        const off = stepC !== undefined && stepC < 0 ? offUnknown() : offRange(this.atLoopStart(lo), this.atLoopStart(hi), null);
        loopVal = scalar(vsym, 'int32', false, { off, loops: [id], pids });
        this.loopStarts.set(exprKey(vsym), s);
      } else {
        trips = this.unknownTrips(ln, label);
      }
    } else {
      const it = this.eval(right);
      if (it.k === 'tuple') {
        trips = num(it.items.length);
        loopVal = it.items[0] ?? unknown('loop');
      } else trips = this.unknownTrips(ln, label);
    }
    const loop: Region = { kind: 'loop', line: ln, trips, label, events: [], children: [] };
    const carried = TritonInterp.assignedIn(body);
    const info: LoopInfo = { id, trips, carried };
    this.bindTarget(left, loopVal);
    this.widenCarriedPointers(body, carried, trips);
    this.markVarying(carried, id);
    this.loops.push(info);
    try {
      this.inRegion(loop, () => this.execBlock(body));
    } finally {
      this.loops.pop();
    }
  }

  private readonly loopStarts = new Map<string, Expr>();
  private readonly resolvingGlobals = new Set<string>();

  /** Loop variables replaced by their first value (the widest mask bound: `K - k*BK` at k = start). */
  private atLoopStart(e: Expr): Expr {
    const env = new Map<string, number>();
    let changed = false;
    for (const s of freeSymbols(e)) {
      if (!s.startsWith('⟨')) continue;
      const start = this.loopStarts.get(exprKey(sym(s)));
      const v = start ? evaluate(start, this.inp.env) : undefined;
      if (v !== undefined) {
        env.set(s, v);
        changed = true;
      }
    }
    return changed ? substitute(e, env) : e;
  }

  private tripCount(s: Expr, e: Expr, stp: Expr, startVal: Val, stepVal: Val, ln: number): Expr {
    const stepC = stp.constant;
    let trips: Expr;
    if (stepC !== undefined && stepC < 0) trips = cdiv(sub(s, e), num(-stepC));
    else trips = cdiv(sub(e, s), stp);
    // Persistent loops: start = program id, step = number of programs → average trips per program.
    const startPids = startVal.k === 'num' ? startVal.pids : [];
    const stepPids = stepVal.k === 'num' ? stepVal.pids : [];
    if (startPids.length && !stepPids.length) {
      const env = new Map<string, number>();
      for (const a of startPids) env.set(`tl.program_id(${a})`, 0);
      const s0 = substitute(s, env);
      trips = div(sub(e, s0), stp);
      this.assumptions.add(`persistent loop (line ${ln}): trips averaged over programs, ${printExpr(trips)}`);
      return trips;
    }
    const fs = freeSymbols(trips);
    const pidSyms = [...fs].filter((x) => x.startsWith('tl.program_id('));
    if (pidSyms.length) {
      const env = new Map<string, number>();
      for (const p of pidSyms) {
        const a = Number(p.slice('tl.program_id('.length, -1));
        const P = this.numPrograms(a);
        const pv = evaluate(P, this.inp.env);
        if (pv !== undefined) env.set(p, (pv - 1) / 2);
      }
      if (env.size) {
        trips = substitute(trips, env);
        this.assumptions.add(`trip count of the loop at line ${ln} depends on the program id: averaged over programs`);
      }
    }
    return trips;
  }

  private unknownTrips(ln: number, label: string): Expr {
    // The count reports it as an unbound loop bound; the hover shows the loop's label.
    void label;
    return sym(`trips_L${ln}`);
  }

  private execWhile(st: Node): void {
    const body = field(st, 'body');
    const cond = field(st, 'condition');
    if (cond) this.eval(cond);
    if (!body) return;
    const ln = line(st);
    const label = `while ${shorten(cond?.text ?? '', 50)}`;
    const trips = this.unknownTrips(ln, label);
    const id = ++this.loopIds;
    const carried = TritonInterp.assignedIn(body);
    this.widenCarriedPointers(body, carried, trips);
    this.markVarying(carried, id);
    this.loops.push({ id, trips, carried });
    try {
      this.inRegion({ kind: 'loop', line: ln, trips, label, events: [], children: [] }, () => this.execBlock(body));
    } finally {
      this.loops.pop();
    }
  }

  private markVarying(carried: Set<string>, id: number): void {
    for (const n of carried) {
      const v = this.lookup(n);
      if (v?.k === 'num') this.frame.vars.set(n, { ...v, loops: union(v.loops, [id]) });
      else if (v?.k === 'blockptr') this.frame.vars.set(n, { ...v, loops: union(v.loops, [id]) });
    }
  }

  /** Pointers advanced each trip (`p += BK * stride`) cover trips × step: widen them before the body runs. */
  private widenCarriedPointers(body: Node, carried: Set<string>, trips: Expr): void {
    const visit = (n: Node, d: number): void => {
      if (d > 200) return;
      if (n.type === 'augmented_assignment' && field(n, 'operator')?.text === '+=') {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const cur = l?.type === 'identifier' ? this.lookup(l.text) : undefined;
        if (l && r && cur?.k === 'num' && cur.ptr && carried.has(l.text)) {
          this.quiet++;
          const inc = this.eval(r);
          this.quiet--;
          const step = inc.k === 'num' ? inc.off : undefined;
          this.frame.vars.set(l.text, { ...cur, off: offAdvance(cur.off, step, trips) });
        }
      }
      for (const c of n.namedChildren) if (c && c.type !== 'for_statement' && c.type !== 'while_statement') visit(c, d + 1);
    };
    visit(body, 0);
  }

  // -------------------------------------------------------------------------
  // Expressions

  eval(n: Node): Val {
    if (this.inp.budget.spent()) return unknown('budget');
    switch (n.type) {
      case 'integer': {
        const v = Number(n.text.replace(/_/g, '').replace(/[lL]$/, ''));
        return Number.isFinite(v) ? scalar(num(v), 'int32', true, { off: offConst(num(v)) }) : unknown('integer');
      }
      case 'float': {
        const v = Number(n.text.replace(/_/g, ''));
        return Number.isFinite(v) ? scalar(num(v), 'fp32', true, { literalFloat: true }) : unknown('float');
      }
      case 'true':
        return scalar(ONE, 'bool', true);
      case 'false':
        return scalar(ZERO, 'bool', true);
      case 'none':
        return NONE;
      case 'string':
        return { k: 'str', s: stringValue(n) ?? '' };
      case 'parenthesized_expression':
        return named(n)[0] ? this.eval(named(n)[0]) : NONE;
      case 'identifier':
        return this.name(n.text, n);
      case 'attribute':
        return this.attribute(n);
      case 'tuple':
      case 'list':
      case 'expression_list':
        return { k: 'tuple', items: named(n).map((c) => this.eval(c)) };
      case 'call':
        return this.call(n);
      case 'binary_operator': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        const op = field(n, 'operator')?.text ?? '?';
        if (!l || !r) return unknown('binary');
        return this.binary(op, this.eval(l), this.eval(r), n);
      }
      case 'unary_operator': {
        const a = field(n, 'argument');
        const v = a ? this.eval(a) : unknown('unary');
        const op = n.child(0)?.text;
        if (v.k !== 'num') return v;
        if (op === '-') return { ...v, value: v.value ? mul(num(-1), v.value) : undefined, off: offNeg(v.off), pureArange: undefined, maskExtent: undefined, clips: undefined };
        if (op === '~') return { ...v, value: undefined };
        return v;
      }
      case 'not_operator': {
        const a = field(n, 'argument');
        const v = a ? this.eval(a) : unknown('not');
        const t = this.truth(v);
        return t === undefined ? { ...(v.k === 'num' ? v : scalar(undefined, 'bool', false)), value: undefined, maskExtent: undefined, clips: undefined } as NumVal : scalar(num(t ? 0 : 1), 'bool', v.k === 'num' ? v.isConst : true);
      }
      case 'boolean_operator': {
        const op = field(n, 'operator')?.text ?? n.child(1)?.text;
        const l = field(n, 'left');
        const r = field(n, 'right');
        const a = l ? this.eval(l) : NONE;
        const ta = this.truth(a);
        if (op === 'and' && ta === false) return a;
        if (op === 'or' && ta === true) return a;
        const b = r ? this.eval(r) : NONE;
        const tb = this.truth(b);
        if (ta !== undefined && tb !== undefined) return scalar(num((op === 'and' ? ta && tb : ta || tb) ? 1 : 0), 'bool', this.isConst(a) && this.isConst(b));
        return this.binary(op === 'and' ? '&' : '|', a, b, n);
      }
      case 'comparison_operator':
        return this.comparison(n);
      case 'conditional_expression': {
        const [a, c, b] = named(n);
        const cv = c ? this.eval(c) : NONE;
        const t = this.truth(cv);
        if (t === true && a) return this.eval(a);
        if (t === false && b) return this.eval(b);
        const av = a ? this.eval(a) : NONE;
        if (b) this.eval(b);
        return av;
      }
      case 'subscript':
        return this.subscript(n);
      case 'lambda':
      case 'list_comprehension':
      case 'generator_expression':
      case 'dictionary_comprehension':
      case 'set_comprehension':
        return unknown(n.type);
      case 'dictionary': {
        const entries = new Map<string, Val>();
        for (const p of named(n)) {
          const k = field(p, 'key');
          const v = field(p, 'value');
          const ks = k ? stringValue(k) : undefined;
          if (ks !== undefined && v) entries.set(ks, this.eval(v));
        }
        return { k: 'dict', entries };
      }
      case 'ERROR':
        this.diagnostics.push(diag('parseError', line(n), 'warning', MSG.parseError(`\`${shorten(n.text, 40)}\``)));
        return unknown('syntax error');
      default:
        return unknown(n.type);
    }
  }

  private isConst(v: Val): boolean {
    return v.k === 'num' ? v.isConst : v.k !== 'unknown';
  }

  private name(id: string, n: Node): Val {
    const v = this.lookup(id);
    if (v) return v;
    const b = this.inp.bindings.get(id);
    const g = this.inp.mod.globals.get(id);
    if (b && b.source === 'global') {
      if (typeof b.value === 'number') return scalar(sym(id), Number.isInteger(b.value) ? 'int32' : 'fp32', true, { off: offConst(sym(id)) });
      if (typeof b.value === 'boolean') return scalar(sym(id), 'bool', true);
    }
    if (g && !this.resolvingGlobals.has(id)) {
      // A module-level dtype alias or tuple; `A = (A)` or `A = B; B = A` resolve to nothing.
      this.resolvingGlobals.add(id);
      try {
        const gv = this.eval(g);
        if (gv.k !== 'unknown') return gv;
      } finally {
        this.resolvingGlobals.delete(id);
      }
    }
    if (this.inp.mod.functions.has(id) || this.inp.mod.fnAliases.has(id)) return { k: 'func', name: this.inp.mod.fnAliases.get(id) ?? id };
    const imp = this.inp.mod.imports.get(id);
    if (imp) return { k: 'func', name: canonical(id, this.inp.mod.imports) };
    if (['range', 'min', 'max', 'len', 'int', 'float', 'abs', 'print', 'isinstance', 'getattr', 'hasattr', 'zip', 'enumerate'].includes(id)) return { k: 'func', name: id };
    void n;
    return unknown(`name ${id}`);
  }

  private attribute(n: Node): Val {
    const d = dotted(n);
    if (d) {
      const c = canonical(d, this.inp.mod.imports);
      const head = d.split('.')[0];
      if (!this.lookup(head) && (c.startsWith('tl.') || c.startsWith('triton.') || c.startsWith('libdevice.'))) {
        const dt = parseDtype(c.slice(c.lastIndexOf('.') + 1));
        if (dt && c.startsWith('tl.')) return { k: 'dtype', dtype: dt };
        return { k: 'func', name: c };
      }
    }
    const obj = field(n, 'object');
    const attr = field(n, 'attribute')?.text ?? '';
    const o = obj ? this.eval(obj) : unknown('attr');
    if (o.k === 'num') {
      if (attr === 'T') return this.transpose(o);
      if (attr === 'dtype') return { k: 'dtype', dtype: o.ptr ? this.elemDtype(o.ptr).dtype : o.dtype };
      if (attr === 'shape') return { k: 'tuple', items: o.shape.map((s) => scalar(s, 'int32', true, { off: offConst(s) })) };
      return { k: 'func', name: `.${attr}`, self: o };
    }
    if (o.k === 'dtype') {
      if (attr === 'element_ty') return { k: 'dtype', dtype: o.dtype };
      return o;
    }
    if (o.k === 'blockptr') return { k: 'func', name: `.${attr}`, self: o };
    if (o.k === 'func' && !o.self) return { k: 'func', name: `${o.name}.${attr}` };
    return unknown(`attribute ${attr}`);
  }

  private transpose(v: NumVal): NumVal {
    const r = v.shape.length;
    if (r < 2) return v;
    const shape = [...v.shape];
    [shape[r - 2], shape[r - 1]] = [shape[r - 1], shape[r - 2]];
    const eff = v.eff && v.eff.length === r ? [...v.eff] : undefined;
    if (eff) [eff[r - 2], eff[r - 1]] = [eff[r - 1], eff[r - 2]];
    return { ...v, shape, eff, off: offRemap(v.off, (d) => (d === 0 ? 1 : d === 1 ? 0 : d)), maskExtent: undefined, clips: undefined, pureArange: undefined };
  }

  private subscript(n: Node): Val {
    const base = field(n, 'value');
    const subs = n.childrenForFieldName('subscript').filter((x): x is Node => x !== null);
    const b = base ? this.eval(base) : unknown('subscript');
    if (b.k === 'dict') {
      const k = subs[0] ? stringValue(subs[0]) : undefined;
      return (k !== undefined && b.entries.get(k)) || unknown('dict key');
    }
    if (b.k === 'tuple') {
      const i = subs[0] ? this.scalarExpr(this.eval(subs[0]))?.constant : undefined;
      if (i !== undefined && Number.isInteger(i)) return b.items[i < 0 ? b.items.length + i : i] ?? unknown('index');
      return unknown('tuple index');
    }
    if (b.k !== 'num') return unknown('subscript');
    // Block indexing: `:` keeps a dimension, `None` inserts one of size 1.
    const inRank = b.shape.length;
    const outShape: Expr[] = [];
    const map = new Map<number, number>(); // input dim (from left) → output dim (from left)
    let i = 0;
    let ok = true;
    for (const s of subs) {
      if (s.type === 'none') outShape.push(ONE);
      else if (s.type === 'slice' && s.text.trim() === ':') {
        map.set(i, outShape.length);
        outShape.push(b.shape[i] ?? ONE);
        i++;
      } else if (s.type === 'ellipsis') {
        while (i < inRank - (subs.length - 1 - subs.indexOf(s))) {
          map.set(i, outShape.length);
          outShape.push(b.shape[i]);
          i++;
        }
      } else ok = false;
    }
    if (!ok) return { ...b, shape: b.shape.slice(1), off: offUnknown(), maskExtent: undefined, clips: undefined, pureArange: undefined };
    while (i < inRank) {
      map.set(i, outShape.length);
      outShape.push(b.shape[i]);
      i++;
    }
    const outRank = outShape.length;
    const remap = (dimR: number): number | null => {
      const fromLeft = inRank - 1 - dimR;
      const o = map.get(fromLeft);
      return o === undefined ? null : outRank - 1 - o;
    };
    const clips = b.clips ? new Map([...b.clips].map(([d, e]) => [remap(d) ?? -1, e] as [number, Expr]).filter(([d]) => d >= 0)) : undefined;
    const maskExtent = b.maskExtent
      ? outShape.map((_, o) => {
          const inDim = [...map].find(([, oo]) => oo === o)?.[0];
          return inDim === undefined ? ONE : b.maskExtent![inDim];
        })
      : undefined;
    const eff = b.eff
      ? outShape.map((_, o) => {
          const inDim = [...map].find(([, oo]) => oo === o)?.[0];
          return inDim === undefined ? ONE : b.eff![inDim];
        })
      : undefined;
    const pa = b.pureArange ? { ...b.pureArange, dimR: remap(b.pureArange.dimR) ?? 0 } : undefined;
    return { ...b, shape: outShape, off: offRemap(b.off, remap), clips, maskExtent, eff, pureArange: pa };
  }

  private comparison(n: Node): Val {
    const parts = named(n);
    const ops = n.children.filter((c) => c && !c.isNamed).map((c) => c!.text);
    if (parts.length < 2) return unknown('comparison');
    const vals = parts.map((p) => this.eval(p));
    let result: Val = this.compare2(ops[0] ?? '<', vals[0], vals[1]);
    for (let i = 1; i < ops.length && i + 1 < vals.length; i++) result = this.binary('&', result, this.compare2(ops[i], vals[i], vals[i + 1]), n);
    return result;
  }

  private compare2(op: string, a: Val, b: Val): Val {
    if (op === 'is' || op === 'is not' || op === 'in' || op === 'not in') {
      if ((a.k === 'none') !== (b.k === 'none') && (op === 'is' || op === 'is not')) return scalar(num((op === 'is') === false ? 1 : 0), 'bool', true);
      if (a.k === 'none' && b.k === 'none') return scalar(num(op === 'is' ? 1 : 0), 'bool', true);
      return scalar(undefined, 'bool', false);
    }
    if (a.k === 'dtype' && b.k === 'dtype') return scalar(num((a.dtype === b.dtype) === (op === '==') ? 1 : 0), 'bool', true);
    if (a.k === 'str' && b.k === 'str') return scalar(num((a.s === b.s) === (op === '==') ? 1 : 0), 'bool', true);
    if (a.k !== 'num' || b.k !== 'num') return scalar(undefined, 'bool', false);
    const shape = broadcast(a.shape, b.shape);
    const base: NumVal = {
      k: 'num',
      shape,
      dtype: 'bool',
      isConst: a.isConst && b.isConst,
      data: a.data || b.data,
      pids: union(a.pids, b.pids),
      loops: union(a.loops, b.loops),
    };
    // Scalar comparisons decide conditions.
    if (a.shape.length === 0 && b.shape.length === 0 && a.value && b.value) {
      const av = evaluate(a.value, this.inp.env);
      const bv = evaluate(b.value, this.inp.env);
      if (av !== undefined && bv !== undefined && !a.data && !b.data) {
        const r = compare(op, av, bv);
        if (r !== undefined) return { ...base, value: num(r ? 1 : 0) };
      }
      return { ...base, value: undefined };
    }
    // Masks: index < bound.
    let idx: NumVal | undefined;
    let bound: Expr | undefined;
    if ((op === '<' || op === '<=') && b.shape.length === 0 && b.value) {
      idx = a;
      bound = op === '<=' ? add(b.value, ONE) : b.value;
    } else if ((op === '>' || op === '>=') && a.shape.length === 0 && a.value) {
      idx = b;
      bound = op === '>=' ? add(a.value, ONE) : a.value;
    }
    if (idx && bound && !idx.data) {
      const e = varyingEntry(idx.off);
      const clips = new Map<number, Expr>();
      const wide = this.atLoopStart(bound);
      if (e && e.dimR !== null) clips.set(e.dimR, wide);
      let maskExtent: Expr[] | undefined;
      if (idx.pureArange && shape.length > 0) {
        const pa = idx.pureArange;
        const lim = sub(bound, pa.start);
        const limV = evaluate(lim, this.inp.env);
        const lenV = evaluate(pa.len, this.inp.env);
        if (limV !== undefined && lenV !== undefined && limV < lenV) {
          const pos = shape.length - 1 - pa.dimR;
          maskExtent = shape.map((s, i) => (i === pos ? emax(ZERO, emin(pa.len, lim)) : s));
          this.assumptions.add(`mask \`< ${printExpr(bound)}\` covers ${printExpr(emin(pa.len, lim))} of ${printExpr(pa.len)} lanes: counted min(block, bound)`);
        }
      }
      return { ...base, clips, maskExtent };
    }
    return base;
  }

  // -------------------------------------------------------------------------
  // Arithmetic

  private flop(cls: FlopClass, op: string, count: Expr, dtype: Dtype, n: Node, opts: { tensorCore?: boolean; special?: boolean } = {}): void {
    if (this.quiet) return;
    const e: Event = {
      kind: 'flop',
      class: cls,
      op,
      count,
      dtype: dtype === 'bool' || !isFloat(dtype) ? 'fp32' : dtype,
      tensorCore: opts.tensorCore ?? false,
      special: opts.special ?? false,
      line: line(n),
    };
    this.region.events.push(e);
  }

  private intOp(op: string, count: Expr, n: Node): void {
    if (this.quiet) return;
    this.region.events.push({ kind: 'int', op, count, line: line(n) });
  }

  binary(op: string, a: Val, b: Val, n: Node): Val {
    if (op === '@') return this.dot(a, b, undefined, n, {});
    if (a.k === 'tuple' && b.k === 'tuple' && op === '+') return { k: 'tuple', items: [...a.items, ...b.items] };
    if (a.k === 'blockptr' || b.k === 'blockptr') return a.k === 'blockptr' ? a : b;
    if (a.k !== 'num' || b.k !== 'num') {
      // An unknown operand (an unresolvable name or call) still takes part in the arithmetic as
      // a run-time scalar: `x * SCALE` costs its multiplies even when SCALE is unknown.
      // Its type is taken to be the other operand's.
      const runtime = (like: NumVal): NumVal => ({ ...scalar(undefined, like.dtype, false), off: offUnknown() });
      if (a.k === 'num' && b.k === 'unknown') return this.binary(op, a, runtime(a), n);
      if (b.k === 'num' && a.k === 'unknown') return this.binary(op, runtime(b), b, n);
      if (a.k === 'num') return { ...a, value: undefined, off: offUnknown() };
      if (b.k === 'num') return { ...b, value: undefined, off: offUnknown() };
      return unknown(`operator ${op}`);
    }
    const shape = broadcast(a.shape, b.shape);
    const isConst = a.isConst && b.isConst;
    const data = a.data || b.data;
    const isCmpLike = op === '&' || op === '|' || op === '^';
    let dtype: Dtype = op === '/' && !isFloat(a.dtype) && !isFloat(b.dtype) ? 'fp32' : promote(a.dtype, b.dtype);
    if (isCmpLike && a.dtype === 'bool' && b.dtype === 'bool') dtype = 'bool';
    // A Python float literal does not widen a block's type (tl's weak typing).
    const aLit = (a as NumVal & { literalFloat?: boolean }).literalFloat;
    const bLit = (b as NumVal & { literalFloat?: boolean }).literalFloat;
    if (aLit && isFloat(b.dtype)) dtype = b.dtype;
    if (bLit && isFloat(a.dtype)) dtype = a.dtype;
    // Data of an assumed type meeting an integer index block (arange-derived) is index arithmetic
    // (gathered offsets); meeting a scalar argument it stays arithmetic on data (`a * x`).
    const indexBlock = (v: NumVal): boolean => v.shape.length > 0 && !v.data && !isFloat(v.dtype) && v.dtype !== 'bool';
    if (a.assumedType && indexBlock(b)) dtype = b.dtype;
    if (b.assumedType && indexBlock(a)) dtype = a.dtype;
    const value = a.shape.length === 0 && b.shape.length === 0 && a.value && b.value ? binop(op, a.value, b.value) : undefined;
    // Pointer provenance: pointer ± offset stays a pointer into the same tensor.
    let ptr: string | undefined;
    // Only an integer offset (an index, or gathered indices) keeps a pointer: `var + eps` is arithmetic.
    const isOffset = (v: NumVal): boolean => (!isFloat(v.dtype) || !!v.assumedType) && !v.literalFloat;
    if ((op === '+' || op === '-') && isOffset(a) && isOffset(b)) {
      if (a.ptr && b.ptr) ptr = op === '-' ? undefined : PTR_NAME.test(b.ptr) && !PTR_NAME.test(a.ptr) ? b.ptr : a.ptr;
      else ptr = a.ptr ?? (op === '+' ? b.ptr : undefined);
    }
    const res: NumVal = {
      k: 'num',
      shape,
      dtype,
      value,
      isConst,
      data,
      ptr,
      pids: union(a.pids, b.pids),
      loops: union(a.loops, b.loops),
      off: this.offsetsOf(op, a, b),
      eff: combineExtents(a.eff, b.eff, shape),
      assumedType: (a.assumedType || b.assumedType) && !isFloat(dtype) ? undefined : a.assumedType && b.assumedType,
    };
    if (op === '+' && a.pureArange && b.shape.length === 0 && b.isConst && b.value) res.pureArange = { ...a.pureArange, start: add(a.pureArange.start, b.value) };
    if (op === '+' && b.pureArange && a.shape.length === 0 && a.isConst && a.value) res.pureArange = { ...b.pureArange, start: add(b.pureArange.start, a.value) };
    if (op === '&') {
      res.maskExtent = combineExtents(a.maskExtent, b.maskExtent, shape);
      const clips = new Map<number, Expr>();
      for (const src of [a.clips, b.clips]) for (const [d, e] of src ?? []) clips.set(d, clips.has(d) ? emin(clips.get(d)!, e) : e);
      res.clips = clips;
    }
    // Work: float arithmetic on anything but compile-time constants is FLOPs.
    if (ptr || dtype === 'bool' || isConst) return res;
    const count = numel(res.eff ?? shape);
    if (isFloat(dtype)) {
      if (op === '+' && (a.fromDot || b.fromDot)) {
        this.assumptions.add('`acc += tl.dot(…)` fused into the dot (its add is the MMA accumulation: no extra FLOPs)');
        return { ...res, fromDot: true };
      }
      if (op === '**') this.flop('special', 'pow', count, dtype, n, { special: true });
      else this.flop('elementwise', op, count, dtype, n);
    } else if (data) this.intOp(op, count, n);
    return res;
  }

  private offsetsOf(op: string, a: NumVal, b: NumVal): Offsets | undefined {
    if (a.data || b.data) return offUnknown();
    switch (op) {
      case '+':
        return offAdd(a.off, b.off);
      case '-':
        return offAdd(a.off, offNeg(b.off));
      case '*':
        if (b.shape.length === 0 && b.value) return offMul(a.off, b.value, b.isConst);
        if (a.shape.length === 0 && a.value) return offMul(b.off, a.value, a.isConst);
        return offUnknown();
      case '%':
        return b.shape.length === 0 && b.value ? offMod(a.off, b.value) : offUnknown();
      case '//':
        return b.shape.length === 0 && b.value ? offFloorDiv(a.off, b.value) : offUnknown();
      case '<<': {
        const c = b.value?.constant;
        return c !== undefined && c >= 0 && c < 31 ? offMul(a.off, num(2 ** c), true) : offUnknown();
      }
      case '>>': {
        const c = b.value?.constant;
        return c !== undefined && c >= 0 && c < 31 ? offFloorDiv(a.off, num(2 ** c)) : offUnknown();
      }
      default:
        return offUnknown();
    }
  }

  // -------------------------------------------------------------------------
  // Calls

  private call(n: Node): Val {
    const fnode = field(n, 'function');
    if (!fnode) return unknown('call');
    // kernel[grid](...) inside a kernel is not a thing; host launches are handled by the module scan.
    const f = this.eval(fnode);
    const { pos, kw } = callArgs(n);
    if (f.k !== 'func') {
      const name = dotted(fnode) ?? shorten(fnode.text, 30);
      this.unknownCall(name, n);
      for (const p of pos) this.eval(p);
      return unknown(`call ${name}`);
    }
    if (f.self) return this.method(f.name.slice(1), f.self, pos, kw, n);
    const name = f.name;
    const helper = this.inp.mod.functions.get(name);
    if (helper) return this.inline(helper, pos, kw, n);
    return this.builtin(name, pos, kw, n);
  }

  private unknownCall(name: string, n: Node): void {
    if (this.quiet) return;
    this.diagnostics.push(diag('unknownCall', line(n), 'info', MSG.unknownCall(name)));
  }

  private argv(pos: Node[], kw: Map<string, Node>, names: string[]): (Val | undefined)[] {
    return names.map((nm, i) => {
      const node = i < pos.length ? pos[i] : kw.get(nm);
      return node ? this.eval(node) : undefined;
    });
  }

  private inline(fn: FnInfo, pos: Node[], kw: Map<string, Node>, n: Node): Val {
    if (this.frames.some((f) => f.fn === fn.name)) {
      this.diagnostics.push(diag('recursion', line(n), 'warning', MSG.recursion(fn.name)));
      return unknown('recursion');
    }
    if (this.frames.length > MAX_CALL_DEPTH) {
      this.diagnostics.push(diag('depthLimit', line(n), 'warning', MSG.depthLimit(fn.name)));
      return unknown('depth');
    }
    if (!fn.isJit) {
      this.unknownCall(fn.name, n);
      return unknown(`call ${fn.name}`);
    }
    const vars = new Map<string, Val>();
    fn.params.forEach((p, i) => {
      const node = i < pos.length ? pos[i] : kw.get(p.name);
      let v: Val | undefined = node ? this.eval(node) : undefined;
      if (!v && p.default) v = this.eval(p.default);
      vars.set(p.name, v ?? unknown(`argument ${p.name}`));
    });
    const body = field(fn.node, 'body');
    this.frames.push({ vars, fn: fn.name, returned: undefined, done: false });
    try {
      if (body) this.execBlock(body);
      return this.frame.returned ?? NONE;
    } finally {
      this.frames.pop();
    }
  }

  private numPrograms(axis: number): Expr {
    const g = this.inp.grid?.[axis];
    if (g) return g;
    if (this.inp.grid && axis >= this.inp.grid.length) return ONE;
    return sym(`tl.num_programs(${axis})`);
  }

  private axisOf(v: Val | undefined): number {
    const c = v && v.k === 'num' && v.value ? evaluate(v.value, this.inp.env) : undefined;
    return c ?? 0;
  }

  private shapeOf(v: Val | undefined): Expr[] | undefined {
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

  private dtypeOf(v: Val | undefined): Dtype | undefined {
    if (!v) return undefined;
    if (v.k === 'dtype') return v.dtype;
    if (v.k === 'str') return parseDtype(v.s);
    return undefined;
  }

  private elementwise(name: string, args: (Val | undefined)[], n: Node): Val {
    const nums = args.filter((a): a is NumVal => a?.k === 'num');
    if (!nums.length) return unknown(name);
    let shape: Expr[] = [];
    let dtype: Dtype = nums[0].dtype;
    for (const a of nums) {
      shape = broadcast(shape, a.shape);
      dtype = promote(dtype, a.dtype);
    }
    if (!isFloat(dtype)) dtype = 'fp32';
    const data = nums.some((a) => a.data);
    const isConst = nums.every((a) => a.isConst);
    let eff: Expr[] | undefined;
    for (const a of nums) eff = combineExtents(eff, a.eff, shape);
    const res: NumVal = { k: 'num', shape, dtype, isConst, data, pids: nums.flatMap((a) => a.pids), loops: nums.flatMap((a) => a.loops), off: offUnknown(), eff };
    if (isConst) return res;
    const count = numel(eff ?? shape);
    const short = name.slice(name.lastIndexOf('.') + 1);
    if (FREE_ELEMENTWISE.has(short)) return res;
    if (short === 'fma' || short === 'fmaf' || short === 'fma_rn') this.flop('fma', name, mul(num(2), count), dtype, n);
    else if (PLAIN_FLOP.has(short)) this.flop('elementwise', name, count, dtype, n);
    else if (SPECIAL.has(short)) this.flop('special', name, count, dtype, n, { special: true });
    else {
      this.unknownCall(name, n);
      return res;
    }
    return res;
  }

  private builtin(name: string, pos: Node[], kw: Map<string, Node>, n: Node): Val {
    const a = (i: number, k?: string): Val | undefined => {
      const node = i < pos.length ? pos[i] : k ? kw.get(k) : undefined;
      return node ? this.eval(node) : undefined;
    };
    const short = name.slice(name.lastIndexOf('.') + 1);
    if (NOOP_CALLS.has(name)) {
      for (const p of pos) this.eval(p);
      return NONE;
    }
    if (HINTS.has(name)) return a(0, 'input') ?? NONE;
    switch (name) {
      case 'tl.program_id': {
        const axis = this.axisOf(a(0, 'axis'));
        const P = this.numPrograms(axis);
        const v = sym(`tl.program_id(${axis})`);
        return scalar(v, 'int32', false, { pids: [axis], off: offRange(ZERO, P, null) });
      }
      case 'tl.num_programs': {
        const axis = this.axisOf(a(0, 'axis'));
        const P = this.numPrograms(axis);
        return scalar(P, 'int32', false, { off: offConst(P) });
      }
      case 'tl.arange': {
        const s = a(0, 'start');
        const e = a(1, 'end');
        const se = this.scalarExpr(s ?? unknown('')) ?? ZERO;
        const ee = this.scalarExpr(e ?? unknown('')) ?? sym('?arange');
        const len = sub(ee, se);
        const lenV = evaluate(len, this.inp.env);
        if (lenV !== undefined && (!Number.isInteger(lenV) || lenV < 0)) {
          this.diagnostics.push(diag('unbound', line(n), 'warning', `tl.arange(${printExpr(se)}, ${printExpr(ee)}) has ${lenV} elements with these bindings: a block needs a whole, non-negative size; its counts are unknown`));
          return unknown('arange size');
        }
        return { k: 'num', shape: [len], dtype: 'int32', isConst: false, data: false, pids: [], loops: [], off: offRange(se, ee, 0), pureArange: { start: se, len, dimR: 0 } };
      }
      case 'tl.zeros':
      case 'tl.full':
      case 'tl.empty': {
        const shape = this.shapeOf(a(0, 'shape')) ?? [];
        const dt = this.dtypeOf(name === 'tl.full' ? a(2, 'dtype') : a(1, 'dtype')) ?? 'fp32';
        return { k: 'num', shape, dtype: dt, isConst: true, data: false, pids: [], loops: [] };
      }
      case 'tl.zeros_like':
      case 'tl.full_like':
      case 'tl.empty_like': {
        const x = a(0, 'input');
        if (x?.k !== 'num') return unknown(name);
        return { k: 'num', shape: x.shape, dtype: this.dtypeOf(kw.has('dtype') ? this.eval(kw.get('dtype')!) : undefined) ?? x.dtype, isConst: true, data: false, pids: [], loops: [] };
      }
      case 'tl.cdiv':
      case 'triton.cdiv': {
        const x = a(0, 'x');
        const y = a(1, 'div');
        const xe = x && this.scalarExpr(x);
        const ye = y && this.scalarExpr(y);
        if (!xe || !ye) return unknown('cdiv');
        return scalar(cdiv(xe, ye), 'int32', this.isConst(x!) && this.isConst(y!), { off: offConst(cdiv(xe, ye)) });
      }
      case 'triton.next_power_of_2':
      case 'tl.next_power_of_2': {
        const x = a(0);
        const v = x && x.k === 'num' && x.value ? evaluate(x.value, this.inp.env) : undefined;
        return v === undefined ? unknown('next_power_of_2') : constInt(nextPow2(v));
      }
      case 'tl.load':
        return this.load(a(0, 'pointer'), kw.has('mask') || pos.length > 1 ? a(1, 'mask') : undefined, n, pos, kw);
      case 'tl.store':
        this.store(a(0, 'pointer'), a(1, 'value'), kw.has('mask') || pos.length > 2 ? a(2, 'mask') : undefined, n);
        return NONE;
      case 'tl.dot': {
        const x = a(0, 'input');
        const y = a(1, 'other');
        const acc = a(2, 'acc');
        const opts: Record<string, Val | undefined> = {};
        for (const k of ['input_precision', 'allow_tf32', 'out_dtype']) if (kw.has(k)) opts[k] = this.eval(kw.get(k)!);
        return this.dot(x, y, acc, n, opts);
      }
      case 'tl.dot_scaled': {
        const x = a(0, 'lhs');
        const y = a(3, 'rhs');
        return this.dot(x, y, a(6, 'acc'), n, { forceDtype: { k: 'dtype', dtype: 'fp8' } });
      }
      case 'tl.sum':
      case 'tl.reduce':
      case 'tl.cumsum':
      case 'tl.cumprod':
      case 'tl.prod':
      case 'tl.xor_sum':
      case 'tl.max':
      case 'tl.min':
      case 'tl.argmax':
      case 'tl.argmin':
        return this.reduce(name, a(0, 'input'), a(1, 'axis'), kw, n);
      case 'tl.where': {
        const c = a(0, 'condition');
        const x = a(1, 'x');
        const y = a(2, 'y');
        const nums = [c, x, y].filter((v): v is NumVal => v?.k === 'num');
        let shape: Expr[] = [];
        for (const v of nums) shape = broadcast(shape, v.shape);
        const xs = [x, y].filter((v): v is NumVal => v?.k === 'num');
        const dtype = xs.length ? xs.map((v) => v.dtype).reduce(promote) : 'fp32';
        let eff: Expr[] | undefined;
        for (const v of xs) eff = combineExtents(eff, v.eff, shape);
        // `tl.where(offs < M, offs, 0)` clamps an index: it keeps the index's interval.
        const index = x?.k === 'num' && !x.data && y?.k === 'num' && y.isConst ? x : undefined;
        return {
          k: 'num',
          shape,
          dtype,
          isConst: nums.every((v) => v.isConst),
          data: nums.some((v) => v.data),
          pids: union(...nums.map((v) => v.pids)),
          loops: union(...nums.map((v) => v.loops)),
          fromDot: xs.some((v) => v.fromDot),
          off: index?.off,
          ptr: index?.ptr,
          eff,
        };
      }
      case 'tl.make_block_ptr':
        return this.makeBlockPtr(a(0, 'base'), a(1, 'shape'), a(5, 'block_shape'), false);
      case 'tl.make_tensor_descriptor':
      case 'tl._experimental_make_tensor_descriptor':
      case 'tl.experimental.make_tensor_descriptor':
        return this.makeBlockPtr(a(0, 'base'), a(1, 'shape'), a(3, 'block_shape'), true);
      case 'tl.advance': {
        const b = a(0, 'base');
        return b ?? unknown('advance');
      }
      case 'tl.load_tensor_descriptor':
      case 'tl._experimental_descriptor_load': {
        const d = a(0, 'desc');
        return d?.k === 'blockptr' ? this.loadBlock(d, n) : this.unknownDescriptor(n);
      }
      case 'tl.store_tensor_descriptor':
      case 'tl._experimental_descriptor_store': {
        const d = a(0, 'desc');
        if (d?.k === 'blockptr') this.storeBlock(d, a(1, 'value'), n);
        return NONE;
      }
      case 'tl.atomic_add':
      case 'tl.atomic_max':
      case 'tl.atomic_min':
      case 'tl.atomic_xchg':
      case 'tl.atomic_cas':
      case 'tl.atomic_and':
      case 'tl.atomic_or':
      case 'tl.atomic_xor':
        return this.atomic(short, a(0, 'pointer'), a(1, 'val'), kw.has('mask') || pos.length > 2 ? a(2, 'mask') : undefined, n);
      case 'tl.reshape':
      case 'tl.view': {
        const x = a(0, 'input');
        const shape = this.shapeOf(a(1, 'shape'));
        if (x?.k !== 'num' || !shape) return x ?? unknown(name);
        return { ...x, shape, off: offUnknown(), maskExtent: undefined, clips: undefined, pureArange: undefined };
      }
      case 'tl.trans':
      case 'tl.permute': {
        const x = a(0, 'input');
        return x?.k === 'num' ? this.transpose(x) : (x ?? unknown(name));
      }
      case 'tl.expand_dims': {
        const x = a(0, 'input');
        const ax = this.axisOf(a(1, 'axis'));
        if (x?.k !== 'num') return x ?? unknown(name);
        const shape = [...x.shape];
        const at = ax < 0 ? shape.length + 1 + ax : ax;
        shape.splice(at, 0, ONE);
        const outRank = shape.length;
        const remap = (dimR: number): number => {
          const fromLeft = x.shape.length - 1 - dimR;
          return outRank - 1 - (fromLeft >= at ? fromLeft + 1 : fromLeft);
        };
        return { ...x, shape, off: offRemap(x.off, remap), maskExtent: undefined, clips: undefined, pureArange: undefined };
      }
      case 'tl.broadcast_to': {
        const x = a(0, 'input');
        const shape = this.shapeOf(a(1, 'shape'));
        return x?.k === 'num' && shape ? { ...x, shape } : (x ?? unknown(name));
      }
      case 'tl.broadcast': {
        const x = a(0);
        const y = a(1);
        if (x?.k === 'num' && y?.k === 'num') {
          const shape = broadcast(x.shape, y.shape);
          return { k: 'tuple', items: [{ ...x, shape }, { ...y, shape }] };
        }
        return unknown(name);
      }
      case 'tl.join':
      case 'tl.interleave':
      case 'tl.cat': {
        const x = a(0);
        if (x?.k !== 'num') return unknown(name);
        const shape = [...x.shape];
        if (name === 'tl.join') shape.push(num(2));
        else if (shape.length) shape[shape.length - 1] = mul(num(2), shape[shape.length - 1]);
        return { ...x, shape, off: offUnknown() };
      }
      case 'tl.split': {
        const x = a(0);
        if (x?.k !== 'num') return unknown(name);
        const half: NumVal = { ...x, shape: x.shape.slice(0, -1), off: offUnknown() };
        return { k: 'tuple', items: [half, half] };
      }
      case 'tl.cast':
        return this.castTo(a(0, 'input'), a(1, 'dtype'));
      case 'tl.rand':
      case 'tl.randn':
      case 'tl.randint':
      case 'tl.randint4x': {
        const off = a(1, 'offset');
        const shape = off?.k === 'num' ? off.shape : [];
        return { k: 'num', shape, dtype: short === 'randint' || short === 'randint4x' ? 'int32' : 'fp32', isConst: false, data: true, pids: [], loops: [] };
      }
      case 'min':
      case 'max': {
        const xs = pos.map((p) => this.eval(p));
        if (xs.length >= 2 && xs.every((x) => x.k === 'num' && x.shape.length === 0 && x.value)) {
          const es = xs.map((x) => (x as NumVal).value!);
          const v = es.reduce((p, q) => (name === 'min' ? emin(p, q) : emax(p, q)));
          return scalar(v, 'int32', xs.every((x) => this.isConst(x)), { off: offConst(v) });
        }
        return unknown(name);
      }
      case 'isinstance': {
        const x = a(0);
        const t = pos[1] ? canonical(dotted(pos[1]) ?? '', this.inp.mod.imports) : '';
        if (/^tl\.(tensor_descriptor|tensor_descriptor_base|_experimental_tensor_descriptor)$/.test(t)) return scalar(num(x?.k === 'blockptr' && x.descriptor ? 1 : 0), 'bool', true);
        if (t === 'tl.tensor') return scalar(num(x?.k === 'num' ? 1 : 0), 'bool', true);
        if (t === 'tl.constexpr') return scalar(num(x?.k === 'num' && x.isConst ? 1 : 0), 'bool', true);
        return scalar(undefined, 'bool', false);
      }
      case 'len': {
        const x = a(0);
        return x?.k === 'tuple' ? constInt(x.items.length) : unknown('len');
      }
      case 'int':
      case 'float':
      case 'abs':
        return a(0) ?? unknown(name);
      case 'tl.constexpr':
      case 'tl.static':
        return a(0) ?? unknown(name);
      case 'tl.pointer_type': {
        const d = this.dtypeOf(a(0, 'element_ty'));
        return d ? { k: 'dtype', dtype: d, pointer: true } : unknown(name);
      }
      case 'tl.inline_asm_elementwise':
        this.unknownCall(name, n);
        return unknown(name);
      case 'tl.softmax': {
        const x = a(0, 'input');
        if (x?.k !== 'num') return unknown(name);
        const cnt = numel(x.shape);
        const rows = x.shape.length ? numel(x.shape.slice(0, -1)) : ONE;
        this.flop('elementwise', 'tl.softmax (x − max)', cnt, x.dtype, n);
        this.flop('special', 'tl.softmax (exp)', cnt, x.dtype, n, { special: true });
        this.flop('reduction', 'tl.softmax (sum)', sub(cnt, rows), x.dtype, n);
        this.flop('elementwise', 'tl.softmax (÷ sum)', cnt, x.dtype, n);
        return { ...x, data: true, off: undefined };
      }
      default:
        break;
    }
    const args = pos.map((p) => this.eval(p));
    const known = FREE_ELEMENTWISE.has(short) || SPECIAL.has(short) || PLAIN_FLOP.has(short) || short === 'fma' || short === 'fmaf';
    if (known && (name.startsWith('tl.') || name.startsWith('libdevice.'))) return this.elementwise(name, args, n);
    // A math function re-exported by another module (`from mylib.utils import rsqrt`): counted as what its name says.
    if (known && name.includes('.') && args.some((v) => v.k === 'num')) {
      this.assumptions.add(`\`${name}\` counted as the math function its name says (${short})`);
      return this.elementwise(name, args, n);
    }
    // Unknown function: its arguments were evaluated (they may load or compute); the call itself counts nothing.
    this.unknownCall(name, n);
    return unknown(`call ${name}`);
  }

  private unknownDescriptor(n: Node): Val {
    this.diagnostics.push(diag('unknownCall', line(n), 'info', 'tensor descriptor with an unknown block shape: its bytes are not counted'));
    return unknown('descriptor');
  }

  private castTo(x: Val | undefined, d: Val | undefined): Val {
    if (!x || x.k !== 'num') return x ?? unknown('cast');
    const dt = d?.k === 'dtype' ? d.dtype : d?.k === 'str' ? parseDtype(d.s) : undefined;
    if (!dt) return x;
    return { ...x, dtype: dt, castTo: dt, fromDot: false };
  }

  private method(meth: string, self: Val, pos: Node[], kw: Map<string, Node>, n: Node): Val {
    const a = (i: number, k?: string): Val | undefined => {
      const node = i < pos.length ? pos[i] : k ? kw.get(k) : undefined;
      return node ? this.eval(node) : undefined;
    };
    if (self.k === 'blockptr') {
      if (meth === 'load') return this.loadBlock(self, n);
      if (meth === 'store') {
        this.storeBlock(self, a(1, 'value'), n);
        return NONE;
      }
      if (meth === 'advance') return self;
      return unknown(meth);
    }
    if (self.k !== 'num') return unknown(meth);
    switch (meth) {
      case 'to': {
        const d = a(0, 'dtype');
        if (d?.k === 'dtype' && d.pointer) {
          // `p.to(tl.pointer_type(T))`: a pointer argument re-typed, or a pointer loaded from memory
          // (grouped GEMM's `tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))`).
          const target = self.ptr && !self.data ? self.ptr : `*(${shorten(field(field(n, 'function') ?? n, 'object')?.text ?? 'loaded pointer', 40)})`;
          this.ptrDtypes.set(target, { dtype: d.dtype, how: 'pointer cast' });
          return { ...self, ptr: target, data: false, dtype: 'int64', off: self.ptr && !self.data ? self.off : offUnknown() };
        }
        return this.castTo(self, d);
      }
      case 'reshape':
      case 'view': {
        const s = pos.length === 1 ? this.shapeOf(a(0)) : this.shapeOf({ k: 'tuple', items: pos.map((p) => this.eval(p)) });
        return s ? { ...self, shape: s, off: offUnknown(), maskExtent: undefined, clips: undefined, pureArange: undefined } : self;
      }
      case 'trans':
      case 'permute':
        return this.transpose(self);
      case 'sum':
      case 'max':
      case 'min':
      case 'argmax':
      case 'argmin':
      case 'cumsum':
        return this.reduce(`tl.${meth}`, self, a(0, 'axis'), kw, n);
      case 'exp':
      case 'exp2':
      case 'log':
      case 'log2':
      case 'sqrt':
      case 'rsqrt':
      case 'sigmoid':
      case 'abs':
        return this.elementwise(`tl.${meth}`, [self], n);
      case 'broadcast_to': {
        const s = pos.length === 1 ? this.shapeOf(a(0)) : this.shapeOf({ k: 'tuple', items: pos.map((p) => this.eval(p)) });
        return s ? { ...self, shape: s } : self;
      }
      case 'item':
        return self;
      default:
        this.unknownCall(`.${meth}`, n);
        return unknown(meth);
    }
  }

  // -------------------------------------------------------------------------
  // Memory

  private loopMultiplier(): Expr {
    let m: Expr = ONE;
    for (const r of this.regions) if (r.kind === 'loop') m = mul(m, r.trips);
    return m;
  }

  private recordMem(kind: 'load' | 'store', target: string, elems: Expr, dtype: Dtype, n: Node, what: string, where: Offsets | Expr | null | undefined): void {
    if (this.quiet) return;
    const ev: MemEvent = { kind, space: 'global', target, elems, elemBytes: DTYPE_BYTES[dtype], dtype, line: line(n), what };
    this.region.events.push(ev);
    const isOff = !!where && 'entries' in where;
    this.accesses.push({
      kind,
      target,
      elemBytes: DTYPE_BYTES[dtype],
      perUnit: mul(elems, this.loopMultiplier()),
      off: isOff ? where : undefined,
      footprint: isOff ? footprint(where) : (where ?? null),
    });
  }

  private maskedElems(ptrShape: Expr[], mask: Val | undefined): Expr {
    if (!mask || mask.k !== 'num' || !mask.maskExtent) return numel(ptrShape);
    const shape = broadcast(ptrShape, mask.shape);
    const ext = alignDims(mask.maskExtent, shape.length, ONE).map((e, i) => (e.constant === 1 && shape[i].constant !== 1 ? shape[i] : e));
    return numel(ext);
  }

  private load(p: Val | undefined, mask: Val | undefined, n: Node, pos: Node[], kw: Map<string, Node>): Val {
    void pos;
    void kw;
    if (p?.k === 'blockptr') return this.loadBlock(p, n);
    if (!p || p.k !== 'num' || !p.ptr) {
      this.diagnostics.push(diag('unknownCall', line(n), 'info', `tl.load of a value not derived from a pointer argument (\`${shorten(n.text, 40)}\`): not counted`));
      return unknown('load');
    }
    const { dtype, how } = this.elemDtype(p.ptr);
    const shape = mask?.k === 'num' ? broadcast(p.shape, mask.shape) : p.shape;
    const elems = this.maskedElems(shape, mask);
    const clips = mask?.k === 'num' ? mask.clips : undefined;
    this.recordMem('load', p.ptr, elems, dtype, n, `tl.load ${p.ptr} [${shape.map(printExpr).join(', ')}]`, clipOffsets(p.off, clips));
    return { k: 'num', shape, dtype, isConst: false, data: true, pids: p.pids, loops: p.loops, eff: mask?.k === 'num' ? mask.maskExtent : undefined, assumedType: how === 'assumed' };
  }

  private store(p: Val | undefined, v: Val | undefined, mask: Val | undefined, n: Node): void {
    if (p?.k === 'blockptr') return this.storeBlock(p, v, n);
    if (!p || p.k !== 'num' || !p.ptr) {
      this.diagnostics.push(diag('unknownCall', line(n), 'info', `tl.store to a value not derived from a pointer argument (\`${shorten(n.text, 40)}\`): not counted`));
      return;
    }
    const { dtype } = this.elemDtype(p.ptr, v?.k === 'num' ? v : undefined);
    let shape = p.shape;
    if (v?.k === 'num') shape = broadcast(shape, v.shape);
    if (mask?.k === 'num') shape = broadcast(shape, mask.shape);
    const elems = this.maskedElems(shape, mask);
    const clips = mask?.k === 'num' ? mask.clips : undefined;
    this.recordMem('store', p.ptr, elems, dtype, n, `tl.store ${p.ptr} [${shape.map(printExpr).join(', ')}]`, clipOffsets(p.off, clips));
  }

  private atomic(op: string, p: Val | undefined, v: Val | undefined, mask: Val | undefined, n: Node): Val {
    if (!p || p.k !== 'num' || !p.ptr) {
      this.unknownCall(`tl.${op}`, n);
      return unknown(op);
    }
    const { dtype } = this.elemDtype(p.ptr);
    let shape = p.shape;
    if (v?.k === 'num') shape = broadcast(shape, v.shape);
    const elems = this.maskedElems(shape, mask);
    const fp = clipOffsets(p.off, mask?.k === 'num' ? mask.clips : undefined);
    this.recordMem('load', p.ptr, elems, dtype, n, `tl.${op} ${p.ptr} (read)`, fp);
    this.recordMem('store', p.ptr, elems, dtype, n, `tl.${op} ${p.ptr} (write)`, fp);
    if (isFloat(dtype) && (op === 'atomic_add')) this.flop('elementwise', `tl.${op}`, elems, dtype, n);
    this.assumptions.add('atomics count one read and one write of each element (and 1 FLOP for a float atomic_add)');
    return { k: 'num', shape, dtype, isConst: false, data: true, pids: [], loops: [] };
  }

  private makeBlockPtr(base: Val | undefined, shape: Val | undefined, block: Val | undefined, descriptor: boolean): Val {
    if (!base || base.k !== 'num' || !base.ptr) return unknown('block pointer base');
    const blockShape = this.shapeOf(block);
    if (!blockShape) return unknown('block shape');
    const bp: BlockPtrVal = {
      k: 'blockptr',
      target: base.ptr,
      dtype: this.elemDtype(base.ptr).dtype,
      tensorShape: this.shapeOf(shape) ?? null,
      block: blockShape,
      pids: base.pids,
      loops: base.loops,
      baseOff: base.off,
      descriptor,
    };
    return bp;
  }

  private blockFootprint(b: BlockPtrVal): Expr | null {
    if (!b.tensorShape) return null;
    // The base pointer's own shift (per batch / head) multiplies the tensor's footprint.
    const baseFp = footprint(b.baseOff);
    return baseFp ? mul(numel(b.tensorShape), baseFp) : null;
  }

  private loadBlock(b: BlockPtrVal, n: Node): Val {
    const elems = numel(b.block);
    const dtype = this.elemDtype(b.target).dtype;
    this.recordMem('load', b.target, elems, dtype, n, `${b.descriptor ? 'descriptor' : 'block-pointer'} load ${b.target} [${b.block.map(printExpr).join(', ')}]`, this.blockFootprint(b));
    return { k: 'num', shape: b.block, dtype, isConst: false, data: true, pids: b.pids, loops: b.loops };
  }

  private storeBlock(b: BlockPtrVal, v: Val | undefined, n: Node): void {
    const elems = numel(b.block);
    const dtype = this.elemDtype(b.target, v?.k === 'num' ? v : undefined).dtype;
    this.recordMem('store', b.target, elems, dtype, n, `${b.descriptor ? 'descriptor' : 'block-pointer'} store ${b.target} [${b.block.map(printExpr).join(', ')}]`, this.blockFootprint(b));
  }

  // -------------------------------------------------------------------------
  // Dots and reductions

  private dot(x: Val | undefined, y: Val | undefined, acc: Val | undefined, n: Node, opts: Record<string, Val | undefined>): Val {
    if (x?.k !== 'num' || y?.k !== 'num' || x.shape.length < 2 || y.shape.length < 2) {
      this.diagnostics.push(diag('unknownCall', line(n), 'info', `tl.dot operands of unknown shape (\`${shorten(n.text, 40)}\`): not counted`));
      return unknown('dot');
    }
    const M = x.shape[x.shape.length - 2];
    const K = x.shape[x.shape.length - 1];
    const N = y.shape[y.shape.length - 1];
    const batch = x.shape.length > 2 ? numel(x.shape.slice(0, -2)) : ONE;
    let dt = promote(x.dtype, y.dtype);
    const forced = opts.forceDtype?.k === 'dtype' ? opts.forceDtype.dtype : undefined;
    if (forced) dt = forced;
    let tensorCore = true;
    if (dt === 'fp32' || dt === 'tf32') {
      const prec = opts.input_precision?.k === 'str' ? opts.input_precision.s : undefined;
      const allow = opts.allow_tf32 ? this.truth(opts.allow_tf32) : undefined;
      if (prec === 'ieee' || allow === false) {
        dt = 'fp32';
        tensorCore = false;
        this.assumptions.add('fp32 tl.dot with input_precision="ieee" runs on CUDA cores (vector fp32 peak)');
      } else {
        dt = 'tf32';
        this.assumptions.add('fp32 tl.dot uses tf32 tensor cores (Triton\'s default input_precision)');
      }
    }
    const flops = mul(num(2), batch, M, N, K);
    this.flop('dot', 'tl.dot', flops, dt, n, { tensorCore });
    const outDt = this.dtypeOf(opts.out_dtype) ?? (dt === 'int8' ? 'int32' : acc?.k === 'num' ? acc.dtype : 'fp32');
    const shape = [...x.shape.slice(0, -1), N];
    return { k: 'num', shape, dtype: outDt, isConst: false, data: true, pids: union(x.pids, y.pids), loops: union(x.loops, y.loops), fromDot: true };
  }

  private reduce(name: string, x: Val | undefined, axisV: Val | undefined, kw: Map<string, Node>, n: Node): Val {
    if (!x || x.k !== 'num') return unknown(name);
    const keep = kw.has('keep_dims') ? this.truth(this.eval(kw.get('keep_dims')!)) : false;
    const hasAxis = axisV && axisV.k === 'num' && axisV.value;
    const lanes = x.eff ? alignDims(x.eff, x.shape.length, ONE).map((e, i) => (e.constant === 1 ? x.shape[i] : e)) : x.shape;
    const total = numel(lanes);
    let outShape: Expr[];
    let outputs: Expr;
    let outEff: Expr[] | undefined;
    if (hasAxis) {
      let ax = this.axisOf(axisV);
      if (ax < 0) ax += x.shape.length;
      outShape = x.shape.map((s, i) => (i === ax ? ONE : s));
      if (!keep) outShape = x.shape.filter((_, i) => i !== ax);
      outputs = numel(lanes.filter((_, i) => i !== ax));
      if (x.eff) outEff = keep ? lanes.map((l, i) => (i === ax ? ONE : l)) : lanes.filter((_, i) => i !== ax);
    } else {
      outShape = [];
      outputs = ONE;
    }
    const short = name.slice(3);
    const isCum = short === 'cumsum' || short === 'cumprod';
    if (isCum) {
      outShape = x.shape;
      outEff = x.eff;
    }
    const adds = sub(total, outputs);
    const res: NumVal = { k: 'num', shape: outShape, dtype: short.startsWith('arg') ? 'int32' : x.dtype, isConst: x.isConst, data: x.data, pids: x.pids, loops: x.loops, eff: outEff };
    if (x.isConst) return res;
    if (short === 'sum' || short === 'reduce' || short === 'cumsum' || short === 'cumprod' || short === 'prod' || short === 'xor_sum') {
      if (isFloat(x.dtype) && short !== 'xor_sum') this.flop('reduction', name, adds, x.dtype, n);
      else if (x.data) this.intOp(name, adds, n);
    }
    return res;
  }
}

/**
 * Per-tensor footprints from the recorded accesses. Accesses of one tensor that
 * run along the same strides are merged into the hull of their intervals;
 * otherwise the largest is kept. Each is capped by "no reuse across units"
 * (units × what one unit requests), which is also the fallback when the
 * index intervals are unknown.
 */
export function footprintsOf(accesses: Access[], units: Expr | null): { footprints: TensorFootprint[]; missing: string[] } {
  const groups = new Map<string, Access[]>();
  for (const a of accesses) {
    const key = `${a.kind}|${a.target}`;
    groups.set(key, [...(groups.get(key) ?? []), a]);
  }
  const byTarget = new Map<string, TensorFootprint>();
  const missing = new Set<string>();
  for (const list of groups.values()) {
    const { kind, target, elemBytes } = list[0];
    // Merge offsets along identical strides.
    const merged: { off?: Offsets; fp: Expr | null; perUnit: Expr }[] = [];
    for (const a of list) {
      const same = a.off ? merged.find((m) => m.off && offUnion(m.off, a.off!)) : undefined;
      if (same && same.off && a.off) {
        same.off = offUnion(same.off, a.off)!;
        same.fp = footprint(same.off);
        same.perUnit = add(same.perUnit, a.perUnit);
      } else merged.push({ off: a.off, fp: a.footprint, perUnit: a.perUnit });
    }
    let total: Expr | null = null;
    let known = true;
    for (const m of merged) {
      const noReuse = units ? mul(units, m.perUnit) : null;
      const fp = m.fp && noReuse ? emin(m.fp, noReuse) : (m.fp ?? noReuse);
      if (!fp) known = false;
      else total = total ? emax(total, fp) : fp;
    }
    if (!known) missing.add(target);
    const cur = byTarget.get(target) ?? { target, elemBytes, read: null, written: null };
    if (kind === 'load') cur.read = known ? total : null;
    else cur.written = known ? total : null;
    byTarget.set(target, cur);
  }
  return { footprints: [...byTarget.values()], missing: [...missing] };
}
