/**
 * Types and declarators as written in the source: `const float* __restrict__ A`,
 * `__shared__ float As[BM][BK + 1]`, `wmma::fragment<wmma::matrix_a, 16, 16,
 * 16, half, wmma::row_major> a`, `T* x` with `T` a template parameter.
 */
import type { Dtype } from '../../gpus/types';
import { evalTemplateArg } from './expr';
import type { Interp } from './state';
import { named, type Node } from './syntax';
import { fragDtype, INT, namedType, numTy, ptrTo, UNKNOWN, type FragUse, type Ty } from './types';

/** The type named by a type node in the current function (template parameters resolved). */
export function baseType(st: Interp, t: Node | null): Ty {
  if (!t) return UNKNOWN;
  switch (t.type) {
    case 'primitive_type':
      return namedType(t.text) ?? UNKNOWN;
    case 'sized_type_specifier':
      return sizedType(t.text);
    case 'type_identifier':
      return typeName(st, t.text);
    case 'qualified_identifier':
      return qualifiedType(st, t);
    case 'template_type':
      return templateType(st, t);
    case 'struct_specifier':
    case 'class_specifier':
      return typeName(st, t.childForFieldName('name')?.text ?? '?');
    case 'type_descriptor':
      return descriptorType(st, t);
    default:
      return { k: 'unknown', name: t.text };
  }
}

/** A `type_descriptor` (in casts and template arguments): base type plus abstract pointers. */
export function descriptorType(st: Interp, d: Node): Ty {
  let ty = baseType(st, d.childForFieldName('type'));
  for (let a = d.childForFieldName('declarator'); a; a = a.childForFieldName('declarator')) {
    if (a.type === 'abstract_pointer_declarator') ty = ptrTo(ty);
    else if (a.type !== 'abstract_reference_declarator') break;
  }
  return ty;
}

function sizedType(text: string): Ty {
  if (text.includes('char')) return numTy('int8', 1, text);
  if (text.includes('short')) return numTy('int16', 1, text);
  if (text.includes('long')) return numTy('int64', 1, text);
  return numTy('int32', 1, text);
}

export function typeName(st: Interp, name: string): Ty {
  const tp = st.frame.typeParams.get(name);
  if (tp) return tp;
  const n = namedType(name);
  if (n) return n;
  if (st.file.structs.has(name)) return { k: 'struct', name, args: [] };
  if (name === 'dim3' || name === 'uint3') return { k: 'struct', name: 'dim3', args: [] };
  return { k: 'unknown', name };
}

function qualifiedType(st: Interp, t: Node): Ty {
  const inner = t.childForFieldName('name');
  const text = t.text.replace(/\s+/g, '');
  if (inner?.type === 'template_type' && inner.childForFieldName('name')?.text === 'fragment') return fragmentType(st, inner);
  if (inner?.type === 'qualified_identifier' || inner?.type === 'template_type') return baseType(st, inner);
  if (/thread_block_tile|coalesced_group/.test(text)) return { k: 'struct', name: 'cg::tile', args: [] };
  if (/thread_block$/.test(text)) return { k: 'struct', name: 'cg::block', args: [] };
  if (/grid_group$/.test(text)) return { k: 'struct', name: 'cg::grid', args: [] };
  return typeName(st, text.split('::').pop()!);
}

function templateType(st: Interp, t: Node): Ty {
  const name = t.childForFieldName('name')?.text ?? '?';
  if (name === 'fragment') return fragmentType(st, t);
  if (name === 'thread_block_tile') return { k: 'struct', name: 'cg::tile', args: [] };
  const args = t.childForFieldName('arguments');
  const tys: Ty[] = [];
  for (const a of args ? named(args) : []) tys.push(a.type === 'type_descriptor' ? descriptorType(st, a) : INT);
  return st.file.structs.has(name) ? { k: 'struct', name, args: tys } : { k: 'unknown', name };
}

/** `wmma::fragment<use, m, n, k, T, layout>`. */
function fragmentType(st: Interp, t: Node): Ty {
  const args = t.childForFieldName('arguments');
  const as = args ? named(args) : [];
  if (as.length < 4) return { k: 'unknown', name: 'fragment' };
  const use = as[0].text.split('::').pop() as FragUse;
  const dimOf = (n: Node) => st.value(evalTemplateArg(st, n).e) ?? 16;
  const elem = as[4] ? fragDtype(as[4].text.replace(/\s+/g, ' ')) ?? typeDtype(st, as[4]) : 'fp32';
  return {
    k: 'frag',
    use: use === 'matrix_a' || use === 'matrix_b' ? use : 'accumulator',
    m: dimOf(as[1]),
    n: dimOf(as[2]),
    kk: dimOf(as[3]),
    dtype: elem,
    colMajor: as[5] ? as[5].text.includes('col_major') : false,
  };
}

function typeDtype(st: Interp, n: Node): Dtype {
  const ty = n.type === 'type_descriptor' ? descriptorType(st, n) : typeName(st, n.text);
  return ty.k === 'num' ? ty.dtype : 'fp32';
}

/** What one declarator declares. */
export interface Decl {
  name: string;
  ty: Ty;
  /** Array dimensions, outermost first (null: unsized, as in `extern __shared__ float s[]`). */
  dims: (Node | null)[];
  ref: boolean;
  init: Node | null;
  /** Constructor arguments: `dim3 block(16, 16)` (an argument list, or the parameter list the grammar sometimes makes of it). */
  ctorArgs: Node | null;
}

export function unwrapDeclarator(base: Ty, d: Node | null): Decl {
  const out: Decl = { name: '', ty: base, dims: [], ref: false, init: null, ctorArgs: null };
  for (let cur = d, i = 0; cur && i < 16; i++) {
    switch (cur.type) {
      case 'identifier':
      case 'field_identifier':
        out.name = cur.text;
        return out;
      case 'init_declarator': {
        const v = cur.childForFieldName('value');
        if (v?.type === 'argument_list') out.ctorArgs = v;
        else out.init = v;
        cur = cur.childForFieldName('declarator');
        break;
      }
      case 'pointer_declarator':
        out.ty = ptrTo(out.ty);
        cur = cur.childForFieldName('declarator');
        break;
      case 'reference_declarator':
        out.ref = true;
        cur = named(cur)[0] ?? null;
        break;
      case 'array_declarator': {
        const size = cur.childForFieldName('size');
        out.dims.unshift(size);
        cur = cur.childForFieldName('declarator');
        break;
      }
      case 'function_declarator':
        out.ctorArgs = cur.childForFieldName('parameters');
        cur = cur.childForFieldName('declarator');
        break;
      default:
        cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type === 'identifier' || x.type.endsWith('declarator')) ?? null;
    }
  }
  return out;
}
