/**
 * Expression evaluation for one WGSL entry point: every expression becomes a
 * `Val` and, on the way, emits the events it costs into the current region —
 * FLOPs for floating arithmetic on run-time values, integer ops for integer
 * arithmetic on loaded data, loads and stores for storage / workgroup /
 * uniform / texture accesses. Counts are per workgroup: the per-invocation
 * amount times `active`, the invocations executing the current code.
 *
 * The statement walker (`walker.ts`) extends this class with control flow and
 * function inlining.
 */
import type { ExpressionElem, FunctionCallExpression, FnElem } from 'wesl/core';
import type { BindingSet } from '../../bindings';
import type { Budget } from '../../budget';
import { unknownCall } from '../../engine/calls';
import { Notes, Recorder } from '../../engine/recorder';
import type { UserInputs } from '../../frontend';
import type { Dtype } from '../../gpus/types';
import type { FlopClass, MemorySpace, Region } from '../../ir';
import {
  add,
  div,
  evaluate,
  floordiv,
  freeSymbols,
  max as emax,
  min as emin,
  mod,
  mul,
  neg,
  num,
  sub,
  sym,
  type Expr,
} from '../../sym/expr';
import { DTYPE_BYTES } from '../common';
import { builtinCost, builtinResult, isKnownBuiltin, SUBGROUP_REDUCE } from './builtins';
import type { ActivePred } from './conditions';
import type { Access } from './footprint';
import { findAttribute, TypeResolver, type ModuleInfo } from './module';
import {
  arithResult,
  BOOL,
  dtypeOf,
  F32,
  isFloatKind,
  isIntKind,
  lanes,
  scalar,
  scalarForDtype,
  scalarOf,
  sizeOf,
  strideOf,
  texelBytes,
  texelDtype,
  typeName,
  U32,
  UNKNOWN,
  vec,
  withScalar,
  type ScalarKind,
  type WType,
} from './types';
import {
  constOf,
  constVal,
  DEP,
  hasDep,
  isConst,
  joinDeps,
  mergeLoops,
  opaqueVal,
  rangeAdd,
  rangeMax,
  rangeMin,
  rangeMul,
  rangeNeg,
  rangeSub,
  rangeUnion,
  type ConcEnv,
  type Place,
  upTo,
  type Range,
  type Slot,
  type Val,
} from './values';

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

const COMPARE = new Set(['==', '!=', '<', '<=', '>', '>=']);
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);
const ARITH = new Set(['+', '-', '*', '/', '%']);
const ATOMIC_RMW = new Set(['atomicAdd', 'atomicSub', 'atomicMax', 'atomicMin', 'atomicAnd', 'atomicOr', 'atomicXor']);
const ATOMIC_OTHER = new Set(['atomicExchange', 'atomicCompareExchangeWeak', 'atomicLoad', 'atomicStore']);
const SAMPLE = new Set([
  'textureSample', 'textureSampleLevel', 'textureSampleBias', 'textureSampleGrad', 'textureSampleCompare',
  'textureSampleCompareLevel', 'textureSampleBaseClampToEdge',
]);
const GATHER = new Set(['textureGather', 'textureGatherCompare']);
const TEXTURE_QUERY = new Set(['textureNumLevels', 'textureNumLayers', 'textureNumSamples']);
const COMPONENTS = 'xyzw';

export abstract class ExprWalker {
  protected readonly mod: ModuleInfo;
  protected readonly bindings: BindingSet;
  protected readonly user: UserInputs;
  protected readonly budget: Budget;
  protected readonly lineOf: (offset: number) => number;
  protected readonly types: TypeResolver;
  protected readonly src: string;
  /** Numeric values of the bindings (kept in step with `bindings`). */
  protected readonly env = new Map<string, number>();
  /** Loop counter values while a loop is unrolled (`@L12` → 64). */
  protected readonly unrollEnv = new Map<string, number>();
  /** Loops whose counters a local-id predicate needed. */
  protected readonly needsUnroll = new Set<string>();
  readonly log: WalkLog = { accesses: [] };
  readonly notes = new Notes();
  rec!: Recorder;
  /** `arrayLength` paths the shader asks for (their symbols bound footprints). */
  protected readonly usedLengths = new Set<string>();
  protected wg: Expr[] = [num(1), num(1), num(1)];
  protected active: Expr = num(1);
  protected preds: ActivePred[] = [];
  protected frames: Frame[] = [];
  /** Depth of data-dependent branches around the current code. */
  protected dataDepth = 0;
  /** True while a call is evaluated as a statement of its own (its result is not used). */
  protected discarded = false;
  private readonly globals = new Map<string, Val>();
  private readonly resolvingGlobals = new Set<string>();

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

  /** Inlines a call to a module function (implemented by the statement walker). */
  protected abstract callUser(fn: FnElem, args: Val[], line: number): Val;

  // -------------------------------------------------------------------------
  // Bindings, logging, events

  protected bind(name: string, value: number | boolean, source: 'define' | 'launch' | 'user', detail: string): void {
    this.bindings.bind(name, value, source, detail);
    const v = this.bindings.num(name);
    if (v !== undefined) this.env.set(name, v);
  }

  /** Evaluates without emitting events (for a second look at an expression already counted). */
  protected quietly<T>(f: () => T): T {
    return this.rec.quietly(f);
  }

  protected get quiet(): number {
    return this.rec.quiet;
  }

  protected get region(): Region {
    return this.rec.region;
  }

  protected text(e: { start: number; end: number }): string {
    return this.src.slice(e.start, e.end).replace(/\s+/g, ' ');
  }

  protected emitFlop(op: string, cls: FlopClass, perInvocation: number, s: ScalarKind | undefined, line: number, special = false): void {
    if (perInvocation <= 0) return;
    const dtype: Dtype = s === 'f16' ? 'fp16' : 'fp32';
    this.rec.flop(cls, op, mul(num(perInvocation), this.active), dtype, line, { special });
  }

  protected emitInt(op: string, perInvocation: number, line: number): void {
    if (perInvocation <= 0) return;
    this.rec.int(op, mul(num(perInvocation), this.active), line);
  }

  protected emitMem(kind: 'load' | 'store', space: MemorySpace, target: string, bytes: number, dtype: Dtype, line: number, what: string, elems = 1): void {
    this.rec.mem(kind, space, target, mul(num(elems), this.active), bytes, dtype, line, what);
  }

  // -------------------------------------------------------------------------
  // Names

  protected lookup(name: string): Slot | undefined {
    const f = this.frames[this.frames.length - 1];
    if (!f) return undefined;
    for (let i = f.scopes.length - 1; i >= 0; i--) {
      const s = f.scopes[i].get(name);
      if (s) return s;
    }
    return undefined;
  }

  protected declare(name: string, slot: Slot): void {
    const f = this.frames[this.frames.length - 1];
    f?.scopes[f.scopes.length - 1].set(name, slot);
  }

  /** The value of a module-scope `const` or `override`, binding its name. */
  protected globalValue(name: string): Val | undefined {
    const memo = this.globals.get(name);
    if (memo) return memo;
    const c = this.mod.consts.get(name);
    const o = this.mod.overrides.get(name);
    if (!c && !o) return undefined;
    if (this.resolvingGlobals.has(name)) return opaqueVal(UNKNOWN, DEP.MUT);
    this.resolvingGlobals.add(name);
    const v = c ? this.constDecl(name, c.init, c.name.typeRef, c.start) : this.overrideDecl(name, o!.init, o!.name.typeRef, o!.start);
    this.resolvingGlobals.delete(name);
    this.globals.set(name, v);
    return v;
  }

  private constDecl(name: string, init: ExpressionElem | undefined, typeRef: Parameters<TypeResolver['resolve']>[0], at: number): Val {
    const v = init ? this.evalExpr(init) : opaqueVal(UNKNOWN, 0);
    const type = typeRef ? this.types.resolve(typeRef) : v.type;
    const value = v.fn?.(this.env);
    // Without a finite value the const is opaque: keeping its evaluation closure would make a
    // chain of consts that use each other twice (`const B = A * A;`) re-evaluate 2^n times.
    if (value === undefined || !Number.isFinite(value)) return { ...opaqueVal(type.k === 'scalar' ? type : UNKNOWN, 0), type };
    if (type.k !== 'scalar') return { ...v, type };
    if (!isIntKind(type.s)) return constVal(type, num(value), this.env);
    this.bind(name, value, 'define', `const (line ${this.lineOf(at)})`);
    return constVal(type, sym(name), this.env);
  }

  private overrideDecl(name: string, init: ExpressionElem | undefined, typeRef: Parameters<TypeResolver['resolve']>[0], at: number): Val {
    const v = init ? this.evalExpr(init) : undefined;
    const type = typeRef ? this.types.resolve(typeRef) : (v?.type ?? U32);
    const dflt = v?.fn?.(this.env);
    const isBool = type.k === 'scalar' && type.s === 'bool';
    if (dflt !== undefined) this.bind(name, isBool ? dflt !== 0 : dflt, 'define', `override default (line ${this.lineOf(at)})`);
    return constVal(type.k === 'scalar' && type.s === 'ai' ? U32 : type, sym(name), this.env);
  }

  /** A constant expression's number (array lengths, `@align`), if it has one. */
  protected constNumber(e: ExpressionElem): number | undefined {
    const v = this.evalExpr(e);
    return v.fn?.(this.env);
  }

  // -------------------------------------------------------------------------
  // Expressions

  evalExpr(e: ExpressionElem): Val {
    switch (e.kind) {
      case 'literal':
        return this.literal(e.value);
      case 'ref':
        return this.identifier(e.ident.originalName, e.start);
      case 'parenthesized-expression':
        return this.evalExpr(e.expression);
      case 'component-member-expression':
      case 'component-expression':
        return this.access(e);
      case 'unary-expression':
        return this.unary(e.operator.value, e.expression, e.start);
      case 'binary-expression':
        return this.binary(e.operator.value, this.evalExpr(e.left), this.evalExpr(e.right), this.lineOf(e.start));
      case 'call-expression':
        return this.call(e);
      default:
        return opaqueVal(UNKNOWN, 0);
    }
  }

  private literal(text: string): Val {
    if (text === 'true' || text === 'false') return constVal(BOOL, num(text === 'true' ? 1 : 0), this.env);
    const isHex = /^-?0[xX]/.test(text);
    const suffix = text[text.length - 1];
    let kind: ScalarKind;
    let body = text;
    if (suffix === 'u' || suffix === 'i') {
      kind = suffix === 'u' ? 'u32' : 'i32';
      body = text.slice(0, -1);
    } else if ((suffix === 'f' || suffix === 'h') && !isHex) {
      kind = suffix === 'f' ? 'f32' : 'f16';
      body = text.slice(0, -1);
    } else kind = !isHex && /[.eE]/.test(text) ? 'af' : isHex && /[.pP]/.test(text) ? 'af' : 'ai';
    const value = isHex && /[.pP]/.test(body) ? hexFloat(body) : Number(body);
    return constVal(scalar(kind), Number.isFinite(value) ? num(value) : undefined, this.env);
  }

  private identifier(name: string, at: number): Val {
    const slot = this.lookup(name);
    if (slot) return slot.val;
    if (this.mod.globals.has(name)) {
      const p = this.globalPlace(name);
      return p ? this.readPlace(p, at, name) : opaqueVal(UNKNOWN, DEP.MUT);
    }
    const g = this.globalValue(name);
    if (g) return g;
    this.notes.say('unknownIdent', this.lineOf(at), name);
    return opaqueVal(UNKNOWN, DEP.MUT);
  }

  private access(e: Extract<ExpressionElem, { kind: 'component-member-expression' | 'component-expression' }>): Val {
    const p = this.evalPlace(e);
    if (p) return this.readPlace(p, e.start, this.text(e));
    const base = this.evalExpr(e.base);
    return e.kind === 'component-member-expression' ? valueMember(base, e.access.name) : valueIndex(base, this.evalExpr(e.access));
  }

  private unary(op: string, inner: ExpressionElem, at: number): Val {
    if (op === '&') {
      const p = this.evalPlace(inner);
      return p ? { type: { k: 'ptr', space: p.root.kind === 'global' ? p.root.space : 'function', elem: p.type }, deps: 0, place: p } : this.evalExpr(inner);
    }
    if (op === '*') {
      const p = this.evalPlace(inner);
      return p ? this.readPlace(p, at, this.text(inner)) : this.evalExpr(inner);
    }
    const v = this.evalExpr(inner);
    if (op === '-') return negate(v);
    if (op === '!') return { type: v.type, deps: v.deps, loops: v.loops, names: v.names, fn: v.fn && ((env) => lift1(v.fn!(env), (a) => (a ? 0 : 1))) };
    if (hasDep(v, DEP.DATA)) this.emitInt('~', lanes(v.type), this.lineOf(at));
    return { type: v.type, deps: v.deps, loops: v.loops, fn: v.fn && ((env) => lift1(v.fn!(env), (a) => ~a >>> 0)) };
  }

  /** A binary operation: its cost, type, and symbolic / interval / concrete value. */
  protected binary(op: string, l: Val, r: Val, line: number): Val {
    if (op === '&&' || op === '||') return logical(op, l, r);
    if (COMPARE.has(op)) return compare(op, l, r);
    const type = op === '*' ? mulType(l.type, r.type) : arithResult(l.type, r.type);
    if (!(isConst(l) && isConst(r))) this.chargeArith(op, l, r, type, line);
    const s = scalarOf(type);
    const out = combine(op, l, r, isIntKind(s));
    out.type = type;
    if (l.comps && r.comps) out.comps = l.comps.map((c, i) => combine(op, c, r.comps![i] ?? c, isIntKind(s)));
    else if (l.comps && r.type.k === 'scalar') out.comps = l.comps.map((c) => combine(op, c, r, isIntKind(s)));
    else if (r.comps && l.type.k === 'scalar') out.comps = r.comps.map((c) => combine(op, l, c, isIntKind(s)));
    return out;
  }

  private chargeArith(op: string, l: Val, r: Val, type: WType, line: number): void {
    const s = scalarOf(type);
    if (isFloatKind(s) && (ARITH.has(op))) {
      const m = matrixFlops(l.type, r.type);
      this.emitFlop(m ? 'mat×vec' : op, m ? 'dot' : 'elementwise', m ?? lanes(type), s, line);
    } else if ((isIntKind(s) || s === undefined) && (ARITH.has(op) || BITWISE.has(op)) && (hasDep(l, DEP.DATA) || hasDep(r, DEP.DATA)))
      this.emitInt(op, lanes(type), line);
  }

  // -------------------------------------------------------------------------
  // Memory places

  /** The memory place an access chain denotes, or undefined for plain values. */
  evalPlace(e: ExpressionElem): Place | undefined {
    switch (e.kind) {
      case 'ref': {
        const name = e.ident.originalName;
        const slot = this.lookup(name);
        if (slot) {
          if (slot.val.place && slot.val.type.k === 'ptr') return slot.val.place;
          return { root: { kind: 'local', name, slot }, type: slot.val.type, path: name, symName: undefined, steps: [], outerIndex: undefined, outerArray: undefined };
        }
        return this.mod.globals.has(name) ? this.globalPlace(name) : undefined;
      }
      case 'parenthesized-expression':
        return this.evalPlace(e.expression);
      case 'unary-expression':
        return e.operator.value === '*' ? this.evalPlace(e.expression) : undefined;
      case 'component-member-expression': {
        const base = this.evalPlace(e.base);
        return base && memberPlace(base, e.access.name);
      }
      case 'component-expression': {
        const base = this.evalPlace(e.base);
        return base && indexPlace(base, this.evalExpr(e.access));
      }
      default:
        return undefined;
    }
  }

  private globalPlace(name: string): Place | undefined {
    const g = this.mod.globals.get(name);
    if (!g) return undefined;
    const tmpl = (g.template ?? []).map((t) => t.name);
    const space = tmpl[0] ?? 'handle';
    const access = tmpl[1] ?? (space === 'storage' ? 'read' : 'read_write');
    let type = this.types.resolve(g.name.typeRef);
    const d = this.user.dtypes[name];
    if (d && space === 'storage') {
      const s = scalarForDtype(d);
      if (s) type = withScalar(type, s);
      else this.notes.say('dtypeIgnored', this.lineOf(g.start), name, d);
    }
    return { root: { kind: 'global', name, space, access }, type, path: name, symName: name, steps: [], outerIndex: undefined, outerArray: undefined };
  }

  /** Reads a place: a load event for memory, the tracked value for locals. */
  protected readPlace(p: Place, at: number, what: string): Val {
    const line = this.lineOf(at);
    const type = valueType(p.type);
    if (p.root.kind === 'local') return p.steps.reduce((v, s) => (s.kind === 'member' ? valueMember(v, s.name) : valueIndex(v, s.idx)), p.root.slot.val);
    const { space, name } = p.root;
    const bytes = sizeOf(type);
    if (space === 'storage') {
      this.emitMem('load', 'global', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
      this.recordAccess(p, 'read', line);
      return opaqueVal(type, DEP.DATA);
    }
    if (space === 'workgroup') {
      this.emitMem('load', 'shared', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
      return opaqueVal(type, DEP.DATA);
    }
    if (space === 'uniform') {
      this.emitMem('load', 'uniform', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
      return uniformValue(type, p.symName, this.env);
    }
    if (space === 'handle') return { type, deps: 0, place: p };
    return opaqueVal(type, DEP.MUT);
  }

  /** Writes a place: a store event for memory, an updated value for locals. */
  protected writePlace(p: Place, v: Val, line: number, what: string): void {
    if (p.root.kind === 'local') {
      const slot = p.root.slot;
      if (slot.loopVar) return;
      const ctx = this.dataDepth > 0 ? DEP.DATA : 0;
      slot.val = p.steps.length === 0 ? { ...v, type: slot.val.type.k === 'unknown' ? v.type : slot.val.type, deps: v.deps | ctx } : opaqueVal(slot.val.type, slot.val.deps | v.deps | ctx | DEP.MUT);
      return;
    }
    const { space, name } = p.root;
    const type = valueType(p.type);
    if (space === 'storage') {
      this.emitMem('store', 'global', name, sizeOf(type), dtypeOf(type), line, `write ${what} (${typeName(type)})`);
      this.recordAccess(p, 'write', line);
    } else if (space === 'workgroup') this.emitMem('store', 'shared', name, sizeOf(type), dtypeOf(type), line, `write ${what} (${typeName(type)})`);
  }

  private recordAccess(p: Place, kind: 'read' | 'write', line: number): void {
    if (p.root.kind !== 'global' || this.quiet) return;
    const arr = p.outerArray;
    this.log.accesses.push({
      target: p.root.name,
      kind,
      elemBytes: arr ? strideOf(arr.elem) : sizeOf(valueType(p.type)),
      cap: arr ? this.lengthCap(arr.count, arr.path) : undefined,
      index: p.outerIndex,
      coords: undefined,
      line,
    });
  }

  /** An array's length for footprints: fixed, or `arrayLength(path)` when asked for or bound. */
  private lengthCap(count: number | undefined, path: string): Expr | undefined {
    if (count !== undefined) return num(count);
    const name = `arrayLength(${path})`;
    return this.usedLengths.has(path) || this.env.has(name) ? sym(name) : undefined;
  }

  // -------------------------------------------------------------------------
  // Calls

  private call(e: FunctionCallExpression): Val {
    const unused = this.discarded;
    this.discarded = false;
    const f = e.function;
    const name = f.kind === 'ref' ? f.ident.originalName : f.name.originalName;
    const line = this.lineOf(e.start);
    const fn = this.mod.fns.get(name);
    if (fn) return this.callUser(fn, e.arguments.map((a) => this.evalExpr(a)), line);
    const ctorType = f.kind === 'type' ? this.types.resolve(f) : this.types.named(name, []);
    if (ctorType.k !== 'unknown') return construct(ctorType, e.arguments.map((a) => this.evalExpr(a)));
    if (name === 'bitcast') {
      const v = e.arguments[0] ? this.evalExpr(e.arguments[0]) : opaqueVal(UNKNOWN, 0);
      return opaqueVal(this.typeArgument(e.templateArgs?.[0]) ?? v.type, v.deps, v.loops);
    }
    const special = this.memoryBuiltin(name, e, line, unused);
    if (special) return special;
    const args = e.arguments.map((a) => this.evalExpr(a));
    if (isKnownBuiltin(name)) return this.arithmeticBuiltin(name, args, line);
    if (!this.quiet) unknownCall(this.notes, { name, line, pointer: args.some((a) => a.type.k === 'ptr') });
    return opaqueVal(args[0]?.type ?? UNKNOWN, joinDeps(...args) | DEP.MUT, mergeLoops(...args));
  }

  /** A type written as a template argument (`bitcast<u32>`). */
  private typeArgument(t: ExpressionElem | undefined): WType | undefined {
    if (t?.kind === 'type') return this.types.resolve(t);
    if (t?.kind === 'ref') return this.types.named(t.ident.originalName, []);
    return undefined;
  }

  private arithmeticBuiltin(name: string, args: Val[], line: number): Val {
    const types = args.map((a) => a.type);
    const type = builtinResult(name, types);
    const folded = args.every(isConst);
    if (!folded) this.chargeBuiltin(name, types, type, args.some((a) => hasDep(a, DEP.DATA)), line);
    const indexed = indexBuiltin(name, args);
    if (indexed) return { ...indexed, type };
    return { type, deps: joinDeps(...args), loops: mergeLoops(...args) };
  }

  /** Charges an arithmetic builtin: FLOPs on floats, integer ops on loaded integer data. */
  private chargeBuiltin(name: string, types: WType[], result: WType, data: boolean, line: number): void {
    const s = scalarOf(types[0] ?? result) ?? scalarOf(result);
    if (SUBGROUP_REDUCE.has(name)) {
      this.notes.assume('subgroup32');
      if (isFloatKind(s)) this.emitFlop(name, 'warp-reduce', (31 * lanes(result)) / 32, s, line);
      else if (data) this.emitInt(name, (31 * lanes(result)) / 32, line);
      return;
    }
    const cost = builtinCost(name, types);
    if (!cost || cost.flops === 0) return;
    if (!isFloatKind(s)) {
      if (data) this.emitInt(name, cost.flops, line);
      return;
    }
    this.emitFlop(name, cost.cls, cost.flops - cost.special, s, line);
    this.emitFlop(name, 'special', cost.special, s, line, true);
  }

  /** Builtins that touch memory or resources: textures, atomics, `arrayLength`, barriers. */
  private memoryBuiltin(name: string, e: FunctionCallExpression, line: number, unused: boolean): Val | undefined {
    const args = e.arguments;
    if (name === 'arrayLength') return this.arrayLength(args[0]);
    if (name === 'workgroupBarrier' || name === 'storageBarrier' || name === 'textureBarrier') return opaqueVal(UNKNOWN, 0);
    if (name === 'workgroupUniformLoad') {
      const p = this.pointee(args[0]);
      return p ? this.readPlace(p, e.start, this.text(args[0])) : opaqueVal(UNKNOWN, DEP.DATA);
    }
    if (ATOMIC_RMW.has(name) || ATOMIC_OTHER.has(name)) return this.atomic(name, e, line, unused);
    if (name === 'textureLoad' || SAMPLE.has(name) || GATHER.has(name) || name === 'textureStore') return this.textureAccess(name, e, line);
    if (name === 'textureDimensions' || TEXTURE_QUERY.has(name)) return this.textureQuery(name, args[0]);
    return undefined;
  }

  /** The place a pointer argument points to: `&x`, or a pointer-valued name. */
  private pointee(arg: ExpressionElem | undefined): Place | undefined {
    if (!arg) return undefined;
    if (arg.kind === 'unary-expression' && arg.operator.value === '&') return this.evalPlace(arg.expression);
    return this.evalPlace(arg);
  }

  private arrayLength(arg: ExpressionElem | undefined): Val {
    const p = this.pointee(arg);
    if (!p) return opaqueVal(U32, DEP.UNIFORM);
    this.usedLengths.add(p.path);
    return uniformValue(U32, `arrayLength(${p.path})`, this.env);
  }

  private atomic(name: string, e: FunctionCallExpression, line: number, unused: boolean): Val {
    const p = this.pointee(e.arguments[0]);
    const rest = e.arguments.slice(1).map((a) => this.evalExpr(a));
    const type = p ? valueType(p.type) : U32;
    if (!p) return opaqueVal(type, DEP.DATA);
    const what = this.text(e);
    // COUNTING.md: an atomic read-modify-write is one store (done in L2), plus one load when the old value is used.
    if (name === 'atomicLoad' || (name !== 'atomicStore' && !unused)) this.readAtomic(p, line, what);
    if (name !== 'atomicLoad') this.writePlace(p, opaqueVal(type, DEP.DATA | joinDeps(...rest)), line, what);
    if (ATOMIC_RMW.has(name)) this.emitInt(name, 1, line);
    if (ATOMIC_RMW.has(name) || name === 'atomicExchange' || name === 'atomicCompareExchangeWeak') this.notes.assume('atomics');
    return opaqueVal(type, DEP.DATA);
  }

  private readAtomic(p: Place, line: number, what: string): void {
    if (p.root.kind !== 'global') return;
    const space: MemorySpace | undefined = p.root.space === 'storage' ? 'global' : p.root.space === 'workgroup' ? 'shared' : undefined;
    if (!space) return;
    this.emitMem('load', space, p.root.name, 4, dtypeOf(valueType(p.type)), line, what);
    if (space === 'global') this.recordAccess(p, 'read', line);
  }

  private textureAccess(name: string, e: FunctionCallExpression, line: number): Val {
    const gatherShift = GATHER.has(name) && e.arguments.length > 0 && this.evalPlace(e.arguments[0])?.type.k !== 'texture' ? 1 : 0;
    const args = e.arguments.map((a) => this.evalExpr(a));
    const tex = args[gatherShift];
    const t = tex?.place?.type;
    if (!tex?.place || t?.k !== 'texture') return opaqueVal(vec(4, 'f32'), DEP.DATA);
    const texName = tex.place.root.name;
    const bytes = this.texelBytes(texName, t);
    const store = name === 'textureStore';
    const texels = GATHER.has(name) ? 4 : 1;
    this.emitMem(store ? 'store' : 'load', 'global', texName, bytes, this.texelDtype(texName, t), line, `${name} ${texName}`, texels);
    const coordArg = SAMPLE.has(name) || GATHER.has(name) ? args[gatherShift + 2] : args[1];
    const layered = t.name.includes('_array') ? args[gatherShift + (SAMPLE.has(name) || GATHER.has(name) ? 3 : 2)] : undefined;
    const sampled = SAMPLE.has(name) || GATHER.has(name);
    if (!this.quiet) this.log.accesses.push({
      target: texName,
      kind: store ? 'write' : 'read',
      elemBytes: bytes,
      cap: undefined,
      index: undefined,
      coords: coordArg ? [...(coordArg.comps ?? [coordArg]), ...(layered ? [layered] : [])] : undefined,
      unbounded: sampled ? `\`${texName}\` is sampled at computed coordinates (line ${line})` : undefined,
      line,
    });
    if (store) return opaqueVal(UNKNOWN, 0);
    return opaqueVal(t.name.startsWith('texture_depth') ? F32 : vec(4, t.sampled), DEP.DATA);
  }

  private texelBytes(texName: string, t: Extract<WType, { k: 'texture' }>): number {
    const d = this.user.dtypes[texName];
    const channels = t.name.startsWith('texture_depth') ? 1 : 4;
    if (d) return channels * DTYPE_BYTES[d];
    if (t.format) return texelBytes(t.format) ?? 4;
    this.notes.assume('textureFormat', texName);
    return 4;
  }

  private texelDtype(texName: string, t: Extract<WType, { k: 'texture' }>): Dtype {
    return this.user.dtypes[texName] ?? texelDtype(t.format ?? 'rgba8unorm');
  }

  private textureQuery(name: string, arg: ExpressionElem | undefined): Val {
    const p = arg && this.evalPlace(arg);
    const t = p?.type;
    if (!p || t?.k !== 'texture') return opaqueVal(U32, DEP.UNIFORM);
    const base = `${name}(${p.path})`;
    if (name !== 'textureDimensions') return uniformValue(U32, base, this.env);
    const dims = t.name.includes('1d') ? 1 : t.name.includes('3d') ? 3 : 2;
    return uniformValue(vec(dims, 'u32'), base, this.env);
  }

  // -------------------------------------------------------------------------
  // Entry-point inputs

  /** The value of a `@builtin` input (`local_invocation_id`, `global_invocation_id`, …). */
  protected builtinInput(name: string, type: WType): Val {
    const nw = (c: number) => sym(`num_workgroups.${COMPONENTS[c]}`);
    const comp = (v: Omit<Val, 'type'>): Val => ({ type: U32, ...v });
    switch (name) {
      // Ids are symbols (`@lid.x`, `@wid.x`): loop headers that start at them are counted by the engine's rules.
      case 'local_invocation_id':
        return vector(this.wg.map((w, c) => comp({ deps: DEP.LID, sym: sym(`@lid.${COMPONENTS[c]}`), range: upTo(w), fn: (env) => env.get(`@lid.${COMPONENTS[c]}`), lid: COMPONENTS[c] as 'x' | 'y' | 'z' })));
      case 'local_invocation_index':
        return { type: U32, deps: DEP.LID, sym: sym('@lidx'), range: upTo(mul(...this.wg)), fn: (env) => env.get('@lidx'), lid: 'idx' };
      case 'global_invocation_id':
        return vector(this.wg.map((w, c) => comp({ deps: DEP.GID, sym: add(mul(sym(`@wid.${COMPONENTS[c]}`), w), sym(`@lid.${COMPONENTS[c]}`)), range: upTo(mul(nw(c), w)) })));
      case 'workgroup_id':
        return vector(this.wg.map((_, c) => comp({ deps: DEP.WID, sym: sym(`@wid.${COMPONENTS[c]}`), range: upTo(nw(c)) })));
      case 'num_workgroups':
        return vector([0, 1, 2].map((c) => uniformValue(U32, `num_workgroups.${COMPONENTS[c]}`, this.env)));
      case 'subgroup_size':
        return uniformValue(U32, 'subgroup_size', this.env);
      case 'subgroup_invocation_id':
        return { type: U32, deps: DEP.LID, range: [num(0), num(31)] };
      default:
        return opaqueVal(type, DEP.LID);
    }
  }

  /** The workgroup size of an entry point, as expressions over named symbols. */
  protected workgroupSize(fn: FnElem): Expr[] {
    const attr = findAttribute(fn.attributes, 'workgroup_size');
    const line = this.lineOf(fn.name.start);
    if (!attr) {
      this.notes.say('noWorkgroupSize', line, fn.name.ident.originalName);
      return [num(1), num(1), num(1)];
    }
    return [0, 1, 2].map((i) => {
      const p = attr.params[i];
      if (!p) return num(1);
      const v = this.evalExpr(p);
      if (v.sym && isConst(v)) return v.sym;
      this.notes.say('workgroupSize', line, this.text(p));
      return sym(`workgroup_size.${COMPONENTS[i]}`);
    });
  }

  /** Names a constant condition needs a value for. */
  protected missingNames(v: Val): string[] {
    const out = new Set<string>();
    for (const c of [v, ...(v.comps ?? [])]) for (const s of [...(c.sym ? freeSymbols(c.sym) : []), ...(c.names ?? [])]) if (!this.env.has(s) && !s.startsWith('@')) out.add(s);
    return [...out];
  }

  protected concEnv(): ConcEnv {
    if (this.unrollEnv.size === 0) return this.env;
    const m = new Map(this.env);
    for (const [k, v] of this.unrollEnv) m.set(k, v);
    return m;
  }
}

// ---------------------------------------------------------------------------
// Value operations (pure)

function vector(comps: Val[]): Val {
  return { type: vec(comps.length, scalarOf(comps[0]?.type ?? U32) ?? 'u32'), deps: joinDeps(...comps), comps, loops: mergeLoops(...comps) };
}

/** A value read from a uniform buffer (or a uniform query): a bindable symbol when it is a static scalar. */
function uniformValue(type: WType, name: string | undefined, env: ReadonlyMap<string, number>): Val {
  if (name && type.k === 'scalar') {
    const s = sym(name);
    return { type, deps: DEP.UNIFORM, sym: s, range: [s, s], fn: () => evaluate(s, env) };
  }
  if (name && type.k === 'vec') return { ...vector(Array.from({ length: type.n }, (_, i) => uniformValue(scalar(type.s), `${name}.${COMPONENTS[i]}`, env))), type };
  return opaqueVal(type, DEP.UNIFORM);
}

function valueType(t: WType): WType {
  return t.k === 'atomic' ? scalar(t.s) : t;
}

function memberPlace(base: Place, name: string): Place | undefined {
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

function indexPlace(base: Place, idx: Val): Place {
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
function valueMember(v: Val, name: string): Val {
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
function valueIndex(v: Val, idx: Val): Val {
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

/** A constructor or conversion call (`vec2i(x, y)`, `f32(n)`, `Particle(p, v)`): free. */
function construct(t: WType, args: Val[]): Val {
  const deps = joinDeps(...args);
  const loops = mergeLoops(...args);
  if (args.length === 0) return { type: t, deps: 0 };
  if (t.k === 'scalar' && args.length === 1) {
    const a = args[0];
    const toInt = isIntKind(t.s);
    return { ...a, type: t, comps: undefined, fn: a.fn && (toInt ? (env) => lift1(a.fn!(env), Math.trunc) : a.fn) };
  }
  if (t.k === 'vec') {
    const flat: (Val | undefined)[] = [];
    for (const a of args) {
      if (a.type.k === 'vec') for (let i = 0; i < a.type.n; i++) flat.push(a.comps?.[i]);
      else flat.push(a);
    }
    const comps = flat.length === 1 ? Array.from({ length: t.n }, () => flat[0]) : flat;
    const known = comps.length === t.n && comps.every((c) => c !== undefined);
    return { type: t, deps, loops, comps: known ? (comps as Val[]).map((c) => ({ ...c, type: scalar(t.s) })) : undefined };
  }
  if (t.k === 'struct') {
    const fields: Record<string, Val> = {};
    t.members.forEach((m, i) => {
      if (args[i]) fields[m.name] = args[i];
    });
    return { type: t, deps, loops, fields };
  }
  return { type: t, deps, loops };
}

function negate(v: Val): Val {
  return {
    type: v.type,
    deps: v.deps,
    loops: v.loops,
    sym: v.sym && neg(v.sym),
    range: v.range && rangeNeg(v.range),
    fn: v.fn && ((env) => lift1(v.fn!(env), (a) => -a)),
    comps: v.comps?.map(negate),
  };
}

function logical(op: string, l: Val, r: Val): Val {
  const fn =
    l.fn && r.fn
      ? (env: ConcEnv) => {
          const a = l.fn!(env);
          if (a === undefined) return undefined;
          if (op === '&&' && !a) return 0;
          if (op === '||' && a) return 1;
          const b = r.fn!(env);
          return b === undefined ? undefined : b ? 1 : 0;
        }
      : undefined;
  return { type: BOOL, deps: joinDeps(l, r), loops: mergeLoops(l, r), fn, names: namesOf(l, r) };
}

/** Named symbols of the operands of a comparison or a logical operator. */
function namesOf(...vs: Val[]): string[] {
  const out = new Set<string>();
  for (const v of vs) {
    if (v.sym) freeSymbols(v.sym, out);
    for (const n of v.names ?? []) out.add(n);
  }
  return [...out];
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

function compare(op: string, l: Val, r: Val): Val {
  const test = (a: number, b: number): boolean => {
    switch (op) {
      case '==':
        return a === b;
      case '!=':
        return a !== b;
      case '<':
        return a < b;
      case '<=':
        return a <= b;
      case '>':
        return a > b;
      default:
        return a >= b;
    }
  };
  const fn = l.fn && r.fn ? (env: ConcEnv) => lift2(l.fn!(env), r.fn!(env), (a, b) => (test(a, b) ? 1 : 0)) : undefined;
  const type = l.type.k === 'vec' ? vec(l.type.n, 'bool') : BOOL;
  const out: Val = { type, deps: joinDeps(l, r), loops: mergeLoops(l, r), fn, names: namesOf(l, r) };
  if (l.lid && r.sym) out.pred = { comp: l.lid, op, bound: r.sym };
  else if (r.lid && l.sym) out.pred = { comp: r.lid, op: FLIP[op], bound: l.sym };
  return out;
}

/** The symbolic, interval and concrete parts of `l op r` for scalars (costs are charged by the caller). */
function combine(op: string, l: Val, r: Val, int: boolean): Val {
  const out: Val = { type: arithResult(l.type, r.type), deps: joinDeps(l, r), loops: mergeLoops(l, r) };
  if (l.sym && r.sym) out.sym = symOp(op, l.sym, r.sym, int);
  if (l.range && r.range) out.range = rangeOp(op, l.range, r.range, int);
  if (l.fn && r.fn) {
    const f = numOp(op, int);
    if (f) out.fn = (env) => lift2(l.fn!(env), r.fn!(env), f);
  }
  return out;
}

function symOp(op: string, a: Expr, b: Expr, int: boolean): Expr | undefined {
  switch (op) {
    case '+':
      return add(a, b);
    case '-':
      return sub(a, b);
    case '*':
      return mul(a, b);
    case '/':
      return int ? floordiv(a, b) : div(a, b);
    case '%':
      return mod(a, b);
    case '<<':
      return b.constant !== undefined ? mul(a, num(2 ** b.constant)) : undefined;
    case '>>':
      return b.constant !== undefined ? floordiv(a, num(2 ** b.constant)) : undefined;
    case '&':
      return b.constant !== undefined && isMask(b.constant) ? mod(a, num(b.constant + 1)) : undefined;
    default:
      return undefined;
  }
}

function isMask(c: number): boolean {
  return c >= 0 && Number.isInteger(Math.log2(c + 1));
}

function rangeOp(op: string, a: Range, b: Range, int: boolean): Range | undefined {
  const c = constOf(b);
  switch (op) {
    case '+':
      return rangeAdd(a, b);
    case '-':
      return rangeSub(a, b);
    case '*':
      return rangeMul(a, b);
    case '/':
      return c !== undefined && c > 0 ? [int ? floordiv(a[0], num(c)) : div(a[0], num(c)), int ? floordiv(a[1], num(c)) : div(a[1], num(c))] : undefined;
    case '%': {
      const hiA = a[1].constant;
      if (c !== undefined && hiA !== undefined && hiA < c && (a[0].constant ?? -1) >= 0) return a;
      return [num(0), sub(b[1], num(1))];
    }
    case '<<':
      return c !== undefined ? rangeMul(a, [num(2 ** c), num(2 ** c)]) : undefined;
    case '>>':
      return c !== undefined ? [floordiv(a[0], num(2 ** c)), floordiv(a[1], num(2 ** c))] : undefined;
    case '&':
      return c !== undefined && c >= 0 ? [num(0), num(c)] : undefined;
    default:
      return undefined;
  }
}

function numOp(op: string, int: boolean): ((a: number, b: number) => number | undefined) | undefined {
  switch (op) {
    case '+':
      return (a, b) => a + b;
    case '-':
      return (a, b) => a - b;
    case '*':
      return (a, b) => a * b;
    case '/':
      return (a, b) => (b === 0 ? undefined : int ? Math.trunc(a / b) : a / b);
    case '%':
      return (a, b) => (b === 0 ? undefined : a % b);
    case '&':
      return (a, b) => (a & b) >>> 0;
    case '|':
      return (a, b) => (a | b) >>> 0;
    case '^':
      return (a, b) => (a ^ b) >>> 0;
    case '<<':
      return (a, b) => (a << b) >>> 0;
    case '>>':
      return (a, b) => a >>> b;
    default:
      return undefined;
  }
}

function lift1(a: number | undefined, f: (a: number) => number): number | undefined {
  return a === undefined ? undefined : f(a);
}

function lift2(a: number | undefined, b: number | undefined, f: (a: number, b: number) => number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : f(a, b);
}

/** `min`, `max`, `clamp`, `select` keep the symbolic / interval / concrete value of index expressions. */
function indexBuiltin(name: string, args: Val[]): Val | undefined {
  const [a, b, c] = args;
  if (name === 'min' || name === 'max') return a && b ? minMax(name, a, b) : undefined;
  if (name === 'clamp') return a && b && c ? minMax('min', minMax('max', a, b), c) : undefined;
  if (name === 'select' && a && b && c) {
    const fn = a.fn && b.fn && c.fn ? (env: ConcEnv) => (c.fn!(env) ? b.fn!(env) : a.fn!(env)) : undefined;
    return { type: a.type, deps: joinDeps(a, b, c), loops: mergeLoops(a, b, c), range: a.range && b.range ? rangeUnion(a.range, b.range) : undefined, fn };
  }
  return undefined;
}

function minMax(name: 'min' | 'max', a: Val, b: Val): Val {
  const scalarOp = (x: Val, y: Val): Val => ({
    type: x.type,
    deps: joinDeps(x, y),
    loops: mergeLoops(x, y),
    sym: x.sym && y.sym ? (name === 'min' ? emin(x.sym, y.sym) : emax(x.sym, y.sym)) : undefined,
    range: x.range && y.range ? (name === 'min' ? rangeMin(x.range, y.range) : rangeMax(x.range, y.range)) : undefined,
    fn: x.fn && y.fn ? (env) => lift2(x.fn!(env), y.fn!(env), name === 'min' ? Math.min : Math.max) : undefined,
  });
  const out = scalarOp(a, b);
  out.type = arithResult(a.type, b.type);
  if (a.comps) out.comps = a.comps.map((x, i) => scalarOp(x, b.comps?.[i] ?? b));
  return out;
}

/** FLOPs of a matrix product (`mat × vec`, `vec × mat`, `mat × mat`); undefined for elementwise products. */
function matrixFlops(a: WType, b: WType): number | undefined {
  if (a.k === 'mat' && b.k === 'vec') return a.r * (2 * a.c - 1);
  if (a.k === 'vec' && b.k === 'mat') return b.c * (2 * b.r - 1);
  if (a.k === 'mat' && b.k === 'mat') return a.r * b.c * (2 * a.c - 1);
  return undefined;
}

function mulType(a: WType, b: WType): WType {
  if (a.k === 'mat' && b.k === 'vec') return vec(a.r, a.s);
  if (a.k === 'vec' && b.k === 'mat') return vec(b.c, b.s);
  if (a.k === 'mat' && b.k === 'mat') return { k: 'mat', c: b.c, r: a.r, s: a.s };
  return arithResult(a, b);
}

function hexFloat(s: string): number {
  const m = /^(-?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([-+]?\d+))?$/.exec(s);
  if (!m) return NaN;
  const int = parseInt(m[2] || '0', 16);
  const frac = m[3] ? parseInt(m[3], 16) / 16 ** m[3].length : 0;
  const exp = m[4] ? Number(m[4]) : 0;
  return (m[1] ? -1 : 1) * (int + frac) * 2 ** exp;
}
