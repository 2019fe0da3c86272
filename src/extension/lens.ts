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
import { headerTop, kernelLenses, loopLenses, type LensItem } from './present';
import type { KernelRef } from './panel';
import type { BindRequest } from './commands';
import type { ProfileStore } from './profile';
import { measuredKey, measuredLensSuffix } from './profilePresent';
import { pipelineLens } from '../core/report/pipelines';

export class KernelLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(owner: Owner, private readonly analyzer: Analyzer, private readonly config: Config, private readonly profiles: ProfileStore) {
    owner.add(this.changed);
    owner.add(config.onDidChange(() => this.changed.fire()));
    owner.add(profiles.onDidChange(() => this.changed.fire()));
  }

  async provideCodeLenses(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    const analysis = await this.analyzer.analyse(doc);
    if (!analysis || token.isCancellationRequested) return [];
    const show = this.config.read(doc.uri).codeLens;
    const gpuName = analysis.settings.gpu.name;
    const source = { uri: doc.uri, text: doc.getText(), language: analysis.language };
    const measured = this.profiles.measuredOf(analysis.report, analysis.settings.gpu, source);
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
    return pipelines.concat(analysis.report.kernels.flatMap((own) => {
      // Estimated for the measured launch's sizes when the profile gives them (binding source `profile`).
      const k = this.profiles.kernelOf(analysis.report, analysis.settings.gpu, own, source) ?? own;
      const ref: KernelRef = { uri: doc.uri.toString(), name: k.name, line: k.line };
      const top = headerTop((i) => doc.lineAt(i).text, Math.min(k.line, doc.lineCount) - 1) + 1;
      // An imported profile's figure closes the kernel lens: `· measured 612 TFLOP/s, 78 % of roof`.
      const suffix = measuredLensSuffix(measured.get(measuredKey(k)));
      const kernelItems = show.kernels ? kernelLenses(k, gpuName, top).map((it) => (it.action.kind === 'panel' ? { ...it, title: it.title + suffix } : it)) : [];
      const items = [...kernelItems, ...(show.loops ? loopLenses(k) : [])];
      return items.filter((it) => it.line >= 1 && it.line <= doc.lineCount).map((it) => lens(doc, it, ref));
    }));
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
