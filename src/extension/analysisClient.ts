/**
 * The extension host's side of the analysis service (analysisService.ts):
 * sends texts, answers the service's requests for grammar bytes, rebuilds
 * reports from their slots, and keeps a service running.
 *
 *   starters: [worker, in-host]  ──► the first that starts serves; a worker that fails
 *                                    before it is ready gives way to the next starter,
 *                                    one that fails later is restarted (3 times at most)
 *   watchdog                     ──► a service silent for `watchdogMs` while it has
 *                                    work is restarted; the request it was on is dropped
 *
 * No `vscode` here (the host's adapters live in analyzer.ts and the entries),
 * so the whole exchange is tested in-process.
 */
import type { WasmName } from '../core/parsers';
import type { FileReport } from '../core/report/types';
import { ReportDecoder, serveAnalyses, type FromService, type Port, type RequestOptions, type ServiceOptions, type ToService } from './analysisService';

/** A running service: a port to it, and how it ends. */
export interface ServiceHandle {
  /** 'worker' or 'in-host', for the log. */
  kind: string;
  port: Port<FromService, ToService>;
  /** Registers the callback for the service's death (a worker's error or exit). */
  onFailure(cb: (why: string) => void): void;
  terminate(): void;
}

export type StartService = () => ServiceHandle;

export interface ClientLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ClientOptions {
  /** Tried in order. */
  starters: StartService[];
  readWasm(name: WasmName): Promise<Uint8Array>;
  log?: ClientLog;
  /** A service that has work and says nothing for this long is restarted, ms (default 60 s). */
  watchdogMs?: number;
}

export interface AnalysisRequest {
  /** The document (its URI); with `supersede` a newer request for it cancels older ones. */
  doc: string;
  supersede: boolean;
  text: string;
  options: RequestOptions;
}

export interface Running {
  /** The complete report; undefined when cancelled or dropped. Rejects when the analysis failed. */
  promise: Promise<FileReport | undefined>;
  cancel(): void;
}

interface Outstanding {
  id: number;
  request: AnalysisRequest;
  onPartial?: (report: FileReport) => void;
  resolve(r: FileReport | undefined): void;
  reject(e: Error): void;
}

const MAX_RESTARTS = 3;

export class AnalysisClient {
  private handle: ServiceHandle | undefined;
  private decoder = new ReportDecoder();
  private starter = 0;
  private restarts = 0;
  private ready = false;
  private nextId = 1;
  private lastHeard = Date.now();
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private readonly outstanding = new Map<number, Outstanding>();
  private disposed = false;

  constructor(private readonly opts: ClientOptions) {}

  /** The kind of service serving now ('worker', 'in-host'), or undefined before the first request. */
  get kind(): string | undefined {
    return this.handle?.kind;
  }

  analyse(request: AnalysisRequest, onPartial?: (report: FileReport) => void): Running {
    const id = this.nextId++;
    let entry!: Outstanding;
    const promise = new Promise<FileReport | undefined>((resolve, reject) => {
      entry = { id, request, ...(onPartial ? { onPartial } : {}), resolve, reject };
    });
    if (this.disposed) {
      entry.resolve(undefined);
      return { promise, cancel: () => undefined };
    }
    if (request.supersede)
      for (const o of this.outstanding.values())
        if (o.request.doc === request.doc && o.request.supersede) {
          // The service cancels it when the new request arrives; its waiter learns now.
          this.outstanding.delete(o.id);
          o.resolve(undefined);
        }
    this.outstanding.set(id, entry);
    this.send(entry);
    this.armWatchdog();
    return {
      promise,
      cancel: () => {
        if (!this.outstanding.delete(id)) return;
        entry.resolve(undefined);
        this.handle?.port.post({ type: 'cancel', id });
      },
    };
  }

  /** Forgets a document's kernels on both sides (it was closed). */
  forget(doc: string): void {
    for (const o of [...this.outstanding.values()])
      if (o.request.doc === doc) {
        this.outstanding.delete(o.id);
        o.resolve(undefined);
        this.handle?.port.post({ type: 'cancel', id: o.id });
      }
    this.decoder.forget(doc);
    this.handle?.port.post({ type: 'forget', doc });
  }

  dispose(): void {
    this.disposed = true;
    for (const o of this.outstanding.values()) o.resolve(undefined);
    this.outstanding.clear();
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.watchdog = undefined;
    this.handle?.terminate();
    this.handle = undefined;
  }

  private send(o: Outstanding): void {
    const h = this.service();
    if (!h) {
      this.outstanding.delete(o.id);
      o.reject(new Error('no analysis service could start (see the log)'));
      return;
    }
    h.port.post({ type: 'analyse', id: o.id, doc: o.request.doc, supersede: o.request.supersede, text: o.request.text, options: o.request.options });
  }

  /** The running service, started (or the next starter tried) when there is none. */
  private service(): ServiceHandle | undefined {
    while (!this.handle && this.starter < this.opts.starters.length) {
      try {
        const h = this.opts.starters[this.starter]();
        this.handle = h;
        this.ready = false;
        this.decoder = new ReportDecoder();
        this.lastHeard = Date.now();
        h.port.listen((m) => this.received(h, m));
        h.onFailure((why) => this.failed(h, why));
        this.opts.log?.info(`analysis service: ${h.kind}`);
      } catch (e) {
        this.opts.log?.warn(`analysis service (${this.starter}) could not start: ${String((e as Error)?.message ?? e)}`);
        this.starter++;
      }
    }
    return this.handle;
  }

  private received(h: ServiceHandle, m: FromService): void {
    if (h !== this.handle) return;
    this.lastHeard = Date.now();
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (m.codeCache) this.opts.log?.info(`analysis service: code cache ${m.codeCache}`);
        break;
      case 'needWasm':
        this.opts.readWasm(m.name).then(
          (bytes) => h.port.post({ type: 'wasm', name: m.name, bytes }),
          (e: unknown) => h.port.post({ type: 'wasm', name: m.name, error: String((e as Error)?.message ?? e) }),
        );
        break;
      case 'kernels':
        this.decoder.kernels(m.add);
        break;
      case 'report': {
        // Every report goes through the decoder (it keeps the slots in step), wanted or not.
        const report = this.decoder.report(m.doc, m.report);
        const o = this.outstanding.get(m.id);
        if (!o) break;
        if (m.final) {
          this.outstanding.delete(m.id);
          o.resolve(report);
        } else o.onPartial?.(report);
        break;
      }
      case 'cancelled': {
        const o = this.outstanding.get(m.id);
        this.outstanding.delete(m.id);
        o?.resolve(undefined);
        break;
      }
      case 'failed': {
        const o = this.outstanding.get(m.id);
        this.outstanding.delete(m.id);
        o?.reject(new Error(m.error));
        break;
      }
    }
    if (this.outstanding.size === 0) this.disarmWatchdog();
  }

  /** The service died: the next one takes every outstanding request. */
  private failed(h: ServiceHandle, why: string): void {
    if (h !== this.handle || this.disposed) return;
    this.opts.log?.warn(`analysis service (${h.kind}) stopped: ${why}`);
    h.terminate();
    this.handle = undefined;
    if (!this.ready || ++this.restarts > MAX_RESTARTS) {
      this.starter++;
      this.restarts = 0;
    }
    for (const o of [...this.outstanding.values()]) this.send(o);
  }

  private armWatchdog(): void {
    if (this.watchdog !== undefined) return;
    const limit = this.opts.watchdogMs ?? 60_000;
    this.lastHeard = Date.now();
    this.watchdog = setInterval(() => {
      const h = this.handle;
      if (!h || this.outstanding.size === 0) return this.disarmWatchdog();
      if (Date.now() - this.lastHeard < limit) return;
      // The oldest request is the one it is stuck on: dropped, so a restart does not meet it again.
      const stuck = this.outstanding.values().next().value as Outstanding;
      this.outstanding.delete(stuck.id);
      stuck.reject(new Error(`the analysis of ${stuck.request.options.path} said nothing for ${Math.round(limit / 1000)} s and was stopped`));
      this.failed(h, `no answer for ${Math.round(limit / 1000)} s`);
    }, Math.min(limit, 5_000));
  }

  private disarmWatchdog(): void {
    if (this.watchdog !== undefined) clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}

/** Both ends of an in-process channel: messages are delivered asynchronously and not copied. */
export function loopback<A, B>(): [Port<A, B>, Port<B, A>] {
  let toA: ((m: A) => void) | undefined;
  let toB: ((m: B) => void) | undefined;
  const a: Port<A, B> = {
    post: (m) => queueMicrotask(() => toB?.(m)),
    listen: (cb) => (toA = cb),
  };
  const b: Port<B, A> = {
    post: (m) => queueMicrotask(() => toA?.(m)),
    listen: (cb) => (toB = cb),
  };
  return [a, b];
}

/** The service in this thread, in slices (no worker could start). */
export function inHostService(options: ServiceOptions): StartService {
  return () => {
    const [host, service] = loopback<FromService, ToService>();
    let alive = true;
    serveAnalyses({ post: (m) => alive && service.post(m), listen: (cb) => service.listen((m) => alive && cb(m)) }, options);
    return { kind: 'in-host', port: host, onFailure: () => undefined, terminate: () => (alive = false) };
  };
}

/** A macrotask: lets the event loop run (timers, messages, the editor's own work). */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
