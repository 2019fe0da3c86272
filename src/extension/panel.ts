/**
 * The roofline panel. For now a table of the file's kernels (the chart
 * replaces it later): one webview, reused, following the analysis of the
 * document it shows, with a nonce CSP and no scripts.
 */
import * as vscode from 'vscode';
import { bytes, flopRate, flops, intensity } from '../core/report/format';
import type { KernelReport } from '../core/report/types';
import type { Analysis, Analyzer } from './analyzer';
import { Owner } from './owner';
import { unitBytes, verdict } from './present';

/** A kernel in a document, as lenses and hover links name it. */
export interface KernelRef {
  /** The document's URI string. */
  uri: string;
  name: string;
  /** 1-based line of the kernel. */
  line: number;
}

/** What the panel needs from the extension. */
export interface PanelContext {
  extension: vscode.ExtensionContext;
  analyzer: Analyzer;
}

let current: RooflinePanel | undefined;

/** Opens (or reveals) the panel on `ref`'s document, or the active editor's. */
export async function showRooflinePanel(ctx: PanelContext, ref?: KernelRef): Promise<vscode.WebviewPanel | undefined> {
  const doc = ref ? await vscode.workspace.openTextDocument(vscode.Uri.parse(ref.uri)) : vscode.window.activeTextEditor?.document;
  if (!doc) {
    void vscode.window.showInformationMessage('Roofline Lens: open a Triton, CUDA or WGSL file first.');
    return undefined;
  }
  const existing = current;
  if (!current) {
    current = new RooflinePanel(ctx.analyzer, () => (current = undefined));
    ctx.extension.subscriptions.push(current.panel);
  }
  await current.show(doc, ref?.name);
  if (existing) existing.panel.reveal(existing.panel.viewColumn, true);
  return current.panel;
}

class RooflinePanel {
  readonly panel = vscode.window.createWebviewPanel('rooflineLens.roofline', 'Roofline', vscode.ViewColumn.Beside, {
    enableScripts: false,
    localResourceRoots: [],
  });
  private readonly owner = new Owner();
  private doc: vscode.TextDocument | undefined;
  private selected: string | undefined;

  constructor(private readonly analyzer: Analyzer, onClose: () => void) {
    this.owner.add(
      analyzer.onDidAnalyse(({ uri, analysis }) => {
        if (this.doc && uri.toString() === this.doc.uri.toString()) this.render(analysis);
      }),
    );
    this.owner.add(
      this.panel.onDidDispose(() => {
        onClose();
        this.owner.dispose();
      }),
    );
  }

  async show(doc: vscode.TextDocument, kernel?: string): Promise<void> {
    this.doc = doc;
    this.selected = kernel;
    this.panel.title = `Roofline: ${vscode.workspace.asRelativePath(doc.uri, false)}`;
    this.render(await this.analyzer.analyse(doc));
  }

  private render(analysis: Analysis | undefined): void {
    this.panel.webview.html = html(analysis, this.selected, this.doc ? vscode.workspace.asRelativePath(this.doc.uri, false) : '');
  }
}

function html(a: Analysis | undefined, selected: string | undefined, path: string): string {
  const nonce = makeNonce();
  const body = a && a.report.kernels.length > 0 ? table(a.report.kernels, selected) : `<p id="no-kernels">No kernels found in ${esc(path)}.</p>`;
  const gpu = a ? ` on ${esc(a.settings.gpu.name)}` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}';">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
table { border-collapse: collapse; }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid var(--vscode-panel-border); }
th:first-child, td:first-child { text-align: left; }
tr.selected { background: var(--vscode-editor-selectionBackground); }
</style>
<title>Roofline</title></head>
<body>
<h2 id="roofline-title">Roofline of ${esc(path)}${gpu}</h2>
${body}
</body></html>`;
}

function table(kernels: KernelReport[], selected: string | undefined): string {
  const rows = kernels.map((k) => {
    const cells = [
      `<code>${esc(k.name)}</code>`,
      String(k.line),
      intensity(k.arithmeticIntensity),
      intensity(k.compulsoryIntensity),
      esc(verdict(k)),
      intensity(k.ridgePoint),
      flopRate(k.attainableFlops),
      flops(k.perUnit.flops),
      bytes(unitBytes(k)),
    ];
    const cls = k.name === selected ? ' class="selected"' : '';
    return `<tr id="kernel-${esc(k.name)}"${cls}>${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
  });
  const head = ['kernel', 'line', 'AI (FLOP/B)', 'compulsory AI', 'bound', 'ridge (FLOP/B)', 'attainable', 'FLOPs / unit', 'bytes / unit'];
  return `<table id="kernels"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function makeNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
