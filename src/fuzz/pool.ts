/**
 * Runs fuzz units in worker threads, with a watchdog. An analysis that never
 * returns (or exhausts the worker's heap) cannot stop the run: the worker is
 * terminated, the input it was on becomes a `hang` (or `crash`) finding, and
 * a fresh worker takes the next unit. The threads also use both cores.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Seed } from './corpus';
import { isWasmTrap, type Finding } from './oracle';
import { mergeRun, type FuzzConfig, type FuzzInput, type FuzzRun, type Outcome, type ReplayInput, type Unit } from './run';

export interface WorkerSetup {
  seeds: readonly Seed[];
  cfg: FuzzConfig;
}

export type ToWorker = { type: 'unit'; unit: Unit } | { type: 'replay'; input: ReplayInput } | { type: 'stop' };
export type ToPool = { type: 'ready' } | { type: 'start'; input: FuzzInput } | { type: 'unit'; run: FuzzRun } | { type: 'replayed'; findings: Finding[] };

export interface PoolOptions {
  workers: number;
  /** An input still running after this long is a hang: its worker is replaced, ms. */
  watchdogMs: number;
  /** Heap limit of each worker, MB: an input that allocates without bound kills only its worker. */
  heapMb: number;
  /** Sees each input before it runs (progress, saving it for a post-mortem). */
  onStart?: (input: FuzzInput) => void;
}

const BOOT = path.join(__dirname, 'worker-boot.cjs');
const ENTRY = path.join(__dirname, 'worker.ts');

/**
 * A worker's stack is 4 MB by default; the hosts that run the analysis (the
 * extension host, the CLI) run it on a main thread with about 1 MB. The
 * workers get the same, so a deep recursion overflows here as it would there.
 */
const STACK_MB = 1;

function spawn(seeds: readonly Seed[], cfg: FuzzConfig, heapMb: number): Worker {
  return new Worker(BOOT, {
    workerData: { entry: ENTRY, seeds, cfg } satisfies WorkerSetup & { entry: string },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb: STACK_MB },
  });
}

/**
 * Runs every unit and returns the merged outcomes and statistics. Units are
 * dealt to the workers in turn (not taken from a shared queue), so each
 * worker sees the same units in the same order on every run: state a worker
 * keeps from one input to the next (caches, the WebAssembly heap) cannot
 * make a fixed-seed run depend on timing.
 */
export function runInWorkers(seeds: readonly Seed[], cfg: FuzzConfig, units: readonly Unit[], opts: PoolOptions): Promise<FuzzRun> {
  const total: FuzzRun = { outcomes: [], stats: {} };
  const n = Math.max(1, Math.min(opts.workers, units.length));
  const queues = Array.from({ length: n }, (_, i) => units.filter((_, j) => j % n === i));
  return Promise.all(queues.map((queue) => lane(seeds, cfg, queue, total, opts))).then(() => total);
}

/** One worker slot: runs its units in order, replacing its worker after a hang or crash. */
async function lane(seeds: readonly Seed[], cfg: FuzzConfig, queue: Unit[], total: FuzzRun, opts: PoolOptions): Promise<void> {
  while (queue.length > 0) await oneWorker(seeds, cfg, queue, total, opts);
}

/** Runs units on one worker until the queue is empty (resolves) or the worker dies (resolves; the lane starts another). */
function oneWorker(seeds: readonly Seed[], cfg: FuzzConfig, queue: Unit[], total: FuzzRun, opts: PoolOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const w = spawn(seeds, cfg, opts.heapMb);
    let current: FuzzInput | undefined;
    let lastStarted: FuzzInput | undefined;
    let started = 0;
    let ready = false;
    let finished = false;
    const finish = (): void => {
      finished = true;
      clearInterval(timer);
      resolve();
    };
    const lost = (kind: 'hang' | 'crash', detail: string): void => {
      if (finished) return;
      if (!ready) {
        finished = true;
        clearInterval(timer);
        reject(new Error(`a fuzz worker failed to start: ${detail}`));
        return;
      }
      // Between two inputs (clearing caches, starting a unit) the last input started is the suspect.
      const suspect = current ?? lastStarted;
      if (suspect) total.outcomes.push(lostOutcome(suspect, kind, current ? detail : `${detail} (between inputs)`, Date.now() - started));
      void w.terminate();
      finish();
    };
    const next = (): void => {
      const unit = queue.shift();
      current = undefined;
      w.postMessage((unit ? { type: 'unit', unit } : { type: 'stop' }) satisfies ToWorker);
      if (!unit) {
        finish();
        void w.terminate();
      }
    };
    const timer = setInterval(() => {
      if (current && Date.now() - started > opts.watchdogMs) lost('hang', `still running after ${opts.watchdogMs} ms: the worker was terminated`);
    }, Math.min(1000, opts.watchdogMs / 4));
    w.on('message', (m: ToPool) => {
      if (m.type === 'start') {
        current = m.input;
        lastStarted = m.input;
        started = Date.now();
        opts.onStart?.(m.input);
      } else if (m.type === 'unit') {
        mergeRun(total, m.run);
        if (m.run.poisoned) {
          finish();
          void w.terminate();
        } else next();
      } else {
        ready = true;
        next();
      }
    });
    w.on('error', (e) => lost('crash', `the worker died: ${e instanceof Error ? e.message : String(e)}`));
    w.on('exit', () => {
      if (!finished) lost('crash', 'the worker exited');
    });
  });
}

function lostOutcome(input: FuzzInput, kind: 'hang' | 'crash', detail: string, ms: number): Outcome {
  const signature = kind === 'hang' ? 'hang: never returned' : `crash: ${detail.replace(/\d+/g, 'N').slice(0, 120)}`;
  return { input, ms, findings: [{ kind, detail, signature }] };
}

/**
 * Analyses single inputs cold in a worker (for the minimiser and the
 * regression fixtures): an input that does not come back within the
 * watchdog gets the `hang: never returned` finding, and the worker is
 * replaced, as it is after a WebAssembly trap.
 */
export class Replayer {
  private worker: Worker | undefined;
  private readyWorker: Promise<Worker> | undefined;

  constructor(
    private readonly cfg: FuzzConfig,
    private readonly opts: Pick<PoolOptions, 'watchdogMs' | 'heapMb'>,
  ) {}

  private start(): Promise<Worker> {
    this.readyWorker ??= new Promise((resolve, reject) => {
      const w = spawn([], this.cfg, this.opts.heapMb);
      w.once('message', () => resolve(w));
      w.once('error', reject);
      this.worker = w;
    });
    return this.readyWorker;
  }

  private drop(): void {
    void this.worker?.terminate();
    this.worker = undefined;
    this.readyWorker = undefined;
  }

  async findings(input: ReplayInput): Promise<Finding[]> {
    const w = await this.start();
    return new Promise((resolve) => {
      const done = (f: Finding[]): void => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('exit', onExit);
        resolve(f);
      };
      const onMessage = (m: ToPool): void => {
        if (m.type !== 'replayed') return;
        if (m.findings.some(isWasmTrap)) this.drop();
        done(m.findings);
      };
      const onExit = (): void => {
        this.drop();
        done([{ kind: 'crash', detail: 'the worker exited', signature: 'crash: the worker exited' }]);
      };
      const timer = setTimeout(() => {
        this.drop();
        done([{ kind: 'hang', detail: `still running after ${this.opts.watchdogMs} ms`, signature: 'hang: never returned' }]);
      }, this.opts.watchdogMs);
      w.on('message', onMessage);
      w.once('exit', onExit);
      w.postMessage({ type: 'replay', input } satisfies ToWorker);
    });
  }

  close(): void {
    this.drop();
  }
}
