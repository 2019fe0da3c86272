/**
 * The analysis service and its messages: what runs in the analysis worker (a
 * Node worker thread on desktop, a web worker in the browser), or in the
 * extension host itself when no worker can start.
 *
 *   host ──analyse {id, doc, text, options}──► service: one request at a time, in
 *        ◄──needWasm / wasm──                  slices (sliced.ts); a newer request
 *        ◄──kernels {add: [slot, report]…}──   for the same document cancels the
 *        ◄──report {id, final, kernels: [slot…]}  older one at its next pause
 *
 * Kernel reports cross once: the service numbers each kernel report object
 * it sends (a *slot*) and a file report names its kernels by slot, so after
 * an edit only the kernels the edit changed are copied (the core hands back
 * the same report object for an unchanged kernel). New kernels go in
 * messages of at most KERNELS_PER_MESSAGE, so the host never decodes one
 * large message. Both sides drop the slots a document's latest report no
 * longer names.
 *
 * No `vscode` and no Node built-ins here: the entries (worker.ts for the web,
 * src/desktop/worker.ts for Node) adapt their platform's port.
 */
import type { AnalyzeOptions } from '../core/analyze';
import type { GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { initParsers, type Parsers, type WasmName } from '../core/parsers';
import type { FileReport, KernelReport } from '../core/report/types';
import { analyseInSlices } from './sliced';

/** Kernel reports per `kernels` message (one such message decodes in well under a millisecond). */
export const KERNELS_PER_MESSAGE = 24;

/** The options of one analysis, as plain data. */
export type RequestOptions = Omit<AnalyzeOptions, 'sliceMs'> & { gpu: GpuSpec; path: string; language: Language };

/** A file report as it crosses: its kernels by slot. */
export type WireReport = Omit<FileReport, 'kernels'> & { kernels: number[] };

export type ToService =
  | {
      type: 'analyse';
      id: number;
      /** The document (a URI): a newer request for it with `supersede` cancels the older ones. */
      doc: string;
      supersede: boolean;
      text: string;
      options: RequestOptions;
    }
  | { type: 'cancel'; id: number }
  | { type: 'forget'; doc: string }
  | { type: 'wasm'; name: WasmName; bytes?: Uint8Array; error?: string };

export type FromService =
  /** `codeCache`: a desktop worker's bundle compiled from V8's code cache (src/desktop/workerLaunch.ts), for the log. */
  | { type: 'ready'; codeCache?: 'used' | 'rejected' | 'none' }
  | { type: 'needWasm'; name: WasmName }
  | { type: 'kernels'; add: [slot: number, report: KernelReport][] }
  | { type: 'report'; id: number; doc: string; final: boolean; report: WireReport }
  | { type: 'cancelled'; id: number }
  | { type: 'failed'; id: number; error: string };

/** One end of a message channel (a worker's port, or an in-process loopback). */
export interface Port<In, Out> {
  post(message: Out): void;
  listen(onMessage: (message: In) => void): void;
}

export interface ServiceOptions {
  /** The longest piece of work between two looks at the incoming messages, ms. */
  sliceMs: number;
  /** How long later slices may grow (SliceControl.maxSliceMs; default `sliceMs`). */
  maxSliceMs?: number;
  /**
   * A wall-clock safety net per analysis call, ms (AnalyzeOptions.budgetMs).
   * A worker needs none: it never blocks the editor, and without one the
   * numbers never depend on the machine's load.
   */
  budgetMs?: number;
  /** Yields to the event loop (a macrotask). */
  pause(): Promise<void>;
  now?(): number;
}

/**
 * A worker's slices: the editor never waits on a worker, so slices only bound
 * how late the first (visible) kernels and a cancellation are, and grow after
 * the first; no wall-clock safety net, so the numbers never depend on the
 * machine's load.
 */
export const WORKER_SLICES = { sliceMs: 50, maxSliceMs: 2000 } as const;

/**
 * The service in the extension host's own thread (no worker could start):
 * slices of 20 ms (a kernel already started finishes), and a 2 s wall-clock
 * safety net per call so no input can hold the editor longer.
 */
export const IN_HOST_SLICES = { sliceMs: 20, budgetMs: 2000 } as const;

interface Job {
  id: number;
  doc: string;
  text: string;
  options: RequestOptions;
  cancelled: boolean;
}

/** Serves analyses on `port` until the process ends. */
export function serveAnalyses(port: Port<ToService, FromService>, opts: ServiceOptions): void {
  const waiting = new Map<WasmName, { resolve(b: Uint8Array): void; reject(e: Error): void }[]>();
  const load = (name: WasmName): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      const list = waiting.get(name);
      if (list) list.push({ resolve, reject });
      else {
        waiting.set(name, [{ resolve, reject }]);
        port.post({ type: 'needWasm', name });
      }
    });
  let parsers: Promise<Parsers> | undefined;
  const ready = (): Promise<Parsers> => {
    parsers ??= initParsers(load, []);
    parsers.catch(() => (parsers = undefined));
    return parsers;
  };

  // The same GPU object for the same GPU: the core caches a kernel's report per GPU object.
  const gpus = new Map<string, GpuSpec>();
  const gpuOf = (g: GpuSpec): GpuSpec => {
    const key = JSON.stringify(g);
    let known = gpus.get(key);
    if (!known) gpus.set(key, (known = g));
    return known;
  };

  // Slots: what the host holds, per document.
  let nextSlot = 0;
  const sent = new Map<string, Map<KernelReport, number>>();
  const send = (job: Job, report: FileReport, final: boolean): void => {
    let slots = sent.get(job.doc);
    if (!slots) sent.set(job.doc, (slots = new Map()));
    const fresh: KernelReport[] = [];
    for (const k of report.kernels) if (!slots.has(k) && !fresh.includes(k)) fresh.push(k);
    for (let i = 0; i < fresh.length; i += KERNELS_PER_MESSAGE) {
      const add = fresh.slice(i, i + KERNELS_PER_MESSAGE).map((k): [number, KernelReport] => {
        const slot = nextSlot++;
        slots.set(k, slot);
        return [slot, k];
      });
      port.post({ type: 'kernels', add });
    }
    const ids = report.kernels.map((k) => slots.get(k)!);
    const named = new Set(report.kernels);
    for (const k of [...slots.keys()]) if (!named.has(k)) slots.delete(k);
    port.post({ type: 'report', id: job.id, doc: job.doc, final, report: { ...report, kernels: ids } });
  };

  const queue: Job[] = [];
  /** Queued and running jobs (for cancellation). */
  const live = new Set<Job>();
  let running = false;
  const run = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const current = job;
        try {
          if (current.cancelled) {
            port.post({ type: 'cancelled', id: current.id });
            continue;
          }
          const p = await ready();
          const options = { ...current.options, gpu: gpuOf(current.options.gpu), ...(opts.budgetMs !== undefined ? { budgetMs: opts.budgetMs } : {}) };
          const report = await analyseInSlices(p, current.text, options, {
            sliceMs: opts.sliceMs,
            ...(opts.maxSliceMs !== undefined ? { maxSliceMs: opts.maxSliceMs } : {}),
            pause: opts.pause,
            cancelled: () => current.cancelled,
            onPartial: (r) => send(current, r, false),
            ...(opts.now ? { now: opts.now } : {}),
          });
          if (report && !current.cancelled) send(current, report, true);
          else port.post({ type: 'cancelled', id: current.id });
        } catch (e) {
          port.post({ type: 'failed', id: current.id, error: String((e as Error)?.message ?? e) });
        } finally {
          live.delete(current);
        }
        // Let messages that arrived meanwhile (cancellations, newer texts) be read before the next job.
        await opts.pause();
      }
    } finally {
      running = false;
    }
  };

  port.listen((m) => {
    switch (m.type) {
      case 'analyse': {
        if (m.supersede) for (const j of live) if (j.doc === m.doc) j.cancelled = true;
        const job: Job = { id: m.id, doc: m.doc, text: m.text, options: m.options, cancelled: false };
        live.add(job);
        queue.push(job);
        void run();
        break;
      }
      case 'cancel':
        for (const j of live) if (j.id === m.id) j.cancelled = true;
        break;
      case 'forget':
        sent.delete(m.doc);
        break;
      case 'wasm': {
        const list = waiting.get(m.name) ?? [];
        waiting.delete(m.name);
        for (const w of list) {
          if (m.bytes) w.resolve(m.bytes);
          else w.reject(new Error(m.error ?? `could not read ${m.name}`));
        }
        break;
      }
    }
  });
  port.post({ type: 'ready' });
}

/** The host's side of the slots: rebuilds each file report from the kernel reports it was sent. */
export class ReportDecoder {
  private readonly slots = new Map<string, Map<number, KernelReport>>();
  private readonly loose = new Map<number, KernelReport>();

  /** Takes in a `kernels` message (before the report that names them). */
  kernels(add: [number, KernelReport][]): void {
    for (const [slot, k] of add) this.loose.set(slot, k);
  }

  /** The file report of a `report` message; the document's slots it no longer names are dropped. */
  report(doc: string, wire: WireReport): FileReport {
    const own = this.slots.get(doc) ?? new Map<number, KernelReport>();
    const kernels: KernelReport[] = [];
    const next = new Map<number, KernelReport>();
    for (const slot of wire.kernels) {
      // A kernel report the file report names twice (one object: the service sends it once) is taken again.
      const k = this.loose.get(slot) ?? next.get(slot) ?? own.get(slot);
      if (!k) throw new Error(`kernel slot ${slot} of ${doc} was never sent`);
      this.loose.delete(slot);
      next.set(slot, k);
      kernels.push(k);
    }
    this.slots.set(doc, next);
    return { ...wire, kernels };
  }

  /** Forgets a document (its service side is told with a `forget` message). */
  forget(doc: string): void {
    this.slots.delete(doc);
  }

  /** Everything (a new service starts with no slots). */
  clear(): void {
    this.slots.clear();
    this.loose.clear();
  }
}
