/**
 * The analysis worker of the desktop extension (dist/worker.js): a Node
 * worker thread the extension host starts (./extension.ts). It serves
 * analyses (src/extension/analysisService.ts); grammar bytes come from the host.
 */
import { parentPort } from 'node:worker_threads';
import { serveAnalyses, WORKER_SLICES, type FromService, type ToService } from '../extension/analysisService';

const port = parentPort;
if (!port) throw new Error('dist/worker.js runs as a worker thread of the extension host');

serveAnalyses(
  {
    post: (m: FromService) => port.postMessage(m),
    listen: (cb: (m: ToService) => void) => port.on('message', cb),
  },
  { ...WORKER_SLICES, pause: () => new Promise<void>((resolve) => setImmediate(resolve)) },
);
