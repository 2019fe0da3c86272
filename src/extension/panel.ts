/**
 * The roofline panel: one webview showing the chart of the active file's
 * kernels (or of the whole workspace's), the table under it, what-if controls
 * for the selected kernel, and an imported profile's measured dots.
 *
 *   analyses (onDidAnalyse, analyseText for another GPU or a what-if)
 *     ──► files ──► profile attach ──► rooflineSpec + table + what-if model ──► page (render)
 *   page ──► validated messages (select, GPU, precisions, what-if, copy, export, profile)
 *
 * The extension builds the Vega-Lite spec (from the core) with the colours
 * the page reads from the VS Code theme; the page compiles and renders it
 * (vega-interpreter: no eval). The panel's state goes to the page with every
 * render and comes back through the serializer after a reload.
 */
import * as vscode from 'vscode';
import { GPU_CATALOG } from '../core/gpus/catalog';
import type { GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { chartKernels, chartPipelines, chartSize, defaultPrecisions, kernelId, rooflineSpec, type ChartTheme } from '../core/report/chart';
import { boundsSentence, incompleteText } from '../core/report/honesty';
import { pipelineId } from '../core/report/pipelineView';
import type { FileReport, KernelReport } from '../core/report/types';
import { sortRows, tableMarkdown, tableTsv, type TableModel } from '../shared/table';
import type { Analysis, Analyzer } from './analyzer';
import type { Config, SettingsChange } from './config';
import { Owner } from './owner';
import { makeNonce, pageHtml } from './panelHtml';
import { parsePageMessage, parsePanelState, withFusion, type ExportFormat, type PageMessage, type PanelState, type RenderMessage, type WhatIfModel, type WhatIfState } from '../shared/panelProtocol';
import { gpuChoices, panelTable, precisionChoices, profileModel, whatIfModel } from './panelModel';
import { chosenPipeline, fusedByPipeline, pipelineView } from './panelPipeline';
import { isWorkspaceKernelFile, scanWorkspace, type PanelFile, type ScanResult } from './panelWorkspace';
import { analysisLanguage, blockingSymbols, mayHaveKernels } from './present';
import type { ProfileStore } from './profile';
import { resolveGpu, type Settings } from './settings';

export const VIEW_TYPE = 'rooflineLens.roofline';
/** Coalesces bursts of analyses and clicks into one render. */
const RENDER_DELAY_MS = 40;
/** How long an export waits for the page. */
const EXPORT_TIMEOUT_MS = 20_000;

/** A kernel in a document, as lenses and hover links name it. */
export interface KernelRef {
  /** The document's URI string. */
  uri: string;
  name: string;
  /** 1-based line of the kernel. */
  line: number;
  /** The ref names a pipeline (a host function): the panel opens its pipeline view. */
  pipeline?: boolean;
}

/** What the panel needs from the extension. */
export interface PanelContext {
  extension: vscode.ExtensionContext;
  analyzer: Analyzer;
  config: Config;
  profiles: ProfileStore;
  log: vscode.LogOutputChannel;
}

/** Arguments of rooflineLens.exportChart; a quick pick and a save dialog ask for what is missing. */
export interface ExportRequest {
  format?: ExportFormat;
  /** Where to write (a URI string). */
  uri?: string;
}

let current: RooflinePanel | undefined;

/** Opens (or reveals) the panel on `ref`'s document, or the active editor's, selecting `ref`'s kernel. */
export async function showRooflinePanel(ctx: PanelContext, ref?: KernelRef): Promise<vscode.WebviewPanel | undefined> {
  const doc = ref ? await vscode.workspace.openTextDocument(vscode.Uri.parse(ref.uri)) : vscode.window.activeTextEditor?.document;
  if (!doc || !analysisLanguage(doc.languageId)) {
    void vscode.window.showInformationMessage('Roofline Lens: open a Triton, CUDA or WGSL file first.');
    return undefined;
  }
  current ??= RooflinePanel.create(ctx);
  await current.showFile(doc, ref);
  return current.panel;
}

/** Scans the workspace and shows every kernel in it; undefined when the scan is cancelled. */
export async function showWorkspaceRoofline(ctx: PanelContext): Promise<vscode.WebviewPanel | undefined> {
  const scan = await scanWorkspace(ctx.analyzer);
  if (!scan) return undefined;
  current ??= RooflinePanel.create(ctx);
  current.showWorkspace(scan);
  return current.panel;
}

/** The serializer (the panel survives a reload), Show Roofline for Workspace and Export Chart. */
export function registerRooflinePanel(owner: Owner, ctx: PanelContext): void {
  owner.add(
    vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state) => revive(ctx, panel, state),
    }),
  );
  owner.add(vscode.commands.registerCommand('rooflineLens.showWorkspaceRoofline', () => showWorkspaceRoofline(ctx)));
  owner.add(
    vscode.commands.registerCommand('rooflineLens.exportChart', async (req?: ExportRequest) => {
      if (current) return current.exportChart(req ?? {});
      void vscode.window.showInformationMessage('Roofline Lens: open the roofline panel first (Roofline: Show Roofline).');
      return undefined;
    }),
  );
  owner.add({ dispose: () => current?.panel.dispose() });
}

async function revive(ctx: PanelContext, panel: vscode.WebviewPanel, raw: unknown): Promise<void> {
  const state = parsePanelState(raw) ?? { mode: 'file' };
  current?.panel.dispose();
  const revived = new RooflinePanel(ctx, panel, state);
  current = revived;
  if (state.mode === 'workspace') {
    const scan = await scanWorkspace(ctx.analyzer);
    if (scan) revived.showWorkspace(scan, state);
    return;
  }
  const uri = state.uri ? vscode.Uri.parse(state.uri) : vscode.window.activeTextEditor?.document.uri;
  const doc = uri ? await Promise.resolve(vscode.workspace.openTextDocument(uri)).catch(() => undefined) : undefined;
  if (doc) await revived.showFile(doc, undefined, state);
}

function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

function basename(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}

interface Located {
  file: FileReport;
  kernel: KernelReport;
}

function findKernel(files: FileReport[], id: string): Located | undefined {
  for (const file of files) for (const kernel of file.kernels) if (kernelId(file.path, kernel) === id) return { file, kernel };
  return undefined;
}

class RooflinePanel {
  static create(ctx: PanelContext): RooflinePanel {
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'Roofline', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, webviewOptions(ctx.extension.extensionUri));
    return new RooflinePanel(ctx, panel, { mode: 'file' });
  }

  private readonly owner = new Owner();
  private readonly files = new Map<string, PanelFile>();
  private theme: ChartTheme | undefined;
  private pageWidth = 900;
  private ready = false;
  /** A render reached the page since it last (re)loaded. */
  private posted = false;
  private readyWaiters: (() => void)[] = [];
  private notices: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private renderSeq = 0;
  private nextRequest = 1;
  private readonly exports = new Map<number, (data: string | undefined) => void>();
  private readonly onOtherGpu = new WeakMap<FileReport, { gpu: string; report: FileReport }>();
  private lastTable: TableModel | undefined;
  private lastWhatIf: WhatIfModel | null = null;

  constructor(
    private readonly ctx: PanelContext,
    readonly panel: vscode.WebviewPanel,
    private state: PanelState,
  ) {
    const webview = panel.webview;
    webview.options = webviewOptions(ctx.extension.extensionUri);
    webview.html = pageHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      script: webview.asWebviewUri(vscode.Uri.joinPath(ctx.extension.extensionUri, 'dist', 'webview.js')).toString(),
      style: webview.asWebviewUri(vscode.Uri.joinPath(ctx.extension.extensionUri, 'media', 'panel.css')).toString(),
    });
    this.owner.add(webview.onDidReceiveMessage((raw) => void this.receive(raw)));
    this.owner.add(
      panel.onDidChangeViewState(() => {
        // A hidden webview loses its page; it reloads and says `ready` when shown again.
        if (!panel.visible) this.ready = this.posted = false;
      }),
    );
    this.owner.add(ctx.analyzer.onDidAnalyse(({ uri, analysis }) => this.analysed(uri, analysis)));
    this.owner.add(vscode.window.onDidChangeActiveTextEditor((e) => this.followEditor(e)));
    this.owner.add(ctx.config.onDidChange((c) => void this.settingsChanged(c)));
    this.owner.add(ctx.profiles.onDidChange(() => this.schedule()));
    this.owner.add(panel.onDidDispose(() => this.dispose()));
  }

  // ---- what is shown --------------------------------------------------------------------

  /** Shows `doc` (stays in workspace mode when it is one of the workspace's files) and selects `ref`'s kernel. */
  async showFile(doc: vscode.TextDocument, ref?: KernelRef, restored?: PanelState): Promise<void> {
    const key = doc.uri.toString();
    const language = analysisLanguage(doc.languageId);
    if (!language) return;
    const inWorkspace = this.state.mode === 'workspace' && this.files.has(key);
    if (restored) this.state = { ...restored, mode: 'file', uri: key };
    else if (!inWorkspace && !(this.state.mode === 'file' && this.state.uri === key)) {
      // Another file: the view options (fusion choices included) stay, the selection and its what-if values go.
      const { gpu, compare, precisions, sort, fused } = this.state;
      this.state = { mode: 'file', uri: key, gpu, compare, precisions, sort, fused };
    }
    if (this.state.mode === 'file') {
      this.files.clear();
      this.notices = [];
    }
    const analysis = await this.ctx.analyzer.analyse(doc);
    this.files.set(key, this.fileOf(doc, language, analysis));
    if (ref?.pipeline) this.state = { ...this.state, pipeline: pipelineId(this.files.get(key)!.report.path, ref) };
    else if (ref) this.select(kernelId(this.files.get(key)!.report.path, ref), false);
    this.panel.title = this.state.mode === 'workspace' ? 'Roofline: workspace' : `Roofline: ${basename(doc.uri)}`;
    if (!this.panel.visible) this.panel.reveal(undefined, true);
    this.schedule(0);
  }

  showWorkspace(scan: ScanResult, restored?: PanelState): void {
    const keep = restored ?? this.state;
    this.state = { ...keep, mode: 'workspace', uri: undefined };
    this.files.clear();
    for (const f of scan.files) this.files.set(f.uri.toString(), f);
    this.notices = scan.notices;
    if (this.state.selectedId && !findKernel(this.reports(), this.state.selectedId)) this.state = { ...this.state, selectedId: undefined, whatIf: undefined };
    this.panel.title = 'Roofline: workspace';
    if (!this.panel.visible) this.panel.reveal(undefined, true);
    this.schedule(0);
  }

  private fileOf(doc: vscode.TextDocument, language: Language, analysis: Analysis | undefined): PanelFile {
    const settings = analysis?.settings ?? this.ctx.config.read(doc.uri);
    const report: FileReport = analysis?.report ?? { path: vscode.workspace.asRelativePath(doc.uri, false), language, diagnostics: [], kernels: [] };
    return { uri: doc.uri, language, text: doc.getText(), report, settings };
  }

  private reports(): FileReport[] {
    return [...this.files.values()].map((f) => f.report);
  }

  // ---- following the editor ---------------------------------------------------------------

  private analysed(uri: vscode.Uri, analysis: Analysis | undefined): void {
    const key = uri.toString();
    const known = this.files.get(key);
    const doc = analysis?.document ?? vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
    if (!known) {
      // A new kernel file in the workspace view joins it.
      const joins = this.state.mode === 'workspace' && analysis && analysis.report.kernels.length > 0 && vscode.workspace.getWorkspaceFolder(uri) && isWorkspaceKernelFile(uri);
      if (!joins) return;
      this.files.set(key, this.fileOf(analysis.document, analysis.language, analysis));
      return this.schedule();
    }
    // A closed document keeps its last result; an open one without kernels now shows none.
    if (!doc || doc.isClosed || (analysis && analysis.version !== doc.version)) return;
    this.files.set(key, this.fileOf(doc, known.language, analysis));
    this.schedule();
  }

  private followEditor(editor: vscode.TextEditor | undefined): void {
    if (!editor || this.state.mode !== 'file') return;
    const doc = editor.document;
    if (doc.uri.toString() === this.state.uri || !mayHaveKernels(doc.languageId, doc.getText())) return;
    void this.showFile(doc);
  }

  private async settingsChanged(change: SettingsChange): Promise<void> {
    if (change !== 'analysis') return this.schedule();
    // Open documents come back through onDidAnalyse; files only on disk are analysed here.
    const open = new Set(vscode.workspace.textDocuments.map((d) => d.uri.toString()));
    for (const [key, f] of this.files) {
      if (open.has(key)) continue;
      const a = await this.ctx.analyzer.analyseText(f.uri, f.text, f.language);
      if (a) this.files.set(key, { ...f, report: a.report, settings: a.settings });
    }
    this.schedule();
  }

  // ---- messages from the page ---------------------------------------------------------------

  private async receive(raw: unknown): Promise<void> {
    const msg = parsePageMessage(raw);
    if (!msg) {
      this.ctx.log.warn(`ignored a malformed message from the roofline page: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(msg);
    } catch (e) {
      this.ctx.log.error(`roofline panel: ${msg.type} failed: ${String((e as Error)?.stack ?? e)}`);
    }
  }

  private async handle(msg: PageMessage): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.theme = msg.theme;
        this.pageWidth = msg.width;
        this.ready = true;
        this.posted = false;
        await this.render();
        this.readyWaiters.splice(0).forEach((w) => w());
        return;
      case 'theme':
        this.theme = msg.theme;
        return this.schedule();
      case 'size':
        this.pageWidth = msg.width;
        return this.schedule();
      case 'select':
        this.select(msg.id, msg.reveal);
        if (msg.reveal) await this.reveal(msg.id);
        return;
      case 'mode':
        return this.switchMode(msg.mode);
      case 'gpu':
        this.state = { ...this.state, gpu: msg.id || undefined };
        return this.schedule(0);
      case 'compare':
        this.state = { ...this.state, compare: msg.id || undefined };
        return this.schedule(0);
      case 'precisions':
        this.state = { ...this.state, precisions: msg.keys.length ? msg.keys : undefined };
        return this.schedule(0);
      case 'sort':
        // The page sorts by itself; the state keeps the choice for the next render and a reload.
        this.state = { ...this.state, sort: msg.sort ?? undefined };
        return;
      case 'whatIf':
        return this.changeWhatIf((w) => {
          if (msg.value === null) delete w.set[msg.name];
          else w.set[msg.name] = msg.value;
        });
      case 'whatIfDtype':
        return this.changeWhatIf((w) => {
          if (msg.dtype === null) delete w.dtypes[msg.name];
          else w.dtypes[msg.name] = msg.dtype;
        });
      case 'whatIfReset':
        this.state = { ...this.state, whatIf: undefined };
        return this.schedule(0);
      case 'copyPragma':
        return this.copy(this.lastWhatIf?.pragma ?? '', 'the bindings as a pragma comment');
      case 'copyTable':
        return this.copyTable(msg.format);
      case 'exported':
        return this.exported(msg.requestId, msg.format, msg.data);
      case 'perLaunch':
        return this.ctx.profiles.setPerLaunch(msg.on);
      case 'matchProfile':
        await vscode.commands.executeCommand('rooflineLens.matchProfileKernel', msg.name);
        return;
      case 'importProfile':
        await vscode.commands.executeCommand('rooflineLens.importProfile');
        return;
      case 'clearProfile':
        return this.ctx.profiles.clear();
      case 'problem':
        this.ctx.log.warn(`roofline page (${msg.kind}): ${msg.message}`);
        return;
      case 'pipeline':
        this.state = { ...this.state, pipeline: msg.id };
        return this.schedule(0);
      case 'fuse':
        this.state = { ...this.state, fused: withFusion(this.state, msg.pipeline, msg.from, msg.on) };
        return this.schedule(0);
    }
  }

  private select(id: string, reveal: boolean): void {
    if (!findKernel(this.reports(), id)) return;
    const whatIf = this.state.whatIf?.kernelId === id ? this.state.whatIf : undefined;
    this.state = { ...this.state, selectedId: id, whatIf };
    // Revealing moves the editor's focus: the panel follows it without re-rendering twice.
    this.schedule(reveal ? RENDER_DELAY_MS : 0);
  }

  private async reveal(id: string): Promise<void> {
    const entry = [...this.files.values()].find((f) => f.report.kernels.some((k) => kernelId(f.report.path, k) === id));
    const kernel = entry?.report.kernels.find((k) => kernelId(entry.report.path, k) === id);
    if (!entry || !kernel) return;
    const doc = await vscode.workspace.openTextDocument(entry.uri);
    const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === entry.uri.toString());
    const other = vscode.window.visibleTextEditors.find((e) => e.viewColumn !== undefined && e.viewColumn !== this.panel.viewColumn);
    const column = visible?.viewColumn ?? other?.viewColumn ?? (this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One);
    const line = Math.max(0, Math.min(kernel.line - 1, doc.lineCount - 1));
    const range = new vscode.Range(line, 0, line, 0);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: column, selection: range, preserveFocus: false });
    editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private async switchMode(mode: 'file' | 'workspace'): Promise<void> {
    if (mode === 'workspace') {
      const scan = await scanWorkspace(this.ctx.analyzer);
      if (scan) this.showWorkspace(scan);
      return;
    }
    const selected = this.state.selectedId ? [...this.files.values()].find((f) => f.report.kernels.some((k) => kernelId(f.report.path, k) === this.state.selectedId)) : undefined;
    const uri = selected?.uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!uri) return;
    const doc = await vscode.workspace.openTextDocument(uri);
    // The selection stays when it is in that file.
    this.state = { ...this.state, mode: 'file', uri: uri.toString() };
    await this.showFile(doc);
  }

  private changeWhatIf(change: (w: WhatIfState) => void): void {
    const id = this.state.selectedId;
    if (!id) return;
    const before = this.state.whatIf?.kernelId === id ? this.state.whatIf : undefined;
    const w: WhatIfState = { kernelId: id, set: { ...before?.set }, dtypes: { ...before?.dtypes } };
    change(w);
    const empty = Object.keys(w.set).length === 0 && Object.keys(w.dtypes).length === 0;
    this.state = { ...this.state, whatIf: empty ? undefined : w };
    this.schedule(0);
  }

  private async copy(text: string, what: string): Promise<void> {
    if (!text) {
      void vscode.window.showInformationMessage('Roofline Lens: nothing to copy.');
      return;
    }
    await vscode.env.clipboard.writeText(text);
    void vscode.window.showInformationMessage(`Roofline Lens: copied ${what}.`);
  }

  private copyTable(format: 'markdown' | 'tsv'): Promise<void> {
    const table = this.lastTable;
    if (!table) return this.copy('', '');
    const rows = sortRows(table, this.state.sort ?? null);
    return this.copy(format === 'markdown' ? tableMarkdown(table, rows) : tableTsv(table, rows), `the kernel table as ${format === 'markdown' ? 'Markdown' : 'TSV'}`);
  }

  // ---- export -----------------------------------------------------------------------------

  /** Asks the page for the chart and writes it; returns the file's URI string. */
  async exportChart(req: ExportRequest): Promise<string | undefined> {
    const format = req.format ?? ((await vscode.window.showQuickPick(['svg', 'png'], { title: 'Roofline: Export Chart', placeHolder: 'Format' })) as ExportFormat | undefined);
    if (!format) return undefined;
    const data = await this.requestExport(format);
    if (data === undefined) {
      void vscode.window.showWarningMessage('Roofline Lens: the chart did not answer; show the panel and try again.');
      return undefined;
    }
    return this.save(format, data, req.uri ? vscode.Uri.parse(req.uri) : undefined);
  }

  private async requestExport(format: ExportFormat): Promise<string | undefined> {
    if (!this.panel.visible) this.panel.reveal(undefined, true);
    if (!(await this.whenReady(EXPORT_TIMEOUT_MS))) return undefined;
    // The page answers in order: the chart it shows must be the current one.
    if (this.timer !== undefined || !this.posted) {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.render();
    }
    const requestId = this.nextRequest++;
    const answer = new Promise<string | undefined>((resolve) => {
      const timeout = setTimeout(() => done(undefined), EXPORT_TIMEOUT_MS);
      const done = (data: string | undefined): void => {
        clearTimeout(timeout);
        this.exports.delete(requestId);
        resolve(data);
      };
      this.exports.set(requestId, done);
    });
    void this.panel.webview.postMessage({ type: 'export', format, requestId });
    return answer;
  }

  private whenReady(ms: number): Promise<boolean> {
    if (this.ready) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timeout = setTimeout(() => resolve(false), ms);
      this.readyWaiters.push(() => {
        clearTimeout(timeout);
        resolve(true);
      });
    });
  }

  private async exported(requestId: number, format: ExportFormat, data: string): Promise<void> {
    const waiting = this.exports.get(requestId);
    if (waiting) return waiting(data);
    // Not asked for: the page's own Export buttons.
    await this.save(format, data, undefined);
  }

  private async save(format: ExportFormat, data: string, target: vscode.Uri | undefined): Promise<string | undefined> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `roofline-${this.state.mode === 'workspace' ? 'workspace' : (this.state.uri ? basename(vscode.Uri.parse(this.state.uri)) : 'chart').replace(/\.[^.]+$/, '')}.${format}`;
    const uri =
      target ??
      (await vscode.window.showSaveDialog({
        title: 'Roofline: Export Chart',
        defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
        filters: format === 'svg' ? { 'SVG image': ['svg'] } : { 'PNG image': ['png'] },
      }));
    if (!uri) return undefined;
    const bytes = format === 'svg' ? new TextEncoder().encode(data) : Uint8Array.from(atob(data.slice(data.indexOf(',') + 1)), (c) => c.charCodeAt(0));
    await vscode.workspace.fs.writeFile(uri, bytes);
    if (!target) void vscode.window.showInformationMessage(`Roofline Lens: saved the chart to ${vscode.workspace.asRelativePath(uri, false)}.`);
    return uri.toString();
  }

  // ---- rendering ----------------------------------------------------------------------------

  private schedule(delay = RENDER_DELAY_MS): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.render();
    }, delay);
  }

  private async render(): Promise<void> {
    if (!this.ready || !this.theme || this.owner.isDisposed) return;
    const seq = ++this.renderSeq;
    let message: RenderMessage;
    try {
      message = await this.model(this.theme);
    } catch (e) {
      this.ctx.log.error(`roofline panel: could not build the chart: ${String((e as Error)?.stack ?? e)}`);
      return;
    }
    if (seq !== this.renderSeq || this.owner.isDisposed) return;
    this.lastTable = message.table;
    this.lastWhatIf = message.whatIf;
    this.posted = true;
    void this.panel.webview.postMessage(message);
  }

  /** The settings that apply (those of the first file shown; the window's without one). */
  private settings(): Settings {
    const first = this.files.values().next().value as PanelFile | undefined;
    return first?.settings ?? this.ctx.config.read(undefined);
  }

  /** A file's report on `gpu`: its analysis when that is the settings' GPU, else a re-analysis (cached). */
  private async onGpu(f: PanelFile, gpu: GpuSpec): Promise<FileReport> {
    if (gpu.id === f.settings.gpu.id) return f.report;
    const hit = this.onOtherGpu.get(f.report);
    if (hit && hit.gpu === gpu.id) return hit.report;
    const report = (await this.ctx.analyzer.analyseText(f.uri, f.text, f.language, { gpu }))?.report ?? f.report;
    this.onOtherGpu.set(f.report, { gpu: gpu.id, report });
    return report;
  }

  /** The selected kernel re-analysed with its what-if values, and the files with it in place. */
  private async withWhatIf(files: FileReport[], gpu: GpuSpec): Promise<{ files: FileReport[]; model: WhatIfModel | null }> {
    const id = this.state.selectedId;
    const found = id ? findKernel(files, id) : undefined;
    if (!found) return { files, model: null };
    const w = this.state.whatIf?.kernelId === id ? this.state.whatIf : undefined;
    const entry = [...this.files.values()].find((f) => f.report.path === found.file.path);
    let kernel = found.kernel;
    if (w && entry) {
      const again = await this.ctx.analyzer.analyseText(entry.uri, entry.text, entry.language, { gpu, set: w.set, dtypes: w.dtypes });
      kernel = again?.report.kernels.find((k) => k.name === found.kernel.name && k.line === found.kernel.line) ?? kernel;
    }
    const replaced = files.map((f) => (f === found.file ? { ...f, kernels: f.kernels.map((k) => (k === found.kernel ? kernel : k)) } : f));
    return { files: replaced, model: whatIfModel(found.file, kernel, found.kernel, w) };
  }

  private async model(theme: ChartTheme): Promise<RenderMessage> {
    const settings = this.settings();
    const gpu = (this.state.gpu ? resolveGpu(this.state.gpu, settings.customGpus) : undefined) ?? settings.gpu;
    const compare = this.state.compare ? resolveGpu(this.state.compare, settings.customGpus) : undefined;
    const onGpu = await Promise.all([...this.files.values()].map((f) => this.onGpu(f, gpu)));
    const { files: estimated, model: whatIf } = await this.withWhatIf(onGpu, gpu);
    const whatIfState = this.state.whatIf;
    const attached = this.ctx.profiles.attach(estimated, gpu, (path) => {
      const f = [...this.files.values()].find((x) => x.report.path === path);
      return f && whatIfState ? { ...f, whatIf: whatIfState } : f;
    });
    const files = attached?.files ?? estimated;
    const kernels = chartKernels(files);
    const precisions = this.state.precisions ?? defaultPrecisions(kernels);
    // Pipelines as analysed (a kernel's what-if values do not reach the launches of a pipeline).
    const size = chartSize(this.pageWidth);
    const spec = rooflineSpec(kernels, {
      gpu,
      compareGpu: compare && compare.id !== gpu.id ? compare : undefined,
      precisions,
      selectedId: this.state.selectedId,
      showRegions: attached !== undefined,
      theme,
      pipelines: chartPipelines(onGpu, fusedByPipeline(this.state)),
      selectedPipelineId: chosenPipeline(onGpu, this.state)?.id,
      ...size,
    });
    const profile = this.ctx.profiles.current;
    return {
      type: 'render',
      state: this.state,
      title: this.title(files, gpu),
      spec,
      empty: kernels.length === 0 ? this.emptyText() : undefined,
      table: panelTable(files, { workspace: this.state.mode === 'workspace', profile: attached !== undefined }),
      gpus: gpuChoices([...GPU_CATALOG.gpus, ...settings.customGpus]),
      gpu: gpu.id,
      settingGpu: settings.gpu.id,
      precisions: precisionChoices(gpu, precisions),
      whatIf,
      profile: attached && profile ? profileModel(profile.name, attached.summary, this.ctx.profiles.perLaunch) : null,
      pipeline: pipelineView(onGpu, this.state, { theme, width: size.width, legend: size.legend }),
      notices: [...this.notices, ...files.flatMap((f) => f.kernels.flatMap((k) => notOnChart(k)))],
    };
  }

  private title(files: FileReport[], gpu: GpuSpec): string {
    const n = files.reduce((a, f) => a + f.kernels.length, 0);
    const kernels = `${n} kernel${n === 1 ? '' : 's'}`;
    if (this.state.mode === 'workspace') return `Workspace: ${kernels} in ${files.length} file${files.length === 1 ? '' : 's'} · ${gpu.name}`;
    return `${files[0]?.path ?? 'no file'}: ${kernels} · ${gpu.name}`;
  }

  private emptyText(): string {
    if (this.state.mode === 'workspace') return 'No Triton, CUDA or WGSL kernels were found in the workspace.';
    return `No kernels in ${this.files.values().next().value?.report.path ?? 'this file'}.`;
  }

  private dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const done of [...this.exports.values()]) done(undefined);
    this.readyWaiters = [];
    this.owner.dispose();
    if (current === this) current = undefined;
  }
}

/** Why a kernel has no dot, as a notice; none when it has one (a steady-state dot is one: its table row says what to bind). */
function notOnChart(k: KernelReport): string[] {
  if (k.arithmeticIntensity !== null && k.attainableFlops !== null) return [];
  if (k.arithmeticIntensitySteady) return [];
  const names = blockingSymbols(k);
  const why = names.length ? `bind ${names.join(', ')} (in the what-if controls, or with Roofline: Bind Symbol…)` : k.complete ? 'its counts are incomplete' : `${incompleteText(k)}${boundsSentence(k) ? ` — ${boundsSentence(k).replace(/\.$/, '')}` : ''}`;
  return [`${k.name}: not on the chart: ${why}.`];
}
