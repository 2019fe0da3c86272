/**
 * `roofline-lens analyze FILE|DIR...`: text, JSON, Markdown or SARIF, for one
 * GPU or several.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { languageOf, makeReport, type UserInputs } from '../core/analyze';
import { GPU_CATALOG } from '../core/gpus/catalog';
import type { GpuSpec } from '../core/gpus/types';
import { say } from '../core/messages';
import { renderMarkdown, renderText, type MultiGpuFile, type MultiGpuReport } from '../core/report/render';
import { DEFAULT_SARIF_LEVELS, renderSarif } from '../core/report/sarif';
import { CliError, last, list, parseOptions, readBudgetMs, readDtypes, readFormat, readGrid, readSarifLevels, readSets, usageError, type OptionSpec, type ParsedOptions } from './args';
import { attachProfile, type Reestimate } from '../core/profile/attach';
import { estimateForLaunch } from '../core/profile/bindings';
import type { ProfileSummary } from '../core/report/types';
import { findRepoRoot } from './git';
import { loadGpuFiles, selectGpus } from './gpus';
import type { Parsers } from '../core/parsers';
import { analysisLanguage, analyzeForGpus, decode, expand, preferBaselineWasm, type ParsersFor } from './inputs';
import { analyzeInWorkers, MIN_PARALLEL_FILES, readJobs, workerScript } from './parallel';
import { analyzeFile, budgetOf, relatedOf, unreadable, type AnalysisSettings } from './file';

export type { AnalysisSettings } from './file';
export { budgetOf } from './file';

declare const __VERSION__: string;

export const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : 'dev';
export const TOOL_URI = 'https://marketplace.visualstudio.com/items?itemName=roofline-lens.roofline-lens';

/** Options every analysing command takes. */
export const ANALYSIS_OPTIONS: OptionSpec = {
  valued: { '--format': ['-f'], '--gpu': [], '--gpu-file': [], '--set': [], '--dtype': [], '--grid': [], '--budget-ms': [] },
  flags: { '--json': [] },
};

/** The GPUs and user bindings of an analysing command. */
export function readAnalysisSettings(p: ParsedOptions): AnalysisSettings {
  const custom = loadGpuFiles(p.options.get('--gpu-file') ?? []);
  const budgetMs = readBudgetMs(last(p, '--budget-ms'));
  const { dtypes, texels } = readDtypes(p.options.get('--dtype') ?? []);
  return {
    gpus: selectGpus(list(p, '--gpu'), custom),
    user: { set: readSets(p.options.get('--set') ?? []), dtypes, ...(Object.keys(texels).length ? { texels } : {}), grid: readGrid(last(p, '--grid')) },
    ...(budgetMs !== undefined ? { budgetMs } : {}),
  };
}

/** A report of the first GPU, with `gpus` when there are more; `--set` names that no kernel used are warned about. */
export function multiReport(gpus: GpuSpec[], files: MultiGpuFile[], user?: UserInputs): MultiGpuReport {
  const r: MultiGpuReport = makeReport(gpus[0], files);
  if (gpus.length > 1) r.gpus = gpus.map((g) => makeReport(g, []).gpu);
  const unused = user ? unusedSets(user, files) : [];
  if (unused.length) r.diagnostics = unused.map((name) => say('unusedSet', 1, name));
  return r;
}

/**
 * `--set` names that no analysed kernel took as a binding (usually a typo).
 * Said only when some kernel was analysed: with no kernels, every name is
 * trivially unused and the files' own diagnostics say why.
 */
export function unusedSets(user: UserInputs, files: MultiGpuFile[]): string[] {
  const kernels = files.flatMap((f) => f.kernels);
  if (!kernels.length) return [];
  const used = new Set<string>();
  // The launch's geometry (grid and block sizes) sets every kernel's number of units, whether its text names it or not.
  for (const name of Object.keys(user.set)) if (files.some((f) => f.kernels.length && GEOMETRY[f.language]?.test(name))) used.add(name);
  for (const k of kernels) for (const name of Object.keys(k.bindings ?? {})) used.add(name);
  for (const f of files) for (const pl of f.pipelines ?? []) for (const l of pl.launches) for (const name of Object.keys(l.bindings ?? {})) used.add(name);
  // A name a shader's `#ifdef` reads (WGSL preprocessor conditionals).
  for (const f of files) for (const d of f.diagnostics) if (d.code === 'shaderDefine') used.add(/`#ifdef ([A-Za-z_]\w*)`/.exec(d.message)?.[1] ?? '');
  return Object.keys(user.set).filter((name) => !used.has(name));
}

/** Names of the launch geometry, per language. */
const GEOMETRY: Partial<Record<string, RegExp>> = {
  cuda: /^(gridDim|blockDim)\.[xyz]$/,
  wgsl: /^num_workgroups\.[xyz]$/,
  triton: /^tl\.num_programs\([012]\)$/,
};

const ANALYZE_SPEC: OptionSpec = {
  valued: { ...ANALYSIS_OPTIONS.valued, '--sarif-level': [], '--root': [], '--profile': [], '--match': [], '--jobs': ['-j'] },
  flags: { ...ANALYSIS_OPTIONS.flags, '--per-launch': [] },
};

const MAX_PROFILE_BYTES = 256 * 1024 * 1024;

/**
 * `--profile FILE`: measured results beside the estimates of the first GPU.
 * Each dot is placed under the roofs of the GPU it ran on (a profile of
 * another GPU says so in its diagnostics); a launch whose name carries its
 * sizes is compared with the kernel re-analysed for them.
 */
async function withProfile(
  files: MultiGpuFile[],
  p: ParsedOptions,
  settings: AnalysisSettings,
  sources: Map<string, string>,
  parsers: ParsersFor,
): Promise<{ files: MultiGpuFile[]; profile?: ProfileSummary }> {
  const file = last(p, '--profile');
  if (!file) return { files };
  let text: string;
  try {
    const st = fs.statSync(file);
    if (st.size > MAX_PROFILE_BYTES) throw new CliError(`--profile ${file}: ${st.size} bytes is larger than the ${MAX_PROFILE_BYTES / 1024 / 1024} MB the importer reads`);
    text = decode(fs.readFileSync(file));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--profile ${file}: cannot read it (${(e as Error).message})`);
  }
  const overrides: Record<string, string> = {};
  for (const m of p.options.get('--match') ?? []) {
    const eq = m.indexOf('=');
    if (eq <= 0) throw usageError(`--match takes MEASURED=KERNEL (got '${m}')`);
    overrides[m.slice(0, eq)] = m.slice(eq + 1);
  }
  const gpu = settings.gpus[0];
  // Re-estimates run synchronously inside the matcher: the grammars of every analysed file are loaded before.
  let ready: Parsers | undefined;
  for (const path of sources.keys()) ready = await parsers(analysisLanguage(path));
  const reestimate: Reestimate = (path, kernel, launch) => {
    const src = sources.get(path);
    if (src === undefined || !ready) return undefined;
    const analysed = ready;
    // Every selected GPU, so a kernel estimated for its launch's sizes keeps its column per GPU.
    return estimateForLaunch(kernel, src, launch, settings.user.set, (set) =>
      analyzeForGpus(src, analysed, settings.gpus, { ...settings.user, set, path, language: languageOf(path), ...budgetOf(settings), ...relatedOf(path, src) }),
    );
  };
  const table = [...GPU_CATALOG.gpus, ...settings.gpus.filter((g) => !GPU_CATALOG.gpus.some((c) => c.id === g.id))];
  const r = attachProfile(files, gpu, text, { perLaunch: p.options.has('--per-launch'), overrides, path: file, gpus: table, reestimate, alsoShown: settings.gpus.slice(1).map((g) => g.id) });
  return { files: r.files, profile: r.profile };
}

const FORMATS = ['text', 'json', 'markdown', 'sarif'] as const;

async function analyzeFiles(inputs: string[], parsers: ParsersFor, s: AnalysisSettings, sources?: Map<string, string>, jobs = 1): Promise<MultiGpuFile[]> {
  const { files, missing } = expand(inputs);
  const reports = missing.map((m) => unreadable(m, 'no such file or directory'));
  const explicit = new Set(inputs.map((f) => path.normalize(f)));
  const script = workerScript();
  if (jobs > 1 && script && !sources && files.length >= MIN_PARALLEL_FILES) {
    const done = await analyzeInWorkers(script, files.map((file) => ({ file, explicit: explicit.has(path.normalize(file)) })), s, jobs);
    for (const r of done) if (r) reports.push(r);
    return reports;
  }
  preferBaselineWasm(files);
  for (const file of files) {
    const r = await analyzeFile(file, explicit.has(path.normalize(file)), parsers, s, sources);
    if (r) reports.push(r);
  }
  return reports;
}

/** Paths relative to the review root (for Markdown and SARIF); paths outside it stay as they are, absolute for SARIF. */
function rootRelative(files: MultiGpuFile[], root: string, absoluteOutside: boolean): MultiGpuFile[] {
  return files.map((f) => {
    const abs = path.resolve(f.path);
    const rel = path.relative(root, abs);
    const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
    const shown = inside ? rel.split(path.sep).join('/') : absoluteOutside ? abs : f.path;
    return { ...f, path: shown };
  });
}

export async function analyzeCommand(argv: string[], parsers: ParsersFor, out: (s: string) => void): Promise<number> {
  const p = parseOptions(argv, ANALYZE_SPEC);
  const inputs = [...p.positional, ...p.rest];
  const format = p.options.has('--json') ? 'json' : readFormat(last(p, '--format'), FORMATS, 'text');
  const levels = readSarifLevels(list(p, '--sarif-level'), DEFAULT_SARIF_LEVELS);
  const settings = readAnalysisSettings(p);
  if (inputs.length === 0) throw usageError('analyze needs at least one FILE or DIR');
  // A profile re-estimates launches from the sources: those runs read every file in this thread.
  const profiled = last(p, '--profile') !== undefined;
  const sources = profiled ? new Map<string, string>() : undefined;
  const jobs = readJobs(last(p, '--jobs'));
  const { files, profile } = await withProfile(await analyzeFiles(inputs, parsers, settings, sources, jobs), p, settings, sources ?? new Map(), parsers);
  if (format === 'text' || format === 'json') {
    const report = multiReport(settings.gpus, files, settings.user);
    if (profile) report.profile = profile;
    out(format === 'json' ? JSON.stringify(report, null, 2) + '\n' : renderText(report));
    return 0;
  }
  const rootOpt = last(p, '--root');
  const root = path.resolve(rootOpt ?? findRepoRoot(process.cwd()) ?? process.cwd());
  const report = multiReport(settings.gpus, rootRelative(files, root, format === 'sarif'), settings.user);
  if (profile) report.profile = profile;
  if (format === 'markdown') out(renderMarkdown(report));
  else out(JSON.stringify(renderSarif(report, { tool: { name: 'roofline-lens', version: VERSION, informationUri: TOOL_URI }, levels }), null, 2) + '\n');
  return 0;
}
