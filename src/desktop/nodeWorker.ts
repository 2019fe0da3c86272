/**
 * Starting the desktop analysis worker (dist/worker.js) as a Node worker
 * thread: the desktop extension's first analysis service (./extension.ts),
 * and what the tests and the benchmark start (no `vscode` here).
 */
import { Worker } from 'node:worker_threads';
import type { ServiceHandle, StartService } from '../extension/analysisClient';
import type { FromService, ToService } from '../extension/analysisService';
import type { WorkerData } from './codeCacheHook';

/**
 * A worker thread running `script` (dist/worker.js); with `codeCache`, the
 * file where it keeps V8's code cache of its bundle (./workerLaunch.ts).
 */
export function nodeWorker(script: string, codeCache?: string): StartService {
  return () => {
    const workerData: WorkerData = codeCache ? { codeCache } : {};
    const w = new Worker(script, { name: 'Roofline Lens analysis', workerData });
    const failures: ((why: string) => void)[] = [];
    w.on('error', (e) => failures.forEach((f) => f(e.message)));
    w.on('exit', (code) => failures.forEach((f) => f(`exited with code ${code}`)));
    const handle: ServiceHandle = {
      kind: 'worker',
      port: { post: (m: ToService) => w.postMessage(m), listen: (cb: (m: FromService) => void) => void w.on('message', cb) },
      onFailure: (cb) => failures.push(cb),
      terminate: () => {
        failures.length = 0;
        void w.terminate();
      },
    };
    return handle;
  };
}
