/**
 * The workspace view's scan: every Triton, CUDA and WGSL file of the
 * workspace (vscode.workspace.findFiles, dependency and build folders
 * excluded), read through workspace.fs (so it works in the web editors too),
 * analysed one by one under a cancellable progress notification, within a cap
 * on the number of files and on each file's size.
 */
import * as vscode from 'vscode';
import { languageOf } from '../core/analyze';
import type { Language } from '../core/ir';
import type { FileReport } from '../core/report/types';
import type { Analyzer } from './analyzer';
import { mayHaveKernels } from './present';
import type { Settings } from './settings';

export const WORKSPACE_GLOB = '**/*.{py,cu,cuh,wgsl}';
export const WORKSPACE_EXCLUDE = '**/{node_modules,.git,.hg,.svn,.venv,venv,.tox,__pycache__,site-packages,.e2e}/**';
export const MAX_WORKSPACE_FILES = 500;
export const MAX_WORKSPACE_FILE_BYTES = 1024 * 1024;

/** A file the workspace view holds (WORKSPACE_GLOB's extensions: WGSL inside JS/TS is left to the file view). */
export function isWorkspaceKernelFile(uri: vscode.Uri): boolean {
  return /\.(py|cu|cuh|wgsl)$/.test(uri.path);
}

/** The language id the cheap kernel check expects for each analysis language. */
const LANGUAGE_ID: Record<Language, string> = { triton: 'python', cuda: 'cuda-cpp', wgsl: 'wgsl' };

/** A file the panel shows: its text (what-if and other GPUs re-analyse it) and its report on the settings' GPU. */
export interface PanelFile {
  uri: vscode.Uri;
  language: Language;
  text: string;
  report: FileReport;
  settings: Settings;
}

export interface ScanResult {
  files: PanelFile[];
  /** Caps reached and files skipped, one sentence each. */
  notices: string[];
}

/** Scans the workspace; undefined when the user cancels. */
export function scanWorkspace(analyzer: Analyzer): Promise<ScanResult | undefined> {
  return Promise.resolve(
    vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Roofline: scanning the workspace for kernels', cancellable: true },
      (progress, token) => scan(analyzer, progress, token),
    ),
  );
}

async function scan(analyzer: Analyzer, progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken): Promise<ScanResult | undefined> {
  const found = await vscode.workspace.findFiles(WORKSPACE_GLOB, WORKSPACE_EXCLUDE, MAX_WORKSPACE_FILES + 1, token);
  if (token.isCancellationRequested) return undefined;
  const notices: string[] = [];
  if (found.length > MAX_WORKSPACE_FILES) notices.push(`The workspace has more than ${MAX_WORKSPACE_FILES} Triton, CUDA and WGSL files; only the first ${MAX_WORKSPACE_FILES} were scanned.`);
  const uris = found.slice(0, MAX_WORKSPACE_FILES).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const open = new Map(vscode.workspace.textDocuments.map((d) => [d.uri.toString(), d]));
  const files: PanelFile[] = [];
  const tooLarge: string[] = [];
  for (const [i, uri] of uris.entries()) {
    if (token.isCancellationRequested) return undefined;
    progress.report({ message: `${i + 1} of ${uris.length}: ${vscode.workspace.asRelativePath(uri, false)}`, increment: 100 / uris.length });
    const file = await scanFile(analyzer, uri, open.get(uri.toString()), tooLarge);
    if (file && file.report.kernels.length > 0) files.push(file);
    // Let the editor breathe between files: analyses are synchronous.
    await new Promise((r) => setTimeout(r, 0));
  }
  if (tooLarge.length) notices.push(`Skipped ${tooLarge.length} file${tooLarge.length === 1 ? '' : 's'} larger than ${MAX_WORKSPACE_FILE_BYTES / 1024 / 1024} MB: ${tooLarge.slice(0, 5).join(', ')}${tooLarge.length > 5 ? ', …' : ''}.`);
  return { files, notices };
}

async function scanFile(analyzer: Analyzer, uri: vscode.Uri, doc: vscode.TextDocument | undefined, tooLarge: string[]): Promise<PanelFile | undefined> {
  const language = languageOf(uri.path);
  if (!language) return undefined;
  if (doc) {
    const a = await analyzer.analyse(doc);
    return a ? { uri, language, text: doc.getText(), report: a.report, settings: a.settings } : undefined;
  }
  try {
    if ((await vscode.workspace.fs.stat(uri)).size > MAX_WORKSPACE_FILE_BYTES) {
      tooLarge.push(vscode.workspace.asRelativePath(uri, false));
      return undefined;
    }
    const text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    if (!mayHaveKernels(LANGUAGE_ID[language], text)) return undefined;
    const a = await analyzer.analyseText(uri, text, language);
    return a ? { uri, language, text, report: a.report, settings: a.settings } : undefined;
  } catch {
    // A file deleted or unreadable while scanning is simply not shown.
    return undefined;
  }
}
