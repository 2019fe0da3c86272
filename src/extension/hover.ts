/**
 * Hovers: the whole analysis on a kernel's name; on a loop header, a load or
 * store, or an operation that counts FLOPs, what that line contributes.
 */
import * as vscode from 'vscode';
import type { Analyzer } from './analyzer';
import type { BindRequest } from './commands';
import type { KernelRef } from './panel';
import { hoverLines, kernelHover, lineHover, type HoverLinks } from './present';
import type { ProfileStore } from './profile';
import { measuredHover, measuredKey } from './profilePresent';
import { pipelineHover } from '../core/report/pipelines';

const LINK_COMMANDS = ['rooflineLens.bindSymbol', 'rooflineLens.showRoofline'];

export class KernelHoverProvider implements vscode.HoverProvider {
  constructor(private readonly analyzer: Analyzer, private readonly profiles: ProfileStore) {}

  async provideHover(doc: vscode.TextDocument, pos: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const analysis = await this.analyzer.analyse(doc);
    if (!analysis || token.isCancellationRequested) return undefined;
    const { gpu } = analysis.settings;
    const line = pos.line + 1;
    const word = doc.getWordRangeAtPosition(pos);
    const name = word ? doc.getText(word) : undefined;
    const kernel = analysis.report.kernels.find((k) => k.line === line && k.name === name);
    if (kernel && word) {
      const ref: KernelRef = { uri: doc.uri.toString(), name: kernel.name, line: kernel.line };
      // With an imported profile, a "Measured" section follows the estimate.
      const source = { uri: doc.uri, text: doc.getText(), language: analysis.language };
      const measured = this.profiles.measuredOf(analysis.report, gpu, source).get(measuredKey(kernel));
      // Every measured launch of the kernel had the same sizes: the estimate is the one for them (bindings from the profile).
      const shown = this.profiles.kernelOf(analysis.report, gpu, kernel, source) ?? kernel;
      const text = kernelHover(shown, gpu, links(ref)) + (measured ? `\n\n---\n\n${measuredHover(measured)}` : '');
      return new vscode.Hover(markdown(text), word);
    }
    const pipeline = (analysis.report.pipelines ?? []).find((p) => p.line === line && p.name === name);
    if (pipeline && word) return new vscode.Hover(markdown(pipelineHover(pipeline, gpu.name)), word);
    const text = doc.lineAt(pos.line);
    const start = text.firstNonWhitespaceCharacterIndex;
    if (pos.character < start || pos.character >= text.range.end.character) return undefined;
    const parts = analysis.report.kernels.filter((k) => hoverLines(k).has(line)).map((k) => lineHover(k, line, gpu.name));
    const shown = parts.filter((p): p is string => p !== undefined);
    if (shown.length === 0) return undefined;
    return new vscode.Hover(markdown(shown.join('\n\n---\n\n')), new vscode.Range(pos.line, start, pos.line, text.range.end.character));
  }
}

function markdown(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = { enabledCommands: LINK_COMMANDS };
  return md;
}

function links(ref: KernelRef): HoverLinks {
  const uri = (command: string, arg: unknown): string => `command:${command}?${encodeURIComponent(JSON.stringify([arg]))}`;
  return {
    bind: (symbol) => uri('rooflineLens.bindSymbol', { name: symbol, uri: ref.uri } satisfies BindRequest),
    panel: () => uri('rooflineLens.showRoofline', ref),
  };
}
