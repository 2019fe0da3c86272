/**
 * The analysis worker of the web extension (dist/web/worker.js): a web
 * worker the extension host starts (extension.ts, `webWorker`). It serves
 * analyses (analysisService.ts); grammar bytes come from the host.
 */
import { serveAnalyses, WORKER_SLICES, type FromService, type ToService } from './analysisService';

interface WorkerScope {
  postMessage(message: unknown): void;
  onmessage: ((e: { data: unknown }) => void) | null;
}

const scope = globalThis as unknown as WorkerScope;

/** A macrotask without the 4 ms clamp of nested timers: a message to ourselves. */
function channelPause(): () => Promise<void> {
  const channel = new MessageChannel();
  const waiting: (() => void)[] = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
}

serveAnalyses(
  {
    post: (m: FromService) => scope.postMessage(m),
    listen: (cb: (m: ToService) => void) => (scope.onmessage = (e) => cb(e.data as ToService)),
  },
  { ...WORKER_SLICES, pause: channelPause() },
);
