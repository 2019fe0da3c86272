/**
 * Runs the core on open documents, off the editor's thread:
 *
 *   document change ──► debounce (150 ms while typing) ──► cheap text check ──► analysis service
 *                                                                            (a worker; in-host slices without one)
 *        first slice: the kernels on screen ──► onDidProgress (lenses)
 *        complete report ──► cache (uri, version, settings generation) ──► onDidAnalyse (diagnostics, panel)
 *
 * Each document version is analysed at most once per settings generation; a
 * newer version supersedes a scheduled or running one (its timer restarts or
 * the service cancels it, and everyone waiting gets the newer result). Files
 * without kernels stop at the text check. The host's own parsers serve only
 * the synchronous analyses of an imported profile's launch sizes.
 */
import * as vscode from 'vscode';
import { analyzeSource, type BindingValue } from '../core/analyze';
import type { Dtype, GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { GRAMMARS, grammarOf, grammarLoaded, initParsers, type Grammar, type Parsers, type WasmName } from '../core/parsers';
import type { FileReport } from '../core/report/types';
import { AnalysisClient, type Running, type StartService } from './analysisClient';
import type { RequestOptions } from './analysisService';
import type { Config } from './config';
import type { Owner } from './owner';
import { analysisLanguage, mayHaveKernels } from './present';
import { RelatedFiles } from './related';
import type { RelatedFile } from '../core/related';
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
  /** True for the first slices of a large file: the kernels analysed so far (those on screen first). */
  partial?: boolean;
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
  /** The service's work on it, once sent. */
  running?: Running;
  promise: Promise<Analysis | undefined>;
  resolve(a: Analysis | undefined | PromiseLike<Analysis | undefined>): void;
}

export class Analyzer {
  private readonly results = new Map<string, Result>();
  /** The first slices' report of the version being analysed (large files), until the complete one. */
  private readonly early = new Map<string, Result>();
  private readonly pending = new Map<string, Pending>();
  private generation = 0;
  private readonly client: AnalysisClient;
  /** The host's own parsers (synchronous analyses only), once loaded. */
  private hostParsers: Parsers | undefined;
  private hostLoading: Promise<Parsers> | undefined;
  private parsersFailed = false;
  /** Project files the documents name (`#import config`), and what each document last read. */
  private readonly relatedFiles: RelatedFiles;
  private readonly lastRelated = new Map<string, Record<string, RelatedFile>>();
  private readonly analysed = new vscode.EventEmitter<{ uri: vscode.Uri; analysis: Analysis | undefined }>();
  private readonly progressed = new vscode.EventEmitter<{ uri: vscode.Uri; analysis: Analysis }>();
  /** Fires after each complete analysis (undefined: the document holds no kernels). */
  readonly onDidAnalyse = this.analysed.event;
  /** Fires once per document version with the first slices' report of a large file (the kernels on screen). */
  readonly onDidProgress = this.progressed.event;

  constructor(
    private readonly owner: Owner,
    private readonly extensionUri: vscode.Uri,
    private readonly config: Config,
    private readonly log: vscode.LogOutputChannel,
    starters: StartService[],
  ) {
    owner.add(this.analysed);
    owner.add(this.progressed);
    this.client = new AnalysisClient({ starters, readWasm: (name) => this.readWasm(name), log });
    this.relatedFiles = new RelatedFiles(owner, (docs) => this.reanalyse(docs));
    owner.add({ dispose: () => this.cancelAll() });
    owner.add({ dispose: () => this.client.dispose() });
  }

  /** Where the analyses run: 'worker' or 'in-host' (undefined before the first). */
  get serviceKind(): string | undefined {
    return this.client.kind;
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
      waiting.running?.cancel();
      waiting.resolve(promise);
    }
    this.pending.set(key, next);
    this.schedule(doc, next, typing ? DEBOUNCE_MS : 0);
    return promise;
  }

  /**
   * The analysis to show now: the complete one of the document's current
   * version, else the first slices' one of a large file still being analysed
   * (its visible kernels), else the complete one when it comes.
   */
  async analyseEarly(doc: vscode.TextDocument): Promise<Analysis | undefined> {
    const complete = this.analyse(doc);
    const early = this.early.get(doc.uri.toString());
    if (early && early.version === doc.version && early.generation === this.generation) return early.analysis;
    return complete;
  }

  // --- For the roofline panel (what-if, another GPU, the workspace view) ---------------------

  /**
   * Analyses `text` as the file at `uri` with that file's settings, and the
   * given GPU, bindings and element types over them. Nothing is cached or
   * announced; undefined when the parsers cannot load.
   */
  async analyseText(uri: vscode.Uri, text: string, language: Language, extra: ExtraInputs = {}): Promise<{ report: FileReport; settings: Settings } | undefined> {
    const settings = this.config.read(uri);
    const doc = `text:${uri.toString()}`;
    const related = await this.relatedFiles.read(uri, language, text);
    const running = this.client.analyse({ doc, supersede: false, text, options: { ...this.options(uri, language, settings, extra), ...(related ? { related } : {}) } });
    try {
      const report = await running.promise;
      return report ? { report, settings } : undefined;
    } catch (e) {
      this.reportFailure(e);
      return undefined;
    }
  }

  /**
   * As analyseText, synchronously, in the host: undefined until the host's
   * parsers for `language` have loaded (`prepareSync`). For the measured
   * launches' own estimates (an imported profile's launch sizes).
   */
  analyseTextNow(uri: vscode.Uri, text: string, language: Language, extra: ExtraInputs = {}): FileReport | undefined {
    const parsers = this.hostParsers;
    if (!parsers || !grammarLoaded(parsers, language)) {
      void this.prepareSync([grammarOf(language)].filter((g): g is Grammar => g !== undefined));
      return undefined;
    }
    const settings = this.config.read(uri);
    const related = this.lastRelated.get(uri.toString());
    return analyzeSource(text, parsers, { ...this.options(uri, language, settings, extra), ...(related ? { related } : {}) });
  }

  /** Loads the host's parsers for analyseTextNow (all grammars by default); false when they cannot load. */
  async prepareSync(grammars: readonly Grammar[] = GRAMMARS): Promise<boolean> {
    const load = async (name: WasmName): Promise<Uint8Array> => this.readWasm(name);
    try {
      this.hostLoading ??= initParsers(load, []);
      const p = await this.hostLoading;
      await initParsers(load, grammars);
      this.hostParsers = p;
      return true;
    } catch (e) {
      this.hostLoading = undefined;
      this.reportFailure(e);
      return false;
    }
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
    let cancelled = false;
    try {
      const r = await this.compute(doc, version, doc.getText(), p);
      cancelled = r === 'cancelled';
      if (r !== 'cancelled') analysis = r;
    } catch (e) {
      this.log.error(`analysis of ${doc.uri.toString(true)} failed: ${String((e as Error)?.stack ?? e)}`);
    }
    if (this.pending.get(key) === p) this.pending.delete(key);
    // Cancelled: a newer text or setting took over, and its waiters were handed the newer result.
    if (cancelled) return;
    if (this.early.get(key)?.version === version) this.early.delete(key);
    if (p.generation === this.generation && !doc.isClosed) {
      this.results.set(key, { version, generation: p.generation, analysis });
      this.analysed.fire({ uri: doc.uri, analysis });
    }
    p.resolve(analysis);
  }

  /** The analysis options of a file: its settings, and `extra` over them. */
  private options(uri: vscode.Uri, language: Language, settings: Settings, extra: ExtraInputs = {}): RequestOptions {
    return {
      gpu: extra.gpu ?? settings.gpu,
      path: vscode.workspace.asRelativePath(uri, false),
      language,
      set: { ...settings.bindings, ...extra.set },
      dtypes: { ...settings.dtypes, ...extra.dtypes },
      texels: settings.texels,
    };
  }

  /** The lines of the document on screen (0-based), if an editor shows it. */
  private visibleLines(doc: vscode.TextDocument): { startLine: number; endLine: number } | undefined {
    const ranges = vscode.window.visibleTextEditors.filter((e) => e.document === doc).flatMap((e) => [...e.visibleRanges]);
    if (ranges.length === 0) return undefined;
    return { startLine: Math.min(...ranges.map((r) => r.start.line)), endLine: Math.max(...ranges.map((r) => r.end.line)) };
  }

  private async compute(doc: vscode.TextDocument, version: number, text: string, p: Pending): Promise<Analysis | undefined | 'cancelled'> {
    const language = analysisLanguage(doc.languageId);
    if (!language || !mayHaveKernels(doc.languageId, text)) return undefined;
    const settings = this.config.read(doc.uri);
    const focus = this.visibleLines(doc);
    const key = doc.uri.toString();
    const related = await this.relatedFiles.read(doc.uri, language, text);
    if (related) this.lastRelated.set(key, related);
    else this.lastRelated.delete(key);
    if (this.pending.get(key) !== p) return 'cancelled';
    const options: RequestOptions = { ...this.options(doc.uri, language, settings), ...(focus ? { focus } : {}), ...(related ? { related } : {}) };
    const started = Date.now();
    let first = true;
    const running = this.client.analyse({ doc: key, supersede: true, text, options }, (report) => {
      if (p.generation !== this.generation || doc.isClosed || this.pending.get(key) !== p) return;
      const analysis: Analysis = { document: doc, partial: true, version, language, report, settings };
      this.early.set(key, { version, generation: p.generation, analysis });
      if (first) this.progressed.fire({ uri: doc.uri, analysis });
      first = false;
    });
    p.running = running;
    const report = await running.promise;
    if (!report) return 'cancelled';
    this.log.debug(`analysed ${report.path} (version ${version}) in ${Date.now() - started} ms: ${report.kernels.length} kernel(s)`);
    return { document: doc, version, language, report, settings };
  }

  private async readWasm(name: WasmName): Promise<Uint8Array> {
    return vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.extensionUri, 'dist', name));
  }

  /** A parser or service failure: logged, and shown once. */
  private reportFailure(e: unknown): void {
    const why = String((e as Error)?.message ?? e);
    this.log.error(`could not analyse: ${why}`);
    if (!this.parsersFailed) void vscode.window.showErrorMessage(`Roofline Lens could not load its parsers, so nothing is analysed: ${why}`);
    this.parsersFailed = true;
  }

  /** Analyses again the open documents that read a related file that changed. */
  private reanalyse(keys: string[]): void {
    for (const key of keys) {
      this.results.delete(key);
      this.early.delete(key);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      if (doc && !doc.isClosed) void this.analyse(doc);
    }
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    this.lastRelated.delete(key);
    this.results.delete(key);
    this.early.delete(key);
    const p = this.pending.get(key);
    if (p) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.resolve(undefined);
      this.pending.delete(key);
    }
    this.client.forget(key);
    this.analysed.fire({ uri, analysis: undefined });
  }

  private cancelAll(): void {
    for (const p of this.pending.values()) {
      if (p.timer !== undefined) clearTimeout(p.timer);
      p.running?.cancel();
      p.resolve(undefined);
    }
    this.pending.clear();
    this.results.clear();
    this.early.clear();
  }
}
