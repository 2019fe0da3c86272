/**
 * The analysis worker of the desktop extension (dist/worker-main.js, run by
 * its entry ./workerLaunch.ts, dist/worker.js): a Node worker thread the
 * extension host starts (./extension.ts). It serves analyses
 * (src/extension/analysisService.ts); grammar bytes come from the host.
 * After a whole report it lets the entry write V8's code cache (./workerLaunch.ts).
 */
import { parentPort } from 'node:worker_threads';
import { serveAnalyses, WORKER_SLICES, type FromService, type ToService } from '../extension/analysisService';
import { CODE_CACHE_HOOK, type CodeCacheHook } from './codeCacheHook';

const port = parentPort;
if (!port) throw new Error('dist/worker.js runs as a worker thread of the extension host');

const cache = (globalThis as { [CODE_CACHE_HOOK]?: CodeCacheHook })[CODE_CACHE_HOOK];

serveAnalyses(
  {
    post: (m: FromService) => {
      port.postMessage(m.type === 'ready' && cache ? { ...m, codeCache: cache.state } : m);
      // After the report is posted: the functions of a whole analysis of its language are compiled by now.
      if (m.type === 'report' && m.final && cache) cache.warm(m.report.language);
    },
    listen: (cb: (m: ToService) => void) => port.on('message', cb),
  },
  { ...WORKER_SLICES, pause: () => new Promise<void>((resolve) => setImmediate(resolve)) },
);
