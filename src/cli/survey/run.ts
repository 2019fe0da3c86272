/**
 * Runs the per-file survey over many files: in worker threads (default), each
 * file under a watchdog so that no file can hang the survey, or in-process
 * (tests, `--jobs 0`). Results come back in job order.
 */
import { Worker } from 'node:worker_threads';
import { surveyFile, type FileJob, type FileResult } from './file';

export const WORKER_ROLE = 'roofline-lens-survey-worker';

export interface RunOptions {
  /** Worker threads; 0 = in this thread (no watchdog). */
  jobs: number;
  /** A file still running after this is abandoned and counted as a timeout. */
  timeoutMs: number;
  /** The script a worker runs (the bundled survey). */
  script?: string;
  progress?: (done: number, total: number) => void;
}

function failed(job: FileJob, outcome: 'crash' | 'timeout', error: string, ms: number): FileResult {
  return { file: job.display, root: job.root, language: job.language, ms, bytes: 0, defined: 0, helpers: 0, otherDecorators: 0, found: 0, outcome, error, diagnostics: [], kernels: [] };
}

export async function runJobs(jobs: FileJob[], opts: RunOptions): Promise<FileResult[]> {
  const results: FileResult[] = new Array(jobs.length);
  let done = 0;
  const tick = (): void => {
    done++;
    opts.progress?.(done, jobs.length);
  };
  if (opts.jobs <= 0 || !opts.script) {
    for (let i = 0; i < jobs.length; i++) {
      try {
        results[i] = await surveyFile(jobs[i]);
      } catch (e) {
        results[i] = failed(jobs[i], 'crash', String((e as Error)?.message ?? e), 0);
      }
      tick();
    }
    return results;
  }
  let next = 0;
  const script = opts.script;
  await new Promise<void>((resolve) => {
    let running = 0;
    const start = (): void => {
      if (next >= jobs.length) {
        if (running === 0) resolve();
        return;
      }
      running++;
      const worker = new Worker(script, { workerData: { role: WORKER_ROLE } });
      let current = -1;
      let started = 0;
      let timer: NodeJS.Timeout | undefined;
      let finished = false;
      const retire = (): void => {
        if (finished) return;
        finished = true;
        if (timer) clearTimeout(timer);
        running--;
        void worker.terminate();
        start();
      };
      const feed = (): void => {
        if (next >= jobs.length) {
          retire();
          return;
        }
        current = next++;
        started = performance.now();
        timer = setTimeout(() => {
          results[current] = failed(jobs[current], 'timeout', `no result after ${opts.timeoutMs} ms`, performance.now() - started);
          tick();
          retire();
        }, opts.timeoutMs);
        worker.postMessage({ index: current, job: jobs[current] });
      };
      worker.on('message', (m: { index: number; result: FileResult }) => {
        if (finished || m.index !== current) return;
        if (timer) clearTimeout(timer);
        results[current] = m.result;
        tick();
        feed();
      });
      worker.on('error', (e) => {
        if (finished) return;
        if (current >= 0 && !results[current]) {
          results[current] = failed(jobs[current], 'crash', `worker died: ${String(e?.message ?? e)}`, performance.now() - started);
          tick();
        }
        retire();
      });
      worker.on('exit', () => {
        if (finished) return;
        if (current >= 0 && !results[current]) {
          results[current] = failed(jobs[current], 'crash', 'worker exited', performance.now() - started);
          tick();
        }
        retire();
      });
      feed();
    };
    const n = Math.max(1, Math.min(opts.jobs, jobs.length));
    if (jobs.length === 0) resolve();
    for (let i = 0; i < n; i++) start();
  });
  return results;
}

/** The worker side: surveys each file it is sent. */
export function serveWorker(port: { on(ev: 'message', f: (m: { index: number; job: FileJob }) => void): void; postMessage(m: unknown): void }): void {
  port.on('message', (m) => {
    surveyFile(m.job).then(
      (result) => port.postMessage({ index: m.index, result }),
      (e) => port.postMessage({ index: m.index, result: failed(m.job, 'crash', String((e as Error)?.message ?? e), 0) }),
    );
  });
}
