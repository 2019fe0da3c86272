/**
 * The entry of the desktop extension's analysis worker (dist/worker.js, a
 * Node worker thread the extension host starts: ./extension.ts). It runs the
 * worker itself (dist/worker-main.js, ./worker.ts) compiled from V8's code
 * cache that an earlier worker wrote in the extension's global storage
 * (`workerData.codeCache`, a fixed file name there), so a new worker, one
 * per window, does not compile again the functions of its first analysis.
 * The first worker of an extension version (or of a VS Code whose V8 rejects
 * the cache) compiles as usual and writes the cache after its first whole
 * analysis; a worker writes it again after the first whole analysis of a
 * language the cache was not made with, so that it holds the functions of
 * each language the user opens (src/node/codeCache.ts). Without
 * `workerData.codeCache` (tests, benchmarks) no cache is read or written.
 */
import * as path from 'node:path';
import { workerData } from 'node:worker_threads';
import { compileBundle } from '../node/codeCache';
import { CODE_CACHE_HOOK, type CodeCacheHook, type WorkerData } from './codeCacheHook';

const file = (workerData as WorkerData | null | undefined)?.codeCache;
const bundle = compileBundle(path.join(__dirname, 'worker-main.js'), file);
if (file !== undefined) {
  // The cache's label: the languages whose first whole analysis it was written after.
  const covered = new Set(bundle.label.split(',').filter(Boolean));
  const hook: CodeCacheHook = {
    state: bundle.state,
    warm: (language) => {
      if (covered.has(language)) return;
      covered.add(language);
      bundle.save(file, [...covered].sort().join(','));
    },
  };
  (globalThis as { [CODE_CACHE_HOOK]?: CodeCacheHook })[CODE_CACHE_HOOK] = hook;
}
bundle.run(module);
