/**
 * Statements: declarations (registers, `__shared__` arrays, fragments,
 * `dim3`), `if`, loops, `switch`, `return`, and `#if` blocks inside
 * functions.
 */
import { decideSwitch } from '../../engine/branch';
import { num, sym } from '../../sym/expr';
import { structConversion } from './calls';
import { convert, evalExpr, evalLvalue, namedConstant } from './expr';
import { forStatement, whileStatement } from './loops';
import type { Interp } from './state';
import { hasQualifier, lineOf, named, brief, type Node } from './syntax';
import { chooseBranch } from './threads';
import { baseType, unwrapDeclarator, type Decl } from './typesyn';
import { isIntTy, ptrTo, type Ty } from './types';
import { unknownVal, type Ptr, type Val } from './values';

const IGNORED = new Set([
  'preproc_def',
  'preproc_function_def',
  'preproc_call',
  'preproc_include',
  'function_definition',
  'template_declaration',
  'type_definition',
  'alias_declaration',
  'using_declaration',
  'namespace_alias_definition',
  'static_assert_declaration',
  'break_statement',
  'continue_statement',
  'goto_statement',
  'comment',
  'ERROR',
]);

export function execStmt(st: Interp, n: Node | null): void {
  if (!n || st.halted()) return;
  switch (n.type) {
    case 'compound_statement':
      return block(st, named(n));
    case 'declaration':
      return declaration(st, n);
    case 'expression_statement':
      evalExpr(st, named(n)[0] ?? null);
      return;
    case 'if_statement':
      return ifStatement(st, n);
    case 'for_statement':
      return forStatement(st, n);
    case 'while_statement':
    case 'do_statement':
      return whileStatement(st, n);
    case 'for_range_loop':
      st.say('rangeFor', n);
      return execStmt(st, n.childForFieldName('body'));
    case 'return_statement':
      return returnStatement(st, n);
    case 'switch_statement':
      return switchStatement(st, n);
    case 'labeled_statement':
      return execStmt(st, n.childForFieldName('statement') ?? named(n).pop() ?? null);
    case 'preproc_if':
    case 'preproc_ifdef':
      for (const c of st.file.liveChildren(n)) execStmt(st, c);
      return;
    default:
      if (!IGNORED.has(n.type)) evalExpr(st, n);
  }
}

const MAX_BLOCK_DEPTH = 100;

/** A block: its own scope; thread conditions of early exits inside it last until its end. */
function block(st: Interp, items: Node[]): void {
  if (st.blockDepth >= MAX_BLOCK_DEPTH) {
    if (items[0]) st.say('depthLimit', items[0], 'blocks');
    return;
  }
  const active = st.active;
  st.blockDepth++;
  st.pushScope();
  try {
    for (const c of items) {
      if (st.halted()) break;
      execStmt(st, c);
    }
  } finally {
    st.popScope();
    st.blockDepth--;
    st.active = active;
  }
}

// ------------------------------------------------------------------ declarations

function declaration(st: Interp, n: Node): void {
  const shared = hasQualifier(n, '__shared__');
  const konst = hasQualifier(n, 'const') || hasQualifier(n, 'constexpr');
  let typeNode = n.childForFieldName('type');
  let declarators = n.childrenForFieldName('declarator');
  if (typeNode?.text === '__align__') {
    const fixed = alignRecovery(declarators[0]);
    typeNode = fixed.type;
    declarators = fixed.declarators;
  }
  const base = baseType(st, typeNode);
  for (const d of declarators) declareOne(st, n, unwrapDeclarator(base, d), shared, konst);
}

/** `__shared__ __align__(16) float As[32][33];` parses with an error node: find the real type and declarator. */
function alignRecovery(d: Node | undefined): { type: Node | null; declarators: Node[] } {
  if (!d) return { type: null, declarators: [] };
  const type = d.descendantsOfType(['primitive_type', 'type_identifier'])[0] ?? null;
  const decl = named(d).filter((x) => x.type.endsWith('declarator') || x.type === 'identifier');
  return { type, declarators: decl };
}

function declareOne(st: Interp, n: Node, d: Decl, shared: boolean, konst: boolean): void {
  if (!d.name) return;
  if (d.dims.length > 0) return declareArray(st, d, shared);
  if (shared) {
    const ptr: Ptr = { base: d.name, space: 'shared', baseTy: d.ty, off: num(0), exact: true, rows: [] };
    st.declare(d.name, { ty: d.ty, val: unknownVal(false, d.ty), memRef: { ptr, view: d.ty } });
    return;
  }
  if (d.ref && d.init) {
    const r = evalLvalue(st, d.init);
    if (r.k === 'var') st.declare(d.name, r.cell);
    else if (r.k === 'mem') st.declare(d.name, { ty: r.view, val: unknownVal(true, r.view), memRef: { ptr: r.ptr, view: r.view } });
    else st.declare(d.name, { ty: d.ty, val: unknownVal(true, d.ty) });
    return;
  }
  const v = initialValue(st, d, n);
  const ty = d.ty.k === 'unknown' && v.ty.k !== 'unknown' ? v.ty : d.ty;
  let val = convert(v, ty);
  if (konst) val = namedConstant(st, d.name, val, `${brief(n, 50)} (line ${lineOf(n)})`);
  if (st.host && isIntTy(ty) && !val.e) val = { ...val, e: sym(d.name), data: false };
  st.declare(d.name, { ty, val });
}

function initialValue(st: Interp, d: Decl, n: Node): Val {
  if (d.ctorArgs && d.ctorArgs.type !== 'argument_list') return st.atSite(n, () => construct(st, d.ty, ctorArguments(st, d.ctorArgs!)));
  if (d.ctorArgs) return construct(st, d.ty, named(d.ctorArgs));
  if (!d.init) return construct(st, d.ty, []);
  if (d.init.type === 'initializer_list') return construct(st, d.ty, named(d.init));
  const v = evalExpr(st, d.init);
  if (d.ty.k === 'ptr' && v.obj && v.ty.k === 'struct') return structConversion(st, v, d.ty, n);
  return v;
}

/**
 * The arguments of `dim3 block(16, 16)`. tree-sitter-cuda sometimes reads
 * `dim3 grid(CEIL_DIV(M, 32))` as a function declarator: its parameter list
 * is re-read as an argument list.
 */
function ctorArguments(st: Interp, list: Node): Node[] {
  const assign = st.file.snippets.expression(`__roofline_lhs__ = __roofline_ctor__${list.text}`);
  const call = assign?.childForFieldName('right');
  const args = call?.type === 'call_expression' ? call.childForFieldName('arguments') : null;
  return args ? named(args) : [];
}

/** A value built from constructor arguments or an initializer list. */
function construct(st: Interp, ty: Ty, args: Node[]): Val {
  const vals = args.map((a) => evalExpr(st, a));
  if (ty.k === 'struct' && ty.name === 'dim3') {
    const dims = [0, 1, 2].map((i) => vals[i]?.e ?? num(1));
    return { ty, konst: vals.every((v) => v.konst), data: false, obj: { kind: 'dim3', dims } };
  }
  if (ty.k === 'num' && vals.length === 1) return convert(vals[0], ty);
  if (ty.k === 'frag') return { ty, konst: false, data: false, frag: ty };
  const data = vals.some((v) => v.data);
  if (ty.k === 'struct') return { ty, konst: false, data, obj: { kind: 'struct' } };
  return { ty, konst: vals.length > 0 && vals.every((v) => v.konst), data };
}

/** `__shared__ float As[BM][BK]`, `float acc[TM][TN]`, `extern __shared__ float smem[]`, fragment arrays. */
function declareArray(st: Interp, d: Decl, shared: boolean): void {
  const dims = d.dims.map((x) => (x ? (evalExpr(st, x).e ?? num(1)) : num(0)));
  const space = shared ? 'shared' : 'local';
  const ptr: Ptr = { base: d.name, space, baseTy: d.ty, off: num(0), exact: true, rows: dims.slice(1) };
  st.declare(d.name, { ty: ptrTo(d.ty), val: { ty: ptrTo(d.ty), konst: false, data: false, ptr } });
  if (d.init) evalExpr(st, d.init);
}

// ------------------------------------------------------------------ control flow

/** An `if` whose consequence only returns (or continues): an early-exit guard. */
function guardKind(s: Node | null): 'return' | 'continue' | false {
  if (!s) return false;
  if (s.type === 'return_statement' && !named(s)[0]) return 'return';
  if (s.type === 'continue_statement') return 'continue';
  if (s.type === 'compound_statement') {
    const items = named(s);
    return items.length === 1 ? guardKind(items[0]) : false;
  }
  return false;
}

function ifStatement(st: Interp, n: Node): void {
  const condNode = n.childForFieldName('condition');
  const cons = n.childForFieldName('consequence');
  const alt = n.childForFieldName('alternative');
  const altBody = alt ? (alt.type === 'else_clause' ? (named(alt)[0] ?? null) : alt) : null;
  const v = evalExpr(st, condNode);
  chooseBranch(st, v, n, {
    yes: () => execStmt(st, cons),
    no: altBody ? () => execStmt(st, altBody) : undefined,
    guard: altBody ? false : guardKind(cons),
    condNode,
  });
}

function returnStatement(st: Interp, n: Node): void {
  const e = named(n)[0];
  const v = e ? evalExpr(st, e) : undefined;
  if (v && !st.frame.ret) st.frame.ret = v;
  const body = st.frame.def?.body;
  if (body && n.parent && n.parent.startIndex === body.startIndex && n.parent.endIndex === body.endIndex) st.frame.returned = true;
}

/**
 * `switch`: a compile-time value runs its case (and the cases it falls
 * through to); otherwise the costlier case counts (engine/branch.ts), each
 * case with the cases it falls through to.
 */
function switchStatement(st: Interp, n: Node): void {
  const v = evalExpr(st, n.childForFieldName('condition'));
  const body = n.childForFieldName('body');
  const cases = body ? named(body).filter((c) => c.type === 'case_statement') : [];
  const value = v.data ? undefined : st.value(v.e);
  const statements = (c: Node) => {
    const cv = c.childForFieldName('value');
    return named(c).filter((x) => !(cv && x.startIndex === cv.startIndex && x.endIndex === cv.endIndex));
  };
  // What runs from case i: its statements and the next cases' until one leaves the switch.
  const leaves = (items: Node[]): boolean => {
    const last = items.filter((x) => x.type !== 'comment').at(-1);
    if (!last) return false;
    if (last.type === 'break_statement' || last.type === 'return_statement' || last.type === 'continue_statement') return true;
    return last.type === 'compound_statement' && leaves(named(last));
  };
  const from = (i: number) => () => {
    for (let j = i; j < cases.length; j++) {
      const items = statements(cases[j]);
      block(st, items);
      if (leaves(items)) return;
    }
  };
  const caseLabel = (c: Node) => {
    const cv = c.childForFieldName('value');
    return cv ? `case ${brief(cv)}` : 'default';
  };
  if (value !== undefined) {
    const hit = cases.findIndex((c) => {
      const cv = c.childForFieldName('value');
      return cv ? st.value(evalExpr(st, cv).e) === value : false;
    });
    const at = hit >= 0 ? hit : cases.findIndex((c) => !c.childForFieldName('value'));
    if (at >= 0) from(at)();
    return;
  }
  const cond = n.childForFieldName('condition');
  decideSwitch(st, st.line(n), cond ? brief(cond) : '', cases.map((c, i) => ({ label: caseLabel(c), run: from(i) })), v.data || !(v.e && st.syms.kinds(v.e).has('thread')));
}
