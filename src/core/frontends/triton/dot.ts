/**
 * Matrix products and reductions in a Triton kernel: `tl.dot` (2·M·N·K on
 * tensor cores; fp32 inputs run as tf32 unless `input_precision="ieee"`;
 * int8 on the int8 tensor peak), `tl.sum`/`tl.max`/`tl.cumsum`/… (n − 1
 * combines per output), and `tl.reduce`/`tl.associative_scan` with a combine
 * function of the file (its own FLOPs per combine).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { Event, Region } from '../../ir';
import { mul, num, ONE, sub, type Expr } from '../../sym/expr';
import { isFloat, promote } from '../common';
import type { TritonState } from './state';
import { line, shorten } from './syntax';
import { alignDims, numel, scalar, union, unknown, type NumVal, type Val } from './values';

export function dot(st: TritonState, x: Val | undefined, y: Val | undefined, acc: Val | undefined, n: Node, opts: Record<string, Val | undefined>): Val {
  if (x?.k !== 'num' || y?.k !== 'num' || x.shape.length < 2 || y.shape.length < 2) {
    st.notes.say('unknownDotShape', line(n), shorten(n.text, 40));
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
    const allow = opts.allow_tf32 ? st.truth(opts.allow_tf32) : undefined;
    if (prec === 'ieee' || allow === false) {
      dt = 'fp32';
      tensorCore = false;
      st.notes.assume('ieeeDot');
    } else {
      dt = 'tf32';
      st.notes.assume('tf32Dot');
    }
  } else if (!isFloat(dt)) {
    // Integer products run on the int8 tensor cores (their intensity is in OP/B).
    dt = 'int8';
    st.notes.assume('int8Dot');
  }
  st.rec.flop('dot', 'tl.dot', mul(num(2), batch, M, N, K), dt, line(n), { tensorCore });
  const outDt = st.dtypeOf(opts.out_dtype) ?? (dt === 'int8' ? 'int32' : acc?.k === 'num' ? acc.dtype : 'fp32');
  const shape = [...x.shape.slice(0, -1), N];
  return { k: 'num', shape, dtype: outDt, isConst: false, data: true, pids: union(x.pids, y.pids), loops: union(x.loops, y.loops), fromDot: true };
}

const SUMS = new Set(['sum', 'cumsum', 'cumprod', 'prod']);

export function reduce(st: TritonState, name: string, input: Val | undefined, axisV: Val | undefined, kw: Map<string, Node>, n: Node): Val {
  // `tl.reduce((mean, m2, w), 0, combine)`: several inputs reduced together by one combine function.
  if (input?.k === 'tuple') {
    const first = input.items.find((v): v is NumVal => v.k === 'num');
    if (!first) return unknown(name);
    const r = reduce(st, name, first, axisV, kw, n);
    return { k: 'tuple', items: input.items.map((v) => (v.k === 'num' && r.k === 'num' ? { ...r, dtype: v.dtype } : r)) };
  }
  const x = input;
  if (!x || x.k !== 'num') return unknown(name);
  const keep = kw.has('keep_dims') ? st.truth(st.ops.eval(kw.get('keep_dims')!)) : false;
  const hasAxis = axisV && axisV.k === 'num' && axisV.value;
  const lanes = x.eff ? alignDims(x.eff, x.shape.length, ONE).map((e, i) => (e.constant === 1 ? x.shape[i] : e)) : x.shape;
  const total = numel(lanes);
  let outShape: Expr[];
  let outputs: Expr;
  let outEff: Expr[] | undefined;
  if (hasAxis) {
    let ax = st.axisOf(axisV);
    if (ax < 0) ax += x.shape.length;
    outShape = x.shape.map((s, i) => (i === ax ? ONE : s));
    if (!keep) outShape = x.shape.filter((_, i) => i !== ax);
    outputs = numel(lanes.filter((_, i) => i !== ax));
    if (x.eff) outEff = keep ? lanes.map((l, i) => (i === ax ? ONE : l)) : lanes.filter((_, i) => i !== ax);
  } else {
    outShape = [];
    outputs = ONE;
  }
  const short = name.slice(name.lastIndexOf('.') + 1);
  const isScan = short === 'cumsum' || short === 'cumprod' || short === 'associative_scan';
  if (isScan) {
    outShape = x.shape;
    outEff = x.eff;
  }
  const combines = sub(total, outputs);
  const res: NumVal = { k: 'num', shape: outShape, dtype: short.startsWith('arg') ? 'int32' : x.dtype, isConst: x.isConst, data: x.data, pids: x.pids, loops: x.loops, eff: outEff };
  if (x.isConst) return res;
  const combineFn = kw.get('combine_fn');
  if (short === 'reduce' || short === 'associative_scan') {
    const fnNode = combineFn ?? (n.childForFieldName('arguments')?.namedChildren.filter((c) => c && c.type !== 'keyword_argument')[2] ?? null);
    const fn = fnNode ? st.ops.eval(fnNode) : undefined;
    const helper = fn?.k === 'func' ? st.inp.mod.functions.get(fn.name) : undefined;
    if (helper) {
      for (const e of measureCombine(st, helper.name, x)) {
        if (e.kind === 'flop') st.rec.flop(e.class === 'special' ? 'special' : 'reduction', `${name} (${e.op})`, mul(combines, e.count), e.dtype, line(n), { special: e.special });
        else if (e.kind === 'int') st.rec.int(`${name} (${e.op})`, mul(combines, e.count), line(n));
      }
      return res;
    }
  }
  if (SUMS.has(short) || short === 'reduce' || short === 'associative_scan') {
    if (isFloat(x.dtype)) st.rec.flop('reduction', name, combines, x.dtype, line(n));
    else if (x.data) st.rec.int(name, combines, line(n));
  } else if (short === 'xor_sum' && x.data) st.rec.int(name, combines, line(n));
  return res;
}

/** The FLOPs of one call of a combine function on two elements (inlined on scalars, not recorded). */
function measureCombine(st: TritonState, fn: string, x: NumVal): Event[] {
  const helper = st.inp.mod.functions.get(fn);
  if (!helper) return [];
  const one = scalar(undefined, x.dtype, false, { data: true });
  const region: Region = { kind: 'kernel', line: helper.line, trips: ONE, label: fn, events: [], children: [] };
  st.rec.detached(region, () => {
    const vars = new Map<string, Val>();
    helper.params.forEach((p) => vars.set(p.name, one));
    st.frames.push({ vars, fn: helper.name, returned: undefined, done: false });
    try {
      const body = helper.node.childForFieldName('body');
      if (body) st.ops.execBlock(body);
    } finally {
      st.frames.pop();
    }
  });
  const out: Event[] = [];
  const flat = (r: Region): void => {
    out.push(...r.events);
    r.children.forEach(flat);
  };
  flat(region);
  return out;
}
