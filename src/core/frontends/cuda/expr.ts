/**
 * Expressions: each evaluates to an abstract value (`Val`) and emits the
 * events it causes — loads and stores through pointers, FLOPs of floating
 * arithmetic, integer ops on loaded data. Integer arithmetic builds symbolic
 * expressions (sizes, indices) and costs nothing.
 */
import { nested } from '../../budget';
import {
  add,
  cdiv,
  equals,
  floordiv,
  evaluate,
  mod,
  mul,
  num,
  ONE,
  pow,
  scale,
  sub,
  sym,
  bitop,
  type Expr,
} from '../../sym/expr';
import { promote } from '../common';
import { callLvalue, evalCall } from './calls';
import { foldInt, parseIntLiteral, type GlobalDef, type MacroDef } from './file';
import { Scope, type Cell, type Interp, type LRef } from './state';
export type { LRef } from './state';
import { chooseBranch } from './threads';
import { baseType, descriptorType, typeName, unwrapDeclarator, withLayout } from './typesyn';
import { brief, lineOf, named, type Node } from './syntax';
import {
  BOOL,
  DOUBLE,
  FLOAT,
  INT,
  INT64,
  isFloatTy,
  isIntTy,
  lanesOf,
  numTy,
  ptrTo,
  scalarOf,
  sizeOf,
  tyName,
  UNKNOWN,
  type Layout,
  type Ty,
} from './types';
import { boolVal, intVal, not, unknownVal, type CmpOp, type Cond, type Ptr, type Val } from './values';

/** Where a value can be stored: a variable, an element in memory, or nowhere the analysis follows. */

export function evalExpr(st: Interp, n: Node | null): Val {
  return n ? nested(st, n, evalNode, tooDeep) : unknownVal(false);
}

function tooDeep(st: Interp, n: Node): Val {
  st.say('depthLimit', n, 'an expression');
  return unknownVal();
}

function evalNode(st: Interp, n: Node): Val {
  switch (n.type) {
    case 'number_literal':
      return literal(n.text);
    case 'true':
    case 'false':
      return { ty: BOOL, e: num(n.type === 'true' ? 1 : 0), konst: true, data: false };
    case 'char_literal':
      return intVal(num(n.text.length >= 3 ? n.text.charCodeAt(1) : 0), true);
    case 'null':
    case 'nullptr':
      return { ty: ptrTo(UNKNOWN), konst: true, data: false };
    case 'identifier':
      return identifier(st, n);
    case 'qualified_identifier':
      return qualified(st, n);
    case 'this': {
      const r = st.frame.selfRef;
      if (r?.k === 'mem') return { ty: ptrTo(r.view), konst: false, data: false, ptr: r.ptr };
      return st.frame.self ?? unknownVal();
    }
    case 'field_expression':
      return fieldValue(st, n);
    case 'subscript_expression':
      return subscriptValue(st, n);
    case 'pointer_expression':
      return pointerExpr(st, n);
    case 'unary_expression':
      return unary(st, n);
    case 'binary_expression':
      return binary(st, n);
    case 'update_expression':
      return update(st, n);
    case 'assignment_expression':
      return assign(st, n);
    case 'conditional_expression':
      return ternary(st, n);
    case 'parenthesized_expression':
    case 'condition_clause':
      return evalExpr(st, n.childForFieldName('value') ?? named(n)[0] ?? null);
    case 'comma_expression':
      evalExpr(st, n.childForFieldName('left'));
      return evalExpr(st, n.childForFieldName('right'));
    case 'cast_expression':
      return convert(evalExpr(st, n.childForFieldName('value')), descriptorType(st, n.childForFieldName('type')!));
    case 'call_expression':
      return evalCall(st, n);
    case 'sizeof_expression':
      return sizeofExpr(st, n);
    case 'gnu_asm_expression':
      return evalCall(st, n);
    case 'compound_literal_expression':
      return compoundLiteral(st, n);
    case 'initializer_list':
    case 'argument_list':
      for (const c of named(n)) evalExpr(st, c);
      return unknownVal(false);
    case 'lambda_expression':
      st.say('lambda', n);
      return unknownVal();
    default:
      for (const c of named(n)) evalExpr(st, c);
      return unknownVal();
  }
}

// ------------------------------------------------------------------ literals and names

export function literal(text: string): Val {
  const t = text.replace(/'/g, '');
  const iv = parseIntLiteral(t);
  if (iv !== undefined) return { ty: /ll$/i.test(t) ? INT64 : INT, e: num(iv), konst: true, data: false };
  const single = /[fF]$/.test(t);
  return { ty: single ? FLOAT : DOUBLE, konst: true, data: false };
}

const FLOAT_CONSTANTS = new Set(['INFINITY', 'NAN', 'HUGE_VALF', 'FLT_MAX', 'FLT_MIN', 'FLT_EPSILON', 'CUDART_INF_F', 'CUDART_PI_F', 'CUDART_NAN_F']);
const DOUBLE_CONSTANTS = new Set(['M_PI', 'M_PI_2', 'M_PI_4', 'M_1_PI', 'M_2_PI', 'M_2_SQRTPI', 'M_SQRT2', 'M_SQRT1_2', 'M_E', 'M_LN2', 'M_LN10', 'M_LOG2E', 'DBL_MAX', 'DBL_MIN', 'HUGE_VAL', 'CUDART_PI']);
const INT_CONSTANTS: Record<string, number> = { warpSize: 32, INT_MAX: 2147483647, UINT_MAX: 4294967295, INT_MIN: -2147483648 };

function identifier(st: Interp, n: Node): Val {
  return nameValue(st, n.text, n);
}

function nameValue(st: Interp, name: string, n: Node): Val {
  const cell = st.frame.scope.lookup(name);
  if (cell) return readCell(st, cell, n);
  if (implicitMember(st, name)) {
    const p = memberPlace(st, selfPlace(st), name, n, n);
    return 'val' in p ? p.val : loadRef(st, p.ref, n);
  }
  return fileName(st, name, n);
}

/**
 * A template argument used as a value. The grammar reads a bare name in
 * `f<BLOCK>(…)` as a type: look it up as a value.
 */
export function evalTemplateArg(st: Interp, n: Node): Val {
  const t = n.type === 'type_descriptor' && !n.childForFieldName('declarator') ? n.childForFieldName('type') : null;
  if (t && t.type === 'type_identifier') return nameValue(st, t.text, t);
  return evalExpr(st, n);
}

function qualified(st: Interp, n: Node): Val {
  const name = n.text.replace(/\s+/g, '').split('::').pop()!;
  return fileName(st, name, n);
}

/** The position a macro lookup uses: the use in the file (macro bodies live in other trees). */
export function sitePos(st: Interp, n: Node): number {
  return st.sitePos ?? n.startIndex;
}

/** A name not declared in the function: a global, a macro, a builtin constant, or an unknown size. */
function fileName(st: Interp, name: string, n: Node): Val {
  const g = st.file.globals.get(name);
  if (g) return globalValue(st, g, n);
  const m = st.file.macro(name, sitePos(st, n));
  if (m && m.params === null && !st.expanding.has(name)) return objectMacro(st, m, n);
  if (name in INT_CONSTANTS) return intVal(num(INT_CONSTANTS[name]), true);
  if (name === '__CUDA_ARCH__' && st.file.archValue !== undefined) return intVal(num(st.file.archValue), true);
  if (FLOAT_CONSTANTS.has(name)) return { ty: FLOAT, konst: true, data: false };
  if (DOUBLE_CONSTANTS.has(name)) return { ty: DOUBLE, konst: true, data: false };
  if (!st.file.functions.has(name) && !st.unknownNames.has(name) && st.silent === 0) {
    st.unknownNames.add(name);
    st.say('undefinedName', n, name);
  }
  // A name from a header (`SCALE`, `TILE`) is a compile-time constant that is not bound.
  return intVal(sym(name), true);
}

/** A numeric constant gets a named symbol (bound to its value), so formulas print `BLOCK` rather than 256. */
export function namedConstant(st: Interp, name: string, v: Val, detail: string): Val {
  const c = v.e?.constant;
  if (c === undefined || !isIntTy(v.ty) || v.data) return v;
  const cur = st.b.get(name);
  if (cur && cur.source !== 'user' && cur.source !== 'pragma' && cur.value !== c) return v;
  st.bind(name, c, 'define', detail);
  return { ...v, e: sym(name), konst: true };
}

function objectMacro(st: Interp, m: MacroDef, n: Node): Val {
  if (!m.body) return unknownVal(false);
  // A definition whose value is a compile-time constant is evaluated once: chains like
  // `#define F2 F1 + F1` stay linear instead of doubling at every level.
  const known = st.macroConstants.get(m);
  if (known) return namedConstant(st, m.name, known, `#define ${m.name} ${m.text} (line ${m.line})`);
  // Chains that are not constant (an undefined name at their root) still expand 2^n times: the budget stops them.
  if (st.ctx.budget.spent()) return unknownVal(false);
  const v = expandMacro(st, m, n, null, (body) => evalExpr(st, body));
  if (v.konst && !v.data && v.e) st.macroConstants.set(m, v);
  return namedConstant(st, m.name, v, `#define ${m.name} ${m.text} (line ${m.line})`);
}

/**
 * Expands a macro at `site`: its body is evaluated in the current scope, with
 * each parameter standing for the argument node (evaluated where the macro
 * is used, so an argument can be an lvalue or have side effects).
 */
export function expandMacro<T>(st: Interp, m: MacroDef, site: Node, args: Node[] | null, run: (body: Node) => T): T {
  const outerLine = st.siteLine;
  const outerPos = st.sitePos;
  const line = st.line(site);
  const caller = st.frame.scope;
  st.expanding.add(m.name);
  if (st.siteLine === null) {
    st.siteLine = line;
    st.sitePos = site.startIndex;
  }
  if (args) {
    const s = st.pushScope();
    const params = [...(m.params ?? []), '__VA_ARGS__'];
    params.forEach((p, i) => {
      const a = args[i];
      if (a) s.vars.set(p, { ty: UNKNOWN, val: unknownVal(false), alias: { node: a, scope: caller, line } });
    });
  }
  try {
    return run(m.body!);
  } finally {
    if (args) st.frame.scope = caller;
    st.expanding.delete(m.name);
    st.siteLine = outerLine;
    st.sitePos = outerPos;
  }
}

/** Evaluates a macro argument in the scope where the macro was used. */
function withAlias<T>(st: Interp, cell: Cell, run: (node: Node) => T): T {
  const a = cell.alias!;
  const scope = st.frame.scope;
  st.frame.scope = a.scope;
  try {
    return run(a.node);
  } finally {
    st.frame.scope = scope;
  }
}

function readCell(st: Interp, cell: Cell, n: Node): Val {
  if (cell.alias) return withAlias(st, cell, (node) => evalExpr(st, node));
  if (cell.memRef) return loadRef(st, { k: 'mem', ptr: cell.memRef.ptr, view: cell.memRef.view }, n);
  return cell.val;
}

/** Where a `__constant__` or `__device__` global lives; `array` when it is an array (it decays to a pointer). */
function globalMemory(st: Interp, g: GlobalDef): { ptr: Ptr; ty: Ty; array: boolean } {
  const d = unwrapDeclarator(baseType(st, g.decl.childForFieldName('type')), g.declarator);
  const rows = d.dims.slice(1).map((x) => (x ? (evalExpr(st, x).e ?? num(1)) : num(1)));
  const ptr: Ptr = { base: g.name, space: g.space === 'constant' ? 'uniform' : 'global', baseTy: d.ty, off: num(0), exact: true, rows };
  return { ptr, ty: d.ty, array: d.dims.length > 0 };
}

/** `__constant__` and `__device__` globals are memory; `const`/`constexpr` globals are constants. */
function globalValue(st: Interp, g: GlobalDef, n: Node): Val {
  if (g.space !== 'const') {
    const m = globalMemory(st, g);
    if (!m.array) return loadRef(st, { k: 'mem', ptr: m.ptr, view: m.ty }, n);
    return { ty: ptrTo(m.ty), konst: false, data: false, ptr: m.ptr };
  }
  const d = unwrapDeclarator(baseType(st, g.decl.childForFieldName('type')), g.declarator);
  const hit = st.constants.get(g.name);
  if (hit) return hit;
  const frame = st.frame;
  st.frame = { ...frame, scope: new Scope(null, true) };
  let v: Val;
  try {
    v = convert(evalExpr(st, d.init ?? (d.ctorArgs ? named(d.ctorArgs)[0] : null)), d.ty);
  } finally {
    st.frame = frame;
  }
  const out = namedConstant(st, g.name, { ...v, konst: true }, `${brief(g.decl, 50)} (line ${lineOf(g.decl)})`);
  st.constants.set(g.name, out);
  return out;
}

// ------------------------------------------------------------------ memory

export function loadRef(st: Interp, r: LRef, n: Node): Val {
  if (r.k === 'var') return readCell(st, r.cell, n);
  if (r.k === 'dim') return intVal(r.cell.val.obj?.dims?.[r.index] ?? num(1));
  if (r.k === 'field') return r.path.reduce((v, f) => member(st, v, f, n), readCell(st, r.cell, n));
  if (r.k === 'none') {
    if (r.lost) st.say('unattributedLoad', n, brief(n, 40), LOST_FIX);
    return unknownVal();
  }
  if (r.view.k === 'struct' && !r.view.layout) r = { ...r, view: withLayout(st, r.view) };
  st.access('load', r.ptr, r.view, n);
  const v: Val = { ty: r.view, konst: false, data: true };
  if (r.view.k === 'frag') v.frag = r.view;
  if (r.view.k === 'struct' && r.view.layout) v.obj = { kind: 'struct', fields: pointerMembers(r.ptr, r.view.layout) };
  if (r.view.k === 'ptr') v.ptr = loadedPointer(r.name ?? `${r.ptr.base}[]`, r.ptr.space, r.view.to);
  return v;
}

/**
 * The pointer members of a struct read from memory (`nodes[i].next`,
 * `lines[i].vertices`): they point to global memory, at an offset the
 * analysis does not know (named `base.member`).
 */
function pointerMembers(p: Ptr, layout: Layout): Map<string, Val> {
  const out = new Map<string, Val>();
  for (const [f, fi] of layout.fields) {
    if (fi.ty.k !== 'ptr' || fi.dims.length > 0) continue;
    out.set(f, { ty: fi.ty, konst: false, data: true, ptr: loadedPointer(`${p.base}.${f}`, p.space, fi.ty.to) });
  }
  return out;
}

/**
 * A pointer read from memory (`rows[b]`, `node->next`): it points to global
 * memory at an offset the analysis does not know, so its accesses count but
 * their footprint is unknown. A pointer kept in registers stays local.
 */
function loadedPointer(name: string, from: Ptr['space'], elem: Ty): Ptr {
  return { base: name, space: from === 'local' ? 'local' : 'global', baseTy: elem, off: num(0), exact: false, rows: [] };
}

/** `v` with the member at `path` replaced (a store into a member of a struct in a register). */
function withMember(st: Interp, v: Val, path: string[], x: Val, n: Node): Val {
  const [f, ...rest] = path;
  const fields = new Map(v.obj?.fields ?? []);
  const layout = v.ty.k === 'struct' ? v.ty.layout : undefined;
  const fty = layout?.fields.get(f)?.ty;
  fields.set(f, rest.length > 0 ? withMember(st, member(st, v, f, n), rest, x, n) : fty ? convert(x, fty) : x);
  return { ...v, obj: { kind: v.obj?.kind ?? 'struct', ...v.obj, fields } };
}

/** The fix named when a pointer's target is not known. */
const LOST_FIX = 'the pointer does not derive from a kernel argument, a shared array or a value the analysis follows';

export function storeRef(st: Interp, r: LRef, v: Val, n: Node): void {
  if (r.k === 'none') {
    if (r.lost) st.say('unattributedStore', n, brief(n, 40), LOST_FIX);
    return;
  }
  if (r.k === 'dim') {
    const dims = [...(r.cell.val.obj?.dims ?? [num(1), num(1), num(1)])];
    dims[r.index] = v.e ?? num(1);
    r.cell.val = { ...r.cell.val, obj: { kind: 'dim3', dims } };
    return;
  }
  if (r.k === 'mem') {
    st.access('store', r.ptr, r.view.k === 'struct' && !r.view.layout ? withLayout(st, r.view) : r.view, n);
    return;
  }
  if (r.k === 'field') {
    r.cell.val = withMember(st, r.cell.val, r.path, v, n);
    return;
  }
  const cell = r.cell;
  if (cell.alias) {
    withAlias(st, cell, (node) => storeRef(st, evalLvalue(st, node), v, n));
    return;
  }
  if (cell.memRef) {
    st.access('store', cell.memRef.ptr, cell.memRef.view, n);
    return;
  }
  cell.val = convert(v, cell.ty);
}

/** The place an expression designates, for stores and compound assignments. */
export function evalLvalue(st: Interp, n: Node): LRef {
  switch (n.type) {
    case 'identifier': {
      const cell = st.frame.scope.lookup(n.text);
      if (cell?.alias) return withAlias(st, cell, (node) => evalLvalue(st, node));
      // A reference bound to memory (a `const float4&` parameter, a `__shared__` scalar) is that memory.
      if (cell?.memRef) return { k: 'mem', ptr: cell.memRef.ptr, view: cell.memRef.view };
      if (cell) return { k: 'var', cell };
      if (implicitMember(st, n.text)) {
        const p = memberPlace(st, selfPlace(st), n.text, n, n);
        return 'ref' in p ? p.ref : { k: 'none' };
      }
      const g = st.file.globals.get(n.text);
      if (!g || g.space === 'const') return { k: 'none' };
      const m = globalMemory(st, g);
      return m.array ? { k: 'none' } : { k: 'mem', ptr: m.ptr, view: m.ty };
    }
    case 'subscript_expression': {
      const r = subscript(st, n);
      return 'ref' in r ? r.ref : { k: 'none' };
    }
    case 'pointer_expression': {
      if (n.childForFieldName('operator')?.text !== '*') return { k: 'none' };
      const p = evalExpr(st, n.childForFieldName('argument'));
      return derefRef(p);
    }
    case 'field_expression':
      return fieldRef(st, n);
    case 'parenthesized_expression':
      return named(n)[0] ? evalLvalue(st, named(n)[0]) : { k: 'none' };
    case 'call_expression':
      return callLvalue(st, n);
    default:
      evalExpr(st, n);
      return { k: 'none' };
  }
}

function derefRef(p: Val): LRef {
  if (!p.ptr) return { k: 'none', lost: p.ty.k === 'ptr' };
  return { k: 'mem', ptr: p.ptr, view: p.ty.k === 'ptr' ? p.ty.to : UNKNOWN };
}

/** `base[index]`: an element (a reference) or, for a multi-dimensional array, a row (a pointer value). */
function subscript(st: Interp, n: Node): { ref: LRef } | { val: Val } {
  const base = evalExpr(st, n.childForFieldName('argument'));
  const idxNode = n.childForFieldName('indices') ?? n.childForFieldName('index');
  const idx = evalExpr(st, idxNode && idxNode.type === 'subscript_argument_list' ? (named(idxNode)[0] ?? null) : idxNode);
  if (!base.ptr) return base.ty.k === 'ptr' ? { ref: { k: 'none', lost: true } } : { val: unknownVal(base.data || idx.data) };
  const view = base.ty.k === 'ptr' ? base.ty.to : UNKNOWN;
  const p = base.ptr;
  const exact = p.exact && idx.e !== undefined && !idx.data;
  const i = idx.e ?? num(0);
  if (p.rows.length > 0) {
    const stride = mul(num(sizeOf(view)), ...p.rows);
    return { val: { ...base, ptr: { ...p, off: add(p.off, mul(i, stride)), exact, rows: p.rows.slice(1) } } };
  }
  return { ref: { k: 'mem', ptr: { ...p, off: add(p.off, mul(i, num(sizeOf(view)))), exact }, view } };
}

function subscriptValue(st: Interp, n: Node): Val {
  const r = subscript(st, n);
  return 'val' in r ? r.val : loadRef(st, r.ref, n);
}

function pointerExpr(st: Interp, n: Node): Val {
  const op = n.childForFieldName('operator')?.text;
  const arg = n.childForFieldName('argument');
  if (op === '*') return loadRef(st, derefRef(evalExpr(st, arg)), n);
  if (!arg) return unknownVal();
  const r = evalLvalue(st, arg);
  if (r.k === 'mem') return { ty: ptrTo(r.view), konst: false, data: false, ptr: r.ptr };
  if (r.k === 'var' && r.cell.val.ptr) return r.cell.val;
  const ty = r.k === 'var' ? r.cell.ty : UNKNOWN;
  return { ty: ptrTo(ty), konst: false, data: false, ptr: { base: arg.text, space: 'local', baseTy: ty, off: num(0), exact: false, rows: [] } };
}

// ------------------------------------------------------------------ fields

const BUILTIN_VECTORS = new Set(['threadIdx', 'blockIdx', 'blockDim', 'gridDim']);
const COMPONENTS = ['x', 'y', 'z', 'w'];

function builtinField(st: Interp, n: Node): Val | undefined {
  const arg = n.childForFieldName('argument');
  const f = n.childForFieldName('field')?.text ?? '';
  if (!arg || arg.type !== 'identifier' || !BUILTIN_VECTORS.has(arg.text) || !COMPONENTS.slice(0, 3).includes(f)) return undefined;
  if (st.frame.scope.lookup(arg.text)) return undefined;
  const name = `${arg.text}.${f}`;
  if (arg.text === 'threadIdx' || arg.text === 'blockIdx') {
    // Along a dimension of size 1 the index is 0 (a 1-D grid's blockIdx.y), as WGSL's workgroup_id.y.
    const size = st.dim(`${arg.text === 'threadIdx' ? 'blockDim' : 'gridDim'}.${f}`);
    return intVal(evaluate(size, st.env()) === 1 ? num(0) : sym(name));
  }
  return intVal(st.dim(name));
}

/** Where an expression's value lives: a place (a variable, memory) or, for anything else, the value itself. */
export type Place = { ref: LRef } | { val: Val };

export function place(st: Interp, n: Node): Place {
  switch (n.type) {
    case 'parenthesized_expression':
      return named(n)[0] ? place(st, named(n)[0]) : { val: unknownVal() };
    case 'identifier':
      if (!st.frame.scope.lookup(n.text) && implicitMember(st, n.text)) return memberPlace(st, selfPlace(st), n.text, n, n);
      return st.frame.scope.lookup(n.text) || st.file.globals.get(n.text)?.space === 'global' ? { ref: evalLvalue(st, n) } : { val: evalExpr(st, n) };
    case 'subscript_expression':
      return subscript(st, n);
    case 'pointer_expression':
      if (n.childForFieldName('operator')?.text !== '*') return { val: evalExpr(st, n) };
      return pointee(evalExpr(st, n.childForFieldName('argument')));
    case 'field_expression':
      return fieldPlace(st, n);
    default:
      return { val: evalExpr(st, n) };
  }
}

/** What `*p` / `p->` designates: memory when `p` points there, else the value (`this` of a method on a value). */
function pointee(p: Val): Place {
  return p.ptr || p.ty.k === 'ptr' ? { ref: derefRef(p) } : { val: p };
}

/**
 * `a.f`, `p->f`, `p[i].pos.y`: a member of a struct or vector in memory is
 * the memory of that member (reading it moves the member's bytes, not the
 * whole struct's); a member of a value is a value.
 */
function fieldPlace(st: Interp, n: Node): Place {
  const b = builtinField(st, n);
  if (b) return { val: b };
  const f = n.childForFieldName('field')?.text ?? '';
  const arg = n.childForFieldName('argument')!;
  const arrow = n.childForFieldName('operator')?.text === '->';
  const base = arrow ? (arg.type === 'this' ? selfPlace(st) : pointee(evalExpr(st, arg))) : place(st, arg);
  return memberPlace(st, base, f, n, arg);
}

/** The object a method runs on: its place when it has one (`p[i].advance()` on memory), else its value. */
function selfPlace(st: Interp): Place {
  return st.frame.selfRef ? { ref: st.frame.selfRef } : { val: st.frame.self ?? unknownVal() };
}

/** A data member named without `this->` inside a method of its struct. */
function implicitMember(st: Interp, name: string): boolean {
  return !!st.frame.def?.owner?.fields.has(name) && (!!st.frame.selfRef || !!st.frame.self);
}

function memberPlace(st: Interp, base: Place, f: string, n: Node, arg: Node): Place {
  if ('val' in base) return { val: member(st, base.val, f, n) };
  const r = base.ref.k === 'mem' && base.ref.view.k === 'struct' && !base.ref.view.layout ? { ...base.ref, view: withLayout(st, base.ref.view) } : base.ref;
  if (r.k === 'mem') {
    if (r.view.k === 'num' && r.view.lanes > 1 && COMPONENTS.includes(f)) return { ref: componentRef(r, f) };
    if (r.view.k === 'struct' && r.view.layout?.fields.has(f)) return structMember(st, r, r.view.layout, f, n);
    if (r.view.k === 'num' && r.view.lanes > 1) return { val: member(st, loadRef(st, r, arg), f, n) };
    if (r.view.k === 'frag' || r.view.k === 'ptr') return { val: member(st, loadRef(st, r, arg), f, n) };
    // A member of an element whose type the file does not define (`Vertex` from a header): its bytes are unknown.
    if (r.ptr.space === 'global') st.say('structLayoutUnknown', n, tyName(r.view), r.view.k === 'struct' ? 'it' : '`' + tyName(r.view) + '`');
    return { ref: { k: 'none' } };
  }
  if (r.k === 'var') {
    if (r.cell.val.obj?.kind === 'dim3' && COMPONENTS.includes(f)) return { ref: { k: 'dim', cell: r.cell, index: COMPONENTS.indexOf(f) } };
    if (r.cell.ty.k === 'struct' && r.cell.ty.layout?.fields.has(f) && !r.cell.alias && !r.cell.memRef) return { ref: { k: 'field', cell: r.cell, path: [f] } };
    return { val: member(st, readCell(st, r.cell, arg), f, n) };
  }
  if (r.k === 'field') {
    const v = loadRef(st, r, arg);
    if (v.ty.k === 'struct' && v.ty.layout?.fields.has(f)) return { ref: { k: 'field', cell: r.cell, path: [...r.path, f] } };
    return { val: member(st, v, f, n) };
  }
  // A member of memory the analysis does not follow is not followed either (its access is said).
  if (r.k === 'none' && r.lost) return { ref: r };
  return { val: unknownVal() };
}

/** A member of a struct in memory: its own bytes at its offset (an array member is a pointer to its first element). */
function structMember(st: Interp, r: { k: 'mem'; ptr: Ptr; view: Ty }, layout: Layout, f: string, n: Node): Place {
  const fi = layout.fields.get(f)!;
  const ptr: Ptr = { ...r.ptr, off: add(r.ptr.off, num(fi.off)), exact: r.ptr.exact && layout.complete, rows: [] };
  if (fi.dims.length > 0) {
    const rows = fi.dims.slice(1).map((d) => num(d));
    return { val: { ty: ptrTo(fi.ty), konst: false, data: false, ptr: { ...ptr, baseTy: r.ptr.baseTy, rows } } };
  }
  if (fi.ty.k === 'unknown' && r.ptr.space === 'global') st.say('structLayoutUnknown', n, tyName(fi.ty), '`' + tyName(fi.ty) + '`');
  return { ref: { k: 'mem', ptr, view: fi.ty, name: `${r.ptr.base}.${f}` } };
}

function fieldValue(st: Interp, n: Node): Val {
  const p = fieldPlace(st, n);
  return 'val' in p ? p.val : loadRef(st, p.ref, n);
}

function componentRef(r: { k: 'mem'; ptr: Ptr; view: Ty }, f: string): LRef {
  const lane = Math.max(0, COMPONENTS.indexOf(f));
  const scalar = scalarOf(r.view);
  return { k: 'mem', ptr: { ...r.ptr, off: add(r.ptr.off, num(lane * sizeOf(scalar))) }, view: scalar };
}

/** A member of a value: vector components, fragment elements, `dim3` components, struct fields. */
export function member(st: Interp, base: Val, f: string, n: Node): Val {
  if (base.frag) {
    if (f === 'num_elements') return intVal(num(fragElemsPerThread(base.frag)), true);
    if (f === 'x') {
      const el = numTy(base.frag.dtype);
      return { ty: ptrTo(el), konst: false, data: false, ptr: { base: 'fragment', space: 'local', baseTy: el, off: num(0), exact: false, rows: [] } };
    }
  }
  if (base.obj?.dims && COMPONENTS.includes(f)) return intVal(base.obj.dims[COMPONENTS.indexOf(f)] ?? num(1));
  if (base.obj?.fields?.has(f)) return base.obj.fields.get(f)!;
  const fi = base.ty.k === 'struct' ? base.ty.layout?.fields.get(f) : undefined;
  if (fi) {
    // A member of a struct value: typed by its declaration (an array member is registers).
    if (fi.dims.length > 0) return { ty: ptrTo(fi.ty), konst: false, data: false, ptr: { base: brief(n, 30), space: 'local', baseTy: fi.ty, off: num(0), exact: false, rows: fi.dims.slice(1).map((d) => num(d)) } };
    return { ty: fi.ty, konst: false, data: base.data || !base.konst };
  }
  if (base.ty.k === 'num' && base.ty.lanes > 1 && COMPONENTS.includes(f)) return { ...base, ty: scalarOf(base.ty), e: undefined };
  if (base.ty.k === 'num' && base.ty.lanes === 2 && (f === 'first' || f === 'second')) return { ...base, ty: scalarOf(base.ty) };
  if (!base.data && base.ty.k === 'unknown') st.say('unknownMember', n, brief(n, 40));
  return unknownVal(base.data);
}

/** Elements of a fragment held by each thread of the warp. */
function fragElemsPerThread(f: { use: string; m: number; n: number; kk: number }): number {
  const elems = f.use === 'matrix_a' ? f.m * f.kk : f.use === 'matrix_b' ? f.kk * f.n : f.m * f.n;
  return elems / 32;
}

function fieldRef(st: Interp, n: Node): LRef {
  const arg = n.childForFieldName('argument');
  if (arg?.type === 'identifier' && n.childForFieldName('operator')?.text !== '->') {
    // A store into a member of a register variable whose type the analysis does not lay out: nothing to count.
    const cell = st.frame.scope.lookup(arg.text);
    if (cell && !cell.alias && !cell.memRef && !(cell.ty.k === 'struct' && cell.ty.layout) && cell.val.obj?.kind !== 'dim3') return { k: 'none' };
  }
  const p = fieldPlace(st, n);
  return 'ref' in p ? p.ref : { k: 'none' };
}

// ------------------------------------------------------------------ operators

function unary(st: Interp, n: Node): Val {
  const op = n.childForFieldName('operator')?.text;
  const a = evalExpr(st, n.childForFieldName('argument'));
  switch (op) {
    case '-':
      return { ...a, e: a.e ? scale(a.e, -1) : undefined, cond: undefined };
    case '!':
      return boolVal(not(condOf(a)), a.data);
    case '~':
      return { ...a, e: a.e?.constant !== undefined ? num(~a.e.constant) : undefined };
    default:
      return a;
  }
}

/** The condition a value stands for when used as a boolean. */
export function condOf(v: Val): Cond {
  if (v.cond) return v.cond;
  if (v.ty.k === 'ptr') return { k: 'cmp', op: '!=', a: num(1), b: num(0) };
  if (v.e) return { k: 'cmp', op: '!=', a: v.e, b: num(0) };
  return { k: 'opaque', text: '' };
}

const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);

function binary(st: Interp, n: Node): Val {
  const op = n.childForFieldName('operator')?.text ?? '';
  const a = evalExpr(st, n.childForFieldName('left'));
  const b = evalExpr(st, n.childForFieldName('right'));
  return binaryOp(st, op, a, b, n);
}

/** A binary operator on two values (also the arithmetic of compound assignments). */
function binaryOp(st: Interp, op: string, a: Val, b: Val, n: Node): Val {
  if (COMPARISONS.has(op) && (a.ty.k === 'ptr' || b.ty.k === 'ptr') && (op === '==' || op === '!=')) {
    st.assume('pointerNonNull');
    return { ...boolVal({ k: 'cmp', op, a: num(1), b: num(0) }, false), konst: true };
  }
  if (COMPARISONS.has(op)) {
    const cond = a.e && b.e ? { k: 'cmp' as const, op: op as CmpOp, a: a.e, b: b.e } : { k: 'opaque' as const, text: brief(n) };
    return { ...boolVal(cond, a.data || b.data), konst: a.konst && b.konst };
  }
  if (op === '&&' || op === '||') {
    return { ...boolVal({ k: op === '&&' ? 'and' : 'or', l: condOf(a), r: condOf(b) }, a.data || b.data), konst: a.konst && b.konst };
  }
  if (a.ptr && (op === '+' || op === '-') && !b.ptr) return pointerArith(a, b, op === '-');
  if (b.ptr && op === '+' && !a.ptr) return pointerArith(b, a, false);
  if (a.ptr && b.ptr) return intVal(num(0));
  const ty = resultType(a.ty, b.ty);
  const konst = a.konst && b.konst;
  const data = a.data || b.data;
  if (isFloatTy(ty)) {
    if (!konst && '+-*/'.includes(op) && op.length === 1) floatOp(st, op, ty, a, b, n);
    return { ty, konst, data };
  }
  if (data && ty.k === 'num' && isIntTy(ty)) st.intOp(op, num(lanesOf(ty)), n);
  const e = a.e && b.e ? intExpr(op, a.e, b.e) : undefined;
  return { ty, e, konst, data };
}

/** FLOPs of `a op b`; arithmetic on a shuffled value counts per warp (see COUNTING.md: 31 per warp). */
function floatOp(st: Interp, op: string, ty: Ty, a: Val, b: Val, n: Node): void {
  if (op !== '/' && warpReduce(st, op, ty, [a, b], n)) return;
  st.arith(op, ty, n);
}

/**
 * A step of a warp-collective reduction: `v += __shfl_xor_sync(…, v, m)` or
 * `v = __hadd(v, __shfl_xor_sync(…, v, m))` — counted per warp (COUNTING.md:
 * 31 per warp for 32 lanes), not per lane. False when no operand is a shuffle.
 */
export function warpReduce(st: Interp, op: string, ty: Ty, operands: Val[], n: Node): boolean {
  const s = operands.find((v) => v.shfl && v.shfl.kind !== 'idx')?.shfl;
  if (!s || ty.k !== 'num') return false;
  const lanes = st.syms.eliminate(s.offset);
  st.flop('warp-reduce', `__shfl_${s.kind}_sync ${op}`, ty.dtype, mul(lanes, num(ty.lanes)), n, { group: 32 });
  return true;
}

function pointerArith(p: Val, i: Val, minus: boolean): Val {
  const view = p.ty.k === 'ptr' ? p.ty.to : UNKNOWN;
  const ptr = p.ptr!;
  const delta = i.e ? mul(i.e, num(sizeOf(view))) : num(0);
  return { ...p, ptr: { ...ptr, off: minus ? sub(ptr.off, delta) : add(ptr.off, delta), exact: ptr.exact && i.e !== undefined && !i.data }, konst: false };
}

function resultType(a: Ty, b: Ty): Ty {
  if (a.k !== 'num' && b.k !== 'num') return UNKNOWN;
  if (a.k !== 'num') return b;
  if (b.k !== 'num') return a;
  const lanes = Math.max(a.lanes, b.lanes);
  const dtype = promote(a.dtype, b.dtype);
  if (dtype === a.dtype && lanes === a.lanes) return a;
  if (dtype === b.dtype && lanes === b.lanes) return b;
  return numTy(dtype, lanes);
}

/** Integer arithmetic on symbolic sizes and indices (C semantics on non-negative values). */
function intExpr(op: string, x: Expr, y: Expr): Expr | undefined {
  const xc = x.constant;
  const yc = y.constant;
  if (xc !== undefined && yc !== undefined) {
    const v = foldInt(op, xc, yc);
    return v === undefined ? undefined : num(v);
  }
  switch (op) {
    case '+':
      return add(x, y);
    case '-':
      return sub(x, y);
    case '*':
      return mul(x, y);
    case '/':
      return intDiv(x, y);
    case '%':
      return mod(x, y);
    case '<<':
      return yc !== undefined ? scale(x, Math.pow(2, yc)) : xc === 1 ? pow(num(2), y) : undefined;
    case '>>':
      return yc !== undefined ? floordiv(x, num(Math.pow(2, yc))) : undefined;
    case '&':
      return yc !== undefined && yc > 0 && ((yc + 1) & yc) === 0 ? mod(x, num(yc + 1)) : bitop('&', x, y);
    case '|':
    case '^':
      return bitop(op, x, y);
    default:
      return undefined;
  }
}

/** `x / y` on sizes, recognising the ceiling-division idiom `(x + y − 1) / y`. */
function intDiv(x: Expr, y: Expr): Expr {
  const rest = sub(add(x, ONE), y);
  if (!rest.poisoned && rest.terms.size < x.terms.size) return cdiv(rest, y);
  return floordiv(x, y);
}

function update(st: Interp, n: Node): Val {
  const op = n.childForFieldName('operator')?.text ?? '++';
  const arg = n.childForFieldName('argument')!;
  const r = evalLvalue(st, arg);
  const cur = loadRef(st, r, n);
  const next = binaryOp(st, op === '++' ? '+' : '-', cur, { ...intVal(num(1), true), ty: cur.ty.k === 'num' ? cur.ty : INT }, n);
  storeRef(st, r, next, n);
  return cur;
}

function assign(st: Interp, n: Node): Val {
  const op = n.childForFieldName('operator')?.text ?? '=';
  const left = n.childForFieldName('left')!;
  if (op === '=') {
    const v = evalExpr(st, n.childForFieldName('right'));
    storeRef(st, evalLvalue(st, left), v, n);
    return v;
  }
  const r = evalLvalue(st, left);
  const cur = loadRef(st, r, n);
  const rhs = evalExpr(st, n.childForFieldName('right'));
  const v = binaryOp(st, op.slice(0, -1), cur, rhs, n);
  storeRef(st, r, v, n);
  return v;
}

function ternary(st: Interp, n: Node): Val {
  const c = evalExpr(st, n.childForFieldName('condition'));
  const yes = n.childForFieldName('consequence');
  const no = n.childForFieldName('alternative');
  let a: Val | undefined;
  let b: Val | undefined;
  chooseBranch(st, c, n, {
    yes: () => (a = evalExpr(st, yes)),
    no: () => (b = evalExpr(st, no)),
    guard: false,
    condNode: n.childForFieldName('condition'),
    ternary: true,
  });
  // Both arms ran (the condition is not decided): the value is either one, not the first. Two different
  // numbers are not a number the analysis knows (`ki = ki == last ? 0 : ki + 1` is not 0 afterwards).
  if (a && b && a.e && !(b.e && equals(a.e, b.e))) return { ...a, e: undefined, konst: false, data: true };
  return a ?? b ?? unknownVal(c.data);
}

// ------------------------------------------------------------------ conversions

/**
 * `T{v}`: a conversion of its one value (`int{x}`, `cuda::aligned_size_t<16>{bytes}`
 * — a size wrapper, the size itself); with more values, a value of type `T`.
 */
function compoundLiteral(st: Interp, n: Node): Val {
  const t = n.childForFieldName('type');
  const items = named(n.childForFieldName('value') ?? n).filter((x) => x.type !== 'comment');
  const vals = items.map((x) => evalExpr(st, x));
  const name = t?.text.replace(/\s+/g, '') ?? '';
  if (/(^|::)aligned_size_t(<|$)/.test(name)) return vals[0] ?? unknownVal();
  const ty = t ? (t.type === 'type_descriptor' ? descriptorType(st, t) : baseType(st, t)) : UNKNOWN;
  if (vals.length === 1 && ty.k === 'num') return convert(vals[0], ty);
  return { ty, konst: vals.length > 0 && vals.every((v) => v.konst), data: vals.some((v) => v.data), ...(ty.k === 'struct' ? { obj: { kind: 'struct' as const } } : {}) };
}

/** Converts a value to a declared type (`float x = h[i]`, `(float4*)p`, `static_cast<int>(f)`). */
export function convert(v: Val, ty: Ty): Val {
  if (ty.k === 'unknown' || ty.k === 'void') return v;
  if (ty.k === 'ptr') return { ...v, ty };
  if (ty.k === 'frag') return { ...v, ty, frag: ty };
  if (ty.k === 'struct') return { ...v, ty };
  const keepInt = isIntTy(ty) && (v.ty.k !== 'num' || isIntTy(v.ty));
  return { ...v, ty, e: keepInt ? v.e : undefined, cond: ty.dtype === 'bool' ? v.cond : undefined, shfl: isFloatTy(ty) ? v.shfl : undefined };
}

function sizeofExpr(st: Interp, n: Node): Val {
  const t = n.childForFieldName('type');
  if (t) return intVal(num(sizeOf(descriptorType(st, t))), true);
  const v = n.childForFieldName('value');
  const inner = v?.type === 'parenthesized_expression' ? named(v)[0] : v;
  if (inner?.type === 'identifier' && !st.frame.scope.lookup(inner.text)) {
    const ty = typeName(st, inner.text);
    if (ty.k !== 'unknown') return intVal(num(sizeOf(ty)), true);
  }
  const saved = st.silent;
  st.silent++;
  try {
    return intVal(num(sizeOf(evalExpr(st, v).ty)), true);
  } finally {
    st.silent = saved;
  }
}
