/**
 * One parsed WGSL module: its declarations by name, its compute entry points,
 * and the resolution of type references (`array<Particle>`, `vec3f`,
 * `texture_storage_2d<rgba8unorm, write>`, `texel_buffer<rgba8unorm, read>`,
 * `binding_array<texture_2d<f32>>`, aliases, structs) to `WType`s.
 */
import type {
  AliasElem,
  AttributeElem,
  ConstElem,
  ExpressionElem,
  FnElem,
  GlobalVarElem,
  OverrideElem,
  StructElem,
  TypeRefElem,
  WeslAST,
} from 'wesl/core';
import {
  makeStruct,
  scalar,
  scalarNamed,
  shorthandType,
  UNKNOWN,
  vec,
  type ScalarKind,
  type WType,
} from './types';

export interface ModuleInfo {
  ast: WeslAST;
  structs: Map<string, StructElem>;
  aliases: Map<string, AliasElem>;
  consts: Map<string, ConstElem>;
  overrides: Map<string, OverrideElem>;
  globals: Map<string, GlobalVarElem>;
  fns: Map<string, FnElem>;
  /** `@compute` functions, in source order. */
  entries: FnElem[];
}

export function scanModule(ast: WeslAST): ModuleInfo {
  const mod: ModuleInfo = {
    ast,
    structs: new Map(),
    aliases: new Map(),
    consts: new Map(),
    overrides: new Map(),
    globals: new Map(),
    fns: new Map(),
    entries: [],
  };
  for (const d of ast.moduleElem.decls) {
    switch (d.kind) {
      case 'struct':
        mod.structs.set(d.name.ident.originalName, d);
        break;
      case 'alias':
        mod.aliases.set(d.name.ident.originalName, d);
        break;
      case 'const':
        mod.consts.set(d.name.decl.ident.originalName, d);
        break;
      case 'override':
        mod.overrides.set(d.name.decl.ident.originalName, d);
        break;
      case 'gvar':
        mod.globals.set(d.name.decl.ident.originalName, d);
        break;
      case 'fn':
        mod.fns.set(d.name.ident.originalName, d);
        if (findAttribute(d.attributes, 'compute')) mod.entries.push(d);
        break;
      default:
        break;
    }
  }
  return mod;
}

/** A standard attribute by name (`@workgroup_size`, `@compute`, `@align`). */
export function findAttribute(attrs: AttributeElem[] | undefined, name: string): { params: ExpressionElem[] } | undefined {
  for (const a of attrs ?? []) {
    const at = a.attribute;
    if (at.kind === '@attribute' && at.name === name) return { params: (at.params ?? []).map((p) => p.expression) };
  }
  return undefined;
}

/** The `@builtin(name)` of a parameter or struct member, if any. */
export function builtinName(attrs: AttributeElem[] | undefined): string | undefined {
  for (const a of attrs ?? []) if (a.attribute.kind === '@builtin') return a.attribute.param.name;
  return undefined;
}

/** The name of a type template parameter written as an identifier (`f32`, `rgba8unorm`, `read_write`). */
export function paramName(p: ExpressionElem): string | undefined {
  if (p.kind === 'ref') return p.ident.originalName;
  if (p.kind === 'type' && !p.templateParams?.length) return p.name.originalName;
  return undefined;
}

export type CountEval = (e: ExpressionElem) => number | undefined;

/** Resolves type references; struct layouts are memoised per resolver. */
export class TypeResolver {
  private readonly memo = new Map<string, WType>();
  private readonly resolving = new Set<string>();

  constructor(
    private readonly mod: ModuleInfo,
    private readonly evalCount: CountEval,
  ) {}

  resolve(t: TypeRefElem | undefined): WType {
    if (!t) return UNKNOWN;
    return this.named(t.name.originalName, t.templateParams ?? []);
  }

  /** A type given by name and template parameters (also used for constructor calls). */
  named(name: string, params: ExpressionElem[]): WType {
    const s = scalarNamed(name);
    if (s) return scalar(s);
    const short = shorthandType(name);
    if (short) return short;
    if (name === 'vec2' || name === 'vec3' || name === 'vec4') return vec(Number(name[3]), this.scalarParam(params[0]));
    const mat = /^mat([234])x([234])$/.exec(name);
    if (mat) return { k: 'mat', c: Number(mat[1]), r: Number(mat[2]), s: this.scalarParam(params[0]) };
    // A binding array holds one resource per binding: indexing it picks a texture or a buffer.
    if (name === 'array' || name === 'binding_array') {
      const count = params[1] ? this.evalCount(params[1]) : undefined;
      // WGSL requires a count above zero (a whole number): with another, the shader does not compile, and no size is right.
      if (count !== undefined && !(Number.isInteger(count) && count > 0)) return UNKNOWN;
      return { k: 'array', elem: this.param(params[0]), count };
    }
    if (name === 'atomic') {
      const t = this.param(params[0]);
      return t.k === 'vec' ? { k: 'atomic', s: t.s, n: t.n } : { k: 'atomic', s: this.scalarParam(params[0]) };
    }
    if (name === 'ptr') return { k: 'ptr', space: (params[0] && paramName(params[0])) ?? 'function', elem: this.param(params[1]) };
    if (name === 'sampler' || name === 'sampler_comparison') return { k: 'sampler' };
    if (name.startsWith('texture_') || name === 'texel_buffer') return this.texture(name, params);
    return this.userType(name);
  }

  private param(p: ExpressionElem | undefined): WType {
    if (!p) return UNKNOWN;
    if (p.kind === 'type') return this.resolve(p);
    if (p.kind === 'ref') return this.named(p.ident.originalName, []);
    return UNKNOWN;
  }

  private scalarParam(p: ExpressionElem | undefined): ScalarKind {
    const t = this.param(p);
    return t.k === 'scalar' ? t.s : 'f32';
  }

  private texture(name: string, params: ExpressionElem[]): WType {
    if (name.startsWith('texture_storage_') || name === 'texel_buffer') {
      const format = params[0] ? paramName(params[0]) : undefined;
      const sampled: ScalarKind = format && /uint/.test(format) ? 'u32' : format && /sint/.test(format) ? 'i32' : 'f32';
      return { k: 'texture', name, format, sampled };
    }
    if (name.startsWith('texture_depth')) return { k: 'texture', name, format: 'depth32float', sampled: 'f32' };
    return { k: 'texture', name, format: undefined, sampled: params[0] ? this.scalarParam(params[0]) : 'f32' };
  }

  private userType(name: string): WType {
    const cached = this.memo.get(name);
    if (cached) return cached;
    if (this.resolving.has(name)) return UNKNOWN;
    this.resolving.add(name);
    let t: WType = UNKNOWN;
    const alias = this.mod.aliases.get(name);
    const st = this.mod.structs.get(name);
    if (alias) t = this.resolve(alias.typeRef);
    else if (st) t = this.struct(st);
    this.resolving.delete(name);
    this.memo.set(name, t);
    return t;
  }

  private struct(st: StructElem): WType {
    const members = st.members.map((m) => {
      const align = findAttribute(m.attributes, 'align');
      const size = findAttribute(m.attributes, 'size');
      return {
        name: m.name.name,
        type: this.resolve(m.typeRef),
        align: align?.params[0] ? this.evalCount(align.params[0]) : undefined,
        size: size?.params[0] ? this.evalCount(size.params[0]) : undefined,
      };
    });
    return makeStruct(st.name.ident.originalName, members);
  }
}
