/**
 * Texture builtins of a WGSL entry point: `textureLoad`, `textureSample*`,
 * `textureGather*` and `textureStore` move texels of the texture's format
 * (COUNTING.md: one texel per access, filtering costs 0; a gather reads four),
 * recorded for footprints by their coordinates; `textureDimensions` and the
 * other queries are bindable uniform symbols. Textures are module-scope
 * variables, elements of a `binding_array`, or `texel_buffer`s; a texture
 * argument the analysis cannot follow is a warning that costs completeness.
 */
import type { ExpressionElem, FunctionCallExpression } from 'wesl/core';
import type { Dtype } from '../../gpus/types';
import { DTYPE_BYTES } from '../common';
import type { WgslState } from './state';
import { texelBytes, texelDtype } from './texels';
import { F32, U32, UNKNOWN, vec, type WType } from './types';
import { DEP, opaqueVal, uniformValue, type Val } from './values';

export const SAMPLE = new Set([
  'textureSample', 'textureSampleLevel', 'textureSampleBias', 'textureSampleGrad', 'textureSampleCompare',
  'textureSampleCompareLevel', 'textureSampleBaseClampToEdge',
]);
export const GATHER = new Set(['textureGather', 'textureGatherCompare']);
export const TEXTURE_QUERY = new Set(['textureNumLevels', 'textureNumLayers', 'textureNumSamples']);

export function textureAccess(st: WgslState, name: string, e: FunctionCallExpression, line: number): Val {
  const gatherShift = GATHER.has(name) && e.arguments.length > 0 && st.ops.evalPlace(e.arguments[0])?.type.k !== 'texture' ? 1 : 0;
  const args = e.arguments.map((a) => st.ops.evalExpr(a));
  const tex = args[gatherShift];
  const t = tex?.place?.type;
  if (!tex?.place || t?.k !== 'texture') {
    // Never silently 0 bytes: the texels of a texture the analysis cannot follow are missing from the counts.
    const what = e.arguments[gatherShift];
    if (!st.quiet) st.notes.say('unknownTexture', line, name, what ? st.text(what) : '');
    return opaqueVal(vec(4, 'f32'), DEP.DATA);
  }
  const texName = tex.place.root.name;
  const bytes = texelSize(st, texName, t);
  const store = name === 'textureStore';
  const texels = GATHER.has(name) ? 4 : 1;
  st.emitMem(store ? 'store' : 'load', 'global', texName, bytes, texelType(st, texName, t), line, `${name} ${texName}`, texels);
  const coordArg = SAMPLE.has(name) || GATHER.has(name) ? args[gatherShift + 2] : args[1];
  const layered = t.name.includes('_array') ? args[gatherShift + (SAMPLE.has(name) || GATHER.has(name) ? 3 : 2)] : undefined;
  const sampled = SAMPLE.has(name) || GATHER.has(name);
  if (!st.quiet)
    st.log.accesses.push({
      target: texName,
      kind: store ? 'write' : 'read',
      elemBytes: bytes,
      cap: undefined,
      index: undefined,
      coords: coordArg ? [...(coordArg.comps ?? [coordArg]), ...(layered ? [layered] : [])] : undefined,
      unbounded: sampled ? `\`${texName}\` is sampled at computed coordinates (line ${line})` : undefined,
      line,
    });
  if (store) return opaqueVal(UNKNOWN, 0);
  return opaqueVal(t.name.startsWith('texture_depth') ? F32 : vec(4, t.sampled), DEP.DATA);
}

/**
 * Bytes per texel: a texel format the user gave (`--dtype tex=rgba16float`),
 * an element type for every channel (`--dtype tex=fp16`: four fp16
 * channels), the format written in the type, else rgba8unorm (said).
 */
function texelSize(st: WgslState, texName: string, t: Extract<WType, { k: 'texture' }>): number {
  const f = st.user.texels?.[texName];
  const fb = f !== undefined ? texelBytes(f) : undefined;
  if (fb !== undefined) return fb;
  const d = st.user.dtypes[texName];
  const channels = t.name.startsWith('texture_depth') ? 1 : 4;
  if (d) return channels * DTYPE_BYTES[d];
  if (t.format) return texelBytes(t.format) ?? 4;
  st.notes.assume('textureFormat', texName);
  return 4;
}

function texelType(st: WgslState, texName: string, t: Extract<WType, { k: 'texture' }>): Dtype {
  const f = st.user.texels?.[texName];
  if (f !== undefined && texelBytes(f) !== undefined) return texelDtype(f.toLowerCase());
  return st.user.dtypes[texName] ?? texelDtype(t.format ?? 'rgba8unorm');
}

export function textureQuery(st: WgslState, name: string, arg: ExpressionElem | undefined): Val {
  const p = arg && st.ops.evalPlace(arg);
  const t = p?.type;
  if (!p || t?.k !== 'texture') return opaqueVal(U32, DEP.UNIFORM);
  const base = `${name}(${p.path})`;
  if (name !== 'textureDimensions') return uniformValue(U32, base, st.env);
  const dims = t.name.includes('1d') || t.name === 'texel_buffer' ? 1 : t.name.includes('3d') ? 3 : 2;
  return uniformValue(vec(dims, 'u32'), base, st.env);
}
