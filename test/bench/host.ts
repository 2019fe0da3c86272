/**
 * The extension host's side of an analysis, simulated without VS Code: the
 * analyzer's loop (send the text, take partial and complete reports, build
 * every lens from them as lens.ts does) over a real analysis service — the
 * worker thread of dist/worker.js, or the service in this thread in slices —
 * and, for comparison, the synchronous analysis the extension ran before
 * (one analyzeSource call on the host's thread).
 *
 * What is measured is the host thread's work, block by block: each message
 * handler, each lens rebuild, each in-host slice, each synchronous call. The
 * longest block is the longest the editor could not react. (An event-loop
 * delay would add the operating system's scheduling on a loaded machine;
 * it is reported beside it.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { nodeWorker } from '../../src/desktop/nodeWorker';
import { analyzeSource, clearCaches, type AnalyzeOptions } from '../../src/core/analyze';
import type { Language } from '../../src/core/ir';
import { initParsers, loadGrammar, type WasmName } from '../../src/core/parsers';
import type { FileReport } from '../../src/core/report/types';
import { AnalysisClient, inHostService, macrotask, type StartService } from '../../src/extension/analysisClient';
import { IN_HOST_SLICES, type FromService, type ToService } from '../../src/extension/analysisService';
import { fileLensItems } from '../../src/extension/lensItems';

/**
 * This thread's time on a CPU, ms (Linux: /proc/thread-self/schedstat, in ns):
 * unlike the wall clock it does not grow while the thread waits for a CPU,
 * which on a loaded machine is most of the time. Falls back to the wall clock.
 */
export function threadCpuMs(): number {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return performance.now();
  }
}

/** Durations of the host's synchronous blocks, ms: wall clock, and this thread's CPU time. */
export class BlockMeter {
  readonly blocks: number[] = [];
  readonly cpu: number[] = [];
  private wall0 = 0;
  private cpu0 = 0;
  start(): void {
    this.wall0 = performance.now();
    this.cpu0 = threadCpuMs();
  }
  stop(): void {
    this.blocks.push(performance.now() - this.wall0);
    this.cpu.push(threadCpuMs() - this.cpu0);
  }
  time<T>(f: () => T): T {
    this.start();
    try {
      return f();
    } finally {
      this.stop();
    }
  }
  get max(): number {
    return this.blocks.length ? Math.max(...this.blocks) : 0;
  }
  get maxCpu(): number {
    return this.cpu.length ? Math.max(...this.cpu) : 0;
  }
  clear(): void {
    this.blocks.length = 0;
    this.cpu.length = 0;
  }
}

/** Builds every lens of a report as the CodeLens provider does on each (partial or complete) report: in chunks, each a block. */
async function buildLenses(report: FileReport, lines: string[], gpuName: string, meter: BlockMeter): Promise<number> {
  meter.start();
  const items = await fileLensItems(report.kernels, (i) => lines[i] ?? '', lines.length, gpuName, { kernels: true, loops: true }, async () => {
    meter.stop();
    await macrotask();
    meter.start();
  });
  meter.stop();
  return items?.length ?? 0;
}

export interface HostRun {
  /** Longest synchronous block of the host thread, ms: wall clock, and the thread's CPU time in it. */
  longestBlockMs: number;
  longestBlockCpuMs: number;
  /** Blocks counted. */
  blocks: number;
  /** Time to the first lenses (the first partial report, or the complete one), ms. */
  firstLensesMs: number;
  /** Time to the complete report, ms. */
  completeMs: number;
  kernels: number;
  /** The complete report. */
  report: FileReport | undefined;
  /** The largest event-loop delay seen meanwhile (includes the OS's scheduling under load), ms. */
  loopDelayMaxMs: number;
}

export type HostMode = 'worker' | 'in-host' | 'synchronous (before)';

/** The desktop worker (src/desktop/nodeWorker.ts) with every message it sends and takes timed on this thread. */
function timedWorker(script: string, meter: BlockMeter, codeCache?: string): StartService {
  const start = nodeWorker(script, codeCache);
  return () => {
    const h = start();
    return {
      ...h,
      port: {
        post: (m: ToService) => meter.time(() => h.port.post(m)),
        listen: (cb: (m: FromService) => void) => h.port.listen((m) => meter.time(() => cb(m))),
      },
    };
  };
}

/** The in-host service with every slice timed: the time between two pauses is one block. */
function timedInHost(meter: BlockMeter): StartService {
  const pause = async (): Promise<void> => {
    meter.stop();
    await macrotask();
    meter.start();
  };
  const start = inHostService({ ...IN_HOST_SLICES, pause });
  return () => {
    const h = start();
    return {
      ...h,
      port: {
        post: (m: ToService) => {
          meter.start();
          h.port.post(m);
        },
        listen: (cb: (m: FromService) => void) => h.port.listen((m) => meter.time(() => cb(m))),
      },
    };
  };
}

export interface HostSession {
  /** Opens (first analysis) or edits (next analyses) the document with `text`. */
  analyse(text: string, focus?: { startLine: number; endLine: number }): Promise<HostRun>;
  dispose(): void;
}

/** A session of one document in one mode. */
export function hostSession(mode: HostMode, dist: string, options: AnalyzeOptions & { path: string; language: Language }): HostSession {
  const meter = new BlockMeter();
  const readWasm = (name: WasmName): Promise<Uint8Array> => fs.promises.readFile(path.join(dist, name));
  const client =
    mode === 'synchronous (before)'
      ? undefined
      : new AnalysisClient({ starters: [mode === 'worker' ? timedWorker(path.join(dist, 'worker.js'), meter) : timedInHost(meter)], readWasm });
  const gpuName = options.gpu.name;
  return {
    async analyse(text, focus) {
      meter.clear();
      const lines = text.split('\n');
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const t0 = performance.now();
      let firstLensesMs = -1;
      let asked = false;
      let report: FileReport | undefined;
      if (!client) {
        const p = await initParsers(readWasm, []);
        await loadGrammar(p, options.language);
        report = meter.time(() => analyzeSource(text, p, options));
        await buildLenses(report, lines, gpuName, meter);
        firstLensesMs = performance.now() - t0;
      } else {
        const running = meter.time(() =>
          client.analyse({ doc: options.path, supersede: true, text, options: { ...options, ...(focus ? { focus } : {}) } }, (partial) => {
            // The provider is asked again on the first partial report (lens.ts).
            if (asked) return;
            asked = true;
            void buildLenses(partial, lines, gpuName, meter).then(() => (firstLensesMs = performance.now() - t0));
          }),
        );
        report = await running.promise;
        if (report) await buildLenses(report, lines, gpuName, meter);
        if (firstLensesMs < 0) firstLensesMs = performance.now() - t0;
      }
      const completeMs = performance.now() - t0;
      delay.disable();
      return {
        longestBlockMs: meter.max,
        longestBlockCpuMs: meter.maxCpu,
        blocks: meter.blocks.length,
        firstLensesMs,
        completeMs,
        kernels: report?.kernels.length ?? -1,
        report,
        loopDelayMaxMs: delay.max / 1e6,
      };
    },
    dispose() {
      client?.dispose();
      if (!client) clearCaches();
    },
  };
}

/** A new desktop worker's first analysis, timed from the worker's start (the code cache: src/desktop/workerLaunch.ts). */
export interface FreshWorkerRun {
  /** The worker said it is ready. */
  readyMs: number;
  /** The first report with kernels (the first lenses). */
  firstLensesMs: number;
  completeMs: number;
  kernels: number;
  /** What the worker said of its code cache (`none` without one). */
  codeCache: string;
}

/**
 * Starts dist/worker.js as the desktop extension does (with `codeCache`, the
 * file it keeps V8's code cache in) and has it analyse `text` with the lines
 * an editor shows in the middle in focus; waits for the cache to be written
 * when the worker makes one.
 */
export async function freshWorker(dist: string, text: string, options: AnalyzeOptions & { path: string; language: Language }, codeCache?: string): Promise<FreshWorkerRun> {
  const meter = new BlockMeter();
  const readWasm = (name: WasmName): Promise<Uint8Array> => fs.promises.readFile(path.join(dist, name));
  let said = 'none';
  const t0 = performance.now();
  let readyMs = -1;
  const start = timedWorker(path.join(dist, 'worker.js'), meter, codeCache);
  const client = new AnalysisClient({
    starters: [
      () => {
        const h = start();
        const ready = (m: FromService): void => {
          if (m.type !== 'ready') return;
          readyMs = performance.now() - t0;
          said = m.codeCache ?? 'none';
        };
        return { ...h, port: { ...h.port, listen: (cb) => h.port.listen((m) => (ready(m), cb(m))) } };
      },
    ],
    readWasm,
  });
  const lines = text.split('\n').length;
  let firstLensesMs = -1;
  try {
    const focus = { startLine: Math.floor(lines / 2), endLine: Math.floor(lines / 2) + 50 };
    const running = client.analyse({ doc: options.path, supersede: true, text, options: { ...options, focus } }, (partial) => {
      if (firstLensesMs < 0 && partial.kernels.length > 0) firstLensesMs = performance.now() - t0;
    });
    const report = await running.promise;
    const completeMs = performance.now() - t0;
    if (firstLensesMs < 0) firstLensesMs = completeMs;
    if (codeCache && said !== 'used') for (let i = 0; i < 100 && !fs.existsSync(codeCache); i++) await new Promise((res) => setTimeout(res, 50));
    return { readyMs, firstLensesMs, completeMs, kernels: report?.kernels.length ?? 0, codeCache: said };
  } finally {
    client.dispose();
  }
}
