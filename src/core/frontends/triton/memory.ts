/**
 * Memory in a Triton kernel: `tl.load`/`tl.store` through pointer blocks
 * (masks with the min(BLOCK, bound) rule), atomics, block pointers and tensor
 * descriptors — made in the kernel (`tl.make_block_ptr`,
 * `tl.make_tensor_descriptor`) or by the host (`TensorDescriptor.from_tensor`)
 * and passed in. Every access is recorded for the unit's bytes and for the
 * launch's footprints; one that cannot be attributed to a tensor is said, and
 * costs the kernel its completeness — never silently dropped.
 */
import type { SyntaxNode as Node } from '../../syntax-tree';
import type { Dtype } from '../../gpus/types';
import type { MemEvent } from '../../ir';
import { mul, num, ONE, printExpr, type Expr } from '../../sym/expr';
import { DTYPE_BYTES, isFloat } from '../common';
import { clipOffsets, footprint, type Offsets } from './offsets';
import type { TritonState } from './state';
import { line, shorten } from './syntax';
import { alignDims, broadcast, numel, type BlockPtrVal, type Val } from './values';

function recordMem(st: TritonState, kind: 'load' | 'store', target: string, elems: Expr, dtype: Dtype, n: Node, what: string, where: Offsets | Expr | null | undefined): void {
  if (st.rec.quiet) return;
  const ev: MemEvent = { kind, space: 'global', target, elems, elemBytes: DTYPE_BYTES[dtype], dtype, line: line(n), what };
  st.rec.event(ev);
  const isOff = !!where && 'entries' in where;
  st.accesses.push({
    kind,
    target,
    elemBytes: DTYPE_BYTES[dtype],
    perUnit: mul(elems, st.loopMultiplier()),
    off: isOff ? where : undefined,
    footprint: isOff ? footprint(where) : (where ?? null),
  });
}

function maskedElems(ptrShape: Expr[], mask: Val | undefined): Expr {
  if (!mask || mask.k !== 'num' || !mask.maskExtent) return numel(ptrShape);
  const shape = broadcast(ptrShape, mask.shape);
  const ext = alignDims(mask.maskExtent, shape.length, ONE).map((e, i) => (e.constant === 1 && shape[i].constant !== 1 ? shape[i] : e));
  return numel(ext);
}

/** The fix to suggest for an access through something that is not a pointer argument. */
function attributionFix(p: Val | undefined): string {
  if (p?.k === 'num' && p.data) return 'a pointer loaded from memory needs a cast: `.to(tl.pointer_type(tl.float16))`';
  return 'pass the pointer as a kernel argument (or give its element type with --dtype NAME=…)';
}

export function load(st: TritonState, p: Val | undefined, mask: Val | undefined, n: Node): Val {
  if (p?.k === 'blockptr') return loadBlock(st, p, n);
  if (!p || p.k !== 'num' || !p.ptr) {
    st.notes.say('unattributedLoad', line(n), shorten(n.text, 40), attributionFix(p));
    const shape = p?.k === 'num' ? p.shape : [];
    return { k: 'num', shape, dtype: 'fp32', isConst: false, data: true, pids: [], loops: [] };
  }
  const { dtype, how } = st.elemDtype(p.ptr);
  const shape = mask?.k === 'num' ? broadcast(p.shape, mask.shape) : p.shape;
  const elems = maskedElems(shape, mask);
  const clips = mask?.k === 'num' ? mask.clips : undefined;
  recordMem(st, 'load', p.ptr, elems, dtype, n, `tl.load ${p.ptr} [${shape.map(printExpr).join(', ')}]`, clipOffsets(p.off, clips));
  const assumed = how === 'assumed';
  return {
    k: 'num',
    shape,
    dtype,
    isConst: false,
    data: true,
    pids: p.pids,
    loops: p.loops,
    eff: mask?.k === 'num' ? mask.maskExtent : undefined,
    assumedType: assumed,
    ...(assumed ? { fromLoads: [p.ptr] } : {}),
  };
}

export function store(st: TritonState, p: Val | undefined, v: Val | undefined, mask: Val | undefined, n: Node): void {
  if (p?.k === 'blockptr') return storeBlock(st, p, v, n);
  if (!p || p.k !== 'num' || !p.ptr) {
    st.notes.say('unattributedStore', line(n), shorten(n.text, 40), attributionFix(p));
    return;
  }
  const { dtype } = st.elemDtype(p.ptr, v?.k === 'num' ? v : undefined);
  let shape = p.shape;
  if (v?.k === 'num') shape = broadcast(shape, v.shape);
  if (mask?.k === 'num') shape = broadcast(shape, mask.shape);
  const elems = maskedElems(shape, mask);
  const clips = mask?.k === 'num' ? mask.clips : undefined;
  recordMem(st, 'store', p.ptr, elems, dtype, n, `tl.store ${p.ptr} [${shape.map(printExpr).join(', ')}]`, clipOffsets(p.off, clips));
}

/** Is the value of this call used (assigned, passed on), or is the call a statement of its own? */
function resultUsed(n: Node): boolean {
  return n.parent?.type !== 'expression_statement';
}

/**
 * An atomic read-modify-write (COUNTING.md): 0 FLOPs; one store of each
 * element (done in L2), plus one load when the old value is used.
 */
export function atomic(st: TritonState, op: string, p: Val | undefined, v: Val | undefined, mask: Val | undefined, n: Node): Val {
  if (!p || p.k !== 'num' || !p.ptr) {
    st.notes.say('unattributedStore', line(n), shorten(n.text, 40), attributionFix(p));
    return { k: 'num', shape: v?.k === 'num' ? v.shape : [], dtype: 'fp32', isConst: false, data: true, pids: [], loops: [] };
  }
  const { dtype } = st.elemDtype(p.ptr);
  let shape = p.shape;
  if (v?.k === 'num') shape = broadcast(shape, v.shape);
  const elems = maskedElems(shape, mask);
  const fp = clipOffsets(p.off, mask?.k === 'num' ? mask.clips : undefined);
  if (resultUsed(n)) recordMem(st, 'load', p.ptr, elems, dtype, n, `tl.${op} ${p.ptr} (old value)`, fp);
  recordMem(st, 'store', p.ptr, elems, dtype, n, `tl.${op} ${p.ptr}`, fp);
  // Integer read-modify-writes are integer work (intOps); a floating one is 0 FLOPs (COUNTING.md).
  if (op !== 'atomic_xchg' && op !== 'atomic_cas' && !isFloat(dtype)) st.rec.int(`tl.${op}`, elems, line(n));
  st.notes.assume('atomics');
  return { k: 'num', shape, dtype, isConst: false, data: true, pids: [], loops: [] };
}

export function makeBlockPtr(st: TritonState, base: Val | undefined, shape: Val | undefined, block: Val | undefined, descriptor: boolean, n: Node): Val {
  if (!base || base.k !== 'num' || !base.ptr) {
    if (descriptor) st.notes.say('unknownDescriptor', line(n), shorten(n.text, 40));
    else st.notes.say('unattributedLoad', line(n), shorten(n.text, 40), 'make the base a pointer argument');
    return { k: 'unknown', why: 'block pointer base' };
  }
  const blockShape = st.shapeOf(block);
  if (!blockShape) {
    st.notes.say('unknownDescriptor', line(n), base.ptr);
    return { k: 'unknown', why: 'block shape' };
  }
  const bp: BlockPtrVal = {
    k: 'blockptr',
    target: base.ptr,
    dtype: st.elemDtype(base.ptr).dtype,
    tensorShape: st.shapeOf(shape) ?? null,
    block: blockShape,
    pids: base.pids,
    loops: base.loops,
    baseOff: base.off,
    descriptor,
  };
  return bp;
}

/**
 * A descriptor argument made by the host: its block shape comes from the
 * user (`--set a_desc.block_shape=128,64`), else from the launch
 * (`TensorDescriptor.from_tensor(a, [BM, BK])`, an autotune pre-hook).
 */
export function descriptorFromParam(st: TritonState, v: Val | undefined, n: Node): BlockPtrVal | undefined {
  if (v?.k === 'blockptr') return v;
  if (v?.k !== 'num' || !v.ptr || v.data) {
    st.notes.say('unknownDescriptor', line(n), shorten(n.text, 30));
    return undefined;
  }
  const name = v.ptr;
  const user = st.inp.bindings.get(`${name}.block_shape`);
  let block: Expr[] | undefined;
  if (user) block = parseShape(user.value);
  const host = st.inp.descriptors.get(name);
  if (!block && host) block = host.block;
  if (!block) {
    st.notes.say('unknownDescriptor', line(n), name);
    return undefined;
  }
  return { k: 'blockptr', target: name, dtype: st.elemDtype(name).dtype, tensorShape: null, block, pids: v.pids, loops: v.loops, descriptor: true };
}

function parseShape(v: number | boolean | string): Expr[] | undefined {
  const parts = String(v).split(/[,x×\s]+/).filter(Boolean).map(Number);
  if (!parts.length || parts.some((x) => !Number.isInteger(x) || x <= 0)) return undefined;
  return parts.map((x) => num(x));
}

function blockFootprint(b: BlockPtrVal): Expr | null {
  if (!b.tensorShape) return null;
  // The base pointer's own shift (per batch / head) multiplies the tensor's footprint.
  const baseFp = footprint(b.baseOff);
  return baseFp ? mul(numel(b.tensorShape), baseFp) : null;
}

export function loadBlock(st: TritonState, b: BlockPtrVal, n: Node): Val {
  const elems = numel(b.block);
  const dtype = st.elemDtype(b.target).dtype;
  recordMem(st, 'load', b.target, elems, dtype, n, `${b.descriptor ? 'descriptor' : 'block-pointer'} load ${b.target} [${b.block.map(printExpr).join(', ')}]`, blockFootprint(b));
  return { k: 'num', shape: b.block, dtype, isConst: false, data: true, pids: b.pids, loops: b.loops };
}

export function storeBlock(st: TritonState, b: BlockPtrVal, v: Val | undefined, n: Node): void {
  const elems = numel(b.block);
  const dtype = st.elemDtype(b.target, v?.k === 'num' ? v : undefined).dtype;
  recordMem(st, 'store', b.target, elems, dtype, n, `${b.descriptor ? 'descriptor' : 'block-pointer'} store ${b.target} [${b.block.map(printExpr).join(', ')}]`, blockFootprint(b));
}

