/**
 * Information diagnostics for kernels the analysis could not place on the
 * roofline, each saying why (rooflineLens.diagnostics.enabled).
 */
import * as vscode from 'vscode';
import type { Analysis, Analyzer } from './analyzer';
import type { Config } from './config';
import type { Owner } from './owner';
import { notEstimatedReason } from './present';

export class KernelDiagnostics {
  private readonly collection = vscode.languages.createDiagnosticCollection('roofline-lens');

  constructor(owner: Owner, private readonly analyzer: Analyzer, private readonly config: Config) {
    owner.add(this.collection);
    owner.add(analyzer.onDidAnalyse(({ uri, analysis }) => this.update(uri, analysis)));
    owner.add(
      config.onDidChange((change) => {
        if (change !== 'presentation') return;
        for (const doc of vscode.workspace.textDocuments) this.update(doc.uri, analyzer.current(doc));
      }),
    );
  }

  private update(uri: vscode.Uri, analysis: Analysis | undefined): void {
    if (!analysis || !this.config.read(uri).diagnostics) {
      this.collection.delete(uri);
      return;
    }
    this.collection.set(uri, diagnosticsOf(analysis));
  }
}

function diagnosticsOf(a: Analysis): vscode.Diagnostic[] {
  const out: vscode.Diagnostic[] = [];
  for (const k of a.report.kernels) {
    const reason = notEstimatedReason(k, a.language);
    if (reason) out.push(info(nameRange(a.document, k.line, k.name), reason, 'not-estimated'));
  }
  for (const d of a.report.diagnostics.filter((x) => x.code === 'internal' || x.code === 'budget')) {
    out.push(info(nameRange(a.document, d.line, ''), d.message, d.code));
  }
  return out;
}

function info(range: vscode.Range, message: string, code: string): vscode.Diagnostic {
  const d = new vscode.Diagnostic(range, message, vscode.DiagnosticSeverity.Information);
  d.source = 'Roofline Lens';
  d.code = code;
  return d;
}

/** The kernel's name on its line, else the line's text. */
function nameRange(doc: vscode.TextDocument, line: number, name: string): vscode.Range {
  const l = doc.lineAt(Math.min(Math.max(line - 1, 0), doc.lineCount - 1));
  const at = name ? l.text.indexOf(name) : -1;
  if (at >= 0) return new vscode.Range(l.lineNumber, at, l.lineNumber, at + name.length);
  return new vscode.Range(l.lineNumber, l.firstNonWhitespaceCharacterIndex, l.lineNumber, l.range.end.character);
}
