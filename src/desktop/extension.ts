/**
 * The desktop extension's entry (dist/extension.js, VS Code's Node extension
 * host): the extension of src/extension/, with its analyses in a Node worker
 * thread (dist/worker.js), so the editor's thread never runs one. Only this
 * folder may import Node built-ins next to `vscode` (docs/architecture.md).
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type * as vscode from 'vscode';
import type { ServiceHandle, StartService } from '../extension/analysisClient';
import type { FromService, ToService } from '../extension/analysisService';
import { activateWith, IN_HOST_SERVICE } from '../extension/extension';
import type { WorkerData } from './codeCacheHook';

/**
 * A worker thread running dist/worker.js; with `codeCache`, the file where
 * it keeps V8's code cache of its bundle (./workerLaunch.ts).
 */
export function nodeWorker(extensionPath: string, codeCache?: string): StartService {
  return () => {
    const workerData: WorkerData = codeCache ? { codeCache } : {};
    const w = new Worker(path.join(extensionPath, 'dist', 'worker.js'), { name: 'Roofline Lens analysis', workerData });
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

export function activate(context: vscode.ExtensionContext): void {
  // One file: a cache made from another version's bundle is not used (its digest differs) and is replaced.
  const codeCache = path.join(context.globalStorageUri.fsPath, 'worker.v8cache');
  activateWith(context, [nodeWorker(context.extensionPath, codeCache), IN_HOST_SERVICE]);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions (the worker with the analyzer).
}
