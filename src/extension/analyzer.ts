/**
 * Runs the core on open documents:
 *
 *   document change ──► debounce (150 ms while typing) ──► cheap text check ──► analyzeSource
 *                                                                            └──► cache (uri, version, settings generation)
 *                                                                            └──► onDidAnalyse (diagnostics, panel)
 *
 * Each document version is analysed at most once per settings generation; a
 * newer version supersedes a scheduled one (its timer restarts, and everyone
 * waiting gets the newer result). Files without kernels stop at the text check.
 */
import * as vscode from 'vscode';
import { analyzeSource, type BindingValue } from '../core/analyze';
import type { Dtype, GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { initParsers, type Parsers, type WasmName } from '../core/parsers';
import type { FileReport } from '../core/report/types';
import type { Config } from './config';
import type { Owner } from './owner';
import { analysisLanguage, mayHaveKernels } from './present';
import type { Settings } from './settings';

export const DEBOUNCE_MS = 150;

/** Inputs over a file's settings for one-off analyses (Analyzer.analyseText). */
export interface ExtraInputs {
  gpu?: GpuSpec;
  set?: Record<string, BindingValue>;
  dtypes?: Record<string, Dtype>;
}

export interface Analysis {
  document: vscode.TextDocument;
  /** The document version the report describes. */
  version: number;
  language: Language;
  report: FileReport;
  /** The settings the report was computed with (its GPU, bindings, dtypes). */
  settings: Settings;
}

interface Result {
  version: number;
  generation: number;
  analysis: Analysis | undefined;
}

interface Pending {
  generation: number;
  /** Set while waiting for its debounce; undefined once it runs. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The document version being analysed, once it runs. */
  version?: number;
  promise: Promise<Analysis | undefined>;
  resolve(a: Analysis | undefined | PromiseLike<Analysis | undefined>): void;
}

export class Analyzer {
  private readonly results = new Map<string, Result>();
  private readonly pending = new Map<string, Pending>();
  private generation = 0;
  private loading: Promise<Parsers> | undefined;
  /** The parsers once loaded (for analyseTextNow). */
  private loadedParsers: Parsers | undefined;
  private parsersFailed = false;
  private readonly analysed = new vscode.EventEmitter<{ uri: vscode.Uri; analysis: Analysis | undefined }>();
  /** Fires after each analysis (undefined: the document holds no kernels). */
  readonly onDidAnalyse = this.analysed.event;

  constructor(
    private readonly owner: Owner,
    private readonly extensionUri: vscode.Uri,
    private readonly config: Config,
    private readonly log: vscode.LogOutputChannel,
  ) {
    owner.add(this.analysed);
    owner.add({ dispose: () => this.cancelAll() });
  }

  /** Analyses every open document now and whenever one opens or changes. */
  watchDocuments(): void {
    const refresh = (doc: vscode.TextDocument): void => void this.analyse(doc);
    this.owner.add(vscode.workspace.onDidOpenTextDocument(refresh));
    this.owner.add(vscode.workspace.onDidChangeTextDocument((e) => refresh(e.document)));
    this.owner.add(vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri)));
    this.owner.add(
      this.config.onDidChange((change) => {
        if (change !== 'analysis') return;
        this.generation++;
        vscode.workspace.textDocuments.forEach(refresh);
      }),
    );
    vscode.workspace.textDocuments.forEach(refresh);
  }

  /** The analysis of the document's current text (debounced while it is being edited). */
  analyse(doc: vscode.TextDocument): Promise<Analysis | undefined> {
    if (!analysisLanguage(doc.languageId)) return Promise.resolve(undefined);
    const key = doc.uri.toString();
    const done = this.results.get(key);
    if (done && done.version === doc.version && done.generation === this.generation) return Promise.resolve(done.analysis);
    const typing = done !== undefined && done.version !== doc.version;
    const waiting = this.pending.get(key);
    if (waiting && waiting.generation === this.generation) {
      if (waiting.timer !== undefined) {
        if (typing) this.schedule(doc, waiting, DEBOUNCE_MS);
        return waiting.promise;
      }
      if (waiting.version === doc.version) return waiting.promise;
    }
    let resolve!: Pending['resolve'];
    const promise = new Promise<Analysis | undefined>((r) => (resolve = r));
    const next: Pending = { generation: this.generation, timer: undefined, promise, resolve };
    if (waiting) {
      // Superseded by a settings change or a newer text: whoever waits for it gets the new result.
      if (waiting.timer !== undefined) clearTimeout(waiting.timer);
      waiting.resolve(promise);
    }
    this.pending.set(key, next);
    this.schedule(doc, next, typing ? DEBOUNCE_MS : 0);
    return promise;
  }

  // --- For the roofline panel (what-if, another GPU, the workspace view) ---------------------

  /**
   * Analyses `text` as the file at `uri` with that file's settings, and the
   * given GPU, bindings and element types over them. Nothing is cached or
   * announced; undefined when the parsers cannot load.
   */
  async analyseText(uri: vscode.Uri, text: string, language: Language, extra: ExtraInputs = {}): Promise<{ report: FileReport; settings: Settings } | undefined> {
    const parsers = await this.parsers();
    if (!parsers) return undefined;
    const settings = this.config.read(uri);
    const report = analyzeSource(text, parsers, {
      gpu: extra.gpu ?? settings.gpu,
      path: vscode.workspace.asRelativePath(uri, false),
      language,
      set: { ...settings.bindings, ...extra.set },
      dtypes: { ...settings.dtypes, ...extra.dtypes },
      texels: settings.texels,
    });
    return { report, settings };
  }

  /**
   * As analyseText, synchronously: undefined until the parsers have loaded
   * (they have once any document was analysed). For the measured launches'
   * own estimates (an imported profile's launch sizes).
   */
  analyseTextNow(uri: vscode.Uri, text: string, language: Language, extra: ExtraInputs = {}): FileReport | undefined {
    const parsers = this.loadedParsers;
    if (!parsers) return undefined;
    const settings = this.config.read(uri);
    return analyzeSource(text, parsers, {
      gpu: extra.gpu ?? settings.gpu,
      path: vscode.workspace.asRelativePath(uri, false),
      language,
      set: { ...settings.bindings, ...extra.set },
      dtypes: { ...settings.dtypes, ...extra.dtypes },
    });
  }

  // ---------------------------------------------------------------------------------------------

  /** The latest finished analysis of the document, if it is of its current version. */
  current(doc: vscode.TextDocument): Analysis | undefined {
    const r = this.results.get(doc.uri.toString());
    return r && r.version === doc.version ? r.analysis : undefined;
  }

  private schedule(doc: vscode.TextDocument, p: Pending, delay: number): void {
    if (p.timer !== undefined) clearTimeout(p.timer);
    p.timer = setTimeout(() => {
      p.timer = undefined;
      void this.run(doc, p);
    }, delay);
  }

  private async run(doc: vscode.TextDocument, p: Pending): Promise<void> {
    const key = doc.uri.toString();
    const version = doc.version;
    p.version = version;
    let analysis: Analysis | undefined;
    try {
      analysis = await this.compute(doc, version, doc.getText());
    } catch (e) {
      this.log.error(`analysis of ${doc.uri.toString(true)} failed: ${String((e as Error)?.stack ?? e)}`);
    }
    if (this.pending.get(key) === p) this.pending.delete(key);
    if (p.generation === this.generation && !doc.isClosed) {
      this.results.set(key, { version, generation: p.generation, analysis });
      this.analysed.fire({ uri: doc.uri, analysis });
    }
    p.resolve(analysis);
  }

  private async compute(doc: vscode.TextDocument, version: number, text: string): Promise<Analysis | undefined> {
    const language = analysisLanguage(doc.languageId);
    if (!language || !mayHaveKernels(doc.languageId, text)) return undefined;
    const parsers = await this.parsers();
    if (!parsers) return undefined;
    const settings = this.config.read(doc.uri);
    const started = Date.now();
    const report = analyzeSource(text, parsers, {
      gpu: settings.gpu,
      path: vscode.workspace.asRelativePath(doc.uri, false),
      language,
      set: settings.bindings,
      dtypes: settings.dtypes,
      texels: settings.texels,
    });
    this.log.debug(`analysed ${report.path} (version ${version}) in ${Date.now() - started} ms: ${report.kernels.length} kernel(s)`);
    return { document: doc, version, language, report, settings };
  }

  /** Tree-sitter, loaded once from the extension's dist/ folder; undefined (reported once) when it cannot load. */
  private async parsers(): Promise<Parsers | undefined> {
    this.loading ??= this.loadParsers();
    try {
      return (this.loadedParsers = await this.loading);
    } catch (e) {
      this.loading = undefined;
      const why = String((e as Error)?.message ?? e);
      this.log.error(`could not load the parsers: ${why}`);
      if (!this.parsersFailed) void vscode.window.showErrorMessage(`Roofline Lens could not load its parsers, so nothing is analysed: ${why}`);
      this.parsersFailed = true;
      return undefined;
    }
  }

  private async loadParsers(): Promise<Parsers> {
    const load = async (name: WasmName): Promise<Uint8Array> => vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.extensionUri, 'dist', name));
    return initParsers(load);
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.results.delete(key);
    const p = this.pending.get(key);
    if (p?.timer !== undefined) {
      clearTimeout(p.timer);
      p.resolve(undefined);
      this.pending.delete(key);
    }
    this.analysed.fire({ uri, analysis: undefined });
  }

  private cancelAll(): void {
    for (const p of this.pending.values()) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.resolve(undefined);
    }
    this.pending.clear();
    this.results.clear();
  }
}
