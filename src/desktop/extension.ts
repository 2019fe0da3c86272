/**
 * The desktop extension's entry (dist/extension.js, VS Code's Node extension
 * host): the extension of src/extension/, with its analyses in a Node worker
 * thread (dist/worker.js), so the editor's thread never runs one. Only this
 * folder may import Node built-ins next to `vscode` (docs/architecture.md).
 */
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { activateWith, IN_HOST_SERVICE } from '../extension/extension';
import { nodeWorker } from './nodeWorker';

export function activate(context: vscode.ExtensionContext): void {
  // One file: a cache made from another version's bundle is not used (its digest differs) and is replaced.
  const codeCache = path.join(context.globalStorageUri.fsPath, 'worker.v8cache');
  activateWith(context, [nodeWorker(path.join(context.extensionPath, 'dist', 'worker.js'), codeCache), IN_HOST_SERVICE]);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions (the worker with the analyzer).
}
