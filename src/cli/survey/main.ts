/**
 * `npm run survey -- DIR... [--json] [--out FILE]`: a measuring instrument for
 * the analysis. Analyses every kernel file below the folders exactly as
 * `roofline-lens analyze FILE --format json` does (default GPU, no --set),
 * and reports per language group: files, kernels found vs definitions in the
 * text, kernels with numbers, `complete: false` reasons, diagnostics by id,
 * suspicious results (stores in the text but 0 store bytes, all-zero kernels,
 * loads in the text but 0 load bytes, unknown calls by name), the slowest
 * files, wall time and peak RSS. See docs/accuracy.md.
 *
 *   --json             print the JSON document instead of the text report
 *   --out FILE         also write the JSON document to FILE
 *   --ext E[,E...]     only files with these extensions (e.g. wgsl)
 *   --exclude SUBSTR   skip files whose folder-relative path contains SUBSTR (repeatable)
 *   --sample DIR=N     keep a fixed pseudo-random N of the files below DIR (folder-relative; repeatable)
 *   --seed S           seed of --sample (default 1)
 *   --jobs N           worker threads (default 1; 0 = this thread, no watchdog)
 *   --timeout-ms MS    a file still running after MS counts as a timeout (default 120000)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_GPU_ID } from '../../core/gpus/catalog';
import { CliError, last, list, parseOptions, usageError } from '../args';
import { summarise, type Summary } from './aggregate';
import { collect, type Collected } from './collect';
import type { FileResult, KernelRow } from './file';
import { renderText, type RunInfo } from './render';
import { runJobs, serveWorker, WORKER_ROLE } from './run';

declare const __VERSION__: string;

const SPEC = {
  valued: { '--out': ['-o'], '--ext': [], '--exclude': [], '--sample': [], '--seed': [], '--jobs': ['-j'], '--timeout-ms': [] },
  flags: { '--json': [], '--help': ['-h'] },
};

export interface SurveyOptions {
  roots: string[];
  ext?: string[];
  exclude?: string[];
  sample?: { dir: string; n: number }[];
  seed?: string;
  jobs: number;
  timeoutMs: number;
  /** Script for worker threads (the bundled survey); without it the survey runs in this thread. */
  script?: string;
  progress?: (done: number, total: number) => void;
}

export interface SurveyDocument {
  schema: 'roofline-lens-survey/1';
  tool: { version: string; commit: string | null };
  gpu: string;
  options: { roots: string[]; ext?: string[]; exclude?: string[]; sample?: { dir: string; n: number }[]; seed?: string; jobs: number; timeoutMs: number };
  run: { wallMs: number; peakRssMb: number; node: string; cpus: number };
  filesSkipped: Record<string, number>;
  sampled: Collected['sampled'];
  missing: string[];
  summary: Summary;
  files: Omit<FileResult, 'diagnostics' | 'kernels'>[];
  kernels: KernelRow[];
  /** Every diagnostic, with the file and the kernel it was attributed to. */
  diagnostics: (FileResult['diagnostics'][number] & { file: string })[];
}

function toolCommit(): string | null {
  try {
    const here = typeof __dirname === 'string' ? __dirname : process.cwd();
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
  } catch {
    return null;
  }
}

/** Runs a survey and returns its JSON document. */
export async function survey(o: SurveyOptions): Promise<SurveyDocument> {
  const t0 = performance.now();
  const c = collect(o.roots, { ext: o.ext, exclude: o.exclude, sample: o.sample, seed: o.seed });
  const results = await runJobs(c.jobs, { jobs: o.script ? o.jobs : 0, timeoutMs: o.timeoutMs, script: o.script, progress: o.progress });
  const wallMs = performance.now() - t0;
  return {
    schema: 'roofline-lens-survey/1',
    tool: { version: typeof __VERSION__ === 'string' ? __VERSION__ : 'dev', commit: toolCommit() },
    gpu: DEFAULT_GPU_ID,
    options: { roots: o.roots, ext: o.ext, exclude: o.exclude, sample: o.sample, seed: o.seed, jobs: o.script ? o.jobs : 0, timeoutMs: o.timeoutMs },
    run: { wallMs: Math.round(wallMs), peakRssMb: process.resourceUsage().maxRSS / 1024, node: process.version, cpus: os.cpus().length },
    filesSkipped: c.skipped,
    sampled: c.sampled,
    missing: c.missing,
    summary: summarise(results),
    files: results.map(({ diagnostics: _d, kernels: _k, ...f }) => ({ ...f, ms: Math.round(f.ms * 10) / 10 })),
    kernels: results.flatMap((f) => f.kernels),
    diagnostics: results.flatMap((f) => f.diagnostics.map((d) => ({ file: f.file, ...d }))),
  };
}

export function runInfo(doc: SurveyDocument): RunInfo {
  return { roots: doc.options.roots, filesSkipped: doc.filesSkipped, sampled: doc.sampled, wallMs: doc.run.wallMs, peakRssMb: doc.run.peakRssMb, jobs: doc.options.jobs, gpu: doc.gpu };
}

function intOption(v: string | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw usageError(`${name} takes a whole number (got '${v}')`);
  return n;
}

export function readSurveyArgs(argv: string[]): { options: SurveyOptions; json: boolean; out?: string; help: boolean } {
  const p = parseOptions(argv, SPEC);
  const roots = [...p.positional, ...p.rest];
  const help = p.options.has('--help');
  if (!help && roots.length === 0) throw usageError('survey needs at least one DIR');
  const sample = (p.options.get('--sample') ?? []).map((s) => {
    const eq = s.lastIndexOf('=');
    const n = Number(s.slice(eq + 1));
    if (eq <= 0 || !Number.isInteger(n) || n < 0) throw usageError(`--sample takes DIR=N (got '${s}')`);
    return { dir: s.slice(0, eq), n };
  });
  const ext = list(p, '--ext');
  return {
    options: {
      roots,
      ext: ext.length ? ext : undefined,
      exclude: p.options.get('--exclude'),
      sample: sample.length ? sample : undefined,
      seed: last(p, '--seed'),
      jobs: intOption(last(p, '--jobs'), '--jobs', 1),
      timeoutMs: intOption(last(p, '--timeout-ms'), '--timeout-ms', 120000),
    },
    json: p.options.has('--json'),
    out: last(p, '--out'),
    help,
  };
}

const USAGE = `usage: npm run survey -- DIR... [--json] [--out FILE] [--ext E,...] [--exclude SUBSTR]...
                          [--sample DIR=N]... [--seed S] [--jobs N] [--timeout-ms MS]`;

export async function surveyMain(argv: string[], out: (s: string) => void, err: (s: string) => void, script?: string): Promise<number> {
  let args: ReturnType<typeof readSurveyArgs>;
  try {
    args = readSurveyArgs(argv);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    err(`survey: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    err(USAGE + '\n');
    return 0;
  }
  let lastShown = 0;
  const progress = (done: number, total: number): void => {
    const now = Date.now();
    if (done === total || now - lastShown > 10000) {
      lastShown = now;
      err(`survey: ${done}/${total} files\n`);
    }
  };
  const doc = await survey({ ...args.options, script, progress });
  if (args.out) {
    fs.mkdirSync(path.dirname(path.resolve(args.out)), { recursive: true });
    fs.writeFileSync(args.out, JSON.stringify(doc, null, 1) + '\n');
  }
  out(args.json ? JSON.stringify(doc, null, 1) + '\n' : renderText(doc.summary, runInfo(doc), doc.kernels));
  return 0;
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === WORKER_ROLE) {
  serveWorker(parentPort!);
} else if (typeof require !== 'undefined' && require.main === module) {
  surveyMain(process.argv.slice(2), (s) => process.stdout.write(s), (s) => process.stderr.write(s), __filename).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`survey: internal error: ${(e as Error)?.stack ?? e}\n`);
      process.exitCode = 3;
    },
  );
}
