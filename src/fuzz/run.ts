/**
 * The fuzz loop. Inputs come in sessions: a session starts from a seed,
 * mutates it, then keeps mutating its own last version on the same path, so
 * the incremental path (tree re-use, kernel caches) sees a stream of edits
 * the way an editor does. At the end of a session the last version is
 * analysed again cold (caches cleared, a fresh path) and must give the same
 * report. Every input must come back within its budget, without an
 * exception, with a report the oracle accepts.
 */
import { analyzeSource, clearCaches, languageOf, type AnalyzeOptions } from '../core/analyze';
import { readPragmas } from '../core/bindings';
import { findGpu } from '../core/gpus/catalog';
import { validateGpu } from '../core/gpus/validate';
import type { GpuSpec } from '../core/gpus/types';
import type { Parsers } from '../core/parsers';
import type { FileReport } from '../core/report/types';
import { assumption } from '../core/messages';
import type { Seed } from './corpus';
import type { FuzzLanguage } from './hostile';
import { mutate } from './mutate';
import { inspect, isWasmTrap, normalise, type Finding } from './oracle';
import { deriveSeed, Rng } from './rng';

export interface FuzzConfig {
  seed: number;
  /** Inputs in all, shared equally by the languages. */
  count: number;
  langs: readonly FuzzLanguage[];
  /** The analysis budget handed to analyzeSource, ms. */
  budgetMs: number;
  /** How far past the budget an analysis may run before it counts as a hang, ms. */
  hangMarginMs: number;
  /** Share of sessions whose first input gets a hostile rewrite. */
  hostileRate: number;
  /** Versions per session (successive edits on one path). */
  sessionLength: number;
  /** Compare each session's last version with a cold analysis. */
  differential: boolean;
}

export const DEFAULT_CONFIG: FuzzConfig = {
  seed: 1,
  count: 1000,
  langs: ['triton', 'cuda', 'wgsl'],
  budgetMs: 400,
  hangMarginMs: 600,
  hostileRate: 0.3,
  sessionLength: 4,
  differential: true,
};

export interface FuzzInput {
  /** `<lang>#<index>` under the run's seed. */
  id: string;
  lang: FuzzLanguage;
  seed: string;
  ops: string[];
  path: string;
  source: string;
  /** The version analysed just before on the same path (the incremental parse started from it). */
  previous?: string;
  options: Omit<AnalyzeOptions, 'budgetMs' | 'path'>;
}

/** What is needed to analyse an input again (after `previous` on the same path, when given). */
export type ReplayInput = Pick<FuzzInput, 'source' | 'path' | 'options' | 'previous'>;

export interface Outcome {
  input: FuzzInput;
  ms: number;
  findings: Finding[];
}

export interface LanguageStats {
  inputs: number;
  ms: number;
  maxMs: number;
  slowest: string;
}

// ---------------------------------------------------------------------------
// Options: the seed's own, none, or hostile ones a user can give (the CLI
// and the settings take any number or string for a binding, and 1 to 3
// positive integers for --grid)
// ---------------------------------------------------------------------------

function customGpu(x: unknown): GpuSpec {
  const { gpu, errors } = validateGpu(x);
  if (!gpu) throw new Error(`fuzz: invalid built-in custom GPU: ${errors.join('; ')}`);
  return gpu;
}

/** Odd but valid GPUs: only an int8 tensor peak; an L2 slower than DRAM with the largest peak allowed. */
const ODD_GPUS: GpuSpec[] = [
  customGpu({ id: 'fz-tensor-only', name: 'Tensor only', memoryBandwidth: 1e9, peaks: { tensor: { int8: 1e9 } } }),
  customGpu({ id: 'fz-slow-l2', name: 'Slow L2', memoryBandwidth: 1e14, l2Bandwidth: 1e9, peaks: { vector: { fp64: 1e17 } } }),
];
const GPU_IDS = ['h100-sxm', 'a100-sxm-80gb', 't4', 'mi300x', 'l4'];
const NASTY_VALUES = [1e308, -1, 0, 0.5, 2 ** 53 + 2, 1e-300, 4294967296, true, 'x'];
const NASTY_GRIDS = [[1], [1e18, 1e18, 1e18], [2147483647, 65535, 65535]];

function gpuFor(rng: Rng): GpuSpec {
  if (rng.chance(0.8)) return findGpu('h100-sxm')!;
  if (rng.chance(0.3)) return rng.pick(ODD_GPUS);
  return findGpu(rng.pick(GPU_IDS))!;
}

function optionsFor(seed: Seed, rng: Rng): FuzzInput['options'] {
  const base = { ...seed.args, gpu: gpuFor(rng) };
  const roll = rng.next();
  if (roll < 0.7) return base;
  if (roll < 0.85) return { gpu: base.gpu };
  const set = { ...(seed.args.set ?? {}) };
  const names = Object.keys(set).length ? Object.keys(set) : ['K', 'N', 'BLOCK', 'blockDim.x'];
  set[rng.pick(names)] = rng.pick(NASTY_VALUES);
  return rng.chance(0.5) ? { ...base, set } : { ...base, set, grid: rng.pick(NASTY_GRIDS) };
}

// ---------------------------------------------------------------------------
// One analysis and its checks
// ---------------------------------------------------------------------------

interface Analysis {
  report?: FileReport;
  thrown?: unknown;
  ms: number;
}

function analyse(parsers: Parsers, source: string, path: string, options: FuzzInput['options'], budgetMs: number): Analysis {
  const t0 = performance.now();
  try {
    // The fuzzer holds the parse to the analysis budget too: a hang is judged on the whole call.
    const report = analyzeSource(source, parsers, { ...options, path, budgetMs, parseMs: budgetMs });
    return { report, ms: performance.now() - t0 };
  } catch (e) {
    return { thrown: e, ms: performance.now() - t0 };
  }
}

function describeThrown(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** The oracle's findings for one analysis of `input`, plus a hang or a throw. */
export function judge(a: Analysis, input: ReplayInput, cfg: Pick<FuzzConfig, 'budgetMs' | 'hangMarginMs'>): Finding[] {
  const out: Finding[] = [];
  if (a.thrown !== undefined) {
    const what = describeThrown(a.thrown);
    out.push({ kind: 'throw', detail: what, signature: `throw: ${normalise(what)}` });
  }
  if (a.report) out.push(...inspect(a.report, { set: input.options.set, pragmas: readPragmas(input.source) }));
  if (a.ms > cfg.budgetMs + cfg.hangMarginMs) {
    out.push({ kind: 'hang', detail: `took ${Math.round(a.ms)} ms (budget ${cfg.budgetMs} ms)`, signature: 'hang: over budget' });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Incremental against cold
// ---------------------------------------------------------------------------

const VOLATILE_CODES = new Set(['budget', 'partial', 'stale', 'kernelTruncated', 'parserGaveUp']);

/** What must not depend on caches: the kernels (not the stale ones WGSL keeps on purpose) and the diagnostics. */
function comparable(r: FileReport): string {
  const staleNote = assumption('staleResult').text;
  const stale = r.kernels.filter((k) => k.assumptions.includes(staleNote)).map((k) => `${k.name}: `);
  const kernels = r.kernels.filter((k) => !k.assumptions.includes(staleNote));
  const diagnostics = r.diagnostics.filter((d) => !VOLATILE_CODES.has(d.code) && !stale.some((s) => d.message.startsWith(s)));
  return JSON.stringify({ kernels, diagnostics });
}

function hitBudget(r: FileReport): boolean {
  return r.diagnostics.some((d) => d.code === 'budget' || d.code === 'partial' || d.code === 'parserGaveUp' || d.code === 'kernelTruncated');
}

/** The first difference between two JSON texts, with some context. */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 80);
  return `incremental …${a.slice(from, i + 80)}… cold …${b.slice(from, i + 80)}…`;
}

function differential(parsers: Parsers, input: ReplayInput, warm: FileReport, budgetMs: number): Finding[] {
  clearCaches();
  const cold = analyse(parsers, input.source, `cold/${input.path}`, input.options, budgetMs);
  if (!cold.report || hitBudget(cold.report) || hitBudget(warm)) return [];
  const a = comparable({ ...warm, path: '' });
  const b = comparable({ ...cold.report, path: '' });
  if (a === b) return [];
  return [{ kind: 'cache-mismatch', detail: firstDifference(a, b), signature: `cache-mismatch: ${languageOf(input.path)}` }];
}

// ---------------------------------------------------------------------------
// Units of work: a session of edits, or the prefixes of one seed
// ---------------------------------------------------------------------------

/** Work a worker can run on its own: deterministic from the run's seed, whatever runs it. */
export type Unit = { kind: 'session'; lang: FuzzLanguage; index: number } | { kind: 'prefixes'; seed: string; stride: number };

/** Called around each analysis: `before` can save the input (a real hang never returns), `after` sees the outcome. */
export interface Hooks {
  before?: (input: FuzzInput) => void;
  after?: (o: Outcome) => void;
}

export interface FuzzRun {
  outcomes: Outcome[];
  stats: Record<string, LanguageStats>;
  /** Set when an input trapped in WebAssembly: the unit stopped there and its thread must not be reused. */
  poisoned?: string;
}

/** The inputs of one session, generated lazily: version k mutates version k − 1. */
function* session(seeds: readonly Seed[], lang: FuzzLanguage, index: number, cfg: FuzzConfig): Generator<FuzzInput> {
  const rng = new Rng(deriveSeed(cfg.seed, lang, index));
  const own = seeds.filter((s) => s.lang === lang);
  if (own.length === 0) return;
  const seed = rng.pick(own);
  const donors = own.filter((s) => s !== seed).map((s) => s.text);
  const options = optionsFor(seed, rng);
  const path = `fuzz/${lang}/s${index}/${seed.name.split('/').pop()}`;
  let text = seed.text;
  let previous: string | undefined;
  const ops: string[] = [];
  for (let k = 0; k < cfg.sessionLength; k++) {
    const m = mutate(text, { lang, rng, donors }, k === 0 ? cfg.hostileRate : 0);
    ops.push(...m.ops, '|');
    yield { id: `${lang}#${index * cfg.sessionLength + k}`, lang, seed: seed.name, ops: [...ops], path, source: m.text, previous, options };
    previous = m.text;
    text = m.text;
  }
}

/** Every `stride`-th prefix of a seed, in order on one path: the file being typed, truncated at every position. */
function* prefixes(seed: Seed, stride: number): Generator<FuzzInput> {
  const path = `fuzz/${seed.lang}/typing/${seed.name.split('/').pop()}`;
  const options = { ...seed.args, gpu: findGpu('h100-sxm')! };
  let previous: string | undefined;
  for (let at = 0; at <= seed.text.length; at += Math.max(1, stride)) {
    const source = seed.text.slice(0, at);
    yield { id: `${seed.name}@${at}`, lang: seed.lang, seed: seed.name, ops: [`truncate@${at}`], path, source, previous, options };
    previous = source;
  }
}

function inputsOf(unit: Unit, seeds: readonly Seed[], cfg: FuzzConfig): Iterable<FuzzInput> {
  if (unit.kind === 'session') return session(seeds, unit.lang, unit.index, cfg);
  const seed = seeds.find((s) => s.name === unit.seed);
  return seed ? prefixes(seed, unit.stride) : [];
}

/** The sessions of a run: `cfg.count` inputs shared by the languages, the languages taking turns. */
export function sessionUnits(cfg: FuzzConfig): Unit[] {
  const perLanguage = Math.ceil(cfg.count / cfg.langs.length);
  const sessions = Math.ceil(perLanguage / cfg.sessionLength);
  const out: Unit[] = [];
  for (let index = 0; index < sessions; index++) for (const lang of cfg.langs) out.push({ kind: 'session', lang, index });
  return out;
}

/** One unit per seed of the run's languages: all its prefixes. */
export function prefixUnits(seeds: readonly Seed[], cfg: FuzzConfig, stride: number): Unit[] {
  return seeds.filter((s) => cfg.langs.includes(s.lang)).map((s) => ({ kind: 'prefixes', seed: s.name, stride }));
}

function addStats(stats: Record<string, LanguageStats>, o: Outcome): void {
  const st = (stats[o.input.lang] ??= { inputs: 0, ms: 0, maxMs: 0, slowest: '' });
  st.inputs++;
  st.ms += o.ms;
  if (o.ms > st.maxMs) [st.maxMs, st.slowest] = [o.ms, o.input.id];
}

/** Runs one unit in this thread; a session's last version is then compared with a cold analysis. */
export function runUnit(parsers: Parsers, seeds: readonly Seed[], cfg: FuzzConfig, unit: Unit, hooks: Hooks = {}): FuzzRun {
  const run: FuzzRun = { outcomes: [], stats: {} };
  let last: { input: FuzzInput; report: FileReport } | undefined;
  clearCaches();
  for (const input of inputsOf(unit, seeds, cfg)) {
    hooks.before?.(input);
    const a = analyse(parsers, input.source, input.path, input.options, cfg.budgetMs);
    const o: Outcome = { input, ms: a.ms, findings: judge(a, input, cfg) };
    addStats(run.stats, o);
    if (a.report) last = { input, report: a.report };
    hooks.after?.(o);
    if (o.findings.length) run.outcomes.push(o);
    const trap = o.findings.find(isWasmTrap);
    if (trap) {
      run.poisoned = `${input.id}: ${trap.detail}`;
      return run;
    }
  }
  if (unit.kind === 'session' && cfg.differential && last) {
    const findings = differential(parsers, last.input, last.report, cfg.budgetMs);
    if (findings.length) run.outcomes.push({ input: last.input, ms: 0, findings });
  }
  return run;
}

/** Adds one run's outcomes and statistics to another's. */
export function mergeRun(into: FuzzRun, from: FuzzRun): void {
  into.outcomes.push(...from.outcomes);
  for (const [lang, s] of Object.entries(from.stats)) {
    const st = (into.stats[lang] ??= { inputs: 0, ms: 0, maxMs: 0, slowest: '' });
    st.inputs += s.inputs;
    st.ms += s.ms;
    if (s.maxMs > st.maxMs) [st.maxMs, st.slowest] = [s.maxMs, s.slowest];
  }
}

/** Re-analyses one input cold (caches cleared) and returns its findings. */
export function replay(parsers: Parsers, input: ReplayInput, cfg: Pick<FuzzConfig, 'budgetMs' | 'hangMarginMs'>): Finding[] {
  clearCaches();
  // A fresh path too: clearCaches() keeps the WGSL frontend's last good kernels per path.
  const path = `replay/${++replays}/${input.path}`;
  if (input.previous !== undefined) analyse(parsers, input.previous, path, input.options, cfg.budgetMs);
  const a = analyse(parsers, input.source, path, input.options, cfg.budgetMs);
  const findings = judge(a, input, cfg);
  if (input.previous === undefined || !a.report) return findings;
  return [...findings, ...differential(parsers, { ...input, path }, a.report, cfg.budgetMs)];
}

let replays = 0;
