/**
 * The roofline panel's protocol: what the page may send to the extension,
 * what the extension sends to the page, and the panel state the page keeps
 * across reloads. Everything arriving from the page is untrusted: it is
 * checked field by field here (types, lengths, enumerations, character sets)
 * and anything malformed becomes `undefined`, never an exception.
 *
 * The one home of the protocol: src/extension and src/webview both import it.
 * Free of `vscode`, Node and the DOM, and of the core at run time (only its
 * types), so the page may import any of it without pulling the core into
 * dist/webview.js (test/architecture.test.ts checks the bundle).
 */
import type { Dtype } from '../core/gpus/types';
import type { ChartTheme, PrecisionKey } from '../core/report/chart';
import { isSymbolName } from './symbols';
import type { SortState, TableModel } from './table';

// ---------------------------------------------------------------------------
// State (kept by the page with setState; handed back by the serializer)
// ---------------------------------------------------------------------------

/** What-if values for one kernel; they never reach the settings. */
export interface WhatIfState {
  kernelId: string;
  set: Record<string, number | boolean>;
  dtypes: Record<string, Dtype>;
}

export interface PanelState {
  mode: 'file' | 'workspace';
  /** File mode: the document's URI. */
  uri?: string;
  selectedId?: string;
  /** A GPU chosen in the panel; absent: the `rooflineLens.gpu` setting. */
  gpu?: string;
  /** A second GPU whose roofs are overlaid. */
  compare?: string;
  /** Roofs to draw; absent: the default for the kernels shown. */
  precisions?: PrecisionKey[];
  whatIf?: WhatIfState;
  sort?: SortState;
  /** The pipeline shown in the pipeline view (`pipeline:path:line:name`); absent: the first. */
  pipeline?: string;
  /** Fusion pairs chosen in the pipeline view (what-if), by pipeline: each pair by its first launch's index. */
  fused?: FusedState[];
}

export interface FusedState {
  pipeline: string;
  pairs: number[];
}

// ---------------------------------------------------------------------------
// Extension → page
// ---------------------------------------------------------------------------

export interface Choice {
  value: string;
  label: string;
}

export interface WhatIfControl {
  name: string;
  /** `pow2`: halve/double stepper; `number`: a numeric field; `bool`: a checkbox; `dtype`: a list of element types. */
  kind: 'pow2' | 'number' | 'bool' | 'dtype';
  value: number | boolean | string | null;
  /** The value without what-if (null: unbound). */
  baseline: number | boolean | string | null;
  /** Where the baseline comes from ("launch at line 22", "unbound", "assumed"). */
  source: string;
  options?: string[];
  changed: boolean;
}

export interface WhatIfResult {
  label: string;
  formula: string;
  value: string;
  baseline: string;
}

export interface WhatIfModel {
  kernelId: string;
  kernelName: string;
  controls: WhatIfControl[];
  results: WhatIfResult[];
  /** `# roofline: A=… B=…` (or `//`) for the values what-if changed; empty when none. */
  pragma: string;
  changed: boolean;
}

export interface ProfileModel {
  name: string;
  format: string;
  perLaunch: boolean;
  /** "8 launches, 2 kernels matched". */
  summary: string;
  ambiguous: { name: string; candidates: string[] }[];
  /** Unmatched kernels and importer diagnostics, one sentence each. */
  problems: string[];
}

/** A fusion candidate of the pipeline view: a toggle. */
export interface PipelineFusionToggle {
  /** Index of the pair's first launch. */
  from: number;
  /** `rmsnorm_kernel → matmul_kernel (h)`. */
  label: string;
  /** What fusing it alone saves: `saves 33.6 MB of DRAM traffic: T_lower 54.4 µs → 46.2 µs (−15.2 %); the fused kernel would be memory-bound`. */
  detail: string;
  checked: boolean;
  /** Why it cannot be chosen with the pairs chosen now (it shares a launch with one). */
  blocked?: string;
}

/** The pipeline view (docs/pipelines.md): where the time goes across a host function's launches, and fusion what-ifs. */
export interface PipelineViewModel {
  /** `pipeline:path:line:name`. */
  id: string;
  name: string;
  /** Every pipeline of the view, to pick from (one: no picker). */
  choices: Choice[];
  /** `3 launches · 8.61 GFLOP · 122 MB compulsory → 70.8 FLOP/B · T_lower 54.4 µs (T_upper 72.1 µs)`. */
  summary: string;
  /** `memory-bound 54.4 µs (100 %) · compute-bound: no launch`. */
  time: string;
  /** Where its point is on the chart, or why it has none. */
  point: string;
  /** The stacked bar of T_lower per launch (Vega-Lite), as written and with the chosen pairs fused. */
  spec: Record<string, unknown>;
  fusion: PipelineFusionToggle[];
  /** The new totals with the chosen pairs (a bound), or null when none is chosen. */
  fused: string | null;
  /** The report's best set of disjoint pairs, or null when it has none. */
  best: string | null;
  /** One row per launch. */
  launches: TableModel;
  notes: string[];
}

export interface RenderMessage {
  type: 'render';
  state: PanelState;
  title: string;
  /** The Vega-Lite spec; compiled and rendered by the page. */
  spec: Record<string, unknown>;
  /** Shown instead of the dots when the view holds no kernel. */
  empty?: string;
  table: TableModel;
  gpus: Choice[];
  /** The GPU drawn (its id) and the settings' GPU. */
  gpu: string;
  settingGpu: string;
  precisions: (Choice & { checked: boolean })[];
  whatIf: WhatIfModel | null;
  profile: ProfileModel | null;
  /** The pipeline view, for files with pipelines (docs/pipelines.md); null without. */
  pipeline: PipelineViewModel | null;
  notices: string[];
}

/** The extension asks for the chart as SVG or PNG (the page answers with `exported`). */
export interface ExportRequest {
  type: 'export';
  format: ExportFormat;
  requestId: number;
}

export type HostMessage = RenderMessage | ExportRequest;

// ---------------------------------------------------------------------------
// Page → extension
// ---------------------------------------------------------------------------

export type ExportFormat = 'svg' | 'png';

export type PageMessage =
  | { type: 'ready'; theme: ChartTheme; width: number }
  | { type: 'theme'; theme: ChartTheme }
  | { type: 'size'; width: number }
  | { type: 'select'; id: string; reveal: boolean }
  | { type: 'mode'; mode: 'file' | 'workspace' }
  | { type: 'gpu'; id: string }
  | { type: 'compare'; id: string }
  | { type: 'precisions'; keys: PrecisionKey[] }
  | { type: 'sort'; sort: SortState | null }
  | { type: 'whatIf'; name: string; value: number | boolean | null }
  | { type: 'whatIfDtype'; name: string; dtype: Dtype | null }
  | { type: 'whatIfReset' }
  | { type: 'copyPragma' }
  | { type: 'copyTable'; format: 'markdown' | 'tsv' }
  | { type: 'exported'; format: ExportFormat; data: string; requestId: number }
  | { type: 'perLaunch'; on: boolean }
  | { type: 'matchProfile'; name: string }
  | { type: 'importProfile' }
  | { type: 'clearProfile' }
  | { type: 'problem'; kind: 'csp' | 'render'; message: string }
  | { type: 'pipeline'; id: string }
  | { type: 'fuse'; pipeline: string; from: number; on: boolean };

/** Element types a what-if may choose, as `rooflineLens.dtypes` spells them. */
export const WHAT_IF_DTYPES: readonly Dtype[] = ['fp64', 'fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8', 'int16', 'int32', 'int64'];

const PRECISION_KEY = /^(tensor:(fp64|tf32|fp16|bf16|fp8|int8)|vector:(fp64|fp32|fp16|bf16|int32))$/;
const GPU_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** A CSS colour as getComputedStyle gives a variable's value: hex, rgb()/hsl(), or a keyword. */
const COLOR = /^(#[0-9a-fA-F]{3,8}|(rgb|rgba|hsl|hsla)\([0-9.,%\s/+-]{1,60}\)|[a-zA-Z]{3,30})$/;
/** A font-family list: names, quotes, commas, spaces. */
const FONT = /^[\w\s,"'.-]{1,300}$/;
const PNG_DATA_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;
const THEME_KEYS = ['foreground', 'background', 'grid', 'memory', 'compute', 'unknown', 'roof', 'compareRoof', 'l2', 'font'] as const;

/** Exports larger than this are refused (a PNG of a very large chart is a few MB). */
export const MAX_EXPORT_CHARS = 40 * 1024 * 1024;
const MAX_ID = 2000;
/** Fusion pairs kept per pipeline, and pipelines with fusion choices (a pipeline of thousands of launches is not a view). */
const MAX_PAIRS = 256;
const MAX_FUSED_PIPELINES = 64;
const MAX_LAUNCH_INDEX = 100_000;
const MAX_PROBLEM = 2000;

type Raw = Record<string, unknown>;

/** Names that would reach an object's prototype when used as keys. */
const RESERVED = new Set(['__proto__', 'constructor', 'prototype']);

/** A symbol name that is safe as an object key. */
function symbolName(x: unknown): string | undefined {
  return typeof x === 'string' && isSymbolName(x) && !RESERVED.has(x) ? x : undefined;
}

function isRecord(x: unknown): x is Raw {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function str(x: unknown, max: number): string | undefined {
  return typeof x === 'string' && x.length <= max ? x : undefined;
}

function bool(x: unknown): boolean | undefined {
  return typeof x === 'boolean' ? x : undefined;
}

function width(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 20000 ? Math.round(x) : undefined;
}

/** A GPU id, or '' (the setting / no comparison). */
function gpuId(x: unknown): string | undefined {
  const s = str(x, 64);
  return s !== undefined && (s === '' || GPU_ID.test(s)) ? s : undefined;
}

export function isPrecisionKey(x: unknown): x is PrecisionKey {
  return typeof x === 'string' && PRECISION_KEY.test(x);
}

function dtype(x: unknown): Dtype | undefined {
  return typeof x === 'string' && (WHAT_IF_DTYPES as readonly string[]).includes(x) ? (x as Dtype) : undefined;
}

/** A theme from the page: every colour a CSS colour, the font a font-family list. */
export function parseTheme(x: unknown): ChartTheme | undefined {
  if (!isRecord(x)) return undefined;
  const out: Partial<ChartTheme> = {};
  for (const key of THEME_KEYS) {
    const v = str(x[key], 300)?.trim();
    if (v === undefined || !(key === 'font' ? FONT : COLOR).test(v)) return undefined;
    out[key] = v;
  }
  return out as ChartTheme;
}

export function parseSort(x: unknown): SortState | null | undefined {
  if (x === null) return null;
  if (!isRecord(x)) return undefined;
  const column = str(x.column, 40);
  const descending = bool(x.descending);
  return column !== undefined && /^\w+$/.test(column) && descending !== undefined ? { column, descending } : undefined;
}

function whatIfValue(x: unknown): number | boolean | null | undefined {
  if (x === null || typeof x === 'boolean') return x;
  return typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= 1e18 ? x : undefined;
}

function exported(x: Raw): PageMessage | undefined {
  const format = x.format === 'svg' || x.format === 'png' ? x.format : undefined;
  const data = str(x.data, MAX_EXPORT_CHARS);
  const requestId = typeof x.requestId === 'number' && Number.isInteger(x.requestId) && x.requestId >= 0 ? x.requestId : undefined;
  if (!format || data === undefined || requestId === undefined) return undefined;
  const ok = format === 'svg' ? data.startsWith('<svg') && data.trimEnd().endsWith('</svg>') : PNG_DATA_URL.test(data);
  return ok ? { type: 'exported', format, data, requestId } : undefined;
}

/** Checks a message from the page; undefined when it is malformed in any way. */
export function parsePageMessage(raw: unknown): PageMessage | undefined {
  if (!isRecord(raw) || typeof raw.type !== 'string') return undefined;
  switch (raw.type) {
    case 'ready': {
      const theme = parseTheme(raw.theme);
      const w = width(raw.width);
      return theme && w !== undefined ? { type: 'ready', theme, width: w } : undefined;
    }
    case 'theme': {
      const theme = parseTheme(raw.theme);
      return theme ? { type: 'theme', theme } : undefined;
    }
    case 'size': {
      const w = width(raw.width);
      return w !== undefined ? { type: 'size', width: w } : undefined;
    }
    case 'select': {
      const id = str(raw.id, MAX_ID);
      const reveal = bool(raw.reveal);
      return id !== undefined && id !== '' && reveal !== undefined ? { type: 'select', id, reveal } : undefined;
    }
    case 'mode':
      return raw.mode === 'file' || raw.mode === 'workspace' ? { type: 'mode', mode: raw.mode } : undefined;
    case 'gpu':
    case 'compare': {
      const id = gpuId(raw.id);
      return id !== undefined ? { type: raw.type, id } : undefined;
    }
    case 'precisions':
      return Array.isArray(raw.keys) && raw.keys.length <= 20 && raw.keys.every(isPrecisionKey) ? { type: 'precisions', keys: [...raw.keys] } : undefined;
    case 'sort': {
      const sort = parseSort(raw.sort);
      return sort !== undefined ? { type: 'sort', sort } : undefined;
    }
    case 'whatIf': {
      const name = symbolName(raw.name);
      const value = whatIfValue(raw.value);
      return name !== undefined && value !== undefined ? { type: 'whatIf', name, value } : undefined;
    }
    case 'whatIfDtype': {
      const name = symbolName(raw.name);
      const d = raw.dtype === null ? null : dtype(raw.dtype);
      return name !== undefined && d !== undefined ? { type: 'whatIfDtype', name, dtype: d } : undefined;
    }
    case 'copyTable':
      return raw.format === 'markdown' || raw.format === 'tsv' ? { type: 'copyTable', format: raw.format } : undefined;
    case 'exported':
      return exported(raw);
    case 'perLaunch': {
      const on = bool(raw.on);
      return on !== undefined ? { type: 'perLaunch', on } : undefined;
    }
    case 'matchProfile': {
      const name = str(raw.name, MAX_ID);
      return name ? { type: 'matchProfile', name } : undefined;
    }
    case 'problem': {
      const kind = raw.kind === 'csp' || raw.kind === 'render' ? raw.kind : undefined;
      const message = str(raw.message, MAX_PROBLEM);
      return kind && message !== undefined ? { type: 'problem', kind, message } : undefined;
    }
    case 'pipeline': {
      const id = pipelineRef(raw.id);
      return id !== undefined ? { type: 'pipeline', id } : undefined;
    }
    case 'fuse': {
      const pipeline = pipelineRef(raw.pipeline);
      const from = launchIndex(raw.from);
      const on = bool(raw.on);
      return pipeline !== undefined && from !== undefined && on !== undefined ? { type: 'fuse', pipeline, from, on } : undefined;
    }
    case 'whatIfReset':
    case 'copyPragma':
    case 'importProfile':
    case 'clearProfile':
      return { type: raw.type };
    default:
      return undefined;
  }
}

/** A pipeline's id as the view names it: `pipeline:path:line:name` (any language's host function name: `forward`, `Model::forward`, `encodeFrame`). */
function pipelineRef(x: unknown): string | undefined {
  const s = str(x, MAX_ID);
  return s !== undefined && /^pipeline:[^\n\r]*:\d+:[^\n\r]+$/.test(s) ? s : undefined;
}

/** A launch's index in its pipeline. */
function launchIndex(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= MAX_LAUNCH_INDEX ? x : undefined;
}

/** Saved fusion choices: the valid entries, one per pipeline, each pair once and in order. */
function fusedStates(x: unknown): FusedState[] | undefined {
  if (!Array.isArray(x)) return undefined;
  const out: FusedState[] = [];
  for (const entry of x.slice(0, MAX_FUSED_PIPELINES)) {
    if (!isRecord(entry) || !Array.isArray(entry.pairs)) continue;
    const pipeline = pipelineRef(entry.pipeline);
    if (!pipeline || out.some((f) => f.pipeline === pipeline)) continue;
    const pairs = [...new Set(entry.pairs.slice(0, MAX_PAIRS).map(launchIndex).filter((i): i is number => i !== undefined))];
    if (pairs.length) out.push({ pipeline, pairs });
  }
  return out.length ? out : undefined;
}

function whatIfState(x: unknown): WhatIfState | undefined {
  if (!isRecord(x) || !isRecord(x.set) || !isRecord(x.dtypes)) return undefined;
  const kernelId = str(x.kernelId, MAX_ID);
  if (!kernelId) return undefined;
  const set: Record<string, number | boolean> = {};
  for (const [name, v] of Object.entries(x.set).slice(0, 200)) {
    const value = whatIfValue(v);
    if (symbolName(name) && value !== undefined && value !== null) set[name] = value;
  }
  const dtypes: Record<string, Dtype> = {};
  for (const [name, v] of Object.entries(x.dtypes).slice(0, 200)) {
    const d = dtype(v);
    if (symbolName(name) && d) dtypes[name] = d;
  }
  return { kernelId, set, dtypes };
}

/** A saved panel state (from the page, so untrusted): its valid parts, or undefined when it is not a state at all. */
export function parsePanelState(raw: unknown): PanelState | undefined {
  if (!isRecord(raw) || (raw.mode !== 'file' && raw.mode !== 'workspace')) return undefined;
  const state: PanelState = { mode: raw.mode };
  const uri = str(raw.uri, 4000);
  if (uri && /^[a-z][a-z0-9+.-]*:/i.test(uri)) state.uri = uri;
  const selectedId = str(raw.selectedId, MAX_ID);
  if (selectedId) state.selectedId = selectedId;
  const gpu = gpuId(raw.gpu);
  if (gpu) state.gpu = gpu;
  const compare = gpuId(raw.compare);
  if (compare) state.compare = compare;
  if (Array.isArray(raw.precisions) && raw.precisions.length <= 20 && raw.precisions.every(isPrecisionKey)) state.precisions = [...raw.precisions];
  const whatIf = whatIfState(raw.whatIf);
  if (whatIf) state.whatIf = whatIf;
  const sort = parseSort(raw.sort);
  if (sort) state.sort = sort;
  const pipeline = pipelineRef(raw.pipeline);
  if (pipeline) state.pipeline = pipeline;
  const fused = fusedStates(raw.fused);
  if (fused) state.fused = fused;
  return state;
}

/** The fusion pairs chosen for a pipeline in a state. */
export function fusedPairs(state: Pick<PanelState, 'fused'>, pipeline: string): number[] {
  return state.fused?.find((f) => f.pipeline === pipeline)?.pairs ?? [];
}

/** The state's fusion choices with `from` of `pipeline` chosen (`on`) or not. */
export function withFusion(state: Pick<PanelState, 'fused'>, pipeline: string, from: number, on: boolean): FusedState[] | undefined {
  const rest = (state.fused ?? []).filter((f) => f.pipeline !== pipeline);
  const pairs = fusedPairs(state, pipeline).filter((p) => p !== from);
  if (on) pairs.push(from);
  const out = pairs.length ? [...rest, { pipeline, pairs }] : rest;
  return out.length ? out.slice(-MAX_FUSED_PIPELINES) : undefined;
}

/**
 * Checks the pipeline view of a render message on the page (the other way
 * round from parsePageMessage: the page draws only a model of the right
 * shape, and anything else as no pipeline view).
 */
export function parsePipelineView(x: unknown): PipelineViewModel | null {
  if (!isRecord(x)) return null;
  const strings = (v: unknown, max: number): v is string[] => Array.isArray(v) && v.length <= max && v.every((s) => typeof s === 'string');
  const choices = Array.isArray(x.choices) && x.choices.every((c) => isRecord(c) && typeof c.value === 'string' && typeof c.label === 'string');
  const toggles =
    Array.isArray(x.fusion) &&
    x.fusion.every((f) => isRecord(f) && launchIndex(f.from) !== undefined && typeof f.label === 'string' && typeof f.detail === 'string' && typeof f.checked === 'boolean' && (f.blocked === undefined || typeof f.blocked === 'string'));
  const launches = isRecord(x.launches) && Array.isArray(x.launches.columns) && Array.isArray(x.launches.rows);
  const ok =
    pipelineRef(x.id) !== undefined &&
    typeof x.name === 'string' &&
    choices &&
    typeof x.summary === 'string' &&
    typeof x.time === 'string' &&
    typeof x.point === 'string' &&
    isRecord(x.spec) &&
    toggles &&
    (x.fused === null || typeof x.fused === 'string') &&
    (x.best === null || typeof x.best === 'string') &&
    launches &&
    strings(x.notes, 1000);
  return ok ? (x as unknown as PipelineViewModel) : null;
}
