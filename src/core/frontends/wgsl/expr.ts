/**
 * Expressions of a WGSL entry point: literals, names (locals, module-scope
 * resources, consts and overrides), member and index accesses, unary and
 * binary operators. Every expression becomes a `Val` and, on the way, emits
 * what it costs into the current region — FLOPs for floating arithmetic on
 * run-time values, integer ops for integer arithmetic on loaded data. Index
 * and constant arithmetic builds symbolic values and costs nothing.
 */
import { nested } from '../../budget';
import type { ExpressionElem } from 'wesl/core';
import { freeSymbols, num, printExpr, sym, type Expr } from '../../sym/expr';
import { combine, compare, logical, matrixFlops, mulType, negate, lift1 } from './arith';
import type { TypeResolver } from './module';
import type { WgslState } from './state';
import { arithResult, BOOL, isFloatKind, isIntKind, lanes, scalar, scalarOf, U32, UNKNOWN, type ScalarKind, type WType } from './types';
import { constVal, DEP, hasDep, isConst, opaqueVal, valueIndex, valueMember, type Val } from './values';

const COMPARE = new Set(['==', '!=', '<', '<=', '>', '>=']);
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);
const ARITH = new Set(['+', '-', '*', '/', '%']);

export function evalExpr(st: WgslState, e: ExpressionElem): Val {
  return nested(st, e, evalNow, tooDeep);
}

function tooDeep(st: WgslState, e: ExpressionElem): Val {
  st.notes.say('depthLimit', st.lineOf(e.start), 'an expression');
  return opaqueVal(UNKNOWN, 0);
}

function evalNow(st: WgslState, e: ExpressionElem): Val {
  switch (e.kind) {
    case 'literal':
      return literal(st, e.value);
    case 'ref':
      return identifier(st, e.ident.originalName, e.start);
    case 'parenthesized-expression':
      return evalExpr(st, e.expression);
    case 'component-member-expression':
    case 'component-expression':
      return access(st, e);
    case 'unary-expression':
      return unary(st, e.operator.value, e.expression, e.start);
    case 'binary-expression':
      return binary(st, e.operator.value, evalExpr(st, e.left), evalExpr(st, e.right), st.lineOf(e.start));
    case 'call-expression':
      return st.ops.call(e);
    default:
      return opaqueVal(UNKNOWN, 0);
  }
}

function literal(st: WgslState, text: string): Val {
  if (text === 'true' || text === 'false') return constVal(BOOL, num(text === 'true' ? 1 : 0), st.env);
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
  return constVal(scalar(kind), Number.isFinite(value) ? num(value) : undefined, st.env);
}

function identifier(st: WgslState, name: string, at: number): Val {
  const slot = st.lookup(name);
  if (slot) return slot.val;
  if (st.mod.globals.has(name)) {
    const p = st.ops.globalPlace(name);
    return p ? st.ops.readPlace(p, at, name) : opaqueVal(UNKNOWN, DEP.MUT);
  }
  const g = globalValue(st, name);
  if (g) return g;
  st.notes.say('unknownIdent', st.lineOf(at), name);
  return opaqueVal(UNKNOWN, DEP.MUT);
}

function access(st: WgslState, e: Extract<ExpressionElem, { kind: 'component-member-expression' | 'component-expression' }>): Val {
  const p = st.ops.evalPlace(e);
  if (p) return st.ops.readPlace(p, e.start, st.text(e));
  const base = evalExpr(st, e.base);
  return e.kind === 'component-member-expression' ? valueMember(base, e.access.name) : valueIndex(base, evalExpr(st, e.access));
}

function unary(st: WgslState, op: string, inner: ExpressionElem, at: number): Val {
  if (op === '&') {
    const p = st.ops.evalPlace(inner);
    return p ? { type: { k: 'ptr', space: p.root.kind === 'global' ? p.root.space : 'function', elem: p.type }, deps: 0, place: p } : evalExpr(st, inner);
  }
  if (op === '*') {
    const p = st.ops.evalPlace(inner);
    return p ? st.ops.readPlace(p, at, st.text(inner)) : evalExpr(st, inner);
  }
  const v = evalExpr(st, inner);
  if (op === '-') return negate(v);
  if (op === '!') return { type: v.type, deps: v.deps, loops: v.loops, names: v.names, fn: v.fn && ((env) => lift1(v.fn!(env), (a) => (a ? 0 : 1))) };
  if (hasDep(v, DEP.DATA)) st.emitInt('~', lanes(v.type), st.lineOf(at));
  return { type: v.type, deps: v.deps, loops: v.loops, fn: v.fn && ((env) => lift1(v.fn!(env), (a) => ~a >>> 0)) };
}

/** A binary operation: its cost, type, and symbolic / interval / concrete value. */
export function binary(st: WgslState, op: string, l: Val, r: Val, line: number): Val {
  if (op === '&&' || op === '||') return logical(op, l, r);
  if (COMPARE.has(op)) return compare(op, l, r);
  const type = op === '*' ? mulType(l.type, r.type) : arithResult(l.type, r.type);
  if (!(isConst(l) && isConst(r))) chargeArith(st, op, l, r, type, line);
  const s = scalarOf(type);
  const out = combine(op, l, r, isIntKind(s));
  out.type = type;
  if (!out.sym && isConst(l) && isConst(r) && type.k === 'scalar') {
    // Constants fold to their number where the symbolic form has no operator (`1u << LOG_N`, `A | B`).
    const v = out.fn?.(st.env);
    if (v !== undefined && Number.isFinite(v)) {
      out.sym = num(v);
      out.range = [out.sym, out.sym];
    }
  }
  if (l.comps && r.comps) out.comps = l.comps.map((c, i) => combine(op, c, r.comps![i] ?? c, isIntKind(s)));
  else if (l.comps && r.type.k === 'scalar') out.comps = l.comps.map((c) => combine(op, c, r, isIntKind(s)));
  else if (r.comps && l.type.k === 'scalar') out.comps = r.comps.map((c) => combine(op, l, c, isIntKind(s)));
  return out;
}

function chargeArith(st: WgslState, op: string, l: Val, r: Val, type: WType, line: number): void {
  const s = scalarOf(type);
  if (isFloatKind(s) && ARITH.has(op)) {
    const m = matrixFlops(l.type, r.type);
    st.emitFlop(m ? 'mat×vec' : op, m ? 'dot' : 'elementwise', m ?? lanes(type), s, line);
  } else if ((isIntKind(s) || s === undefined) && (ARITH.has(op) || BITWISE.has(op)) && (hasDep(l, DEP.DATA) || hasDep(r, DEP.DATA)))
    st.emitInt(op, lanes(type), line);
}

// ---------------------------------------------------------------------------
// Module-scope consts and overrides

/** The value of a module-scope `const` or `override`, binding its name. */
export function globalValue(st: WgslState, name: string): Val | undefined {
  const memo = st.globals.get(name);
  if (memo) return memo;
  const c = st.mod.consts.get(name);
  const o = st.mod.overrides.get(name);
  if (!c && !o) return undefined;
  if (st.resolvingGlobals.has(name)) return opaqueVal(UNKNOWN, DEP.MUT);
  st.resolvingGlobals.add(name);
  const v = c ? constDecl(st, name, c.init, c.name.typeRef, c.start) : overrideDecl(st, name, o!.init, o!.name.typeRef, o!.start);
  st.resolvingGlobals.delete(name);
  st.globals.set(name, v);
  return v;
}

type TypeRef = Parameters<TypeResolver['resolve']>[0];

function constDecl(st: WgslState, name: string, init: ExpressionElem | undefined, typeRef: TypeRef, at: number): Val {
  const v = init ? evalExpr(st, init) : opaqueVal(UNKNOWN, 0);
  const type = typeRef ? st.types.resolve(typeRef) : v.type;
  const value = v.fn?.(st.env);
  // Without a finite value the const is opaque: keeping its evaluation closure would make a
  // chain of consts that use each other twice (`const B = A * A;`) re-evaluate 2^n times. A small
  // symbolic value over unbound overrides is kept without the closure (`const n: u32 = N;` stays `N`).
  if (value === undefined || !Number.isFinite(value)) {
    if (value === undefined && v.sym && isConst(v) && type.k === 'scalar' && smallExpr(v.sym)) return { type, deps: 0, sym: v.sym, range: v.range };
    return { ...opaqueVal(type.k === 'scalar' ? type : UNKNOWN, 0), type };
  }
  if (type.k !== 'scalar') return { ...v, type };
  if (!isIntKind(type.s)) return constVal(type, num(value), st.env);
  st.bind(name, value, 'define', `const (line ${st.lineOf(at)})`);
  return constVal(type, sym(name), st.env);
}

function overrideDecl(st: WgslState, name: string, init: ExpressionElem | undefined, typeRef: TypeRef, at: number): Val {
  const v = init ? evalExpr(st, init) : undefined;
  const type = typeRef ? st.types.resolve(typeRef) : (v?.type ?? U32);
  const dflt = v?.fn?.(st.env);
  const isBool = type.k === 'scalar' && type.s === 'bool';
  if (dflt !== undefined) st.bind(name, isBool ? dflt !== 0 : dflt, 'define', `override default (line ${st.lineOf(at)})`);
  return constVal(type.k === 'scalar' && type.s === 'ai' ? U32 : type, sym(name), st.env);
}

/** A symbolic value small enough to carry along (a const chain must not grow it without bound). */
function smallExpr(e: Expr): boolean {
  return freeSymbols(e).size <= 4 && printExpr(e).length <= 80;
}

function hexFloat(s: string): number {
  const m = /^(-?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([-+]?\d+))?$/.exec(s);
  if (!m) return NaN;
  const int = parseInt(m[2] || '0', 16);
  const frac = m[3] ? parseInt(m[3], 16) / 16 ** m[3].length : 0;
  const exp = m[4] ? Number(m[4]) : 0;
  return (m[1] ? -1 : 1) * (int + frac) * 2 ** exp;
}
