/**
 * `analyze` over many files on every core: worker threads, each running the
 * bundled CLI in worker mode, take files one at a time from a queue; the
 * reports come back in input order, the same bytes as one thread gives (each
 * file's analysis depends only on its text and the files it names: tested).
 *
 *   main thread ──► files, in order ──► worker 1..N: analyzeFile(file)
 *        ◄── { index, report }  (a worker that dies: its file is analysed here)
 *
 * Used only by the bundled CLI (it knows its own script) on at least
 * MIN_PARALLEL_FILES files; tests and a profile run analyse in one thread.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { MultiGpuFile } from '../core/report/render';
import { usageError } from './args';
import { analyzeFile, type AnalysisSettings } from './file';
import { lazyParsers } from './inputs';

export const ANALYZE_WORKER_ROLE = 'roofline-lens-analyze-worker';

/** Fewer files than this are analysed in one thread (starting a worker and its grammars costs ~100 ms). */
export const MIN_PARALLEL_FILES = 8;

/** At most this many worker threads by default (each holds its own parsers and caches). */
const MAX_DEFAULT_JOBS = 4;

let script: string | undefined;

/** The bundled CLI says where it is (workers run it); unset, every run stays in one thread. */
export function setWorkerScript(file: string): void {
  script = file;
}

export function workerScript(): string | undefined {
  return script;
}

/**
 * `--jobs N`: worker threads for many files. Default: on 4 cores or more, the
 * cores (at most 4); below, one thread — one analysis thread already keeps
 * about 1.5 cores busy (garbage collection, compilation), so a second worker
 * on 2 cores gained ~10 % for twice the memory.
 */
export function readJobs(value: string | undefined): number {
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  if (value === undefined) return cores >= 4 ? Math.min(MAX_DEFAULT_JOBS, cores) : 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw usageError(`--jobs takes a whole number from 1 to 64 (got '${value}')`);
  return n;
}

interface Item {
  file: string;
  explicit: boolean;
}

type Reply = { index: number; report: MultiGpuFile | null } | { index: number; error: string };

/** Analyses `items` in `jobs` worker threads; reports (null: not worth reporting) in input order. */
export async function analyzeInWorkers(file: string, items: Item[], settings: AnalysisSettings, jobs: number): Promise<(MultiGpuFile | null)[]> {
  const results: (MultiGpuFile | null | undefined)[] = new Array(items.length).fill(undefined);
  const orphans: number[] = [];
  let next = 0;
  let failure: Error | undefined;
  await new Promise<void>((resolve) => {
    let running = 0;
    const n = Math.max(1, Math.min(jobs, items.length));
    for (let w = 0; w < n; w++) {
      running++;
      const worker = new Worker(file, { workerData: { role: ANALYZE_WORKER_ROLE, settings } });
      let current = -1;
      let finished = false;
      const retire = (): void => {
        if (finished) return;
        finished = true;
        void worker.terminate();
        if (--running === 0) resolve();
      };
      const feed = (): void => {
        if (failure || next >= items.length) {
          current = -1;
          retire();
          return;
        }
        current = next++;
        worker.postMessage({ index: current, ...items[current] });
      };
      worker.on('message', (m: Reply) => {
        if (finished || m.index !== current) return;
        if ('error' in m) failure ??= new Error(m.error);
        else results[current] = m.report;
        feed();
      });
      const lost = (): void => {
        if (finished) return;
        // Its file is analysed again in this thread (an internal error there is reported as the CLI reports one).
        if (current >= 0 && results[current] === undefined) orphans.push(current);
        retire();
      };
      worker.on('error', lost);
      worker.on('exit', lost);
      feed();
    }
  });
  if (failure) throw failure;
  // For the tests: which path a run took.
  if (process.env.ROOFLINE_LENS_TRACE_JOBS) process.stderr.write(`roofline-lens: ${items.length} files in ${Math.min(jobs, items.length)} worker threads (${orphans.length} redone here)\n`);
  const parsers = lazyParsers();
  for (let i = 0; i < items.length; i++) {
    if (results[i] === undefined || orphans.includes(i)) results[i] = await analyzeFile(items[i].file, items[i].explicit, parsers, settings);
  }
  return results as (MultiGpuFile | null)[];
}

/** The worker side: analyses each file it is sent with the run's settings. */
export function serveAnalyzeWorker(port: { on(ev: 'message', f: (m: { index: number } & Item) => void): void; postMessage(m: Reply): void }, settings: AnalysisSettings): void {
  const parsers = lazyParsers();
  port.on('message', (m) => {
    analyzeFile(m.file, m.explicit, parsers, settings).then(
      (report) => port.postMessage({ index: m.index, report }),
      (e) => port.postMessage({ index: m.index, error: String((e as Error)?.stack ?? e) }),
    );
  });
}
