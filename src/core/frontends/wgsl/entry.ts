/**
 * The entry point of a walk: the workgroup size, the `@builtin` inputs
 * (invocation and workgroup ids are the symbols `@lid.x`, `@lidx`, `@wid.x`,
 * so loop headers that start at them are counted by the engine's rules), and
 * the body, walked into the kernel's region.
 */
import type { FnElem } from 'wesl/core';
import { Recorder } from '../../engine/recorder';
import { isUnitSize } from '../../engine/threads';
import type { Region } from '../../ir';
import { add, evaluate, mul, num, sym, type Expr } from '../../sym/expr';
import { builtinName, findAttribute } from './module';
import type { Frame, WgslState } from './state';
import { U32, UNKNOWN, type WType } from './types';
import { constVal, DEP, isConst, opaqueVal, uniformValue, upTo, vector, type Val } from './values';

const COMPONENTS = 'xyzw';

/** Walks an entry point; the result is its body region. */
export function walkEntry(st: WgslState, fn: FnElem): Region {
  const line = st.lineOf(fn.name.start);
  const body: Region = { kind: 'kernel', line, trips: num(1), label: `@compute fn ${fn.name.ident.originalName}`, events: [], children: [] };
  st.rec = new Recorder(body);
  st.wg = workgroupSize(st, fn);
  st.active = mul(...st.wg);
  const frame: Frame = { fnName: fn.name.ident.originalName, scopes: [new Map()], ret: undefined };
  st.frames.push(frame);
  for (const p of fn.params) {
    const type = st.types.resolve(p.name.typeRef);
    st.declare(p.name.decl.ident.originalName, { val: entryInput(st, p.attributes, type), mutable: false, loopVar: false });
  }
  st.ops.walkBlock(fn.body);
  st.frames.pop();
  return body;
}

function entryInput(st: WgslState, attrs: FnElem['params'][number]['attributes'], type: WType): Val {
  const b = builtinName(attrs);
  if (b) return builtinInput(st, b, type);
  if (type.k !== 'struct') return opaqueVal(type, DEP.LID);
  const s = st.mod.structs.get(type.name);
  const fields: Record<string, Val> = {};
  for (const m of s?.members ?? []) {
    const mb = builtinName(m.attributes);
    const mt = type.members.find((x) => x.name === m.name.name)?.type ?? UNKNOWN;
    fields[m.name.name] = mb ? builtinInput(st, mb, mt) : opaqueVal(mt, DEP.LID);
  }
  return { type, deps: DEP.LID, fields };
}

/** The value of a `@builtin` input (`local_invocation_id`, `global_invocation_id`, …). */
function builtinInput(st: WgslState, name: string, type: WType): Val {
  const nw = (c: number) => sym(`num_workgroups.${COMPONENTS[c]}`);
  const comp = (v: Omit<Val, 'type'>): Val => ({ type: U32, ...v });
  const localId = (c: number, w: Expr): Val =>
    comp({ deps: DEP.LID, sym: sym(`@lid.${COMPONENTS[c]}`), range: upTo(w), fn: (env) => env.get(`@lid.${COMPONENTS[c]}`), lid: COMPONENTS[c] as 'x' | 'y' | 'z' });
  const single = (c: number) => st.env.get(`num_workgroups.${COMPONENTS[c]}`) === 1;
  switch (name) {
    // Ids are symbols (`@lid.x`, `@wid.x`): loop headers that start at them are counted by the engine's rules.
    case 'local_invocation_id':
      return vector(st.wg.map((w, c) => localId(c, w)));
    case 'local_invocation_index':
      return { type: U32, deps: DEP.LID, sym: sym('@lidx'), range: upTo(mul(...st.wg)), fn: (env) => env.get('@lidx'), lid: 'idx' };
    // With one workgroup along a dimension (a dispatch of 1 there), the global id is the local id
    // and the workgroup id is 0: `if (global_id.x == 0u)` then selects invocations, not units.
    case 'global_invocation_id':
      return vector(st.wg.map((w, c) => (single(c) ? localId(c, w) : comp({ deps: DEP.GID, sym: add(mul(sym(`@wid.${COMPONENTS[c]}`), w), sym(`@lid.${COMPONENTS[c]}`)), range: upTo(mul(nw(c), w)) }))));
    case 'workgroup_id':
      return vector(st.wg.map((_, c) => (single(c) ? constVal(U32, num(0), st.env) : comp({ deps: DEP.WID, sym: sym(`@wid.${COMPONENTS[c]}`), range: upTo(nw(c)) }))));
    case 'num_workgroups':
      return vector([0, 1, 2].map((c) => uniformValue(U32, `num_workgroups.${COMPONENTS[c]}`, st.env)));
    case 'subgroup_size':
      return uniformValue(U32, 'subgroup_size', st.env);
    case 'subgroup_invocation_id':
      return { type: U32, deps: DEP.LID, range: [num(0), num(31)] };
    default:
      return opaqueVal(type, DEP.LID);
  }
}

/** The workgroup size of an entry point, as expressions over named symbols. */
function workgroupSize(st: WgslState, fn: FnElem): Expr[] {
  const attr = findAttribute(fn.attributes, 'workgroup_size');
  const line = st.lineOf(fn.name.start);
  if (!attr) {
    st.notes.say('noWorkgroupSize', line, fn.name.ident.originalName);
    return [num(1), num(1), num(1)];
  }
  return [0, 1, 2].map((i) => {
    const p = attr.params[i];
    if (!p) return num(1);
    const v = st.ops.evalExpr(p);
    // A size is a whole number ≥ 1 (a shader with another does not compile): any other constant is said, as one not read.
    const n = v.sym && isConst(v) ? evaluate(v.sym, new Map()) : undefined;
    if (v.sym && isConst(v) && (n === undefined || isUnitSize(n))) return v.sym;
    st.notes.say(n === undefined ? 'workgroupSize' : 'workgroupSizeInvalid', line, st.text(p));
    return sym(`workgroup_size.${COMPONENTS[i]}`);
  });
}
