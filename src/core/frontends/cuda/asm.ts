/**
 * Inline PTX (`asm volatile("…" : outputs : inputs)`). The instructions that
 * matter for the roofline are counted:
 *   - `mma.sync.aligned.mMnNkK.….<dtype>…`: 2·M·N·K FLOPs per warp on tensor
 *     cores, in the type of the A operand;
 *   - `ldmatrix.sync.aligned.m8n8.xN….shared.b16`: N 8×8 16-bit tiles per
 *     warp from shared memory;
 *   - `cp.async.{ca,cg}.shared.global [dst], [src], bytes`: a global load
 *     and a shared store of `bytes` per thread.
 * Other memory instructions get a diagnostic; the rest cost nothing.
 */
import type { Dtype } from '../../gpus/types';
import { num } from '../../sym/expr';
import { evalExpr } from './expr';
import type { Interp } from './state';
import { named, type Node } from './syntax';
import { numTy, sizeOf } from './types';
import { unknownVal, type Ptr, type Val } from './values';

const PTX_TYPES: Record<string, Dtype> = {
  f16: 'fp16',
  f16x2: 'fp16',
  bf16: 'bf16',
  bf16x2: 'bf16',
  tf32: 'tf32',
  f32: 'fp32',
  f64: 'fp64',
  s8: 'int8',
  u8: 'int8',
  s4: 'int8',
  u4: 'int8',
  e4m3: 'fp8',
  e5m2: 'fp8',
  s32: 'int32',
};

function assemblyText(n: Node): string {
  const code = n.childForFieldName('assembly_code');
  if (!code) return '';
  return code
    .descendantsOfType('string_content')
    .map((s) => s.text)
    .join('');
}

/** Operand nodes in `%N` order: outputs first, then inputs. */
function operands(n: Node): Node[] {
  const out: Node[] = [];
  for (const field of ['output_operands', 'input_operands']) {
    const list = n.childForFieldName(field);
    for (const op of list ? named(list) : []) {
      const v = op.childForFieldName('value');
      if (v) out.push(v);
    }
  }
  return out;
}

export function inlineAsm(st: Interp, n: Node): Val {
  const ops = operands(n);
  const vals = new Map<number, Val>();
  const operand = (i: number): Val => {
    if (!vals.has(i)) vals.set(i, ops[i] ? evalExpr(st, ops[i]) : unknownVal());
    return vals.get(i)!;
  };
  for (const raw of assemblyText(n).split(/[;\n]/)) {
    const ins = raw.trim();
    if (!ins || ins.startsWith('{') || ins.startsWith('}') || ins.startsWith('//')) continue;
    instruction(st, ins, operand, n);
  }
  ops.forEach((_, i) => operand(i));
  return unknownVal(false);
}

function instruction(st: Interp, ins: string, operand: (i: number) => Val, n: Node): void {
  const opcode = ins.split(/\s+/)[0];
  const parts = opcode.split('.');
  if (parts[0] === 'mma' || parts[0] === 'wgmma') return mma(st, parts, n);
  if (parts[0] === 'ldmatrix') return ldmatrix(st, parts, ins, operand, n);
  if (parts[0] === 'cp' && parts[1] === 'async' && parts.includes('shared') && parts.includes('global')) return cpAsync(st, ins, operand, n);
  if (/^(ld|st|red|atom)$/.test(parts[0]) && (parts.includes('global') || parts.includes('shared')))
    st.say('inlineAsm', n, `PTX ${opcode}`);
}

function mma(st: Interp, parts: string[], n: Node): void {
  const shape = parts.find((p) => /^m\d+n\d+k\d+$/.test(p));
  const dims = shape ? shape.slice(1).split(/[nk]/).map(Number) : undefined;
  if (parts[0] === 'wgmma' || !dims) {
    st.say('inlineAsm', n, `PTX ${parts.join('.')}`);
    return;
  }
  const types = parts.filter((p) => p in PTX_TYPES).map((p) => PTX_TYPES[p]);
  const dtype = types.length >= 4 ? types[1] : (types[0] ?? 'fp16');
  const [m, nn, k] = dims;
  st.flop('dot', `mma.sync.${shape}`, dtype, num(2 * m * nn * k), n, { tensorCore: true, group: 32 });
}

/** The operand index of the address in square brackets (`[%4]`). */
function addressOperand(ins: string, which: number): number | undefined {
  const addrs = [...ins.matchAll(/\[\s*%(\d+)\s*\]/g)];
  const a = addrs[which];
  return a ? Number(a[1]) : undefined;
}

function ldmatrix(st: Interp, parts: string[], ins: string, operand: (i: number) => Val, n: Node): void {
  const x = parts.find((p) => /^x[124]$/.test(p));
  const tiles = x ? Number(x.slice(1)) : 1;
  const at = addressOperand(ins, 0);
  const p = at !== undefined ? operand(at).ptr : undefined;
  if (!p) return;
  st.access('load', { ...p, space: 'shared' }, numTy('fp16'), n, { elems: num(64 * tiles), extent: num(128 * tiles) });
}

function cpAsync(st: Interp, ins: string, operand: (i: number) => Val, n: Node): void {
  const dstAt = addressOperand(ins, 0);
  const srcAt = addressOperand(ins, 1);
  const sizeTok = ins.split(',')[2]?.trim();
  const sizeRef = sizeTok?.startsWith('%') ? Number(sizeTok.slice(1)) : undefined;
  const bytes = sizeRef !== undefined ? st.value(operand(sizeRef).e) : Number(sizeTok);
  const size = bytes !== undefined && Number.isFinite(bytes) && bytes > 0 ? bytes : 16;
  const src = srcAt !== undefined ? operand(srcAt).ptr : undefined;
  const dst = dstAt !== undefined ? operand(dstAt).ptr : undefined;
  if (src) asyncCopy(st, src, 'load', size, n);
  if (dst) asyncCopy(st, dst, 'store', size, n);
}

/** An asynchronous copy of `bytes` per thread, in elements of the pointer's base type. */
export function asyncCopy(st: Interp, p: Ptr, kind: 'load' | 'store', bytes: number, n: Node): void {
  const dtype: Dtype = p.baseTy.k === 'num' ? p.baseTy.dtype : 'int8';
  const elem = sizeOf(numTy(dtype));
  st.access(kind, p, numTy(dtype, Math.max(1, bytes / elem)), n);
}
