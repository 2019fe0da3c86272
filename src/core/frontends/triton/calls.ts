/**
 * Calls in a Triton kernel: jit helpers (inlined at each call), `tl.*`
 * builtins, libdevice and other math functions (costed by engine/math.ts),
 * methods of blocks (`x.to`, `x.cast`, `x.sum`) and of descriptors
 * (`desc.load`), and calls the analysis cannot see (engine/calls.ts: their
 * result keeps the broadcast shape of their arguments).
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import { decide } from '../../engine/branch';
import { unknownCall } from '../../engine/calls';
import { mathKind } from '../../engine/math';
import type { Dtype } from '../../gpus/types';
import { cdiv, evaluate, max as emax, min as emin, mul, num, printExpr, sub, sym, ZERO, type Expr } from '../../sym/expr';
import { isFloat, parseDtype, promote } from '../common';
import { reduce } from './dot';
import { transpose } from './expr';
import { atomic, load, loadBlock, makeBlockPtr, store, storeBlock, descriptorFromParam } from './memory';
import { canonical, nextPow2, type FnInfo } from './module';
import { offConst, offRange, offRemap, offUnknown } from './offsets';
import type { TritonState } from './state';
import { callArgs, dotted, field, line, named, shorten } from './syntax';
import { broadcast, combineExtents, constInt, NONE, numel, scalar, union, unknown, type NumVal, type Val } from './values';

const MAX_CALL_DEPTH = 16;
const PTR_NAME = /(ptr|Ptr|PTR|_p|pointer|base)$/;

const NOOP_CALLS = new Set([
  'tl.static_assert',
  'tl.device_assert',
  'tl.static_print',
  'tl.device_print',
  'tl.debug_barrier',
  'tl.assume',
  'print',
  // Programmatic dependent launch and a tensor-map fence: ordering, no work.
  'tl.extra.cuda.gdc_wait',
  'tl.extra.cuda.gdc_launch_dependents',
  'tl.extra.cuda.experimental_tensormap_fenceproxy_acquire',
]);
const HINTS = new Set(['tl.multiple_of', 'tl.max_contiguous', 'tl.max_constancy', 'tl.optimization_barrier']);

/** Triton functions a project module often re-exports (random numbers, tensor descriptors), by name. */
const TL_LIBRARY = new Set(['philox', 'uint_to_uniform_float', 'pair_uniform_to_normal', 'randint4x', 'make_tensor_descriptor']);

export function call(st: TritonState, n: Node): Val {
  const fnode = field(n, 'function');
  if (!fnode) return unknown('call');
  const f = st.ops.eval(fnode);
  const { pos, kw } = callArgs(n);
  // `tl.float32(0.0)`: a dtype called as a constructor is a cast of its argument.
  if (f.k === 'dtype' && !f.pointer && pos.length === 1 && kw.size === 0) return castTo(st.ops.eval(pos[0]), f);
  if (f.k !== 'func') {
    const name = dotted(fnode) ?? shorten(fnode.text, 30);
    return opaqueCall(st, name, pos.map((p) => st.ops.eval(p)), n);
  }
  if (f.self) return method(st, f.name.slice(1), f.self, pos, kw, n);
  const helper = st.inp.mod.functions.get(f.name);
  if (helper) return inline(st, helper, pos, kw, n);
  return builtin(st, f.name, pos, kw, n);
}

/** `a if c else b`: decided like an `if` (a data-dependent one counts the costlier value). */
export function conditional(st: TritonState, n: Node): Val {
  const [a, c, b] = named(n);
  const cv = c ? st.ops.eval(c) : NONE;
  const t = st.truth(cv);
  if (t === true && a) return st.ops.eval(a);
  if (t === false && b) return st.ops.eval(b);
  let out: Val | undefined;
  const cls = cv.k !== 'num' || cv.data ? { k: 'data' as const } : cv.isConst ? { k: 'compile' as const, names: st.missing(cv) } : { k: 'data' as const };
  decide(st, cls, {
    line: line(n),
    text: shorten(c?.text ?? '?', 50),
    ternary: true,
    then: a ? () => (out = st.ops.eval(a)) : undefined,
    else: b
      ? () => {
          const v = st.ops.eval(b);
          out ??= v;
        }
      : undefined,
  });
  return out ?? unknown('conditional');
}

/**
 * A call the analysis cannot see: 0 FLOPs, a warning, and a result of the
 * broadcast shape of its arguments (engine/calls.ts), so `1 + f(x)` on a block
 * still counts per element.
 */
export function opaqueCall(st: TritonState, name: string, args: Val[], n: Node): Val {
  const nums = args.filter((a): a is NumVal => a.k === 'num');
  // An untyped argument may be a pointer or a scalar: its name, an annotation or a use as a pointer tells.
  const isPointer = (a: NumVal): boolean => !!a.ptr && !a.data && (PTR_NAME.test(a.ptr) || st.ptrDtypes.has(a.ptr) || a.dtype === 'int64');
  const pointer = nums.some(isPointer) || args.some((a) => a.k === 'blockptr');
  // `mylib.activations.mystery` (imported) is `mystery`, from `mylib.activations`.
  const dot = name.lastIndexOf('.');
  const imported = dot > 0 && !/^(tl|libdevice|triton)\./.test(name) && [...st.inp.mod.imports.values()].some((p) => p === name || name.startsWith(p + '.'));
  const shown = imported ? name.slice(dot + 1) : name;
  if (st.rec.quiet === 0) unknownCall(st.notes, { name: shown, line: line(n), pointer, ...(imported ? { from: name.slice(0, dot) } : {}) });
  if (!nums.length) return unknown(`call ${name}`);
  let shape: Expr[] = [];
  let dtype: Dtype = nums[0].dtype;
  for (const a of nums) {
    shape = broadcast(shape, a.shape);
    dtype = promote(dtype, isPointer(a) ? 'fp32' : a.dtype);
  }
  if (dtype === 'bool' || dtype === 'int64') dtype = nums.every((a) => !isFloat(a.dtype)) ? 'int32' : 'fp32';
  // A dtype among the arguments (`my_cast(x, tl.int64)`) is the result's type: an integer stays an index.
  const asType = args.find((a) => a.k === 'dtype' && !a.pointer);
  if (asType?.k === 'dtype') dtype = asType.dtype;
  const index = !isFloat(dtype) && nums.every((a) => !a.data);
  return {
    k: 'num',
    shape,
    dtype,
    isConst: false,
    data: !index,
    pids: union(...nums.map((a) => a.pids)),
    loops: union(...nums.map((a) => a.loops)),
    off: index && nums.length === 1 ? nums[0].off : offUnknown(),
  };
}

function inline(st: TritonState, fn: FnInfo, pos: Node[], kw: Map<string, Node>, n: Node): Val {
  if (st.frames.some((f) => f.fn === fn.name)) {
    st.notes.say('recursion', line(n), fn.name);
    return unknown('recursion');
  }
  if (st.frames.length > MAX_CALL_DEPTH) {
    st.notes.say('depthLimit', line(n), `helper \`${fn.name}\``);
    return unknown('depth');
  }
  if (!fn.isJit) return opaqueCall(st, fn.name, pos.map((p) => st.ops.eval(p)), n);
  const vars = new Map<string, Val>();
  fn.params.forEach((p, i) => {
    const node = i < pos.length ? pos[i] : kw.get(p.name);
    let v: Val | undefined = node ? st.ops.eval(node) : undefined;
    if (!v && p.default) v = st.ops.eval(p.default);
    vars.set(p.name, v ?? unknown(`argument ${p.name}`));
  });
  const body = field(fn.node, 'body');
  st.frames.push({ vars, fn: fn.name, returned: undefined, done: false });
  try {
    if (body) st.ops.execBlock(body);
    return st.frame.returned ?? NONE;
  } finally {
    st.frames.pop();
  }
}

/** A math function on blocks: its FLOPs by kind (engine/math.ts); min/max/abs/… keep integers integer. */
function elementwise(st: TritonState, name: string, args: (Val | undefined)[], n: Node, kind = mathKind(name)): Val {
  const nums = args.filter((a): a is NumVal => a?.k === 'num');
  if (!nums.length) return unknown(name);
  let shape: Expr[] = [];
  let dtype: Dtype = nums[0].dtype;
  for (const a of nums) {
    shape = broadcast(shape, a.shape);
    dtype = a.literalFloat && nums.some((b) => !b.literalFloat) ? dtype : promote(dtype, a.dtype);
  }
  const data = nums.some((a) => a.data);
  const isConst = nums.every((a) => a.isConst);
  let eff: Expr[] | undefined;
  for (const a of nums) eff = combineExtents(eff, a.eff, shape);
  const short = name.slice(name.lastIndexOf('.') + 1);
  const base: NumVal = { k: 'num', shape, dtype, isConst, data, pids: union(...nums.map((a) => a.pids)), loops: union(...nums.map((a) => a.loops)), off: offUnknown(), eff };
  if (kind === 'free') {
    // 0 FLOPs; an index stays an index: `tl.minimum(pid, m)` is still an integer with a symbolic value.
    const scalars = nums.every((a) => a.shape.length === 0 && a.value);
    if (scalars && (short === 'minimum' || short === 'maximum' || short === 'min' || short === 'max' || short === 'fmin' || short === 'fmax')) {
      const lo = short.endsWith('min') || short === 'minimum';
      const value = nums.map((a) => a.value!).reduce((p, q) => (lo ? emin(p, q) : emax(p, q)));
      return { ...base, value, off: nums[0].off ?? offUnknown(), fromLoads: union(...nums.map((a) => a.fromLoads ?? [])) };
    }
    const first = nums[0];
    const keepsIndex = !isFloat(dtype) && (short === 'minimum' || short === 'maximum' || short === 'clamp' || short === 'abs');
    return { ...base, ...(keepsIndex ? { off: first.off } : {}), fromLoads: union(...nums.map((a) => a.fromLoads ?? [])) };
  }
  // Math on integers computes in fp32 (libdevice casts); FLOPs are floating-point work.
  if (!isFloat(dtype)) dtype = 'fp32';
  const res: NumVal = { ...base, dtype };
  if (isConst) return res;
  const count = numel(eff ?? shape);
  if (kind === 'fma') st.rec.flop('fma', name, mul(num(2), count), dtype, line(n));
  else if (kind === 'plain') st.rec.flop('elementwise', name, count, dtype, line(n));
  else if (kind === 'special') st.rec.flop('special', name, count, dtype, line(n), { special: true });
  return res;
}

function builtin(st: TritonState, name: string, pos: Node[], kw: Map<string, Node>, n: Node): Val {
  const a = (i: number, k?: string): Val | undefined => {
    const node = i < pos.length ? pos[i] : k ? kw.get(k) : undefined;
    return node ? st.ops.eval(node) : undefined;
  };
  const short = name.slice(name.lastIndexOf('.') + 1);
  if (NOOP_CALLS.has(name)) {
    for (const p of pos) st.ops.eval(p);
    return NONE;
  }
  if (HINTS.has(name)) return a(0, 'input') ?? NONE;
  // `tle.program_id(0)` (a project's own wrapper module) is a program id too.
  const canon = /\.(program_id|num_programs)$/.test(name) && !name.startsWith('tl.') ? `tl.${short}` : name;
  switch (canon) {
    case 'tl.program_id': {
      const axis = st.axisOf(a(0, 'axis'));
      const P = st.numPrograms(axis);
      // Along a grid axis of size 1 the program id is 0 (a 1-D launch's axis 1), as in CUDA and WGSL.
      if (evaluate(P, st.env) === 1) return scalar(ZERO, 'int32', false, { off: offConst(ZERO) });
      return scalar(sym(`tl.program_id(${axis})`), 'int32', false, { pids: [axis], off: offRange(ZERO, P, null) });
    }
    case 'tl.num_programs': {
      const P = st.numPrograms(st.axisOf(a(0, 'axis')));
      return scalar(P, 'int32', false, { off: offConst(P) });
    }
    case 'tl.arange': {
      const se = st.scalarExpr(a(0, 'start')) ?? ZERO;
      const ee = st.scalarExpr(a(1, 'end')) ?? sym('?arange');
      const len = sub(ee, se);
      const lenV = evaluate(len, st.env);
      if (lenV !== undefined && (!Number.isInteger(lenV) || lenV < 0)) {
        st.notes.say('badArange', line(n), printExpr(se), printExpr(ee), lenV);
        return unknown('arange size');
      }
      return { k: 'num', shape: [len], dtype: 'int32', isConst: false, data: false, pids: [], loops: [], off: offRange(se, ee, 0), pureArange: { start: se, len, dimR: 0 } };
    }
    case 'tl.zeros':
    case 'tl.full':
    case 'tl.empty': {
      const shape = st.shapeOf(a(0, 'shape')) ?? [];
      const dt = st.dtypeOf(name === 'tl.full' ? a(2, 'dtype') : a(1, 'dtype')) ?? 'fp32';
      return { k: 'num', shape, dtype: dt, isConst: true, data: false, pids: [], loops: [] };
    }
    case 'tl.zeros_like':
    case 'tl.full_like':
    case 'tl.empty_like': {
      const x = a(0, 'input');
      if (x?.k !== 'num') return unknown(name);
      return { k: 'num', shape: x.shape, dtype: st.dtypeOf(kw.has('dtype') ? st.ops.eval(kw.get('dtype')!) : undefined) ?? x.dtype, isConst: true, data: false, pids: [], loops: [] };
    }
    case 'tl.cdiv':
    case 'triton.cdiv': {
      const x = a(0, 'x');
      const y = a(1, 'div');
      const xe = st.scalarExpr(x);
      const ye = st.scalarExpr(y);
      if (!xe || !ye) return unknown('cdiv');
      return scalar(cdiv(xe, ye), 'int32', st.isConst(x!) && st.isConst(y!), { off: offConst(cdiv(xe, ye)), pids: union(x!.k === 'num' ? x!.pids : [], y!.k === 'num' ? y!.pids : []) });
    }
    case 'triton.next_power_of_2':
    case 'tl.next_power_of_2': {
      const x = a(0);
      const v = x && x.k === 'num' && x.value ? evaluate(x.value, st.env) : undefined;
      return v === undefined ? unknown('next_power_of_2') : constInt(nextPow2(v));
    }
    case 'tl._log2': {
      // `tl._log2(N)`: log2 of a compile-time power of two (bitonic-sort helpers).
      const x = a(0, 'i');
      const v = x && x.k === 'num' && x.value ? evaluate(x.value, st.env) : undefined;
      return v === undefined || v <= 0 ? unknown('_log2') : constInt(Math.floor(Math.log2(v)));
    }
    case 'tl.gather': {
      // `tl.gather(src, index, axis)`: elements of a block picked by an index block — register moves, 0 FLOPs;
      // the result has the index's shape and the source's type.
      const src = a(0, 'src');
      const idx = a(1, 'index');
      a(2, 'axis');
      if (src?.k !== 'num' || idx?.k !== 'num') return opaqueCall(st, name, [src, idx].filter((x): x is Val => x !== undefined), n);
      return { ...src, shape: idx.shape, isConst: false, value: undefined, off: undefined, data: src.data || idx.data, pids: union(src.pids, idx.pids) } as NumVal;
    }
    case 'tl.load':
      return load(st, a(0, 'pointer'), kw.has('mask') || pos.length > 1 ? a(1, 'mask') : undefined, n);
    case 'tl.store':
      store(st, a(0, 'pointer'), a(1, 'value'), kw.has('mask') || pos.length > 2 ? a(2, 'mask') : undefined, n);
      return NONE;
    case 'tl.dot': {
      const x = a(0, 'input');
      const y = a(1, 'other');
      const acc = a(2, 'acc');
      const opts: Record<string, Val | undefined> = {};
      for (const k of ['input_precision', 'allow_tf32', 'out_dtype']) if (kw.has(k)) opts[k] = st.ops.eval(kw.get(k)!);
      return st.ops.dot(x, y, acc, n, opts);
    }
    case 'tl.dot_scaled':
      return st.ops.dot(a(0, 'lhs'), a(3, 'rhs'), a(6, 'acc'), n, { forceDtype: { k: 'dtype', dtype: 'fp8' } });
    case 'tl.sum':
    case 'tl.reduce':
    case 'tl.cumsum':
    case 'tl.cumprod':
    case 'tl.prod':
    case 'tl.xor_sum':
    case 'tl.max':
    case 'tl.min':
    case 'tl.argmax':
    case 'tl.argmin':
    case 'tl.associative_scan':
      return reduce(st, name, a(0, 'input'), a(1, 'axis'), kw, n);
    case 'tl.where':
      return where(st, a(0, 'condition'), a(1, 'x'), a(2, 'y'));
    case 'tl.make_block_ptr':
      return makeBlockPtr(st, a(0, 'base'), a(1, 'shape'), a(4, 'block_shape'), false, n);
    case 'tl.make_tensor_descriptor':
    case 'tl._experimental_make_tensor_descriptor':
    case 'tl.experimental.make_tensor_descriptor':
      return makeBlockPtr(st, a(0, 'base'), a(1, 'shape'), a(3, 'block_shape'), true, n);
    case 'tl.advance':
      return a(0, 'base') ?? unknown('advance');
    case 'tl._experimental_descriptor_load': {
      // The early TMA API names the block shape and element type at each load.
      const desc = a(0, 'desc_pointer');
      a(1, 'offsets');
      const shape = st.shapeOf(a(2, 'shape'));
      const dt = st.dtypeOf(a(3, 'dtype'));
      if (desc?.k === 'num' && desc.ptr && shape) {
        if (dt && !st.inp.userDtypes[desc.ptr]) st.ptrDtypes.set(desc.ptr, { dtype: dt, how: 'descriptor load' });
        return loadBlock(st, { k: 'blockptr', target: desc.ptr, dtype: dt ?? st.elemDtype(desc.ptr).dtype, tensorShape: null, block: shape, pids: desc.pids, loops: desc.loops, descriptor: true }, n);
      }
      const d = descriptorFromParam(st, desc, n);
      return d ? loadBlock(st, d, n) : unknown('descriptor');
    }
    case 'tl._experimental_descriptor_store': {
      const desc = a(0, 'desc_pointer');
      const v = a(1, 'value');
      a(2, 'offsets');
      if (desc?.k === 'num' && desc.ptr && v?.k === 'num' && v.shape.length) {
        if (!st.inp.userDtypes[desc.ptr]) st.ptrDtypes.set(desc.ptr, { dtype: v.castTo ?? v.dtype, how: 'descriptor store' });
        storeBlock(st, { k: 'blockptr', target: desc.ptr, dtype: v.dtype, tensorShape: null, block: v.shape, pids: desc.pids, loops: desc.loops, descriptor: true }, v, n);
        return NONE;
      }
      const d = descriptorFromParam(st, desc, n);
      if (d) storeBlock(st, d, v, n);
      return NONE;
    }
    case 'tl.load_tensor_descriptor': {
      const d = descriptorFromParam(st, a(0, 'desc'), n);
      return d ? loadBlock(st, d, n) : unknown('descriptor');
    }
    case 'tl.store_tensor_descriptor': {
      const d = descriptorFromParam(st, a(0, 'desc'), n);
      const v = a(2, 'value') ?? a(1, 'value');
      if (d) storeBlock(st, d, v, n);
      return NONE;
    }
    case 'tl.atomic_add':
    case 'tl.atomic_max':
    case 'tl.atomic_min':
    case 'tl.atomic_xchg':
    case 'tl.atomic_cas':
    case 'tl.atomic_and':
    case 'tl.atomic_or':
    case 'tl.atomic_xor':
      return atomic(st, short, a(0, 'pointer'), a(1, short === 'atomic_cas' ? 'cmp' : 'val'), kw.has('mask') || pos.length > 2 ? a(2, 'mask') : undefined, n);
    case 'tl.reshape':
    case 'tl.view': {
      const x = a(0, 'input');
      const shape = st.shapeOf(a(1, 'shape'));
      if (x?.k !== 'num' || !shape) return x ?? unknown(name);
      return { ...x, shape, off: offUnknown(), maskExtent: undefined, clips: undefined, pureArange: undefined };
    }
    case 'tl.trans':
    case 'tl.permute': {
      const x = a(0, 'input');
      return x?.k === 'num' ? transpose(x) : (x ?? unknown(name));
    }
    case 'tl.expand_dims': {
      const x = a(0, 'input');
      if (x?.k !== 'num') return x ?? unknown(name);
      return expandDims(x, st.axisOf(a(1, 'axis')));
    }
    case 'tl.broadcast_to': {
      const x = a(0, 'input');
      const shape = st.shapeOf(a(1, 'shape'));
      return x?.k === 'num' && shape ? { ...x, shape } : (x ?? unknown(name));
    }
    case 'tl.broadcast': {
      const x = a(0);
      const y = a(1);
      if (x?.k === 'num' && y?.k === 'num') {
        const shape = broadcast(x.shape, y.shape);
        return { k: 'tuple', items: [{ ...x, shape }, { ...y, shape }] };
      }
      return unknown(name);
    }
    case 'tl.join':
    case 'tl.interleave':
    case 'tl.cat': {
      const xs = pos.map((p) => st.ops.eval(p));
      const x = xs[0];
      if (x?.k !== 'num') return unknown(name);
      const shape = [...x.shape];
      if (name === 'tl.join') shape.push(num(2));
      else if (shape.length) shape[shape.length - 1] = mul(num(2), shape[shape.length - 1]);
      const nums = xs.filter((v): v is NumVal => v.k === 'num');
      return { ...x, shape, off: offUnknown(), data: nums.some((v) => v.data), pids: union(...nums.map((v) => v.pids)), loops: union(...nums.map((v) => v.loops)) };
    }
    case 'tl.split': {
      const x = a(0);
      if (x?.k !== 'num') return unknown(name);
      const half: NumVal = { ...x, shape: x.shape.slice(0, -1), off: offUnknown() };
      return { k: 'tuple', items: [half, half] };
    }
    case 'tl.cast':
      return castTo(a(0, 'input'), a(1, 'dtype'));
    case 'tl.rand':
    case 'tl.randn':
    case 'tl.randint':
    case 'tl.randint4x': {
      a(0, 'seed');
      const off = a(1, 'offset');
      const shape = off?.k === 'num' ? off.shape : [];
      const isInt = short === 'randint' || short === 'randint4x';
      // Philox is integer work; the conversion to a float in [0, 1) is 1 FLOP per element (COUNTING.md).
      if (!isInt) st.rec.flop('elementwise', name, numel(shape), 'fp32', line(n));
      const r: NumVal = { k: 'num', shape, dtype: isInt ? 'int32' : 'fp32', isConst: false, data: true, pids: [], loops: [] };
      return short === 'randint4x' ? { k: 'tuple', items: [r, r, r, r] } : r;
    }
    case 'tl.swizzle2d': {
      // `i, j = tl.swizzle2d(i, j, size_i, size_j, size_g)`: a permutation of the tile indices — integer work, the same ranges.
      const i = a(0, 'i');
      const j = a(1, 'j');
      for (let k = 2; k < pos.length; k++) st.ops.eval(pos[k]);
      if (i?.k === 'num' && j?.k === 'num') return { k: 'tuple', items: [i, j] };
      return opaqueCall(st, name, [i, j].filter((x): x is Val => x !== undefined), n);
    }
    case 'tl.philox': {
      // `r0, r1, r2, r3 = tl.philox(seed, c0, c1, c2, c3)`: four blocks of random integers — integer work, 0 FLOPs.
      const xs = pos.map((p) => st.ops.eval(p));
      const nums = xs.filter((x): x is NumVal => x.k === 'num');
      const shape = nums.reduce<Expr[]>((sh, x) => broadcast(sh, x.shape), []);
      const r: NumVal = { k: 'num', shape, dtype: 'int32', isConst: false, data: true, pids: [], loops: [] };
      return { k: 'tuple', items: [r, r, r, r] };
    }
    case 'tl.uint_to_uniform_float': {
      // The conversion of random integers to floats in [0, 1): 1 FLOP per element, as in `tl.rand`.
      const x = a(0, 'x');
      const shape = x?.k === 'num' ? x.shape : [];
      st.rec.flop('elementwise', name, numel(shape), 'fp32', line(n));
      return { k: 'num', shape, dtype: 'fp32', isConst: false, data: true, pids: [], loops: [] };
    }
    case 'tl.pair_uniform_to_normal': {
      // Box–Muller on two uniform blocks: θ = 2π·u2, r = sqrt(−2·log u1), r·cos θ, r·sin θ —
      // 4 multiplications and 4 transcendentals (log, sqrt, cos, sin) per element.
      const u1 = a(0, 'u1');
      const u2 = a(1, 'u2');
      const shape = broadcast(u1?.k === 'num' ? u1.shape : [], u2?.k === 'num' ? u2.shape : []);
      st.rec.flop('elementwise', name, mul(num(4), numel(shape)), 'fp32', line(n));
      st.rec.flop('special', `${name} (log, sqrt, cos, sin)`, mul(num(4), numel(shape)), 'fp32', line(n), { special: true });
      const r: NumVal = { k: 'num', shape, dtype: 'fp32', isConst: false, data: true, pids: [], loops: [] };
      return { k: 'tuple', items: [r, r] };
    }
    case 'min':
    case 'max': {
      const xs = pos.map((p) => st.ops.eval(p));
      if (xs.length >= 2 && xs.every((x) => x.k === 'num' && x.shape.length === 0 && x.value)) {
        const es = xs.map((x) => (x as NumVal).value!);
        const v = es.reduce((p, q) => (name === 'min' ? emin(p, q) : emax(p, q)));
        return scalar(v, 'int32', xs.every((x) => st.isConst(x)), { off: offConst(v) });
      }
      return xs.length ? elementwise(st, name, xs, n, 'free') : unknown(name);
    }
    case 'isinstance': {
      const x = a(0);
      const t = pos[1] ? canonical(dotted(pos[1]) ?? '', st.inp.mod.imports) : '';
      if (/^tl\.(tensor_descriptor|tensor_descriptor_base|_experimental_tensor_descriptor)$/.test(t)) return scalar(num(x?.k === 'blockptr' && x.descriptor ? 1 : 0), 'bool', true);
      if (t === 'tl.tensor') return scalar(num(x?.k === 'num' ? 1 : 0), 'bool', true);
      if (t === 'tl.constexpr') return scalar(num(x?.k === 'num' && x.isConst ? 1 : 0), 'bool', true);
      return scalar(undefined, 'bool', false);
    }
    case 'len': {
      const x = a(0);
      return x?.k === 'tuple' ? constInt(x.items.length) : unknown('len');
    }
    case 'int':
    case 'float':
    case 'tl.constexpr':
    case 'tl.static':
      return a(0) ?? unknown(name);
    case 'abs':
      return elementwise(st, name, [a(0)], n, 'free');
    case 'tl.pointer_type': {
      const d = st.dtypeOf(a(0, 'element_ty'));
      return d ? { k: 'dtype', dtype: d, pointer: true } : unknown(name);
    }
    case 'tl.inline_asm_elementwise': {
      const args = a(1, 'args');
      st.notes.say('inlineAsm', line(n), 'tl.inline_asm_elementwise');
      return args?.k === 'tuple' ? opaqueCallQuiet(args.items) : unknown(name);
    }
    case 'tl.softmax': {
      const x = a(0, 'input');
      if (x?.k !== 'num') return unknown(name);
      const cnt = numel(x.shape);
      const rows = x.shape.length ? numel(x.shape.slice(0, -1)) : num(1);
      st.rec.flop('elementwise', 'tl.softmax (x − max)', cnt, x.dtype, line(n));
      st.rec.flop('special', 'tl.softmax (exp)', cnt, x.dtype, line(n), { special: true });
      st.rec.flop('reduction', 'tl.softmax (sum)', sub(cnt, rows), x.dtype, line(n));
      st.rec.flop('elementwise', 'tl.softmax (÷ sum)', cnt, x.dtype, line(n));
      return { ...x, data: true, off: undefined };
    }
    default:
      break;
  }
  // Triton functions re-exported by a project module (`from mylib.random import uint_to_uniform_float`,
  // `from mylib.op import make_tensor_descriptor`): counted as Triton's, and said.
  if (!name.startsWith('tl.') && TL_LIBRARY.has(short)) {
    st.notes.assume('namedLibrary', name, `tl.${short}`);
    return builtin(st, `tl.${short}`, pos, kw, n);
  }
  const args = pos.map((p) => st.ops.eval(p));
  const kind = mathKind(short);
  if (kind && (name.startsWith('tl.') || name.startsWith('libdevice.') || name.startsWith('math.'))) return elementwise(st, name, args, n, kind);
  // A math function re-exported or wrapped by another module (`from mylib.utils import rsqrt`,
  // a libdevice imported under a try/except): counted as what its name says.
  if (kind && args.some((v) => v.k === 'num')) {
    st.notes.assume('namedMath', name, short);
    return elementwise(st, name, args, n, kind);
  }
  return opaqueCall(st, name, args, n);
}

/** The broadcast result of an opaque computation whose diagnostic was already given. */
function opaqueCallQuiet(items: Val[]): Val {
  const nums = items.filter((a): a is NumVal => a.k === 'num');
  if (!nums.length) return unknown('asm');
  let shape: Expr[] = [];
  for (const a of nums) shape = broadcast(shape, a.shape);
  return { k: 'num', shape, dtype: nums[0].dtype, isConst: false, data: true, pids: [], loops: [], off: offUnknown() };
}

function expandDims(x: NumVal, ax: number): NumVal {
  const shape = [...x.shape];
  const at = ax < 0 ? shape.length + 1 + ax : ax;
  shape.splice(at, 0, num(1));
  const outRank = shape.length;
  const remap = (dimR: number): number => {
    const fromLeft = x.shape.length - 1 - dimR;
    return outRank - 1 - (fromLeft >= at ? fromLeft + 1 : fromLeft);
  };
  return { ...x, shape, off: offRemap(x.off, remap), maskExtent: undefined, clips: undefined, pureArange: undefined };
}

function where(st: TritonState, c: Val | undefined, x: Val | undefined, y: Val | undefined): Val {
  // A scalar select on a bounds check (`tl.where(start < seq_len, 1, 0)`): the interior tile takes `x`.
  if (c?.k === 'num' && c.shape.length === 0 && c.dtype === 'bool' && c.pids.length && x?.k === 'num' && x.shape.length === 0 && y?.k === 'num' && y.isConst) {
    const t = st.truth(c);
    if (t === false) return y;
    st.notes.assume('interiorTile');
    return x;
  }
  const nums = [c, x, y].filter((v): v is NumVal => v?.k === 'num');
  let shape: Expr[] = [];
  for (const v of nums) shape = broadcast(shape, v.shape);
  const xs = [x, y].filter((v): v is NumVal => v?.k === 'num');
  const dtype = xs.length ? xs.map((v) => (v.literalFloat && xs.some((w) => !w.literalFloat) ? undefined : v.dtype)).filter((d): d is Dtype => !!d).reduce(promote, xs[0].dtype) : 'fp32';
  let eff: Expr[] | undefined;
  for (const v of xs) eff = combineExtents(eff, v.eff, shape);
  // `tl.where(offs < M, offs, 0)` clamps an index: it keeps the index's interval (and stays an integer).
  const index = x?.k === 'num' && !x.data && y?.k === 'num' && y.isConst ? x : undefined;
  return {
    k: 'num',
    shape,
    dtype,
    isConst: nums.every((v) => v.isConst),
    data: nums.some((v) => v.data),
    pids: union(...nums.map((v) => v.pids)),
    loops: union(...nums.map((v) => v.loops)),
    fromDot: xs.some((v) => v.fromDot),
    off: index?.off,
    ptr: index?.ptr,
    eff,
    fromLoads: union(...xs.map((v) => v.fromLoads ?? [])),
  };
}

export function castTo(x: Val | undefined, d: Val | undefined): Val {
  if (!x || x.k !== 'num') return x ?? unknown('cast');
  const dt = d?.k === 'dtype' ? d.dtype : d?.k === 'str' ? parseDtype(d.s) : undefined;
  if (!dt) return x;
  // A cast to an assumed pointer type (`x.to(p.dtype.element_ty)`, p of unknown type) is no hint for p.
  if (d?.k === 'dtype' && d.assumed) return { ...x, dtype: dt, castTo: undefined, fromDot: false, assumedType: undefined };
  return { ...x, dtype: dt, castTo: dt, fromDot: false, assumedType: undefined };
}

function method(st: TritonState, meth: string, self: Val, pos: Node[], kw: Map<string, Node>, n: Node): Val {
  const a = (i: number, k?: string): Val | undefined => {
    const node = i < pos.length ? pos[i] : k ? kw.get(k) : undefined;
    return node ? st.ops.eval(node) : undefined;
  };
  if (self.k === 'dtype') {
    const flags: Record<string, (d: Dtype) => boolean> = {
      is_fp8: (d) => d === 'fp8',
      is_fp16: (d) => d === 'fp16',
      is_bf16: (d) => d === 'bf16',
      is_fp32: (d) => d === 'fp32',
      is_fp64: (d) => d === 'fp64',
      is_floating: isFloat,
      is_int: (d) => !isFloat(d) && d !== 'bool',
    };
    const f = flags[meth];
    if (f) return scalar(num(f(self.dtype) ? 1 : 0), 'bool', true);
    // `is_int64()`, `is_uint32()`, `is_signed()`…: a floating type is none of them; an integer type's
    // signedness is not tracked, so those stay undecided.
    if (/^is_(u?int\d+|signed|unsigned|int_signed|int_unsigned)$/.test(meth) && isFloat(self.dtype)) return scalar(num(0), 'bool', true);
    if (meth === 'is_bool') return scalar(num(self.dtype === 'bool' ? 1 : 0), 'bool', true);
    return unknown(meth);
  }
  if (self.k === 'blockptr') {
    if (meth === 'load') return loadBlock(st, self, n);
    if (meth === 'store') {
      storeBlock(st, self, a(1, 'value'), n);
      return NONE;
    }
    if (meth === 'advance') return self;
    return unknown(meth);
  }
  if (self.k !== 'num') return unknown(meth);
  // A descriptor made by the host and passed in as an argument: `a_desc.load([m, k])`.
  if ((meth === 'load' || meth === 'store' || meth === 'atomic_add') && self.ptr && !self.data && self.shape.length === 0) {
    const d = descriptorFromParam(st, self, n);
    if (!d) return meth === 'load' ? unknown('descriptor') : NONE;
    if (meth === 'load') return loadBlock(st, d, n);
    storeBlock(st, d, a(1, 'value'), n);
    return NONE;
  }
  switch (meth) {
    case 'to': {
      const d = a(0, 'dtype');
      if (d?.k === 'dtype' && d.pointer) {
        // `p.to(tl.pointer_type(T))`: a pointer argument re-typed, or a pointer loaded from memory
        // (grouped GEMM's `tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))`).
        const target = self.ptr && !self.data ? self.ptr : `*(${shorten(field(field(n, 'function') ?? n, 'object')?.text ?? 'loaded pointer', 40)})`;
        st.ptrDtypes.set(target, { dtype: d.dtype, how: 'pointer cast' });
        return { ...self, ptr: target, data: false, dtype: 'int64', off: self.ptr && !self.data ? self.off : offUnknown(), fromLoads: undefined };
      }
      return castTo(self, d);
    }
    case 'cast':
      return castTo(self, a(0, 'dtype'));
    case 'reshape':
    case 'view': {
      const s = pos.length === 1 ? st.shapeOf(a(0)) : st.shapeOf({ k: 'tuple', items: pos.map((p) => st.ops.eval(p)) });
      return s ? { ...self, shape: s, off: offUnknown(), maskExtent: undefined, clips: undefined, pureArange: undefined } : self;
    }
    case 'trans':
    case 'permute':
      return transpose(self);
    case 'expand_dims':
      return expandDims(self, st.axisOf(a(0, 'axis')));
    case 'sum':
    case 'max':
    case 'min':
    case 'argmax':
    case 'argmin':
    case 'cumsum':
    case 'cumprod':
    case 'reduce':
      return reduce(st, `tl.${meth}`, self, a(0, 'axis'), kw, n);
    case 'broadcast_to': {
      const s = pos.length === 1 ? st.shapeOf(a(0)) : st.shapeOf({ k: 'tuple', items: pos.map((p) => st.ops.eval(p)) });
      return s ? { ...self, shape: s } : self;
    }
    case 'item':
    case 'contiguous':
      return self;
    default: {
      const kind = mathKind(meth);
      if (kind) return elementwise(st, `tl.${meth}`, [self, ...pos.map((p) => st.ops.eval(p))], n, kind);
      st.notes.say('unknownCall', line(n), `.${meth}`, 'it is not a block method the analysis knows');
      return { ...self, off: offUnknown(), data: true, value: undefined };
    }
  }
}
