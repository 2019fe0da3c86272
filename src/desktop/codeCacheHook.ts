/**
 * What the analysis worker's entry (workerLaunch.ts, dist/worker.js) hands
 * the worker it runs (worker.ts, dist/worker-main.js): two bundles, so
 * through one global under a registered symbol.
 */
import type { CodeCacheState } from '../node/codeCache';

export const CODE_CACHE_HOOK = Symbol.for('roofline-lens.worker.codeCache');

export interface CodeCacheHook {
  /** What became of the cache when the worker's bundle was compiled. */
  state: CodeCacheState;
  /**
   * The worker has done a whole analysis of a file of `language`: a cache of
   * the bundle as compiled now is worth writing if none holds that
   * language's functions yet (the first report of each language, at most).
   */
  warm(language: string): void;
}

/** Where the extension asks its worker to keep the code cache (`workerData`); none: no cache. */
export interface WorkerData {
  codeCache?: string;
}
