/**
 * The survey's figures: per language group and per root folder, from the
 * per-file results. Pure (no I/O): tests build summaries from hand-made results.
 */
import type { FileResult, KernelRow, SuspiciousFlag } from './file';
import { GROUPS, type SurveyGroup } from './scan';

export interface Counts {
  files: number;
  /** Files with at least one definition in the text but no kernel found. */
  filesMissingKernels: number;
  crashes: number;
  timeouts: number;
  /** Diagnostics with id `internal` (the analysis caught its own error). */
  internalErrors: number;
  defined: number;
  /** Triton: definitions named by another jit function of the file (helpers: inlined, not kernels). */
  helpers: number;
  /** Triton `@pointwise_dynamic` element functions seen (no kernel is expected from them today). */
  otherDecorators: number;
  found: number;
  /** Sum over files of min(found, defined − helpers): kernel definitions matched by a found kernel, at best. */
  foundOfDefined: number;
  /** Kernels beyond the kernel definitions (helpers or combine functions listed as kernels). */
  foundBeyondDefined: number;
  status: Record<string, number>;
  /** flops, loadBytes, storeBytes and intensity all numbers, with no bindings given. */
  withNumbers: number;
  /** ... and clean (complete not false, no warning/error of its own). */
  withNumbersClean: number;
  /** ... and no suspicious flag. */
  withNumbersCleanUnsuspicious: number;
  withSteadyIntensity: number;
  /** A number on first open (issue 16): the full numbers, a labelled whole-kernel or steady-state intensity, or `AI ∞` (FLOPs, no global bytes, complete). */
  withFirstOpenNumber: number;
  /** Clean and complete with 0 FLOPs and 0 bytes: the answer is "no global work", not a number on the roofline. */
  noGlobalWork: number;
  /** Kernels whose report has no `complete` field. */
  completeNotReported: number;
  completeFalse: number;
  reasons: Record<string, number>;
  /** `code severity` → count, over all diagnostics of the files. */
  diagnostics: Record<string, number>;
  suspicious: Record<SuspiciousFlag, number>;
  /** Stores/loads in the text but 0 bytes, clean or not (the flags above need a clean kernel). */
  storesButZeroStoreBytesAnyStatus: number;
  loadsButZeroLoadBytesAnyStatus: number;
  /** Unknown calls by name: diagnostics (not kernels). */
  unknownCalls: Record<string, number>;
  /** `code` → message template → count (what each id stands for in practice). */
  templates: Record<string, Record<string, number>>;
  /** Host pipelines (issue 18): found, their launches, launches with numbers, pipelines with every launch resolved, fusion candidates. */
  pipelines: number;
  pipelineLaunches: number;
  pipelineLaunchesResolved: number;
  pipelinesResolved: number;
  fusionCandidates: number;
  ms: number;
}

export interface Summary {
  totals: Counts;
  languages: Record<SurveyGroup, Counts>;
  roots: Record<string, Counts>;
  slowest: { file: string; language: SurveyGroup; ms: number; kernels: number; bytes: number }[];
  crashes: { file: string; outcome: string; error: string }[];
}

export function emptyCounts(): Counts {
  return {
    files: 0,
    filesMissingKernels: 0,
    crashes: 0,
    timeouts: 0,
    internalErrors: 0,
    defined: 0,
    helpers: 0,
    otherDecorators: 0,
    found: 0,
    foundOfDefined: 0,
    foundBeyondDefined: 0,
    status: {},
    withNumbers: 0,
    withNumbersClean: 0,
    withNumbersCleanUnsuspicious: 0,
    withSteadyIntensity: 0,
    withFirstOpenNumber: 0,
    noGlobalWork: 0,
    completeNotReported: 0,
    completeFalse: 0,
    reasons: {},
    diagnostics: {},
    suspicious: { storesButZeroStoreBytes: 0, allZero: 0, loadsButZeroLoadBytes: 0, unknownCall: 0 },
    storesButZeroStoreBytesAnyStatus: 0,
    loadsButZeroLoadBytesAnyStatus: 0,
    unknownCalls: {},
    templates: {},
    pipelines: 0,
    pipelineLaunches: 0,
    pipelineLaunchesResolved: 0,
    pipelinesResolved: 0,
    fusionCandidates: 0,
    ms: 0,
  };
}

const bump = (r: Record<string, number>, k: string, by = 1): void => {
  r[k] = (r[k] ?? 0) + by;
};

function addKernel(c: Counts, k: KernelRow): void {
  bump(c.status, k.status);
  if (k.numbers) {
    c.withNumbers++;
    if (k.clean) {
      c.withNumbersClean++;
      if (k.suspicious.length === 0) c.withNumbersCleanUnsuspicious++;
    }
  }
  if (typeof k.steadyIntensity === 'number') c.withSteadyIntensity++;
  // A complete count with FLOPs and no global-memory bytes shows `AI ∞ · compute-bound` on its lens: a number too.
  const infinite = k.complete === true && k.flops !== null && k.flops > 0 && k.loadBytes === 0 && k.storeBytes === 0;
  if (k.numbers || typeof k.steadyIntensity === 'number' || infinite) c.withFirstOpenNumber++;
  else if (k.clean && k.flops === 0 && k.loadBytes === 0 && k.storeBytes === 0) c.noGlobalWork++;
  if (k.complete === null) c.completeNotReported++;
  else if (k.complete === false) {
    c.completeFalse++;
    for (const r of k.reasons.length ? k.reasons : ['(no reason given)']) bump(c.reasons, r);
  }
  for (const s of k.suspicious) c.suspicious[s]++;
  if (k.textStores && k.storeBytes === 0) c.storesButZeroStoreBytesAnyStatus++;
  if (k.textLoads && k.loadBytes === 0) c.loadsButZeroLoadBytesAnyStatus++;
}

function addFile(c: Counts, f: FileResult): void {
  c.files++;
  c.ms += f.ms;
  if (f.outcome === 'crash') c.crashes++;
  if (f.outcome === 'timeout') c.timeouts++;
  const kernelDefs = Math.max(0, f.defined - f.helpers);
  c.defined += f.defined;
  c.helpers += f.helpers;
  c.otherDecorators += f.otherDecorators;
  c.found += f.found;
  c.foundOfDefined += Math.min(f.found, kernelDefs);
  c.foundBeyondDefined += Math.max(0, f.found - kernelDefs);
  if (kernelDefs > 0 && f.found === 0) c.filesMissingKernels++;
  for (const d of f.diagnostics) {
    bump(c.diagnostics, `${d.code} ${d.severity}`);
    if (d.code === 'internal') c.internalErrors++;
    if (d.call) bump(c.unknownCalls, d.call);
    bump((c.templates[d.code] ??= {}), d.template ?? d.message);
  }
  for (const k of f.kernels) addKernel(c, k);
  for (const p of f.pipelines ?? []) {
    c.pipelines++;
    c.pipelineLaunches += p.launches;
    c.pipelineLaunchesResolved += p.resolved;
    if (p.launches > 0 && p.resolved === p.launches) c.pipelinesResolved++;
    c.fusionCandidates += p.fusion;
  }
}

export function summarise(results: FileResult[], slowest = 15): Summary {
  const totals = emptyCounts();
  const languages = Object.fromEntries(GROUPS.map((g) => [g, emptyCounts()])) as Record<SurveyGroup, Counts>;
  const roots: Record<string, Counts> = {};
  for (const f of results) {
    addFile(totals, f);
    addFile(languages[f.language], f);
    addFile((roots[f.root] ??= emptyCounts()), f);
  }
  return {
    totals,
    languages,
    roots,
    slowest: [...results]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, slowest)
      .map((f) => ({ file: f.file, language: f.language, ms: Math.round(f.ms), kernels: f.found, bytes: f.bytes })),
    crashes: results.filter((f) => f.outcome !== 'ok').map((f) => ({ file: f.file, outcome: f.outcome, error: f.error ?? '' })),
  };
}

/** The n largest entries of a count table. */
export function top(r: Record<string, number>, n: number): [string, number][] {
  return Object.entries(r)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, n);
}
