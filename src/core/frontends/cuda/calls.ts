/**
 * Calls: function-like macros, casts, `__device__` helpers (inlined at each
 * call), struct methods, and the CUDA intrinsics — math, loads and stores
 * (`__ldg`, `__stcs`), atomics, warp shuffles and votes, `wmma`, cooperative
 * groups, `cp.async`. Anything else is an unknown call: a diagnostic, 0
 * FLOPs, and the loads of its arguments.
 */
import { add, cdiv, floordiv, max, min, mod, mul, num, sym as symbolic, type Expr } from '../../sym/expr';
import { asyncCopy, inlineAsm } from './asm';
import { convert, evalExpr, evalLvalue, evalTemplateArg, expandMacro, loadRef, member, place, sitePos, storeRef, warpReduce, type LRef, type Place } from './expr';
import { tileExtent } from './footprint';
import type { FnDef } from './file';
import { ATOMICS, conversionType, LOADS, NO_OPS, SHUFFLES, STORES, VOTES } from './intrinsics';
import { mathKind } from '../../engine/math';
import { unknownCall as reportUnknownCall } from '../../engine/calls';
import { Scope, type Interp } from './state';
import { execStmt } from './stmt';
import { brief, named, type Node } from './syntax';
import { baseType, descriptorType, structType, typeName, unwrapDeclarator } from './typesyn';
import { BOOL, DOUBLE, FLOAT, INT, isFloatTy, lanesOf, numTy, sizeOf, tyName, UNKNOWN, type FragTy, type Ty } from './types';
import { intVal, unknownVal, type Val } from './values';

interface Callee {
  /** Last name segment (`mma_sync` of `nvcuda::wmma::mma_sync`). */
  name: string;
  /** The segment before it (`wmma`), template arguments dropped; none for a name not qualified. */
  scope?: string;
  targs: Node[];
}

/** Methods of `cuda::pipeline` and `cuda::barrier` (synchronisation only). */
const SYNC_METHODS = new Set(['producer_acquire', 'producer_commit', 'consumer_wait', 'consumer_release', 'arrive_and_wait', 'arrive_and_drop', 'quit']);

/** Half and bfloat16 comparisons of cuda_fp16.h / cuda_bf16.h (`__hgt`, `__hltu`, `__hgt2`, `__hbgt2`). */
const HALF_COMPARE = /^__hb?(eq|ne|lt|le|gt|ge)u?2?$/;

const CASTS = new Set(['static_cast', 'reinterpret_cast', 'const_cast', 'dynamic_cast', 'bit_cast', '__builtin_bit_cast']);

function callee(fn: Node): Callee {
  let node = fn;
  let scope: string | undefined;
  if (node.type === 'qualified_identifier') {
    let inner: Node | null = node;
    while (inner && inner.type === 'qualified_identifier') {
      scope = inner.childForFieldName('scope')?.text ?? scope;
      inner = inner.childForFieldName('name');
    }
    node = inner ?? node;
  }
  const scoped = (c: Callee): Callee => {
    const s = scope?.replace(/\s+/g, '').replace(/<.*$/, '');
    return s ? { ...c, scope: s } : c;
  };
  if (node.type === 'template_function') {
    const args = node.childForFieldName('arguments');
    return scoped({ name: node.childForFieldName('name')?.text ?? node.text, targs: args ? named(args) : [] });
  }
  const parts = node.text.replace(/\s+/g, '').split('::');
  if (parts.length > 1) scope = parts[parts.length - 2];
  return scoped({ name: parts.pop()!, targs: [] });
}

function argsOf(n: Node): Node[] {
  const a = n.childForFieldName('arguments');
  return a ? named(a) : [];
}

export function evalCall(st: Interp, n: Node): Val {
  if (n.type === 'gnu_asm_expression') return inlineAsm(st, n);
  const fn = n.childForFieldName('function');
  if (!fn) return unknownVal();
  const args = argsOf(n);
  if (fn.type === 'field_expression') return methodCall(st, fn, args, n);
  const c = callee(fn);
  const m = st.file.macro(c.name, sitePos(st, n));
  if (m && m.params && m.body && !st.expanding.has(c.name)) return expandMacro(st, m, n, args, (body) => evalExpr(st, body));
  if (CASTS.has(c.name) && c.targs[0]) return convert(evalExpr(st, args[0] ?? null), descriptorType(st, c.targs[0]));
  if (fn.type === 'primitive_type' || fn.type === 'type_identifier') {
    const ty = baseType(st, fn);
    if (ty.k === 'num') return convert(evalExpr(st, args[0] ?? null), ty);
  }
  const cast = castType(st, fn, n);
  if (cast && args.length === 1) return convert(evalExpr(st, args[0]), cast);
  const defs = st.file.callables(c.name, c.scope);
  const def = pickOverload(defs, args.length);
  if (def) return inlineCall(st, def, args, c.targs, n);
  const s = st.file.structs.get(c.name);
  if (s) {
    const vals = args.map((a) => evalExpr(st, a));
    const targs = c.targs.map((t) => (t.type === 'type_descriptor' ? descriptorType(st, t) : INT));
    return { ty: structType(st, s, targs), konst: false, data: vals.some((v) => v.data), obj: { kind: 'struct' } };
  }
  return intrinsic(st, c, args, n);
}

/**
 * A call that is really a conversion: `uint(x)` (a type name used as a
 * function), or `(floatX)(x)` — a C-style cast the grammar reads as a call,
 * to a type the file does not define (a typedef from a header): the value
 * keeps its own type then.
 */
function castType(st: Interp, fn: Node, n: Node): Ty | undefined {
  const isName = (x: Node) =>
    x.type === 'identifier' && !st.frame.scope.lookup(x.text) && !st.file.functions.has(x.text) && !st.file.globals.has(x.text) && !st.file.macro(x.text, sitePos(st, n));
  if (fn.type === 'identifier' && isName(fn)) {
    const ty = typeName(st, fn.text);
    return ty.k === 'num' ? ty : undefined;
  }
  const inner = fn.type === 'parenthesized_expression' ? named(fn)[0] : undefined;
  if (inner && isName(inner)) return typeName(st, inner.text);
  return undefined;
}

/** A macro used where a place is needed: `FETCH_FLOAT4(As[i]) = …`. */
export function callLvalue(st: Interp, n: Node): LRef {
  const fn = n.childForFieldName('function');
  const c = fn ? callee(fn) : undefined;
  const m = c ? st.file.macro(c.name, sitePos(st, n)) : undefined;
  if (m && m.params && m.body && !st.expanding.has(m.name)) return expandMacro(st, m, n, argsOf(n), (body) => evalLvalue(st, body));
  evalCall(st, n);
  return { k: 'none' };
}

function pickOverload(defs: FnDef[], argc: number): FnDef | undefined {
  return defs.find((d) => d.params.length === argc) ?? defs.find((d) => d.params.length >= argc) ?? defs[0];
}

// ------------------------------------------------------------------ inlining

const MAX_CALL_DEPTH = 16;

/** Inlines a `__device__` function (or a method, with `self`) at this call. */
function inlineCall(st: Interp, def: FnDef, argNodes: Node[], targs: Node[], n: Node, self?: Val, structArgs?: Ty[], selfRef?: LRef): Val {
  if (st.callStack.includes(def)) {
    for (const a of argNodes) evalExpr(st, a);
    st.say('recursion', n, def.name);
    return unknownVal();
  }
  if (st.callStack.length >= MAX_CALL_DEPTH) {
    st.say('depthLimit', n, `helper \`${def.name}\``);
    return unknownVal();
  }
  const params = def.params.map((p) => ({ type: p.childForFieldName('type'), decl: p.childForFieldName('declarator') }));
  const args = params.map((p, i) => {
    const a = argNodes[i];
    if (!a) return undefined;
    const byRef = p.decl ? unwrapDeclarator(UNKNOWN, p.decl).ref : false;
    return byRef ? { ref: evalLvalue(st, a), val: undefined } : { ref: undefined, val: evalExpr(st, a) };
  });
  for (const extra of argNodes.slice(params.length)) evalExpr(st, extra);
  const typeParams = new Map<string, Ty>();
  const values = new Map<string, Val>();
  bindTemplateArgs(st, def, targs, typeParams, values, structArgs);
  deduceTypes(def, params, args, typeParams);
  const outer = { frame: st.frame, active: st.active };
  st.frame = { def, scope: new Scope(null, true), typeParams, ret: null, returned: false, ...(self ? { self } : {}), ...(selfRef ? { selfRef } : {}) };
  st.callStack.push(def);
  try {
    for (const tp of def.tparams) if (tp.kind === 'value') st.declare(tp.name, { ty: INT, val: values.get(tp.name) ?? defaultValue(st, tp.dflt, tp.name) });
    params.forEach((p, i) => bindParam(st, p.type, p.decl, args[i]));
    execStmt(st, def.body);
    const ret = returnType(st, def);
    return st.frame.ret ? convert(st.frame.ret, ret) : { ty: ret, konst: false, data: false };
  } finally {
    st.callStack.pop();
    st.frame = outer.frame;
    st.active = outer.active;
  }
}

function bindTemplateArgs(st: Interp, def: FnDef, targs: Node[], types: Map<string, Ty>, values: Map<string, Val>, structArgs?: Ty[]): void {
  def.owner?.tparams.forEach((tp, i) => {
    if (tp.kind === 'type' && structArgs?.[i]) types.set(tp.name, structArgs[i]);
  });
  def.tparams.forEach((tp, i) => {
    const a = targs[i];
    if (!a) return;
    if (tp.kind === 'type') types.set(tp.name, a.type === 'type_descriptor' ? descriptorType(st, a) : baseType(st, a));
    else values.set(tp.name, evalTemplateArg(st, a));
  });
}

function defaultValue(st: Interp, dflt: Node | null, name: string): Val {
  return dflt ? evalExpr(st, dflt) : { ...intVal(symbolic(name)), konst: true };
}

/** Template type parameters not given explicitly, from the argument types (`T*` ← `float*`). */
function deduceTypes(def: FnDef, params: { type: Node | null; decl: Node | null }[], args: ({ val?: Val; ref?: LRef } | undefined)[], types: Map<string, Ty>): void {
  params.forEach((p, i) => {
    const name = p.type?.type === 'type_identifier' ? p.type.text : undefined;
    if (!name || types.has(name) || !def.tparams.some((t) => t.name === name && t.kind === 'type')) return;
    const a = args[i];
    const ty = a?.val?.ty ?? (a?.ref?.k === 'mem' ? a.ref.view : a?.ref?.k === 'var' ? a.ref.cell.ty : undefined);
    if (!ty) return;
    const d = p.decl ? unwrapDeclarator(UNKNOWN, p.decl) : undefined;
    const isPtr = d?.ty.k === 'ptr';
    if (isPtr && ty.k === 'ptr') types.set(name, ty.to);
    else if (!isPtr && ty.k !== 'ptr') types.set(name, ty);
  });
}

function bindParam(st: Interp, typeNode: Node | null, declNode: Node | null, arg: { val?: Val; ref?: LRef } | undefined): void {
  const d = unwrapDeclarator(baseType(st, typeNode), declNode);
  if (!d.name) return;
  if (arg?.ref) {
    const r = arg.ref;
    if (r.k === 'var') st.declare(d.name, r.cell);
    else if (r.k === 'mem') st.declare(d.name, { ty: r.view, val: unknownVal(true, r.view), memRef: { ptr: r.ptr, view: r.view } });
    else st.declare(d.name, { ty: d.ty, val: unknownVal(true, d.ty) });
    return;
  }
  const v = arg?.val ?? unknownVal(false, d.ty);
  const ty = d.ty.k === 'unknown' ? v.ty : d.ty;
  st.declare(d.name, { ty, val: convert(v, ty) });
}

function returnType(st: Interp, def: FnDef): Ty {
  let ty = baseType(st, def.node.childForFieldName('type'));
  for (let d = def.node.childForFieldName('declarator'); d && d.type !== 'function_declarator'; d = d.childForFieldName('declarator'))
    if (d.type === 'pointer_declarator') ty = { k: 'ptr', to: ty };
  return ty;
}

/** `T* p = SharedMemory<T>();` — the struct's conversion operator, inlined. */
export function structConversion(st: Interp, v: Val, ty: Ty, n: Node): Val {
  const s = v.ty.k === 'struct' ? st.file.structs.get(v.ty.name) : undefined;
  if (!s?.conversion) return convert(v, ty);
  const r = inlineCall(st, s.conversion, [], [], n, v, v.ty.k === 'struct' ? v.ty.args : undefined);
  return convert(r, ty);
}

// ------------------------------------------------------------------ methods

function methodCall(st: Interp, fn: Node, args: Node[], n: Node): Val {
  const name = fn.childForFieldName('field')?.text ?? '';
  const argNode = fn.childForFieldName('argument')!;
  const arrow = fn.childForFieldName('operator')?.text === '->';
  const p: Place = arrow ? (argNode.type === 'this' ? { val: evalExpr(st, argNode) } : pointeeOf(evalExpr(st, argNode))) : place(st, argNode);
  // A method of a struct that lives in memory or in a variable runs on that place: `parts[i].advance(dt)`
  // reads and writes the members it names, not the whole struct.
  if ('ref' in p && (p.ref.k === 'mem' || p.ref.k === 'var')) {
    const ty = p.ref.k === 'mem' ? p.ref.view : p.ref.cell.ty;
    const s = ty.k === 'struct' ? st.file.structs.get(ty.name) : undefined;
    const def = s ? pickOverload(s.methods.get(name) ?? [], args.length) : undefined;
    if (def && ty.k === 'struct') return inlineCall(st, def, args, [], n, p.ref.k === 'var' ? p.ref.cell.val : undefined, ty.args, p.ref);
  }
  const self = 'val' in p ? p.val : loadRef(st, p.ref, argNode);
  const obj = self.obj;
  if (obj && obj.kind !== 'struct' && obj.kind !== 'dim3') return groupMethod(st, self, name, args, n);
  const s = self.ty.k === 'struct' ? st.file.structs.get(self.ty.name) : undefined;
  const def = s ? pickOverload(s.methods.get(name) ?? [], args.length) : undefined;
  if (def) return inlineCall(st, def, args, [], n, self, self.ty.k === 'struct' ? self.ty.args : undefined);
  if (self.frag || self.ty.k === 'num') return member(st, self, name, n);
  if (SYNC_METHODS.has(name)) {
    // `pipe.producer_acquire()`, `bar.arrive_and_wait()`: synchronisation, nothing to count.
    for (const a of args) evalExpr(st, a);
    return unknownVal(false);
  }
  return unknownCall(st, `${brief(fn.childForFieldName('argument')!, 30)}.${name}`, args, n);
}

/** The linear index of a thread in its block. */
function linearTid(st: Interp): Expr {
  const x = symbolic('threadIdx.x');
  const y = symbolic('threadIdx.y');
  const z = symbolic('threadIdx.z');
  const dx = st.dim('blockDim.x');
  const dy = st.dim('blockDim.y');
  return add(x, mul(y, dx), mul(z, dx, dy));
}

function blockThreads(st: Interp): Expr {
  return mul(st.dim('blockDim.x'), st.dim('blockDim.y'), st.dim('blockDim.z'));
}

/** Methods of cooperative-groups handles (`tile.thread_rank()`, `block.sync()`, `tile.shfl_down(v, 1)`). */
function groupMethod(st: Interp, self: Val, name: string, args: Node[], n: Node): Val {
  const obj = self.obj!;
  const size = obj.kind === 'tile' ? (obj.size ?? num(32)) : obj.kind === 'block' ? blockThreads(st) : mul(blockThreads(st), st.dim('gridDim.x'), st.dim('gridDim.y'), st.dim('gridDim.z'));
  switch (name) {
    case 'sync':
      return unknownVal(false);
    case 'size':
    case 'num_threads':
      return intVal(size);
    case 'thread_rank':
      if (obj.kind === 'tile') return intVal(mod(linearTid(st), size));
      if (obj.kind === 'grid') return intVal(add(linearTid(st), mul(symbolic('blockIdx.x'), blockThreads(st))));
      return intVal(linearTid(st));
    case 'meta_group_rank':
      return intVal(floordiv(linearTid(st), size));
    case 'meta_group_size':
      return intVal(cdiv(blockThreads(st), size));
    case 'group_index':
      return dim3Val(['blockIdx.x', 'blockIdx.y', 'blockIdx.z'].map((s) => symbolic(s)));
    case 'thread_index':
      return dim3Val(['threadIdx.x', 'threadIdx.y', 'threadIdx.z'].map((s) => symbolic(s)));
    case 'group_dim':
    case 'dim_threads':
      return dim3Val(['blockDim.x', 'blockDim.y', 'blockDim.z'].map((s) => st.dim(s)));
    case 'shfl':
    case 'shfl_down':
    case 'shfl_up':
    case 'shfl_xor':
      return shuffle(st, name === 'shfl' ? 'idx' : (name.slice(5) as 'down' | 'up' | 'xor'), args[0], args[1]);
    case 'any':
    case 'all':
    case 'ballot':
      for (const a of args) evalExpr(st, a);
      return { ...intVal(num(0)), e: undefined, data: true };
    default:
      return unknownCall(st, `cooperative_groups ${name}`, args, n);
  }
}

function dim3Val(dims: Expr[]): Val {
  return { ty: { k: 'struct', name: 'dim3', args: [] }, konst: false, data: false, obj: { kind: 'dim3', dims } };
}

// ------------------------------------------------------------------ intrinsics

function intrinsic(st: Interp, c: Callee, args: Node[], n: Node): Val {
  const name = c.name;
  const conv = conversionType(name);
  if (conv) return conversion(st, conv, args);
  if (HALF_COMPARE.test(name)) {
    // `__hgt(a, b)`, `__hlt2(a, b)`: comparisons (0 FLOPs); the 2-lane forms return a half2 mask.
    const vs = args.map((a) => evalExpr(st, a));
    const cond = vs[0]?.e && vs[1]?.e ? undefined : { k: 'opaque' as const, text: brief(n, 40) };
    return { ty: /2$/.test(name) && !name.startsWith('__hb') ? numTy('fp16', 2, 'half2') : BOOL, konst: vs.every((v) => v.konst), data: vs.some((v) => v.data), ...(cond ? { cond } : {}) };
  }
  if (VOTES.has(name)) {
    const vs = args.map((a) => evalExpr(st, a));
    return { ty: INT, konst: false, data: vs.some((v) => v.data) || name.includes('sync') };
  }
  if (name === '__builtin_expect' || name === '__float2tf32' || name === '__float_to_tf32') return freeFn(st, name, args);
  const kind = mathKind(name);
  if (kind === 'special') return math(st, name, args, n, 1, true);
  if (kind === 'fma') return math(st, name, args, n, 2, false);
  if (kind === 'plain') return math(st, name, args, n, 1, false);
  if (kind === 'free') return freeFn(st, name, args);
  if (LOADS.has(name)) return loadRef(st, derefOf(evalExpr(st, args[0] ?? null)), n);
  if (STORES.has(name)) {
    const p = evalExpr(st, args[0] ?? null);
    storeRef(st, derefOf(p), evalExpr(st, args[1] ?? null), n);
    return unknownVal(false);
  }
  if (NO_OPS.has(name) || NO_OPS.has(`wmma::${name}`) || NO_OPS.has(`cg::${name}`)) {
    for (const a of args) evalExpr(st, a);
    return unknownVal(false);
  }
  const atomic = ATOMICS.exec(name);
  if (atomic) return atomicOp(st, atomic[2], args, n);
  const shfl = SHUFFLES.exec(name);
  if (shfl) return shuffleCall(st, shfl, args);
  const special = SPECIAL_CALLS[name];
  if (special) return special(st, args, n, c);
  if (TEX_READ.test(name)) return texel(st, c, args, n, 'load');
  if (name === 'init' && args.length === 2) {
    // `init(&bar, count)` of a `__shared__ cuda::barrier`: synchronisation set-up.
    const vals = args.map((a) => evalExpr(st, a));
    if (vals[0]?.ptr?.space === 'shared') return unknownVal(false);
    return unknownCall(st, name, [], n, vals);
  }
  const surf = SURFACE.exec(name);
  if (surf) return texel(st, c, args, n, surf[3] === 'write' ? 'store' : 'load');
  return unknownCall(st, name, args, n);
}

// ------------------------------------------------------------------ textures and surfaces

const TEX_READ = /^tex(1Dfetch|[123]D|Cubemap)(Layered)?(Lod|Grad)?$|^tex2Dgather$/;
const SURFACE = /^surf(1D|2D|3D|Cubemap)(Layered)?(read|write)$/;

/**
 * A texture fetch or surface access (COUNTING.md: one texel each, as for WGSL
 * textures): one global load (store) of the texel type per thread —
 * `tex2D<float4>(t, x, y)` 16 B, `tex1Dfetch(texRef, i)` the element type of
 * the `texture<T, …>` reference, `tex2D(&v, t, x, y)` the type of `v`,
 * `surf2Dwrite(v, s, x, y)` the type of `v`. Filtering costs 0. The
 * coordinates are not an offset the analysis follows: no footprint.
 */
function texel(st: Interp, c: Callee, args: Node[], n: Node, kind: 'load' | 'store'): Val {
  let ty: Ty | undefined = c.targs[0] ? (c.targs[0].type === 'type_descriptor' ? descriptorType(st, c.targs[0]) : baseType(st, c.targs[0])) : undefined;
  let at = 0;
  if (kind === 'store' && c.name.startsWith('surf')) {
    const v = evalExpr(st, args[0] ?? null);
    if (!ty || ty.k === 'unknown') ty = v.ty;
    at = 1;
  } else if (args[0]?.type === 'pointer_expression' && args[0].childForFieldName('operator')?.text === '&') {
    // `tex2D(&v, t, x, y)`: the texel is written to `v`.
    const p = evalExpr(st, args[0]);
    if ((!ty || ty.k === 'unknown') && p.ty.k === 'ptr') ty = p.ty.to;
    at = 1;
  }
  const obj = args[at];
  const name = obj ? brief(obj, 30) : c.name;
  const ref = obj?.type === 'identifier' && !st.frame.scope.lookup(obj.text) ? st.file.textures.get(obj.text) : undefined;
  if (!ref && obj) evalExpr(st, obj);
  for (const a of args.slice(at + 1)) evalExpr(st, a);
  if ((!ty || ty.k === 'unknown' || ty.k === 'void') && ref?.elem) ty = ref.elem.type === 'type_descriptor' ? descriptorType(st, ref.elem) : baseType(st, ref.elem);
  const user = st.ctx.user.dtypes[name];
  if (user) ty = numTy(user, ty ? lanesOf(ty) : 1);
  if (!ty || (ty.k !== 'num' && ty.k !== 'struct')) {
    st.say('unknownDtype', n, name);
    ty = FLOAT;
  }
  st.access(kind, { base: name, space: 'global', baseTy: ty, off: num(0), exact: false, rows: [], why: `${'`'}${c.name}${'`'} addresses ${'`'}${name}${'`'} by texture coordinates, not by an index the analysis follows` }, ty, n);
  st.assume('texelCuda', c.name, name, sizeOf(ty), tyName(ty));
  if (kind === 'store' && c.name.startsWith('surf')) return unknownVal(false);
  const out = ref?.normalized && ty.k === 'num' ? numTy('fp32', ty.lanes) : ty;
  return { ty: out, konst: false, data: true };
}

type Handler = (st: Interp, args: Node[], n: Node, c: Callee) => Val;

const SPECIAL_CALLS: Record<string, Handler> = {
  load_matrix_sync: (st, args, n) => wmmaMove(st, 'load', args, n),
  store_matrix_sync: (st, args, n) => wmmaMove(st, 'store', args, n),
  mma_sync: wmmaMma,
  this_thread_block: () => ({ ty: { k: 'struct', name: 'cg::block', args: [] }, konst: false, data: false, obj: { kind: 'block' } }),
  this_grid: () => ({ ty: { k: 'struct', name: 'cg::grid', args: [] }, konst: false, data: false, obj: { kind: 'grid' } }),
  tiled_partition: tiledPartition,
  coalesced_threads: () => ({ ty: { k: 'struct', name: 'cg::tile', args: [] }, konst: false, data: false, obj: { kind: 'tile', size: num(32) } }),
  reduce: cgReduce,
  dim3: (st, args) => dim3Val([0, 1, 2].map((i) => (args[i] ? (evalExpr(st, args[i]).e ?? num(1)) : num(1)))),
  __cvta_generic_to_shared: (st, args) => ({ ...evalExpr(st, args[0] ?? null), ty: numTy('int64', 1, 'size_t') }),
  __pipeline_memcpy_async: pipelineCopy,
  memcpy_async: memcpyAsync,
  // `cuda::aligned_size_t<16>(bytes)`: the size.
  aligned_size_t: (st, args) => evalExpr(st, args[0] ?? null),
  make_pipeline: () => ({ ty: { k: 'struct', name: 'cuda::pipeline', args: [] }, konst: false, data: false, obj: { kind: 'struct' } }),
  pipeline_consumer_wait_prior: (st, args) => {
    for (const a of args) evalExpr(st, a);
    return unknownVal(false);
  },
  __reduce_add_sync: (st, args, n) => {
    const v = evalExpr(st, args[1] ?? null);
    st.intOp('__reduce_add_sync', num(31), n, 32);
    return { ty: v.ty, konst: false, data: true };
  },
  __reduce_max_sync: (st, args) => ({ ...evalExpr(st, args[1] ?? null), data: true }),
  // 24-bit integer multiplies: index arithmetic like `*`.
  __mul24: int24,
  __umul24: int24,
  clock: () => ({ ty: INT, konst: false, data: true }),
  clock64: () => ({ ty: numTy('int64', 1, 'long long'), konst: false, data: true }),
  __reduce_min_sync: (st, args) => ({ ...evalExpr(st, args[1] ?? null), data: true }),
};

/** `__umul24(a, b)`: `a * b` on integers (sizes and indices stay symbolic; on data, an integer op). */
function int24(st: Interp, args: Node[], n: Node): Val {
  const [a, b] = args.map((x) => evalExpr(st, x));
  if (!a || !b) return unknownVal();
  const data = a.data || b.data;
  if (data) st.intOp('__umul24', num(1), n);
  return { ty: INT, e: a.e && b.e ? mul(a.e, b.e) : undefined, konst: a.konst && b.konst, data };
}

/** Math intrinsics; on constant arguments they fold (`sqrtf(2.0f / M_PI)` costs 0). */
function math(st: Interp, name: string, args: Node[], n: Node, flops: number, special: boolean): Val {
  const vals = args.map((a) => evalExpr(st, a));
  const ty = singlePrecision(name) ? FLOAT : (vals.find((v) => isFloatTy(v.ty))?.ty ?? DOUBLE);
  const konst = vals.every((v) => v.konst);
  const data = vals.some((v) => v.data);
  // `__hadd(v, __shfl_xor_sync(…))`: a warp reduction's step, like `v += __shfl_xor_sync(…)`.
  const reduction = !konst && !special && flops === 1 && !/div/.test(name) && warpReduce(st, name, ty, vals, n);
  if (!konst && !reduction && ty.k === 'num') st.flop(special ? 'special' : flops === 2 ? 'fma' : 'elementwise', name, ty.dtype, num(flops * ty.lanes), n, { special });
  return { ty, konst, data };
}

/** The C single-precision functions (`expf`, `__fmaf_rn`, `__fdividef`) return float whatever their argument. */
function singlePrecision(name: string): boolean {
  return !name.startsWith('h') && !name.startsWith('__h') && (name.endsWith('f') || name.startsWith('__f'));
}

/** `min`, `max`, `fabsf`, rounding: no FLOPs; integer min/max stay symbolic. */
function freeFn(st: Interp, name: string, args: Node[]): Val {
  const vals = args.map((a) => evalExpr(st, a));
  const first = vals[0] ?? unknownVal();
  if (name === '__builtin_expect') return first;
  const data = vals.some((v) => v.data);
  const konst = vals.every((v) => v.konst);
  const isMin = /min/.test(name);
  const isMax = /max/.test(name);
  if ((isMin || isMax) && vals[1] && first.e && vals[1].e && !isFloatTy(first.ty))
    return { ty: first.ty, e: isMin ? min(first.e, vals[1].e) : max(first.e, vals[1].e), konst, data };
  const ty = vals.find((v) => isFloatTy(v.ty))?.ty ?? first.ty;
  return { ty, konst, data, ...(first.e && !isFloatTy(ty) && vals.length === 1 ? { e: first.e } : {}) };
}

function conversion(st: Interp, ty: Ty, args: Node[]): Val {
  const vals = args.map((a) => evalExpr(st, a));
  return { ty, konst: vals.every((v) => v.konst), data: vals.some((v) => v.data) };
}

function pointeeOf(p: Val): Place {
  return p.ptr ? { ref: derefOf(p) } : { val: p };
}

function derefOf(p: Val): LRef {
  if (!p.ptr) return { k: 'none' };
  return { k: 'mem', ptr: p.ptr, view: p.ty.k === 'ptr' ? p.ty.to : p.ptr.baseTy };
}

/**
 * `atomicAdd(&x[i], v)` (COUNTING.md): 0 FLOPs; one store of the element per
 * thread (done in L2), plus one load when the old value is used.
 */
function atomicOp(st: Interp, op: string, args: Node[], n: Node): Val {
  const p = evalExpr(st, args[0] ?? null);
  for (const a of args.slice(1)) evalExpr(st, a);
  const r = derefOf(p);
  if (r.k !== 'mem') {
    st.say('unattributedStore', n, brief(n, 40), 'the address must derive from a pointer argument or a shared array');
    return unknownVal();
  }
  if (n.parent?.type !== 'expression_statement') st.access('load', r.ptr, r.view, n);
  st.access('store', r.ptr, r.view, n);
  // Integer read-modify-writes are integer work (intOps); a floating one is 0 FLOPs (COUNTING.md).
  if (op !== 'Exch' && op !== 'CAS' && !isFloatTy(r.view)) st.intOp(`atomic${op}`, num(lanesOf(r.view)), n);
  st.assume('atomics');
  return { ty: r.view, konst: false, data: true };
}

function shuffleCall(st: Interp, m: RegExpExecArray, args: Node[]): Val {
  const kind = (m[2] ?? 'idx') as 'down' | 'up' | 'xor' | 'idx';
  const sync = m[3] !== undefined;
  const a = sync ? args.slice(1) : args;
  if (sync && args[0]) evalExpr(st, args[0]);
  return shuffle(st, kind, a[0], a[1]);
}

/** A warp shuffle: the value, tagged so arithmetic on it counts per warp (`offset` lanes of useful work). */
function shuffle(st: Interp, kind: 'down' | 'up' | 'xor' | 'idx', value: Node | undefined, offset: Node | undefined): Val {
  const v = evalExpr(st, value ?? null);
  const o = evalExpr(st, offset ?? null);
  return { ...v, konst: false, data: true, e: undefined, shfl: { kind, offset: o.e ?? num(16) } };
}

// ------------------------------------------------------------------ wmma

function fragOf(v: Val): FragTy | undefined {
  return v.frag ?? (v.ty.k === 'frag' ? v.ty : undefined);
}

/** `wmma::load_matrix_sync(frag, ptr, ld)` / `store_matrix_sync(ptr, frag, ld, layout)`: one tile per warp. */
function wmmaMove(st: Interp, kind: 'load' | 'store', args: Node[], n: Node): Val {
  const [fragNode, ptrNode] = kind === 'load' ? [args[0], args[1]] : [args[1], args[0]];
  const f = fragOf(evalExpr(st, fragNode ?? null));
  const p = evalExpr(st, ptrNode ?? null);
  const ld = evalExpr(st, args[2] ?? null).e ?? num(16);
  const layout = args[3] ? args[3].text : '';
  for (const extra of args.slice(4)) evalExpr(st, extra);
  if (!f || !p.ptr) {
    st.say('fragmentUnknown', n, `${kind}_matrix_sync`);
    return unknownVal(false);
  }
  const [rows, cols] = tileShape(f, layout);
  const view = p.ty.k === 'ptr' && p.ty.to.k === 'num' ? p.ty.to : numTy(f.dtype === 'tf32' ? 'fp32' : f.dtype);
  st.access(kind, p.ptr, view, n, { elems: num(rows * cols), extent: tileExtent(rows, cols, ld, sizeOf(view)) });
  return unknownVal(false);
}

/** Rows × columns of a fragment's tile in memory (rows are `ld` apart). */
function tileShape(f: FragTy, layout: string): [number, number] {
  const colMajor = f.use === 'accumulator' ? layout.includes('col_major') : f.colMajor;
  const [r, c] = f.use === 'matrix_a' ? [f.m, f.kk] : f.use === 'matrix_b' ? [f.kk, f.n] : [f.m, f.n];
  return colMajor ? [c, r] : [r, c];
}

/** `wmma::mma_sync(d, a, b, c)`: 2·M·N·K FLOPs per warp on tensor cores, in the type of `a`. */
function wmmaMma(st: Interp, args: Node[], n: Node): Val {
  const vals = args.map((a) => evalExpr(st, a));
  const a = fragOf(vals[1] ?? unknownVal());
  if (!a) {
    st.say('fragmentUnknown', n, 'mma_sync');
    return unknownVal(false);
  }
  st.flop('dot', 'wmma::mma_sync', a.dtype, num(2 * a.m * a.n * a.kk), n, { tensorCore: true, group: 32 });
  return unknownVal(false);
}

// ------------------------------------------------------------------ cooperative groups

function tiledPartition(st: Interp, args: Node[], _n: Node, c: Callee): Val {
  for (const a of args) evalExpr(st, a);
  const sizeNode = c.targs[0] ?? args[1];
  const size = sizeNode ? (evalExpr(st, sizeNode).e ?? num(32)) : num(32);
  return { ty: { k: 'struct', name: 'cg::tile', args: [] }, konst: false, data: false, obj: { kind: 'tile', size } };
}

/**
 * `cg::reduce(tile, v, cg::plus<T>())`: size − 1 FLOPs per tile (31 per
 * warp); `greater`/`less` cost 0; a `__device__` combine function of the file
 * is inlined once and counted size − 1 times per tile.
 */
function cgReduce(st: Interp, args: Node[], n: Node): Val {
  const g = evalExpr(st, args[0] ?? null);
  const v = evalExpr(st, args[1] ?? null);
  const op = args[2]?.text ?? '';
  const size = st.value(g.obj?.size ?? num(32)) ?? 32;
  if (/plus|multiplies/.test(op) && v.ty.k === 'num') {
    if (isFloatTy(v.ty)) st.flop('warp-reduce', 'cg::reduce', v.ty.dtype, num((size - 1) * v.ty.lanes), n, { group: size });
    else st.intOp('cg::reduce', num(size - 1), n, size);
  }
  // A combine function of the file (`cg::reduce(warp, v, reduce_sum_max_op)`): size − 1 applications per tile.
  const defs = args[2]?.type === 'identifier' ? st.file.callables(args[2].text) : [];
  const def = pickOverload(defs, 2);
  if (def && args[1]) {
    const applications = mul(cdiv(st.active.count, num(size)), num(size - 1));
    const r = st.withActive({ conds: st.active.conds, count: applications }, () => inlineCall(st, def, [args[1], args[1]], [], n));
    return { ...r, konst: false, data: true };
  }
  return { ty: v.ty, konst: false, data: true };
}

/**
 * `cuda::memcpy_async(dst, src, bytes, pipe)`: each calling thread copies
 * `bytes` (a global load and a shared store, as `cp.async`);
 * `cg::memcpy_async(group, dst, src, bytes)` / `cuda::memcpy_async(group,
 * dst, src, bytes, barrier)`: the group copies `bytes` once, together.
 */
function memcpyAsync(st: Interp, args: Node[], n: Node): Val {
  const vals = args.map((a) => evalExpr(st, a));
  const g = vals[0]?.obj && vals[0].obj.kind !== 'struct' && vals[0].obj.kind !== 'dim3' ? vals[0].obj : undefined;
  const [dst, src, size] = g ? vals.slice(1, 4) : vals.slice(0, 3);
  const bytes = st.value(size?.e);
  if (!dst?.ptr || !src?.ptr || bytes === undefined || !(bytes > 0)) {
    st.say('unknownPointerCall', n, 'memcpy_async', 'its pointers or its size could not be followed');
    return unknownVal(false);
  }
  if (!g) {
    asyncCopy(st, src.ptr, 'load', bytes, n);
    asyncCopy(st, dst.ptr, 'store', bytes, n);
    return unknownVal(false);
  }
  const group = g.kind === 'tile' ? (g.size ?? num(32)) : g.kind === 'block' ? blockThreads(st) : mul(blockThreads(st), st.dim('gridDim.x'), st.dim('gridDim.y'), st.dim('gridDim.z'));
  for (const [p, kind] of [
    [src.ptr, 'load'],
    [dst.ptr, 'store'],
  ] as const) {
    const dtype = p.baseTy.k === 'num' ? p.baseTy.dtype : 'int8';
    const elem = numTy(dtype);
    st.access(kind, p, elem, n, { elems: num(Math.max(1, bytes / sizeOf(elem))), extent: num(bytes), group });
  }
  return unknownVal(false);
}

/** `__pipeline_memcpy_async(dst, src, bytes)`: a global load and a shared store of `bytes` per thread. */
function pipelineCopy(st: Interp, args: Node[], n: Node): Val {
  const dst = evalExpr(st, args[0] ?? null);
  const src = evalExpr(st, args[1] ?? null);
  const bytes = st.value(evalExpr(st, args[2] ?? null).e) ?? 16;
  if (src.ptr) asyncCopy(st, src.ptr, 'load', bytes, n);
  if (dst.ptr) asyncCopy(st, dst.ptr, 'store', bytes, n);
  return unknownVal(false);
}

// ------------------------------------------------------------------ unknown calls

/** A call the analysis cannot see (engine/calls.ts): 0 FLOPs, said; its result keeps its arguments' type. */
function unknownCall(st: Interp, name: string, args: Node[], n: Node, evaluated?: Val[]): Val {
  const vals = evaluated ?? args.map((a) => evalExpr(st, a));
  const unseen = st.file.projectIncludes().map((i) => '`#include "' + i.path + '"`');
  const shown = unseen.length > 3 ? [...unseen.slice(0, 3), `${unseen.length - 3} other header(s)`] : unseen;
  const from = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}` : (shown[0] ?? '');
  if (!st.host && st.silent === 0)
    reportUnknownCall(st.notes, { name, line: st.line(n), pointer: vals.some((v) => !!v.ptr && v.ptr.space !== 'local'), ...(unseen.length ? { from, maybe: true } : {}) });
  const f = vals.find((v) => isFloatTy(v.ty));
  const i = vals.find((v) => v.ty.k === 'num');
  return { ty: f?.ty ?? i?.ty ?? UNKNOWN, konst: false, data: true };
}
