/**
 * The survey of one file: runs `roofline-lens analyze FILE --format json`
 * in-process (the CLI's own code path and defaults), then turns its JSON into
 * per-kernel rows with the survey's cross-checks. Never throws: a crash is
 * recorded in the result.
 */
import * as fs from 'node:fs';
import { clearCaches } from '../../core/analyze';
import { analyzeCommand } from '../analyze';
import { decode, lazyParsers, wasmLoader } from '../inputs';
import { countDefinitions, cudaMemoryUse, decoratorStart, kernelText, storageBindings, tritonMemoryUse, unknownCallName, isUnknownCall, messageTemplate, wgslFunctions, wgslMemoryUse, withWgslHelpers, type MemoryUse, type SurveyGroup } from './scan';

export type Severity = 'error' | 'warning' | 'info' | 'hint' | string;

export interface SurveyDiagnostic {
  line: number;
  severity: Severity;
  code: string;
  message: string;
  /** The kernel it belongs to (by line range or `name:` prefix), if any. */
  kernel?: string;
  /** For unknown-call diagnostics: the called name. */
  call?: string;
  /** The message with its particulars taken out (see messageTemplate). */
  template: string;
}

export type SuspiciousFlag = 'storesButZeroStoreBytes' | 'allZero' | 'loadsButZeroLoadBytes' | 'unknownCall';

export interface KernelRow {
  file: string;
  kernel: string;
  line: number;
  language: SurveyGroup;
  flops: number | null;
  loadBytes: number | null;
  storeBytes: number | null;
  intensity: number | null;
  /** `arithmeticIntensitySteady.value`; undefined when the field is not reported. */
  steadyIntensity?: number | null;
  status: string;
  /** null when the report has no `complete` field (engine before the honesty fields). */
  complete: boolean | null;
  reasons: string[];
  codes: string[];
  /**
   * Presented as a clean figure: complete is not false and no warning/error
   * diagnostic of its own (info notes allowed: that is what a user sees as
   * "fine"). `status` is not part of it: 'partial' also means only the launch
   * size is symbolic while the per-unit numbers are all there.
   */
  clean: boolean;
  /** flops, loadBytes, storeBytes and intensity all numbers. */
  numbers: boolean;
  /** The kernel's own text writes / reads global memory (survey heuristics). */
  textStores: boolean;
  textLoads: boolean;
  suspicious: SuspiciousFlag[];
  unknownCalls: string[];
}

export interface FileResult {
  file: string;
  root: string;
  language: SurveyGroup;
  ms: number;
  bytes: number;
  defined: number;
  /** Triton: definitions another jit function of the file names (inlined helpers, not kernels). */
  helpers: number;
  /** Triton: `@pointwise_dynamic` element functions (not kernels to the analysis). */
  otherDecorators: number;
  found: number;
  outcome: 'ok' | 'crash' | 'timeout';
  error?: string;
  diagnostics: SurveyDiagnostic[];
  kernels: KernelRow[];
  /** Host pipelines of the file (issue 18): launches listed, launches with numbers, fusion candidates. */
  pipelines?: PipelineRow[];
}

export interface PipelineRow {
  name: string;
  launches: number;
  resolved: number;
  fusion: number;
}

export interface FileJob {
  /** Path on disk. */
  path: string;
  /** Path shown in reports: `<root name>/<path below the root>`. */
  display: string;
  root: string;
  language: SurveyGroup;
}

interface JsonDiagnostic {
  line?: number;
  severity?: string;
  message?: string;
  code?: string;
  id?: string;
  name?: unknown;
  data?: unknown;
}

interface JsonKernel {
  name: string;
  line: number;
  endLine?: number;
  perUnit?: { flops?: number | null; loadBytes?: number | null; storeBytes?: number | null };
  arithmeticIntensity?: number | null;
  arithmeticIntensitySteady?: number | { value?: number | null } | null;
  status?: string;
  complete?: boolean;
  incompleteReasons?: unknown[];
}

const parsers = lazyParsers(wasmLoader());

/** Runs the CLI's `analyze` on one file and returns its parsed JSON file report. */
interface JsonPipeline {
  name?: string;
  launches?: { unresolved?: string }[];
  fusion?: unknown[];
}

async function analyzeViaCli(file: string): Promise<{ diagnostics?: JsonDiagnostic[]; kernels?: JsonKernel[]; pipelines?: JsonPipeline[] }> {
  let out = '';
  const code = await analyzeCommand([file, '--format', 'json'], parsers, (s) => (out += s));
  if (code !== 0) throw new Error(`analyze exited ${code}`);
  const doc = JSON.parse(out) as { files?: unknown[] };
  const f = doc.files?.[0];
  if (!f || typeof f !== 'object') throw new Error('analyze printed no file report');
  return f as { diagnostics?: JsonDiagnostic[]; kernels?: JsonKernel[]; pipelines?: JsonPipeline[] };
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

function reasonId(r: unknown): string {
  if (typeof r === 'string') return r;
  if (r && typeof r === 'object') {
    const o = r as Record<string, unknown>;
    for (const k of ['id', 'code', 'reason']) if (typeof o[k] === 'string') return o[k] as string;
  }
  return JSON.stringify(r);
}

function steadyOf(k: JsonKernel): number | null | undefined {
  if (!('arithmeticIntensitySteady' in k)) return undefined;
  const s = k.arithmeticIntensitySteady;
  if (s === null || s === undefined) return null;
  if (typeof s === 'number') return num(s);
  return num(s.value);
}

interface ModuleInfo {
  bindings: Map<string, 'read' | 'read_write' | 'write'>;
  functions: Map<string, string>;
}

function memoryUse(language: SurveyGroup, text: string, name: string, module: () => ModuleInfo): MemoryUse {
  if (language === 'triton') return tritonMemoryUse(text);
  if (language === 'cuda') return cudaMemoryUse(text, name);
  const m = module();
  return wgslMemoryUse(withWgslHelpers(text, m.functions, name), m.bindings);
}

/** Turns one file's analysis into survey rows (exported for tests). */
export function rowsOf(job: FileJob, source: string, report: { diagnostics?: JsonDiagnostic[]; kernels?: JsonKernel[] }): { diagnostics: SurveyDiagnostic[]; kernels: KernelRow[] } {
  const lines = source.split('\n');
  const ks = [...(report.kernels ?? [])].sort((a, b) => a.line - b.line);
  const ranges = ks.map((k, i) => {
    const next = ks[i + 1]?.line ?? lines.length + 1;
    const end = Math.max(k.line, Math.min(k.endLine ?? next - 1, lines.length));
    const start = job.language === 'triton' ? decoratorStart(lines, k.line) : k.line;
    return { k, start, end };
  });
  const diagnostics: SurveyDiagnostic[] = (report.diagnostics ?? []).map((d) => {
    const line = typeof d.line === 'number' ? d.line : 0;
    const message = String(d.message ?? '');
    const code = String(d.code ?? d.id ?? '(no id)');
    const byName = ranges.find((r) => message.startsWith(`${r.k.name}: `) || message.startsWith(`internal error counting \`${r.k.name}\``));
    const byLine = ranges.find((r) => line >= r.start && line <= r.end);
    const owner = byName ?? byLine;
    const out: SurveyDiagnostic = { line, severity: String(d.severity ?? 'info'), code, message, template: messageTemplate(message, owner?.k.name) };
    if (owner) out.kernel = `${owner.k.name}@${owner.k.line}`;
    if (isUnknownCall({ message, name: d.name, data: d.data })) out.call = unknownCallName({ message, name: d.name, data: d.data });
    return out;
  });
  let module: ModuleInfo | undefined;
  const kernels = ranges.map(({ k, start, end }) => {
    const key = `${k.name}@${k.line}`;
    const own = diagnostics.filter((d) => d.kernel === key);
    const flops = num(k.perUnit?.flops);
    const loadBytes = num(k.perUnit?.loadBytes);
    const storeBytes = num(k.perUnit?.storeBytes);
    const intensity = num(k.arithmeticIntensity);
    const complete = typeof k.complete === 'boolean' ? k.complete : null;
    const status = String(k.status ?? 'unknown');
    const clean = complete !== false && !own.some((d) => d.severity === 'error' || d.severity === 'warning');
    const use = memoryUse(job.language, kernelText(lines, start, end), k.name, () => (module ??= { bindings: storageBindings(source), functions: wgslFunctions(source) }));
    const unknownCalls = [...new Set(own.filter((d) => d.call).map((d) => d.call!))];
    const suspicious: SuspiciousFlag[] = [];
    if (use.stores && storeBytes === 0 && clean) suspicious.push('storesButZeroStoreBytes');
    if (flops === 0 && loadBytes === 0 && storeBytes === 0) suspicious.push('allZero');
    if (use.loads && loadBytes === 0 && clean) suspicious.push('loadsButZeroLoadBytes');
    if (unknownCalls.length) suspicious.push('unknownCall');
    const row: KernelRow = {
      file: job.display,
      kernel: k.name,
      line: k.line,
      language: job.language,
      flops,
      loadBytes,
      storeBytes,
      intensity,
      status,
      complete,
      reasons: Array.isArray(k.incompleteReasons) ? k.incompleteReasons.map(reasonId) : [],
      codes: [...new Set(own.map((d) => d.code))].sort(),
      clean,
      numbers: flops !== null && loadBytes !== null && storeBytes !== null && intensity !== null,
      textStores: use.stores,
      textLoads: use.loads,
      suspicious,
      unknownCalls,
    };
    const steady = steadyOf(k);
    if (steady !== undefined) row.steadyIntensity = steady;
    return row;
  });
  return { diagnostics, kernels };
}

/** Surveys one file. Never throws. */
export async function surveyFile(job: FileJob): Promise<FileResult> {
  const base: FileResult = { file: job.display, root: job.root, language: job.language, ms: 0, bytes: 0, defined: 0, helpers: 0, otherDecorators: 0, found: 0, outcome: 'ok', diagnostics: [], kernels: [], pipelines: [] };
  let source: string;
  try {
    const buf = fs.readFileSync(job.path);
    base.bytes = buf.length;
    source = decode(buf);
  } catch (e) {
    return { ...base, outcome: 'crash', error: `cannot read: ${(e as Error).message}` };
  }
  const defs = countDefinitions(job.language, source);
  base.defined = defs.defined;
  base.helpers = defs.helpers;
  base.otherDecorators = defs.otherDecorators;
  clearCaches();
  const t0 = performance.now();
  let report: Awaited<ReturnType<typeof analyzeViaCli>>;
  try {
    report = await analyzeViaCli(job.path);
  } catch (e) {
    base.ms = performance.now() - t0;
    return { ...base, outcome: 'crash', error: String((e as Error)?.stack ?? e).split('\n').slice(0, 4).join(' | ') };
  }
  base.ms = performance.now() - t0;
  try {
    const { diagnostics, kernels } = rowsOf(job, source, report);
    const pipelines = (report.pipelines ?? []).map((p) => {
      const launches = Array.isArray(p.launches) ? p.launches : [];
      return { name: String(p.name ?? '?'), launches: launches.length, resolved: launches.filter((l) => !l?.unresolved).length, fusion: Array.isArray(p.fusion) ? p.fusion.length : 0 };
    });
    return { ...base, found: kernels.length, diagnostics, kernels, pipelines };
  } catch (e) {
    return { ...base, found: report.kernels?.length ?? 0, outcome: 'crash', error: `survey could not read the report: ${(e as Error).message}` };
  }
}
