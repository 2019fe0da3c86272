/**
 * Roofline Lens in VS Code (desktop and web: the same code, two bundles).
 *
 *   open/changed document ──► Analyzer (debounced, cached per version) ──► analysis service
 *        (a worker: src/desktop/worker.ts on desktop, ./worker.ts in the browser; in-host slices without one)
 *        CodeLens, hovers, diagnostics, the panel ◄── its reports (+ an imported profile's measurements)
 *        settings (Config) ──► re-analysis or re-display; status bar, commands
 *
 * This file is the web extension's entry; the desktop one (src/desktop/extension.ts)
 * calls `activateWith` with a Node worker thread. This folder is the only
 * code that imports `vscode`; the core never does. Every registration
 * belongs to one Owner, disposed on deactivation.
 */
import * as vscode from 'vscode';
import { inHostService, macrotask, type ServiceHandle, type StartService } from './analysisClient';
import { IN_HOST_SLICES, type FromService, type ToService } from './analysisService';
import { Analyzer } from './analyzer';
import { registerCommands } from './commands';
import { Config } from './config';
import { KernelDiagnostics } from './diagnostics';
import { KernelHoverProvider } from './hover';
import { KernelLensProvider } from './lens';
import { Owner } from './owner';
import { registerRooflinePanel } from './panel';
import { ProfileStore, registerProfileCommands } from './profile';
import { SERVED_LANGUAGES } from './present';
import { GpuStatusItem } from './statusbar';

/** The analysis in this thread, when no worker starts (analysisService.ts, IN_HOST_SLICES). */
export const IN_HOST_SERVICE = inHostService({ ...IN_HOST_SLICES, pause: macrotask });

/** A web worker running dist/web/worker.js (VS Code's web extension host can start workers from extension URIs). */
export function webWorker(extensionUri: vscode.Uri): StartService {
  return () => {
    const Ctor = (globalThis as { Worker?: typeof Worker }).Worker;
    if (!Ctor) throw new Error('this host has no Worker');
    const w = new Ctor(vscode.Uri.joinPath(extensionUri, 'dist', 'web', 'worker.js').toString(true), { name: 'Roofline Lens analysis' });
    const failures: ((why: string) => void)[] = [];
    w.onerror = (e) => failures.forEach((f) => f(e.message || 'the worker failed'));
    w.onmessageerror = () => failures.forEach((f) => f('a message could not be read'));
    const handle: ServiceHandle = {
      kind: 'worker',
      port: { post: (m: ToService) => w.postMessage(m), listen: (cb: (m: FromService) => void) => (w.onmessage = (e) => cb(e.data as FromService)) },
      onFailure: (cb) => failures.push(cb),
      terminate: () => w.terminate(),
    };
    return handle;
  };
}

export function activate(context: vscode.ExtensionContext): void {
  activateWith(context, [webWorker(context.extensionUri), IN_HOST_SERVICE]);
}

/** Activates with the given ways to run the analysis service, tried in order. */
export function activateWith(context: vscode.ExtensionContext, services: StartService[]): void {
  const owner = new Owner();
  context.subscriptions.push(owner);
  try {
    const log = owner.add(vscode.window.createOutputChannel('Roofline Lens', { log: true }));
    const config = new Config(owner, log);
    const analyzer = new Analyzer(owner, context.extensionUri, config, log, services);
    // The imported profile (measured dots): remembered per workspace, re-read on change.
    const profiles = new ProfileStore(owner, context.workspaceState, log, { analyzer, config });
    const selector = Object.keys(SERVED_LANGUAGES).map((language) => ({ language }));
    owner.add(vscode.languages.registerCodeLensProvider(selector, new KernelLensProvider(owner, analyzer, config, profiles)));
    owner.add(vscode.languages.registerHoverProvider(selector, new KernelHoverProvider(analyzer, profiles)));
    new KernelDiagnostics(owner, analyzer, config);
    new GpuStatusItem(owner, config);
    const panelContext = { extension: context, analyzer, config, profiles, log };
    registerCommands(owner, panelContext);
    // The roofline panel (serializer, workspace view, export) and the profile commands.
    registerRooflinePanel(owner, panelContext);
    registerProfileCommands(owner, profiles);
    analyzer.watchDocuments();
    void profiles.restore();
  } catch (e) {
    // VS Code does not tell the user when an extension fails to activate, so we do.
    owner.dispose();
    void vscode.window.showErrorMessage(`Roofline Lens failed to start: ${String((e as Error)?.message ?? e)}`);
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
