/**
 * The extension's settings as one typed object. Raw values come from the
 * user's settings.json and may be anything; they are read tolerantly: a bad
 * value falls back to its default and becomes a message naming the setting,
 * never an exception. No `vscode` here, so every rule is unit-tested.
 *
 * Which settings invalidate analysis results is listed in ANALYSIS_SETTINGS;
 * the others only change how results are shown.
 */
import type { BindingValue } from '../core/analyze';
import { parseBindingValue } from '../core/bindings';
import { parseDtype } from '../core/frontends/common';
import { texelFormat } from '../core/frontends/wgsl/texels';
import { CATALOG_IDS, DEFAULT_GPU_ID, findGpu } from '../core/gpus/catalog';
import type { Dtype, GpuSpec } from '../core/gpus/types';
import { validateGpuList } from '../core/gpus/validate';
import { isSymbolName } from '../shared/symbols';

export const SECTION = 'rooflineLens';

/** Settings (below `rooflineLens.`) whose change makes every cached analysis stale. */
export const ANALYSIS_SETTINGS = ['gpu', 'customGpus', 'bindings', 'dtypes'] as const;

/** What settings.json holds, unchecked. */
export interface RawSettings {
  gpu: unknown;
  customGpus: unknown;
  bindings: unknown;
  dtypes: unknown;
  kernelLenses: unknown;
  loopLenses: unknown;
  diagnostics: unknown;
}

export interface Settings {
  gpu: GpuSpec;
  /** Valid user-defined GPUs, in settings order. */
  customGpus: GpuSpec[];
  /** Symbol values for the analysis (`opts.set`). */
  bindings: Record<string, BindingValue>;
  /** Element types for the analysis (`opts.dtypes`). */
  dtypes: Record<string, Dtype>;
  /** WGSL texel formats of textures, from the same setting (`{ "inputTex": "rgba8unorm" }`; `opts.texels`). */
  texels: Record<string, string>;
  codeLens: { kernels: boolean; loops: boolean };
  diagnostics: boolean;
  /** One sentence per bad value, naming the setting. */
  errors: string[];
}

/** Reads every setting; never throws. */
export function readSettings(raw: RawSettings): Settings {
  const errors: string[] = [];
  const customGpus = readCustomGpus(raw.customGpus, errors);
  const { dtypes, texels } = readDtypes(raw.dtypes, errors);
  return {
    gpu: readGpu(raw.gpu, customGpus, errors),
    customGpus,
    bindings: readBindings(raw.bindings, errors),
    dtypes,
    texels,
    codeLens: {
      kernels: readBoolean(raw.kernelLenses, 'codeLens.kernels', true, errors),
      loops: readBoolean(raw.loopLenses, 'codeLens.loops', true, errors),
    },
    diagnostics: readBoolean(raw.diagnostics, 'diagnostics.enabled', true, errors),
    errors,
  };
}

/** The catalogue GPU or valid custom GPU with this id (catalogue aliases accepted). */
export function resolveGpu(id: string, customGpus: readonly GpuSpec[]): GpuSpec | undefined {
  return customGpus.find((g) => g.id === id) ?? findGpu(id);
}

function readGpu(raw: unknown, customGpus: GpuSpec[], errors: string[]): GpuSpec {
  const fallback = findGpu(DEFAULT_GPU_ID)!;
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string') {
    errors.push(`${SECTION}.gpu: expected a GPU id such as "${DEFAULT_GPU_ID}", got ${describe(raw)}; using ${fallback.name}`);
    return fallback;
  }
  const gpu = resolveGpu(raw, customGpus);
  if (gpu) return gpu;
  errors.push(
    `${SECTION}.gpu: unknown GPU "${raw.slice(0, 64)}" (neither in the catalogue nor in ${SECTION}.customGpus); using ${fallback.name}`,
  );
  return fallback;
}

function readCustomGpus(raw: unknown, errors: string[]): GpuSpec[] {
  if (raw === undefined || raw === null) return [];
  const { gpus, errors: problems } = validateGpuList(raw, `${SECTION}.customGpus`, CATALOG_IDS);
  errors.push(...problems);
  return gpus;
}

function readBindings(raw: unknown, errors: string[]): Record<string, BindingValue> {
  const out: Record<string, BindingValue> = {};
  for (const [name, value] of entries(raw, 'bindings', 'an object of symbol values, e.g. { "K": 4096 }', errors)) {
    const where = `${SECTION}.bindings["${name.slice(0, 64)}"]`;
    if (!isSymbolName(name)) {
      errors.push(`${where}: not a symbol name (use an identifier, a member path like blockDim.x, or a call like tl.num_programs(0))`);
      continue;
    }
    const v = readBindingValue(value);
    if (v === undefined) errors.push(`${where}: expected a number, true/false or a string, got ${describe(value)}`);
    else out[name] = v;
  }
  return out;
}

/** Numbers as they are, strings through the pragma/`--set` reader ("4096", "2**12", "true"). */
export function readBindingValue(value: unknown): BindingValue | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && value.trim() !== '' && value.length <= 200) return parseBindingValue(value);
  return undefined;
}

function readDtypes(raw: unknown, errors: string[]): { dtypes: Record<string, Dtype>; texels: Record<string, string> } {
  const dtypes: Record<string, Dtype> = {};
  const texels: Record<string, string> = {};
  for (const [name, value] of entries(raw, 'dtypes', 'an object of element types, e.g. { "a_ptr": "fp16" }', errors)) {
    const where = `${SECTION}.dtypes["${name.slice(0, 64)}"]`;
    const short = typeof value === 'string' && value.length <= 40;
    const d = short ? parseDtype(value) : undefined;
    const f = short && !d ? texelFormat(value) : undefined;
    if (!isSymbolName(name)) errors.push(`${where}: not a symbol name`);
    else if (d) dtypes[name] = d;
    else if (f) texels[name] = f;
    else
      errors.push(
        `${where}: unknown element type ${describe(value)} (use fp64, fp32, tf32, fp16, bf16, fp8e4m3, fp8e5m2, int8, int32, ..., or for a WGSL texture a texel format such as rgba8unorm)`,
      );
  }
  return { dtypes, texels };
}

function entries(raw: unknown, key: string, expected: string, errors: string[]): [string, unknown][] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(`${SECTION}.${key}: expected ${expected}, got ${describe(raw)}`);
    return [];
  }
  const all = Object.entries(raw as Record<string, unknown>);
  if (all.length > 1000) errors.push(`${SECTION}.${key}: only the first 1000 of ${all.length} entries are read`);
  return all.slice(0, 1000);
}

function readBoolean(raw: unknown, key: string, fallback: boolean, errors: string[]): boolean {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw === 'boolean') return raw;
  errors.push(`${SECTION}.${key}: expected true or false, got ${describe(raw)}; using ${fallback}`);
  return fallback;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return v.length > 40 ? `"${v.slice(0, 37)}…"` : `"${v}"`;
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  return String(v);
}
