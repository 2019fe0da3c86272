/**
 * Types and declarators as written in the source: `const float* __restrict__ A`,
 * `__shared__ float As[BM][BK + 1]`, `wmma::fragment<wmma::matrix_a, 16, 16,
 * 16, half, wmma::row_major> a`, `T* x` with `T` a template parameter.
 */
import { captured, replay, type Deps } from '../../deps';
import type { Dtype } from '../../gpus/types';
import { evalExpr, evalTemplateArg } from './expr';
import type { StructDef } from './file';
import type { BindingSet } from '../../bindings';
import { parseIntLiteral } from './file';
import { Scope, type Interp } from './state';
import { named, type Node } from './syntax';
import { alignOf, fragDtype, INT, namedType, numTy, ptrTo, sizeOf, tyName, UNKNOWN, type FieldInfo, type FragUse, type Layout, type StructTy, type Ty } from './types';

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
    case 'union_specifier': {
      const name = t.childForFieldName('name');
      if (name) return baseType(st, name);
      const anon = st.file.structsAt.get(t.startIndex);
      return anon ? structType(st, anon, []) : { k: 'unknown', name: 'struct' };
    }
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
  const s = st.file.structs.get(name);
  if (s) return structType(st, s, []);
  if (name === 'dim3' || name === 'uint3') return { k: 'struct', name: 'dim3', args: [] };
  const alias = st.file.typedefs.get(name);
  if (alias && !resolving.has(alias)) {
    resolving.add(alias);
    try {
      const base = baseType(st, alias.type);
      return alias.declarator ? unwrapDeclarator(base, alias.declarator).ty : base;
    } finally {
      resolving.delete(alias);
    }
  }
  return { k: 'unknown', name };
}

/** Typedefs being resolved (`typedef A B; typedef B A;` ends). */
const resolving = new Set<object>();

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
  const s = st.file.structs.get(name);
  return s ? structType(st, s, tys) : { k: 'unknown', name };
}

// ------------------------------------------------------------------ struct layouts

/** Layouts by kernel analysis and instantiation (`Pair<float>`); null while one is being computed (a struct cannot contain itself). */
const layouts = new WeakMap<BindingSet, Map<string, Layout | null>>();

/**
 * A struct type with its layout: a pointer member to a struct being laid out
 * (`Node* next` inside `Node`) is typed before that layout exists, and gets
 * it when the pointer is followed.
 */
export function withLayout<T extends Ty>(st: Interp, ty: T): T | StructTy {
  if (ty.k !== 'struct' || ty.layout) return ty;
  const def = st.file.structs.get(ty.name);
  return def ? structType(st, def, ty.args) : ty;
}

/** A struct defined in the file, with its layout. */
export function structType(st: Interp, def: StructDef, args: Ty[]): StructTy {
  const ty: StructTy = { k: 'struct', name: def.name, args };
  const layout = layoutOf(st, def, args);
  if (layout) ty.layout = layout;
  return ty;
}

function roundUp(x: number, a: number): number {
  return Math.ceil(x / a) * a;
}

/**
 * The C++ layout of a struct (what nvcc does): members in declaration order,
 * each at the next multiple of its alignment; the struct's alignment is its
 * largest member's (or its `alignas`/`__align__`, when larger); its size a
 * multiple of that. A union puts every member at 0. Base classes come first.
 */
function layoutOf(st: Interp, def: StructDef, args: Ty[]): Layout | undefined {
  // Per kernel (its bindings): laying a struct out binds the constants its array sizes name.
  let cache = layouts.get(st.b);
  if (!cache) layouts.set(st.b, (cache = new Map()));
  const key = `${def.name}<${args.map(tyName).join(',')}>`;
  if (cache.has(key)) {
    // The reads that laid it out are the reader's too (deps.ts).
    replay(layoutReads.get(cache)?.get(key));
    return cache.get(key) ?? undefined;
  }
  cache.set(key, null);
  let reads = layoutReads.get(cache);
  if (!reads) layoutReads.set(cache, (reads = new Map()));
  const { value, deps } = captured(() => layoutNow(st, def, args, cache!, key));
  reads.set(key, deps);
  return value;
}

/** The reads behind each cached layout (deps.ts). */
const layoutReads = new WeakMap<Map<string, Layout | null>, Map<string, Deps | undefined>>();

function layoutNow(st: Interp, def: StructDef, args: Ty[], cache: Map<string, Layout | null>, key: string): Layout | undefined {
  const typeParams = new Map<string, Ty>();
  def.tparams.forEach((tp, i) => {
    if (tp.kind !== 'type') return;
    const a = args[i] ?? (tp.dflt ? baseType(st, tp.dflt) : undefined);
    if (a) typeParams.set(tp.name, a);
  });
  const frame = st.frame;
  st.frame = { def: null, scope: new Scope(null, true), typeParams, ret: null, returned: false };
  st.silent++;
  try {
    const out = computeLayout(st, def);
    cache.set(key, out);
    return out;
  } finally {
    st.silent--;
    st.frame = frame;
  }
}

function computeLayout(st: Interp, def: StructDef): Layout {
  const fields = new Map<string, FieldInfo>();
  let off = 0;
  let align = 1;
  let complete = true;
  let unknown: string | undefined;
  const miss = (what: string) => {
    complete = false;
    unknown ??= what;
  };
  const put = (size: number, a: number): number => {
    const at = def.union ? 0 : roundUp(off, a);
    off = def.union ? Math.max(off, size) : at + size;
    align = Math.max(align, a);
    return at;
  };
  const inline = (ty: Ty) => {
    if (ty.k !== 'struct' || !ty.layout) return miss(tyName(ty));
    if (!ty.layout.complete) miss(ty.layout.unknown ?? ty.name);
    const at = put(ty.layout.size, ty.layout.align);
    for (const [f, fi] of ty.layout.fields) fields.set(f, { ...fi, off: at + fi.off });
  };
  for (const b of def.bases) inline(baseType(st, b));
  for (const m of def.members) {
    if ('anon' in m) {
      inline(structType(st, m.anon, []));
      continue;
    }
    if (m.declarator.parent?.type === 'field_declaration' && named(m.declarator.parent).some((x) => x.type === 'bitfield_clause')) miss(`bit-field ${m.name}`);
    const d = unwrapDeclarator(baseType(st, m.type), m.declarator);
    const ty = d.ref ? ptrTo(d.ty) : d.ty;
    if (ty.k === 'unknown' || ty.k === 'void' || (ty.k === 'struct' && !ty.layout && ty.name !== 'dim3')) miss(tyName(ty));
    else if (ty.k === 'struct' && ty.layout && !ty.layout.complete) miss(ty.layout.unknown ?? ty.name);
    const dims: number[] = [];
    for (const x of d.dims) {
      const v = x ? st.value(evalExpr(st, x).e) : undefined;
      if (v === undefined || !(v >= 0)) miss(`the size of ${m.name}[]`);
      dims.push(v !== undefined && v >= 0 ? v : 1);
    }
    const count = dims.reduce((a, b) => a * b, 1);
    fields.set(m.name, { off: put(sizeOf(ty) * count, alignOf(ty)), ty, dims });
  }
  const explicit = def.alignas ? alignasValue(st, def.alignas) : undefined;
  if (def.alignas && explicit === undefined) miss('alignas');
  align = Math.max(align, explicit ?? 1);
  const size = Math.max(1, roundUp(off, align));
  return { size, align, fields, complete, ...(unknown ? { unknown } : {}) };
}

/** `alignas(16)`, `alignas(float4)`, `__align__(N)` (read as `alignas`). */
function alignasValue(st: Interp, q: Node): number | undefined {
  const arg = named(q)[0];
  if (!arg) return undefined;
  if (arg.type === 'number_literal') return parseIntLiteral(arg.text);
  if (arg.type === 'type_descriptor') return alignOf(descriptorType(st, arg));
  if (arg.type === 'identifier' || arg.type === 'type_identifier' || arg.type === 'primitive_type') {
    const t = typeName(st, arg.text);
    if (t.k !== 'unknown') return alignOf(t);
  }
  const v = st.value(evalExpr(st, arg).e);
  return v !== undefined && v > 0 ? v : undefined;
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
