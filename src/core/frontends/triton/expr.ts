/**
 * Expressions of a Triton kernel: literals, names (locals, constexpr globals,
 * dtypes, jit helpers), attributes, subscripts and block indexing, operators
 * and comparisons. Arithmetic on run-time floating values records FLOPs;
 * integer arithmetic on loaded data records integer ops; index and constant
 * arithmetic builds symbolic values (sizes, offsets for footprints) and costs
 * nothing.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { Dtype } from '../../gpus/types';
import { say } from '../../messages';
import { add, bitop, evaluate, max as emax, min as emin, mul, num, ONE, printExpr, sub, sym, ZERO, type Expr } from '../../sym/expr';
import { foldNot } from '../../sym/fold';
import { isFloat, parseDtype, promote } from '../common';
import { binop, canonical, compare } from './module';
import { offAdd, offConst, offFloorDiv, offMod, offMul, offNeg, offRemap, offUnknown, varyingEntry, type Offsets } from './offsets';
import type { TritonState } from './state';
import { dotted, field, line, named, shorten, stringValue } from './syntax';
import { broadcast, combineExtents, NONE, numel, scalar, union, unknown, type NumVal, type Val } from './values';

const PTR_NAME = /(ptr|Ptr|PTR|_p|pointer|base)$/;

export function evalNode(st: TritonState, n: Node): Val {
  if (st.inp.budget.spent()) return unknown('budget');
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
      return named(n)[0] ? st.ops.eval(named(n)[0]) : NONE;
    case 'identifier':
      return name(st, n.text);
    case 'attribute':
      return attribute(st, n);
    case 'tuple':
    case 'list':
    case 'expression_list':
      return { k: 'tuple', items: named(n).map((c) => st.ops.eval(c)) };
    case 'call':
      return st.ops.call(n);
    case 'binary_operator': {
      const l = field(n, 'left');
      const r = field(n, 'right');
      const op = field(n, 'operator')?.text ?? '?';
      if (!l || !r) return unknown('binary');
      return binaryOp(st, op, st.ops.eval(l), st.ops.eval(r), n);
    }
    case 'unary_operator':
      return unary(st, n);
    case 'not_operator': {
      const a = field(n, 'argument');
      const v = a ? st.ops.eval(a) : unknown('not');
      const t = st.truth(v);
      if (t !== undefined) return scalar(num(t ? 0 : 1), 'bool', v.k === 'num' ? v.isConst : true);
      const base: NumVal = v.k === 'num' ? v : scalar(undefined, 'bool', false);
      // `not FLAG` on an unbound constexpr stays compile-time: `1 − FLAG`.
      const value = base.value && base.isConst && !base.data ? sub(ONE, base.value) : undefined;
      return { ...base, dtype: 'bool', value, maskExtent: undefined, clips: undefined };
    }
    case 'boolean_operator': {
      const op = field(n, 'operator')?.text ?? n.child(1)?.text;
      const l = field(n, 'left');
      const r = field(n, 'right');
      const a = l ? st.ops.eval(l) : NONE;
      const ta = st.truth(a);
      if (op === 'and' && ta === false) return a;
      if (op === 'or' && ta === true) return a;
      const b = r ? st.ops.eval(r) : NONE;
      const tb = st.truth(b);
      if (ta !== undefined && tb !== undefined) return scalar(num((op === 'and' ? ta && tb : ta || tb) ? 1 : 0), 'bool', st.isConst(a) && st.isConst(b));
      if (op === 'and' && tb === true) return a;
      if (op === 'or' && tb === false) return a;
      if (op === 'and' && ta === true) return b;
      if (op === 'or' && ta === false) return b;
      return binaryOp(st, op === 'and' ? '&' : '|', a, b, n);
    }
    case 'comparison_operator':
      return comparison(st, n);
    case 'conditional_expression':
      return st.ops.conditional(n);
    case 'subscript':
      return subscript(st, n);
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
        if (ks !== undefined && v) entries.set(ks, st.ops.eval(v));
      }
      return { k: 'dict', entries };
    }
    case 'ERROR':
      st.notes.push(say('parseError', line(n), `\`${shorten(n.text, 40)}\``));
      return unknown('syntax error');
    default:
      return unknown(n.type);
  }
}

function unary(st: TritonState, n: Node): Val {
  const a = field(n, 'argument');
  const v = a ? st.ops.eval(a) : unknown('unary');
  const op = n.child(0)?.text;
  if (v.k !== 'num') return v;
  if (op === '-') {
    // Negation flips a sign bit: no FLOP.
    return { ...v, value: v.value ? mul(num(-1), v.value) : undefined, off: offNeg(v.off), pureArange: undefined, maskExtent: undefined, clips: undefined };
  }
  if (op === '~') {
    const c = v.value?.constant;
    const folded = c !== undefined ? foldNot(c) : undefined;
    return { ...v, value: folded !== undefined ? num(folded) : undefined, off: offUnknown() };
  }
  return v;
}

export function name(st: TritonState, id: string): Val {
  const v = st.lookup(id);
  if (v) return v;
  const m = st.inp.mod;
  const b = st.inp.bindings.get(id);
  if (b && b.source === 'global') {
    if (typeof b.value === 'number') return scalar(sym(id), Number.isInteger(b.value) ? 'int32' : 'fp32', true, { off: offConst(sym(id)) });
    if (typeof b.value === 'boolean') return scalar(sym(id), 'bool', true);
  }
  const gv = moduleValue(st, id, m.globals.get(id));
  if (gv) return gv;
  if (m.functions.has(id) || m.fnAliases.has(id)) return { k: 'func', name: m.fnAliases.get(id) ?? id };
  // A value another module of the project defines and this one imports (`triton_tanh = libdevice.tanh`).
  const fv = moduleValue(st, id, m.foreignGlobals?.get(id));
  if (fv) return fv;
  if (m.imports.has(id)) return { k: 'func', name: canonical(id, m.imports) };
  if (['range', 'min', 'max', 'len', 'int', 'float', 'abs', 'print', 'isinstance', 'getattr', 'hasattr', 'zip', 'enumerate', 'pow'].includes(id)) return { k: 'func', name: id };
  return unknown(`name ${id}`);
}

/** The value of a module-level `NAME = …` (a dtype alias, a tuple, a constant); `A = (A)` or `A = B; B = A` resolve to nothing. */
function moduleValue(st: TritonState, id: string, g: Node | undefined): Val | undefined {
  if (!g || st.resolvingGlobals.has(id)) return undefined;
  st.resolvingGlobals.add(id);
  try {
    const gv = st.ops.eval(g);
    if (gv.k !== 'unknown') return gv.k === 'num' ? { ...gv, isConst: true } : gv;
  } finally {
    st.resolvingGlobals.delete(id);
  }
  return undefined;
}

function attribute(st: TritonState, n: Node): Val {
  const d = dotted(n);
  if (d) {
    const c = canonical(d, st.inp.mod.imports);
    const head = d.split('.')[0];
    if (!st.lookup(head) && (c.startsWith('tl.') || c.startsWith('triton.') || c.startsWith('libdevice.'))) {
      const dt = parseDtype(c.slice(c.lastIndexOf('.') + 1));
      if (dt && c.startsWith('tl.')) return { k: 'dtype', dtype: dt };
      return { k: 'func', name: c };
    }
  }
  const obj = field(n, 'object');
  const attr = field(n, 'attribute')?.text ?? '';
  const o = obj ? st.ops.eval(obj) : unknown('attr');
  if (o.k === 'num') {
    if (attr === 'T') return transpose(o);
    // A pointer's type is its tensor's, whatever its offset is made of (gathered indices are data, still an offset).
    // `p.dtype.element_ty`, `p.type.element_ty`: the element type (`.type` is the block or pointer type).
    if (attr === 'dtype' || attr === 'type') {
      if (!o.ptr) return { k: 'dtype', dtype: o.dtype };
      const e = st.elemDtype(o.ptr);
      return { k: 'dtype', dtype: e.dtype, ...(e.how === 'assumed' ? { assumed: true } : {}) };
    }
    if (attr === 'shape') return { k: 'tuple', items: o.shape.map((s) => scalar(s, 'int32', true, { off: offConst(s) })) };
    return { k: 'func', name: `.${attr}`, self: o };
  }
  if (o.k === 'dtype') {
    if (attr === 'element_ty') return { k: 'dtype', dtype: o.dtype, ...(o.assumed ? { assumed: true } : {}) };
    if (attr === 'primitive_bitwidth') return scalar(num(bitwidth(o.dtype)), 'int32', true);
    if (/^is_(fp8|fp16|bf16|fp32|fp64|floating|int|bool|u?int\d+|signed|unsigned|int_signed|int_unsigned)$/.test(attr)) return { k: 'func', name: `.${attr}`, self: o };
    return o;
  }
  if (o.k === 'blockptr') return { k: 'func', name: `.${attr}`, self: o };
  if (o.k === 'func' && !o.self) return { k: 'func', name: `${o.name}.${attr}` };
  return unknown(`attribute ${attr}`);
}

function bitwidth(d: Dtype): number {
  return { fp64: 64, fp32: 32, tf32: 32, fp16: 16, bf16: 16, fp8: 8, int8: 8, int16: 16, int32: 32, int64: 64, bool: 1 }[d];
}

export function transpose(v: NumVal): NumVal {
  const r = v.shape.length;
  if (r < 2) return v;
  const shape = [...v.shape];
  [shape[r - 2], shape[r - 1]] = [shape[r - 1], shape[r - 2]];
  const eff = v.eff && v.eff.length === r ? [...v.eff] : undefined;
  if (eff) [eff[r - 2], eff[r - 1]] = [eff[r - 1], eff[r - 2]];
  return { ...v, shape, eff, off: offRemap(v.off, (d) => (d === 0 ? 1 : d === 1 ? 0 : d)), maskExtent: undefined, clips: undefined, pureArange: undefined };
}

function subscript(st: TritonState, n: Node): Val {
  const base = field(n, 'value');
  const subs = n.childrenForFieldName('subscript').filter((x): x is Node => x !== null);
  const b = base ? st.ops.eval(base) : unknown('subscript');
  if (b.k === 'dict') {
    const k = subs[0] ? stringValue(subs[0]) : undefined;
    return (k !== undefined && b.entries.get(k)) || unknown('dict key');
  }
  if (b.k === 'tuple') {
    const i = subs[0] ? st.scalarExpr(st.ops.eval(subs[0]))?.constant : undefined;
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
  const inDimOf = (o: number) => [...map].find(([, oo]) => oo === o)?.[0];
  const clips = b.clips ? new Map([...b.clips].map(([d, e]) => [remap(d) ?? -1, e] as [number, Expr]).filter(([d]) => d >= 0)) : undefined;
  const maskExtent = b.maskExtent ? outShape.map((_, o) => (inDimOf(o) === undefined ? ONE : b.maskExtent![inDimOf(o)!])) : undefined;
  const eff = b.eff ? outShape.map((_, o) => (inDimOf(o) === undefined ? ONE : b.eff![inDimOf(o)!])) : undefined;
  const pa = b.pureArange ? { ...b.pureArange, dimR: remap(b.pureArange.dimR) ?? 0 } : undefined;
  return { ...b, shape: outShape, off: offRemap(b.off, remap), clips, maskExtent, eff, pureArange: pa };
}

// ------------------------------------------------------------------ comparisons

function comparison(st: TritonState, n: Node): Val {
  const parts = named(n);
  const ops = n.children.filter((c) => c && !c.isNamed).map((c) => c!.text);
  // `is not` / `not in` are two tokens.
  const merged: string[] = [];
  for (let i = 0; i < ops.length; i++) {
    if ((ops[i] === 'is' && ops[i + 1] === 'not') || (ops[i] === 'not' && ops[i + 1] === 'in')) {
      merged.push(`${ops[i]} ${ops[i + 1]}`);
      i++;
    } else merged.push(ops[i]);
  }
  if (parts.length < 2) return unknown('comparison');
  const vals = parts.map((p) => st.ops.eval(p));
  let result: Val = compare2(st, merged[0] ?? '<', vals[0], vals[1]);
  for (let i = 1; i < merged.length && i + 1 < vals.length; i++) result = binaryOp(st, '&', result, compare2(st, merged[i], vals[i], vals[i + 1]), n);
  return result;
}

const boolConst = (b: boolean): NumVal => scalar(num(b ? 1 : 0), 'bool', true);

function compare2(st: TritonState, op: string, a: Val, b: Val): Val {
  // `x is None`, `dtype is tl.float32`, `MODE is not "sum"`: identity on compile-time values is equality.
  if (op === 'is' || op === 'is not') {
    if (a.k === 'none' || b.k === 'none') return boolConst((a.k === 'none' && b.k === 'none') === (op === 'is'));
    op = op === 'is' ? '==' : '!=';
  }
  if (op === 'in' || op === 'not in') {
    if (b.k === 'tuple') {
      const hits = b.items.map((it) => st.truth(compare2(st, '==', a, it)));
      if (hits.some((h) => h === true)) return boolConst(op === 'in');
      if (hits.every((h) => h === false)) return boolConst(op !== 'in');
    }
    return scalar(undefined, 'bool', false);
  }
  if (a.k === 'dtype' && b.k === 'dtype') {
    if (op === '==' || op === '!=') return boolConst((a.dtype === b.dtype && !!a.pointer === !!b.pointer) === (op === '=='));
    return scalar(undefined, 'bool', false);
  }
  if (a.k === 'str' && b.k === 'str') {
    if (op === '==' || op === '!=') return boolConst((a.s === b.s) === (op === '=='));
    return scalar(undefined, 'bool', false);
  }
  if ((a.k === 'dtype' && b.k === 'str') || (a.k === 'str' && b.k === 'dtype')) {
    const d = parseDtype(a.k === 'str' ? a.s : (b as { s: string }).s);
    const other = a.k === 'dtype' ? a.dtype : (b as { dtype: Dtype }).dtype;
    if (d && (op === '==' || op === '!=')) return boolConst((d === other) === (op === '=='));
  }
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
    const av = evaluate(a.value, st.env);
    const bv = evaluate(b.value, st.env);
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
    const wide = st.atLoopStart(bound);
    if (e && e.dimR !== null) clips.set(e.dimR, wide);
    let maskExtent: Expr[] | undefined;
    if (idx.pureArange && shape.length > 0) {
      const pa = idx.pureArange;
      const lim = sub(bound, pa.start);
      const limV = evaluate(lim, st.env);
      const lenV = evaluate(pa.len, st.env);
      if (limV !== undefined && lenV !== undefined && limV < lenV) {
        const pos = shape.length - 1 - pa.dimR;
        maskExtent = shape.map((s, i) => (i === pos ? emax(ZERO, emin(pa.len, lim)) : s));
        st.notes.assume('maskMinBound', printExpr(bound), printExpr(emin(pa.len, lim)), printExpr(pa.len));
      }
    }
    return { ...base, clips, maskExtent };
  }
  return base;
}

// ------------------------------------------------------------------ arithmetic

/** `a op b` on abstract values: its cost, shape, type and symbolic value. */
export function binaryOp(st: TritonState, op: string, a: Val, b: Val, n: Node): Val {
  if (op === '@') return st.ops.dot(a, b, undefined, n, {});
  if (a.k === 'tuple' && b.k === 'tuple' && op === '+') return { k: 'tuple', items: [...a.items, ...b.items] };
  if (a.k === 'blockptr' || b.k === 'blockptr') return a.k === 'blockptr' ? a : b;
  if (a.k !== 'num' || b.k !== 'num') {
    // An unknown operand (an unresolvable name or call) still takes part in the arithmetic as
    // a run-time scalar of the other operand's type: `x * SCALE` costs its multiplies.
    const runtime = (like: NumVal): NumVal => ({ ...scalar(undefined, like.dtype, false), off: offUnknown() });
    if (a.k === 'num' && b.k === 'unknown') return binaryOp(st, op, a, runtime(a), n);
    if (b.k === 'num' && a.k === 'unknown') return binaryOp(st, op, runtime(b), b, n);
    if (a.k === 'num') return { ...a, value: undefined, off: offUnknown() };
    if (b.k === 'num') return { ...b, value: undefined, off: offUnknown() };
    return unknown(`operator ${op}`);
  }
  const shape = broadcast(a.shape, b.shape);
  const isConst = a.isConst && b.isConst;
  const data = a.data || b.data;
  const isBitwise = op === '&' || op === '|' || op === '^';
  let dtype: Dtype = op === '/' && !isFloat(a.dtype) && !isFloat(b.dtype) ? 'fp32' : promote(a.dtype, b.dtype);
  if (isBitwise && a.dtype === 'bool' && b.dtype === 'bool') dtype = 'bool';
  // A Python float literal does not widen a block's type (tl's weak typing).
  if (a.literalFloat && isFloat(b.dtype)) dtype = b.dtype;
  if (b.literalFloat && isFloat(a.dtype)) dtype = a.dtype;
  // Data of an assumed type meeting an integer index block (arange-derived) is index arithmetic
  // (gathered offsets); meeting a scalar argument it stays arithmetic on data (`a * x`).
  const indexBlock = (v: NumVal): boolean => v.shape.length > 0 && !v.data && !isFloat(v.dtype) && v.dtype !== 'bool';
  if (a.assumedType && indexBlock(b)) dtype = b.dtype;
  if (b.assumedType && indexBlock(a)) dtype = a.dtype;
  const fromLoads = union(a.fromLoads ?? [], b.fromLoads ?? []);
  const value =
    a.shape.length === 0 && b.shape.length === 0 && a.value && b.value
      ? isBitwise && dtype !== 'bool'
        ? bitop(op as '&' | '|' | '^', a.value, b.value)
        : isBitwise
          ? boolValue(op, a.value, b.value)
          : binop(op, a.value, b.value)
      : undefined;
  // Pointer provenance: pointer ± offset stays a pointer into the same tensor.
  let ptr: string | undefined;
  // Only an integer offset (an index, or gathered indices) keeps a pointer: `var + eps` is arithmetic.
  const isOffset = (v: NumVal): boolean => ((!isFloat(v.dtype) || !!v.assumedType) && !v.literalFloat) || (v.fromLoads?.length ?? 0) > 0;
  if ((op === '+' || op === '-') && isOffset(a) && isOffset(b)) {
    if (a.ptr && b.ptr) ptr = op === '-' ? undefined : PTR_NAME.test(b.ptr) && !PTR_NAME.test(a.ptr) ? b.ptr : a.ptr;
    else ptr = a.ptr ?? (op === '+' ? b.ptr : undefined);
    // Loaded values of an assumed type used as an offset are indices (an integer tensor).
    if (ptr) for (const t of (a.ptr ? b : a).fromLoads ?? []) st.indexUses.add(t);
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
    off: offsetsOf(op, a, b),
    eff: combineExtents(a.eff, b.eff, shape),
    assumedType: (a.assumedType || b.assumedType) && !isFloat(dtype) ? undefined : a.assumedType && b.assumedType,
    ...(fromLoads.length && !ptr ? { fromLoads } : {}),
    // A cast survives arithmetic in its own type (`y.cast(b.dtype) * b`): a hint for the pointer it is stored to.
    ...((a.castTo ?? b.castTo) === dtype ? { castTo: dtype } : {}),
  };
  if (op === '+' && a.pureArange && b.shape.length === 0 && b.isConst && b.value) res.pureArange = { ...a.pureArange, start: add(a.pureArange.start, b.value) };
  if (op === '+' && b.pureArange && a.shape.length === 0 && a.isConst && a.value) res.pureArange = { ...b.pureArange, start: add(b.pureArange.start, a.value) };
  if (op === '&') {
    res.maskExtent = combineExtents(a.maskExtent, b.maskExtent, shape);
    const clips = new Map<number, Expr>();
    for (const src of [a.clips, b.clips]) for (const [d, e] of src ?? []) clips.set(d, clips.has(d) ? emin(clips.get(d)!, e) : e);
    res.clips = clips;
  }
  // Work: float arithmetic on anything but compile-time constants is FLOPs; integer arithmetic on data is integer ops.
  if (ptr || dtype === 'bool' || isConst) return res;
  const count = numel(res.eff ?? shape);
  if (isFloat(dtype)) {
    if (op === '+' && (a.fromDot || b.fromDot)) {
      st.notes.assume('dotAccumulate');
      return { ...res, fromDot: true };
    }
    if (op === '**') st.rec.flop('special', 'pow', count, dtype, line(n), { special: true });
    else st.rec.flop('elementwise', op, count, dtype, line(n));
  } else if (data) st.rec.int(op, count, line(n));
  return res;
}

/** `and`/`or` of two compile-time truth values that are still symbols (`A and not B`). */
function boolValue(op: string, a: Expr, b: Expr): Expr | undefined {
  if (op === '&') return mul(a, b);
  if (op === '|') return sub(add(a, b), mul(a, b));
  return undefined;
}

function offsetsOf(op: string, a: NumVal, b: NumVal): Offsets | undefined {
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
