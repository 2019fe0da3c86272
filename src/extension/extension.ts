/**
 * Roofline Lens in VS Code (desktop and web: the same code, two bundles).
 *
 *   open/changed document ──► Analyzer (debounced, cached per version) ──► core analyzeSource
 *        CodeLens, hovers, diagnostics, the panel ◄── its reports (+ an imported profile's measurements)
 *        settings (Config) ──► re-analysis or re-display; status bar, commands
 *
 * This folder is the only code that imports `vscode`; the core never does.
 * Every registration belongs to one Owner, disposed on deactivation.
 */
import * as vscode from 'vscode';
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

export function activate(context: vscode.ExtensionContext): void {
  const owner = new Owner();
  context.subscriptions.push(owner);
  try {
    const log = owner.add(vscode.window.createOutputChannel('Roofline Lens', { log: true }));
    const config = new Config(owner, log);
    const analyzer = new Analyzer(owner, context.extensionUri, config, log);
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
