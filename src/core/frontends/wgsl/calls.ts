/**
 * Calls in a WGSL entry point: module functions (inlined at each call,
 * recursion and runaway depth guarded), constructors and conversions (free),
 * `bitcast`, the builtins that touch memory (textures, atomics,
 * `arrayLength`, `workgroupUniformLoad`, barriers), arithmetic builtins
 * (builtins.ts prices them) and calls the analysis does not know.
 */
import type { ExpressionElem, FnElem, FunctionCallExpression } from 'wesl/core';
import { unknownCall } from '../../engine/calls';
import { num } from '../../sym/expr';
import { foldBuiltin, indexBuiltin, lift1 } from './arith';
import { builtinCost, builtinResult, isKnownBuiltin, SUBGROUP_REDUCE } from './builtins';
import { arrayLength, atomic, ATOMIC_OTHER, ATOMIC_RMW, ATOMIC_STORE_RMW, pointee } from './memory';
import type { Frame, WgslState } from './state';
import { GATHER, SAMPLE, TEXTURE_QUERY, textureAccess, textureQuery } from './textures';
import { isFloatKind, isIntKind, lanes, scalar, scalarOf, UNKNOWN, type WType } from './types';
import { constVal, DEP, hasDep, isConst, joinDeps, mergeLoops, opaqueVal, type Val } from './values';

/** Inlining deeper than this is a runaway (WGSL forbids recursion, but broken input may still loop). */
const MAX_CALL_DEPTH = 32;

export function call(st: WgslState, e: FunctionCallExpression): Val {
  const unused = st.discarded;
  st.discarded = false;
  const f = e.function;
  const name = f.kind === 'ref' ? f.ident.originalName : f.name.originalName;
  const line = st.lineOf(e.start);
  const fn = st.mod.fns.get(name);
  if (fn) return st.ops.callUser(fn, e.arguments.map((a) => st.ops.evalExpr(a)), line);
  const ctorType = f.kind === 'type' ? st.types.resolve(f) : st.types.named(name, []);
  if (ctorType.k !== 'unknown') return construct(ctorType, e.arguments.map((a) => st.ops.evalExpr(a)));
  if (name === 'bitcast') {
    const v = e.arguments[0] ? st.ops.evalExpr(e.arguments[0]) : opaqueVal(UNKNOWN, 0);
    return opaqueVal(typeArgument(st, e.templateArgs?.[0]) ?? v.type, v.deps, v.loops);
  }
  const special = memoryBuiltin(st, name, e, line, unused);
  if (special) return special;
  const args = e.arguments.map((a) => st.ops.evalExpr(a));
  if (isKnownBuiltin(name)) return arithmeticBuiltin(st, name, args, line);
  if (!st.quiet) unknownCall(st.notes, { name, line, pointer: args.some((a) => a.type.k === 'ptr') });
  return opaqueVal(args[0]?.type ?? UNKNOWN, joinDeps(...args) | DEP.MUT, mergeLoops(...args));
}

/** A type written as a template argument (`bitcast<u32>`). */
function typeArgument(st: WgslState, t: ExpressionElem | undefined): WType | undefined {
  if (t?.kind === 'type') return st.types.resolve(t);
  if (t?.kind === 'ref') return st.types.named(t.ident.originalName, []);
  return undefined;
}

function arithmeticBuiltin(st: WgslState, name: string, args: Val[], line: number): Val {
  const types = args.map((a) => a.type);
  const type = builtinResult(name, types);
  const folded = args.every(isConst);
  if (!folded) chargeBuiltin(st, name, types, type, args.some((a) => hasDep(a, DEP.DATA)), line);
  else if (args.length > 0 && type.k === 'scalar' && args.every((a) => a.type.k === 'scalar')) {
    // A builtin on compile-time numbers is a number (`firstTrailingBit(WG_SIZE)` as a loop bound).
    const xs = args.map((a) => a.fn?.(st.env));
    const v = xs.every((x): x is number => x !== undefined) ? foldBuiltin(name, xs, scalarOf(args[0].type)) : undefined;
    if (v !== undefined) return constVal(type, num(v), st.env);
  }
  const indexed = indexBuiltin(name, args);
  if (indexed) return { ...indexed, type };
  return { type, deps: joinDeps(...args), loops: mergeLoops(...args) };
}

/** Charges an arithmetic builtin: FLOPs on floats, integer ops on loaded integer data. */
function chargeBuiltin(st: WgslState, name: string, types: WType[], result: WType, data: boolean, line: number): void {
  const s = scalarOf(types[0] ?? result) ?? scalarOf(result);
  if (SUBGROUP_REDUCE.has(name)) {
    st.notes.assume('subgroup32');
    if (isFloatKind(s)) st.emitFlop(name, 'warp-reduce', (31 * lanes(result)) / 32, s, line);
    else if (data) st.emitInt(name, (31 * lanes(result)) / 32, line);
    return;
  }
  const cost = builtinCost(name, types);
  if (!cost || cost.flops === 0) return;
  if (!isFloatKind(s)) {
    if (data) st.emitInt(name, cost.flops, line);
    return;
  }
  st.emitFlop(name, cost.cls, cost.flops - cost.special, s, line);
  st.emitFlop(name, 'special', cost.special, s, line, true);
}

/** Builtins that touch memory or resources: textures, atomics, `arrayLength`, barriers. */
function memoryBuiltin(st: WgslState, name: string, e: FunctionCallExpression, line: number, unused: boolean): Val | undefined {
  const args = e.arguments;
  if (name === 'arrayLength') return arrayLength(st, args[0]);
  if (name === 'workgroupBarrier' || name === 'storageBarrier' || name === 'textureBarrier') return opaqueVal(UNKNOWN, 0);
  if (name === 'workgroupUniformLoad') {
    const p = pointee(st, args[0]);
    return p ? st.ops.readPlace(p, e.start, st.text(args[0])) : opaqueVal(UNKNOWN, DEP.DATA);
  }
  if (ATOMIC_RMW.has(name) || ATOMIC_OTHER.has(name) || ATOMIC_STORE_RMW.has(name)) return atomic(st, name, e, line, unused);
  if (name === 'textureLoad' || SAMPLE.has(name) || GATHER.has(name) || name === 'textureStore') return textureAccess(st, name, e, line);
  if (name === 'textureDimensions' || TEXTURE_QUERY.has(name)) return textureQuery(st, name, args[0]);
  return undefined;
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

// ---------------------------------------------------------------------------
// Module functions

/** Inlines a call to a module function: its parameters bound to the arguments, its body walked in a new frame. */
export function callUser(st: WgslState, fn: FnElem, args: Val[], line: number): Val {
  const name = fn.name.ident.originalName;
  const retType = st.types.resolve(fn.returnType);
  if (st.frames.some((f) => f.fnName === name)) {
    st.notes.say('recursion', line, name);
    return opaqueVal(retType, joinDeps(...args) | DEP.MUT);
  }
  if (st.frames.length >= MAX_CALL_DEPTH) {
    st.notes.say('depthLimit', line, `helper \`${name}\``);
    return opaqueVal(retType, joinDeps(...args) | DEP.MUT);
  }
  const frame: Frame = { fnName: name, scopes: [new Map()], ret: undefined };
  const predBase = st.preds.length;
  st.frames.push(frame);
  fn.params.forEach((p, i) => {
    const type = st.types.resolve(p.name.typeRef);
    const a = args[i] ?? opaqueVal(type, DEP.MUT);
    st.declare(p.name.decl.ident.originalName, { val: a.type.k === 'unknown' || type.k === 'ptr' ? a : { ...a, type }, mutable: false, loopVar: false });
  });
  st.ops.walkBlock(fn.body);
  st.frames.pop();
  st.restorePreds(predBase);
  const ret = frame.ret ?? opaqueVal(retType, 0);
  return retType.k === 'unknown' ? ret : { ...ret, type: retType };
}
