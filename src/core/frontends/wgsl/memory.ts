/**
 * Memory of a WGSL entry point: the places access chains denote (`buf[i].m`,
 * `&x`, pointer parameters), their reads and writes — loads and stores of
 * `var<storage>` (global), `var<workgroup>` (shared) and `var<uniform>`
 * memory, tracked values for function-local variables — the accesses
 * recorded for footprints, `arrayLength`, and atomics.
 */
import type { ExpressionElem, FunctionCallExpression } from 'wesl/core';
import type { MemorySpace } from '../../ir';
import { num, sym, type Expr } from '../../sym/expr';
import type { WgslState } from './state';
import { dtypeOf, scalarForDtype, sizeOf, strideOf, typeName, U32, withScalar, type WType } from './types';
import { DEP, indexPlace, joinDeps, memberPlace, opaqueVal, uniformValue, valueIndex, valueMember, valueType, type Place, type Val } from './values';

export const ATOMIC_RMW = new Set(['atomicAdd', 'atomicSub', 'atomicMax', 'atomicMin', 'atomicAnd', 'atomicOr', 'atomicXor']);
export const ATOMIC_OTHER = new Set(['atomicExchange', 'atomicCompareExchangeWeak', 'atomicLoad', 'atomicStore']);
/** Read-modify-writes that return nothing (the `atomic_vec2u_min_max` extension, on `atomic<vec2u>`). */
export const ATOMIC_STORE_RMW = new Set(['atomicStoreMax', 'atomicStoreMin']);

/** The memory place an access chain denotes, or undefined for plain values. */
export function evalPlace(st: WgslState, e: ExpressionElem): Place | undefined {
  switch (e.kind) {
    case 'ref': {
      const name = e.ident.originalName;
      const slot = st.lookup(name);
      if (slot) {
        if (slot.val.place && slot.val.type.k === 'ptr') return slot.val.place;
        return { root: { kind: 'local', name, slot }, type: slot.val.type, path: name, symName: undefined, steps: [], outerIndex: undefined, outerArray: undefined };
      }
      return st.mod.globals.has(name) ? globalPlace(st, name) : undefined;
    }
    case 'parenthesized-expression':
      return evalPlace(st, e.expression);
    case 'unary-expression':
      return e.operator.value === '*' ? evalPlace(st, e.expression) : undefined;
    case 'component-member-expression': {
      const base = evalPlace(st, e.base);
      return base && memberPlace(base, e.access.name);
    }
    case 'component-expression': {
      const base = evalPlace(st, e.base);
      return base && indexPlace(base, st.ops.evalExpr(e.access));
    }
    default:
      return undefined;
  }
}

/** A module-scope variable as a place (its address space, access mode and type; `--dtype` for storage). */
export function globalPlace(st: WgslState, name: string): Place | undefined {
  const g = st.mod.globals.get(name);
  if (!g) return undefined;
  const tmpl = (g.template ?? []).map((t) => t.name);
  const space = tmpl[0] ?? 'handle';
  const access = tmpl[1] ?? (space === 'storage' ? 'read' : 'read_write');
  let type = st.types.resolve(g.name.typeRef);
  // A type from elsewhere (`#import`) has no layout here: its accesses would count a guessed 4 B.
  if ((space === 'storage' || space === 'workgroup') && hasUnknown(type)) st.notes.say('unknownType', st.lineOf(g.start), name, g.name.typeRef ? st.text(g.name.typeRef) : '?');
  const f = st.user.texels?.[name];
  if (f !== undefined && space === 'storage') st.notes.say('dtypeIgnored', st.lineOf(g.start), name, f);
  const d = st.user.dtypes[name];
  if (d && space === 'storage') {
    const s = scalarForDtype(d);
    if (s) type = withScalar(type, s);
    else st.notes.say('dtypeIgnored', st.lineOf(g.start), name, d);
  }
  return { root: { kind: 'global', name, space, access }, type, path: name, symName: name, steps: [], outerIndex: undefined, outerArray: undefined };
}

/** Whether a type has a part the analysis could not resolve (no size). */
function hasUnknown(t: WType): boolean {
  if (t.k === 'unknown') return true;
  if (t.k === 'array') return hasUnknown(t.elem);
  if (t.k === 'struct') return t.members.some((m) => hasUnknown(m.type));
  return false;
}

/** Reads a place: a load event for memory, the tracked value for locals. */
export function readPlace(st: WgslState, p: Place, at: number, what: string): Val {
  const line = st.lineOf(at);
  const type = valueType(p.type);
  if (p.root.kind === 'local') return p.steps.reduce((v, s) => (s.kind === 'member' ? valueMember(v, s.name) : valueIndex(v, s.idx)), p.root.slot.val);
  const { space, name } = p.root;
  const bytes = sizeOf(type);
  if (space === 'storage') {
    st.emitMem('load', 'global', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
    recordAccess(st, p, 'read', line);
    return opaqueVal(type, DEP.DATA);
  }
  if (space === 'workgroup') {
    st.emitMem('load', 'shared', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
    return opaqueVal(type, DEP.DATA);
  }
  if (space === 'uniform') {
    st.emitMem('load', 'uniform', name, bytes, dtypeOf(type), line, `read ${what} (${typeName(type)})`);
    return uniformValue(type, p.symName, st.env);
  }
  if (space === 'handle') return { type, deps: 0, place: p };
  return opaqueVal(type, DEP.MUT);
}

/** Writes a place: a store event for memory, an updated value for locals. */
export function writePlace(st: WgslState, p: Place, v: Val, line: number, what: string): void {
  if (p.root.kind === 'local') {
    const slot = p.root.slot;
    if (slot.loopVar) return;
    const ctx = st.dataDepth > 0 ? DEP.DATA : 0;
    slot.val = p.steps.length === 0 ? { ...v, type: slot.val.type.k === 'unknown' ? v.type : slot.val.type, deps: v.deps | ctx } : opaqueVal(slot.val.type, slot.val.deps | v.deps | ctx | DEP.MUT);
    return;
  }
  const { space, name } = p.root;
  const type = valueType(p.type);
  if (space === 'storage') {
    st.emitMem('store', 'global', name, sizeOf(type), dtypeOf(type), line, `write ${what} (${typeName(type)})`);
    recordAccess(st, p, 'write', line);
  } else if (space === 'workgroup') st.emitMem('store', 'shared', name, sizeOf(type), dtypeOf(type), line, `write ${what} (${typeName(type)})`);
}

function recordAccess(st: WgslState, p: Place, kind: 'read' | 'write', line: number): void {
  if (p.root.kind !== 'global' || st.quiet) return;
  const arr = p.outerArray;
  st.log.accesses.push({
    target: p.root.name,
    kind,
    elemBytes: arr ? strideOf(arr.elem) : sizeOf(valueType(p.type)),
    cap: arr ? lengthCap(st, arr.count, arr.path) : undefined,
    index: p.outerIndex,
    coords: undefined,
    line,
  });
}

/** An array's length for footprints: fixed, or `arrayLength(path)` when asked for or bound. */
function lengthCap(st: WgslState, count: number | undefined, path: string): Expr | undefined {
  if (count !== undefined) return num(count);
  const name = `arrayLength(${path})`;
  return st.usedLengths.has(path) || st.env.has(name) ? sym(name) : undefined;
}

/** The place a pointer argument points to: `&x`, or a pointer-valued name. */
export function pointee(st: WgslState, arg: ExpressionElem | undefined): Place | undefined {
  if (!arg) return undefined;
  if (arg.kind === 'unary-expression' && arg.operator.value === '&') return evalPlace(st, arg.expression);
  return evalPlace(st, arg);
}

export function arrayLength(st: WgslState, arg: ExpressionElem | undefined): Val {
  const p = pointee(st, arg);
  if (!p) return opaqueVal(U32, DEP.UNIFORM);
  st.usedLengths.add(p.path);
  return uniformValue(U32, `arrayLength(${p.path})`, st.env);
}

// ---------------------------------------------------------------------------
// Atomics

export function atomic(st: WgslState, name: string, e: FunctionCallExpression, line: number, unused: boolean): Val {
  const p = pointee(st, e.arguments[0]);
  const rest = e.arguments.slice(1).map((a) => st.ops.evalExpr(a));
  const type = p ? valueType(p.type) : U32;
  const what = st.text(e);
  if (!p) {
    if (!st.quiet) st.notes.say('fragmentUnknown', line, what);
    return opaqueVal(type, DEP.DATA);
  }
  const rmw = ATOMIC_RMW.has(name) || ATOMIC_STORE_RMW.has(name);
  const returns = name !== 'atomicStore' && !ATOMIC_STORE_RMW.has(name);
  // COUNTING.md: an atomic read-modify-write is one store (done in L2), plus one load when the old value is used.
  if (name === 'atomicLoad' || (returns && !unused)) readAtomic(st, p, line, what);
  if (name !== 'atomicLoad') writePlace(st, p, opaqueVal(type, DEP.DATA | joinDeps(...rest)), line, what);
  if (rmw) st.emitInt(name, 1, line);
  if (rmw || name === 'atomicExchange' || name === 'atomicCompareExchangeWeak') st.notes.assume('atomics');
  return opaqueVal(type, DEP.DATA);
}

function readAtomic(st: WgslState, p: Place, line: number, what: string): void {
  if (p.root.kind !== 'global') return;
  const space: MemorySpace | undefined = p.root.space === 'storage' ? 'global' : p.root.space === 'workgroup' ? 'shared' : undefined;
  if (!space) return;
  st.emitMem('load', space, p.root.name, sizeOf(valueType(p.type)), dtypeOf(valueType(p.type)), line, what);
  if (space === 'global') recordAccess(st, p, 'read', line);
}
