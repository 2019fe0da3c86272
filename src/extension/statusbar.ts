/**
 * The status-bar item naming the GPU the analysis uses; clicking it runs
 * Roofline: Select GPU. Shown while the last active text editor holds a
 * served language.
 */
import * as vscode from 'vscode';
import { si } from '../core/report/format';
import type { Config } from './config';
import type { Owner } from './owner';
import { analysisLanguage } from './present';

export class GpuStatusItem {
  private readonly item = vscode.window.createStatusBarItem('rooflineLens.gpu', vscode.StatusBarAlignment.Right, 100);
  /** The document whose settings the item shows; undefined while it is hidden. */
  private shownFor: vscode.Uri | undefined;

  constructor(owner: Owner, private readonly config: Config) {
    owner.add(this.item);
    this.item.name = 'Roofline Lens GPU';
    this.item.command = 'rooflineLens.selectGpu';
    owner.add(config.onDidChange(() => this.update()));
    owner.add(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.update();
  }

  /** Follows the active text editor; while another kind of editor (a webview) is active, it stays as it is. */
  private update(): void {
    const editor = vscode.window.activeTextEditor;
    if (editor) this.shownFor = analysisLanguage(editor.document.languageId) ? editor.document.uri : undefined;
    if (!this.shownFor) {
      this.item.hide();
      return;
    }
    const gpu = this.config.read(this.shownFor).gpu;
    this.item.text = `$(graph-line) ${gpu.name}`;
    const l2 = gpu.l2Bandwidth === null ? '' : ` · L2 ${si(gpu.l2Bandwidth, 'B/s')}`;
    this.item.tooltip = `Roofline Lens GPU: ${gpu.name} (DRAM ${si(gpu.memoryBandwidth, 'B/s')}${l2}). Click to choose another.`;
    this.item.show();
  }
}
