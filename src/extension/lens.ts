/**
 * CodeLens: one lens above each kernel (intensity, bound, GPU, work per unit)
 * and a smaller one above each hot loop, and one above each pipeline (a host
 * function launching kernels). Clicking a kernel lens opens the roofline
 * panel on it, a pipeline lens its pipeline view; clicking `bind K` runs
 * Bind Symbol for K.
 */
import * as vscode from 'vscode';
import type { Analyzer } from './analyzer';
import type { Config } from './config';
import type { Owner } from './owner';
import { macrotask } from './analysisClient';
import { fileLensItems } from './lensItems';
import { kernelLenses, loopLenses, type LensItem } from './present';
import type { KernelRef } from './panel';
import type { BindRequest } from './commands';
import type { ProfileStore } from './profile';
import { measuredKey, measuredLensSuffix } from './profilePresent';
import { pipelineLens } from '../core/report/pipelines';

export class KernelLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  /** Documents whose lenses were last given from a large file's first slices (the complete report is still coming). */
  private readonly early = new Set<string>();

  constructor(owner: Owner, private readonly analyzer: Analyzer, private readonly config: Config, private readonly profiles: ProfileStore) {
    owner.add(this.changed);
    owner.add(config.onDidChange(() => this.changed.fire()));
    owner.add(profiles.onDidChange(() => this.changed.fire()));
    // A large file: the kernels on screen first, then the rest when the analysis completes.
    owner.add(analyzer.onDidProgress(() => this.changed.fire()));
    owner.add(
      analyzer.onDidAnalyse(({ uri }) => {
        if (this.early.delete(uri.toString())) this.changed.fire();
      }),
    );
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    const analysis = await this.analyzer.analyseEarly(doc);
    if (!analysis || token.isCancellationRequested) return [];
    if (analysis.partial) this.early.add(doc.uri.toString());
    else this.early.delete(doc.uri.toString());
    const show = this.config.read(doc.uri).codeLens;
    const gpuName = analysis.settings.gpu.name;
    const source = { uri: doc.uri, text: doc.getText(), language: analysis.language };
    const measured = this.profiles.measuredOf(analysis.report, analysis.settings.gpu, source);
    const items = await fileLensItems(
      analysis.report.kernels,
      (i) => doc.lineAt(i).text,
      doc.lineCount,
      gpuName,
      show,
      macrotask,
      () => token.isCancellationRequested,
      (own, built, top) => {
        // Estimated for the measured launch's sizes when the profile gives them (binding source `profile`).
        const k = this.profiles.kernelOf(analysis.report, analysis.settings.gpu, own, source) ?? own;
        // An imported profile's figure closes the kernel lens: `· measured 612 TFLOP/s, 78 % of roof`.
        const suffix = measuredLensSuffix(measured.get(measuredKey(k)));
        const mine = k === own ? built : { kernel: kernelLenses(k, gpuName, top), loops: loopLenses(k) };
        return { kernel: suffix ? mine.kernel.map((it) => (it.action.kind === 'panel' ? { ...it, title: it.title + suffix } : it)) : mine.kernel, loops: mine.loops, ref: k };
      },
    );
    if (!items || token.isCancellationRequested) return [];
    // A pipeline lens above each host function that launches kernels one after another (docs/pipelines.md).
    const pipelines = show.kernels
      ? (analysis.report.pipelines ?? [])
          .filter((p) => p.line >= 1 && p.line <= doc.lineCount)
          .map((p) => {
            // Clicking it opens the roofline panel's pipeline view (the stacked bar, the pipeline's point, fusion toggles).
            const ref: KernelRef = { uri: doc.uri.toString(), name: p.name, line: p.line, pipeline: true };
            return new vscode.CodeLens(doc.lineAt(p.line - 1).range, { title: pipelineLens(p, gpuName), command: 'rooflineLens.showRoofline', arguments: [ref], tooltip: 'Show this pipeline in the roofline panel (hover the function name for the per-launch table)' });
          })
      : [];
    return pipelines.concat(items.map(({ item, kernel }) => lens(doc, item, { uri: doc.uri.toString(), name: kernel.name, line: kernel.line })));
  }
}

function lens(doc: vscode.TextDocument, item: LensItem, ref: KernelRef): vscode.CodeLens {
  const range = doc.lineAt(item.line - 1).range;
  switch (item.action.kind) {
    case 'panel':
      return new vscode.CodeLens(range, { title: item.title, command: 'rooflineLens.showRoofline', arguments: [ref], tooltip: 'Show this kernel on the roofline' });
    case 'bind': {
      const request: BindRequest = { name: item.action.symbol, uri: ref.uri };
      return new vscode.CodeLens(range, { title: item.title, command: 'rooflineLens.bindSymbol', arguments: [request], tooltip: `Give ${item.action.symbol} a value` });
    }
    default:
      return new vscode.CodeLens(range, { title: item.title, command: '' });
  }
}
