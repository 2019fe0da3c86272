/**
 * Settings as the editor holds them: reads `rooflineLens.*` for a document
 * (bindings are per workspace folder), reports each bad value once, says
 * which changes invalidate analyses, and writes values back to the scope that
 * already defines them.
 */
import * as vscode from 'vscode';
import type { Owner } from './owner';
import { ANALYSIS_SETTINGS, readSettings, SECTION, type Settings } from './settings';

export type SettingsChange = 'analysis' | 'presentation';

export class Config {
  private readonly shown = new Set<string>();
  private readonly changed = new vscode.EventEmitter<SettingsChange>();
  /** Fires 'analysis' when results are stale, 'presentation' when only their display changed. */
  readonly onDidChange = this.changed.event;

  constructor(owner: Owner, private readonly log: vscode.LogOutputChannel) {
    owner.add(this.changed);
    owner.add(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(SECTION)) return;
        const stale = ANALYSIS_SETTINGS.some((key) => e.affectsConfiguration(`${SECTION}.${key}`));
        this.changed.fire(stale ? 'analysis' : 'presentation');
      }),
    );
  }

  /** The settings that apply to `resource` (window settings when it is undefined). */
  read(resource?: vscode.Uri): Settings {
    const c = vscode.workspace.getConfiguration(SECTION, resource);
    const settings = readSettings({
      gpu: c.get('gpu'),
      customGpus: c.get('customGpus'),
      bindings: c.get('bindings'),
      dtypes: c.get('dtypes'),
      kernelLenses: c.get('codeLens.kernels'),
      loopLenses: c.get('codeLens.loops'),
      diagnostics: c.get('diagnostics.enabled'),
    });
    this.report(settings.errors);
    return settings;
  }

  /** Shows settings errors not shown before; the full list goes to the log. */
  private report(errors: string[]): void {
    const fresh = errors.filter((e) => !this.shown.has(e));
    if (fresh.length === 0) return;
    for (const e of fresh) {
      this.shown.add(e);
      this.log.warn(e);
    }
    const more = fresh.length > 2 ? ` (and ${fresh.length - 2} more: see Output › Roofline Lens)` : '';
    void vscode.window.showWarningMessage(`Roofline Lens: ${fresh.slice(0, 2).join('; ')}${more}`);
  }

  /** Writes `rooflineLens.<key>` where it is defined now (folder, workspace, else user settings). */
  async update(key: string, value: unknown, resource?: vscode.Uri, target?: vscode.ConfigurationTarget): Promise<void> {
    const c = vscode.workspace.getConfiguration(SECTION, resource);
    await c.update(key, value, target ?? definingTarget(c.inspect(key)));
  }
}

function definingTarget(i: { workspaceFolderValue?: unknown; workspaceValue?: unknown } | undefined): vscode.ConfigurationTarget {
  if (i?.workspaceFolderValue !== undefined) return vscode.ConfigurationTarget.WorkspaceFolder;
  if (i?.workspaceValue !== undefined) return vscode.ConfigurationTarget.Workspace;
  return vscode.ConfigurationTarget.Global;
}
