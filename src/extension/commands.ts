/**
 * The commands: Show Roofline, Select GPU, Bind Symbol…, Copy Analysis as
 * Markdown, Toggle CodeLens. Each works from the command palette (asking what
 * it needs) and from a lens, hover link or test (taking it as an argument).
 */
import * as vscode from 'vscode';
import { makeReport, type BindingValue } from '../core/analyze';
import { GPU_CATALOG } from '../core/gpus/catalog';
import type { GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { flopRate, si } from '../core/report/format';
import { renderMarkdown } from '../core/report/render';
import type { Analyzer } from './analyzer';
import type { Config } from './config';
import type { Owner } from './owner';
import { showRooflinePanel, type KernelRef, type PanelContext } from './panel';
import { analysisLanguage, blockingSymbols, isPragmaValue, pragmaEdit, pragmaValue } from './present';
import { isSymbolName } from '../shared/symbols';
import { readBindingValue, resolveGpu } from './settings';
import { bindValueItems, itemsForText, type BindTarget, type ValueItem } from './bindPick';
import type { KernelReport } from '../core/report/types';

/** Arguments of rooflineLens.bindSymbol; whatever is missing is asked for. */
export interface BindRequest {
  name?: string;
  value?: BindingValue;
  target?: BindTarget;
  /** The document (a URI string); the active editor's when absent. */
  uri?: string;
}

export interface CommandContext extends PanelContext {
  config: Config;
  analyzer: Analyzer;
}

export function registerCommands(owner: Owner, ctx: CommandContext): void {
  const register = (id: string, run: (...args: never[]) => unknown): void => {
    owner.add(vscode.commands.registerCommand(id, run));
  };
  register('rooflineLens.showRoofline', (ref?: KernelRef) => showRooflinePanel(ctx, ref));
  register('rooflineLens.selectGpu', (id?: string) => selectGpu(ctx.config, id));
  register('rooflineLens.bindSymbol', (req?: BindRequest) => bindSymbol(ctx, req ?? {}));
  register('rooflineLens.copyMarkdown', (uri?: string) => copyMarkdown(ctx.analyzer, uri));
  register('rooflineLens.toggleCodeLens', () => toggleCodeLens(ctx.config));
}

// ---------------------------------------------------------------------------
// Select GPU
// ---------------------------------------------------------------------------

interface GpuItem extends vscode.QuickPickItem {
  id?: string;
}

function gpuItem(g: GpuSpec, current: string): GpuItem {
  const tensor = Object.entries(g.peaks.tensor)
    .slice(0, 2)
    .map(([d, v]) => `${d} tensor ${flopRate(v)}`);
  const vector = g.peaks.vector.fp32 ? [`fp32 ${flopRate(g.peaks.vector.fp32)}`] : [];
  const l2 = g.l2Bandwidth === null ? [] : [`L2 ${si(g.l2Bandwidth, 'B/s')}`];
  return {
    id: g.id,
    label: `${g.id === current ? '$(check) ' : ''}${g.name}`,
    description: g.id,
    detail: [`DRAM ${si(g.memoryBandwidth, 'B/s')}`, ...l2, ...vector, ...tensor].join(' · '),
  };
}

async function selectGpu(config: Config, id?: string): Promise<string | undefined> {
  const settings = config.read(vscode.window.activeTextEditor?.document.uri);
  let chosen = id;
  if (chosen === undefined) {
    const items: GpuItem[] = GPU_CATALOG.gpus.map((g) => gpuItem(g, settings.gpu.id));
    if (settings.customGpus.length > 0) {
      items.push({ label: 'rooflineLens.customGpus', kind: vscode.QuickPickItemKind.Separator });
      items.push(...settings.customGpus.map((g) => gpuItem(g, settings.gpu.id)));
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Roofline: Select GPU', placeHolder: `Current: ${settings.gpu.name}`, matchOnDescription: true, matchOnDetail: true });
    chosen = pick?.id;
  }
  if (chosen === undefined) return undefined;
  const gpu = resolveGpu(chosen, settings.customGpus);
  if (!gpu) {
    void vscode.window.showWarningMessage(`Roofline Lens: unknown GPU "${chosen}".`);
    return undefined;
  }
  await config.update('gpu', gpu.id);
  return gpu.id;
}

// ---------------------------------------------------------------------------
// Bind Symbol…
// ---------------------------------------------------------------------------

async function bindSymbol(ctx: CommandContext, req: BindRequest): Promise<BindRequest | undefined> {
  const doc = req.uri ? await vscode.workspace.openTextDocument(vscode.Uri.parse(req.uri)) : vscode.window.activeTextEditor?.document;
  if (!doc || !analysisLanguage(doc.languageId)) {
    void vscode.window.showInformationMessage('Roofline Lens: open a Triton, CUDA or WGSL file to bind its symbols.');
    return undefined;
  }
  const analysis = await ctx.analyzer.analyse(doc);
  const name = req.name ?? (await askName(analysis?.report.kernels.flatMap((k) => blockingSymbols(k)) ?? []));
  if (name === undefined) return undefined;
  if (!isSymbolName(name)) {
    void vscode.window.showWarningMessage(`Roofline Lens: "${name}" is not a symbol name.`);
    return undefined;
  }
  const kernel = analysis?.report.kernels.find((k) => k.unbound.includes(name) || k.undecided?.includes(name)) ?? analysis?.report.kernels.find((k) => name in k.bindings) ?? analysis?.report.kernels[0];
  const state = ctx.extension.workspaceState;
  let remembered = readTarget(state.get(BIND_TARGET_KEY));
  let value = req.value !== undefined ? readBindingValue(req.value) : undefined;
  while (value === undefined && req.value === undefined) {
    const picked = await pickValue(name, kernel, req.target ?? remembered);
    if (picked === undefined) return undefined;
    if (picked === 'change') {
      const t = await askTarget(doc, name, undefined);
      if (t !== undefined) {
        remembered = t;
        await state.update(BIND_TARGET_KEY, t);
      }
      continue;
    }
    value = picked.value;
  }
  if (value === undefined) return undefined;
  let target = req.target ?? remembered;
  if (target === undefined) {
    // Asked once; remembered for the workspace ("Written to … change…" in the value pick changes it).
    target = await askTarget(doc, name, value);
    if (target === undefined) return undefined;
    await state.update(BIND_TARGET_KEY, target);
  }
  if (target === 'settings') await bindInSettings(ctx.config, doc, name, value);
  else {
    await insertPragma(doc, kernel?.line ?? 1, analysisLanguage(doc.languageId)!, name, value);
    const setting = ctx.config.read(doc.uri).bindings[name];
    if (setting !== undefined) {
      void vscode.window.showWarningMessage(`Roofline Lens: rooflineLens.bindings also binds ${name} (= ${String(setting)}); settings take priority over pragma comments.`);
    }
  }
  return { name, value, target, uri: doc.uri.toString() };
}

async function askName(unbound: string[]): Promise<string | undefined> {
  const names = [...new Set(unbound)];
  if (names.length > 0) {
    const other = '$(edit) Another symbol…';
    const pick = await vscode.window.showQuickPick([...names, other], { title: 'Roofline: Bind Symbol', placeHolder: 'Symbols the analysis needs a value for' });
    if (pick !== other) return pick;
  }
  return vscode.window.showInputBox({
    title: 'Roofline: Bind Symbol',
    prompt: 'Symbol to bind: a constexpr, #define, template parameter, argument, override, blockDim.x, tl.num_programs(0), …',
    validateInput: (s) => (isSymbolName(s.trim()) ? undefined : 'Not a symbol name'),
  }).then((s) => s?.trim());
}

/** Where Bind Symbol writes values, remembered per workspace once the user picks. */
const BIND_TARGET_KEY = 'rooflineLens.bindTarget';

function readTarget(v: unknown): BindTarget | undefined {
  return v === 'settings' || v === 'pragma' ? v : undefined;
}

interface ValuePickItem extends vscode.QuickPickItem {
  item: ValueItem;
}

/**
 * The value quick pick: the values the file suggests (with their source),
 * other symbols' sizes, powers of two near them, and free entry (the typed
 * value is the first item). `change`: the user asked to change where values go.
 */
function pickValue(name: string, kernel: KernelReport | undefined, target: BindTarget | undefined): Promise<{ value: BindingValue } | 'change' | undefined> {
  const base = bindValueItems(kernel, name, target);
  const qp = vscode.window.createQuickPick<ValuePickItem>();
  qp.title = `Roofline: Bind ${name}`;
  qp.placeholder = `Value of ${name}: pick one or type a number (4096, 2**12), true or false`;
  qp.matchOnDescription = true;
  const show = (items: ValueItem[]): void => {
    qp.items = items.map((item) =>
      item.kind === 'separator'
        ? { item, label: item.label, kind: vscode.QuickPickItemKind.Separator }
        : { item, label: item.label, description: item.description, alwaysShow: item.kind === 'typed' || item.kind === 'invalid' || item.kind === 'target' },
    );
  };
  show(base);
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: { value: BindingValue } | 'change' | undefined): void => {
      if (done) return;
      done = true;
      resolve(r);
      qp.hide();
    };
    qp.onDidChangeValue((text) => show(itemsForText(base, text)));
    qp.onDidAccept(() => {
      const chosen = (qp.selectedItems[0] ?? qp.activeItems[0])?.item;
      if (chosen?.kind === 'target') finish('change');
      else if (chosen?.value !== undefined) finish({ value: chosen.value });
    });
    qp.onDidHide(() => {
      finish(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

interface TargetItem extends vscode.QuickPickItem {
  target: 'settings' | 'pragma';
}

/** Where values go: asked once, then remembered for the workspace (the value pick's last item changes it). */
async function askTarget(doc: vscode.TextDocument, name: string, value: BindingValue | undefined): Promise<BindTarget | undefined> {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const shown = value === undefined ? '…' : pragmaValue(value);
  const items: TargetItem[] = [
    {
      target: 'settings',
      label: folder ? `$(settings-gear) Workspace folder settings (${folder.name})` : '$(settings-gear) User settings',
      detail: `"rooflineLens.bindings": { "${name}": ${value === undefined ? '…' : JSON.stringify(value)} } for every file${folder ? ' in this folder' : ''}`,
    },
    {
      target: 'pragma',
      label: '$(comment) A pragma comment in this file',
      detail: `${analysisLanguage(doc.languageId) === 'triton' ? '#' : '//'} roofline: ${name}=${shown}`,
    },
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: `Roofline: Bind ${name} = ${shown}`,
    placeHolder: 'Where should bound values live? (remembered for this workspace)',
  });
  return pick?.target;
}

async function bindInSettings(config: Config, doc: vscode.TextDocument, name: string, value: BindingValue): Promise<void> {
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const target = folder ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Global;
  const inspected = vscode.workspace.getConfiguration('rooflineLens', doc.uri).inspect<Record<string, unknown>>('bindings');
  const current = (folder ? inspected?.workspaceFolderValue : inspected?.globalValue) ?? {};
  await config.update('bindings', { ...current, [name]: value }, doc.uri, target);
}

async function insertPragma(doc: vscode.TextDocument, kernelLine: number, language: Language, name: string, value: BindingValue): Promise<void> {
  if (!isPragmaValue(value)) {
    void vscode.window.showWarningMessage(`Roofline Lens: ${pragmaValue(value)} cannot be written in a pragma comment; use the settings instead.`);
    return;
  }
  const lines = Array.from({ length: doc.lineCount }, (_, i) => doc.lineAt(i).text);
  const edit = pragmaEdit(lines, kernelLine, language, name, value);
  const we = new vscode.WorkspaceEdit();
  if (edit.replace) we.replace(doc.uri, doc.lineAt(edit.line).range, edit.text);
  else we.insert(doc.uri, new vscode.Position(edit.line, 0), `${edit.text}${doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n'}`);
  await vscode.workspace.applyEdit(we);
}

// ---------------------------------------------------------------------------
// Copy Analysis as Markdown, Toggle CodeLens
// ---------------------------------------------------------------------------

/** Copies the report of `uri` (a URI string; the active editor's document when absent) and returns it. */
async function copyMarkdown(analyzer: Analyzer, uri?: string): Promise<string | undefined> {
  const doc = uri ? await vscode.workspace.openTextDocument(vscode.Uri.parse(uri)) : vscode.window.activeTextEditor?.document;
  const analysis = doc ? await analyzer.analyse(doc) : undefined;
  if (!analysis || analysis.report.kernels.length === 0) {
    void vscode.window.showInformationMessage('Roofline Lens: no kernels in the active editor to copy.');
    return undefined;
  }
  const text = renderMarkdown(makeReport(analysis.settings.gpu, [analysis.report]));
  try {
    await vscode.env.clipboard.writeText(text);
  } catch (e) {
    void vscode.window.showWarningMessage(`Roofline Lens: could not write to the clipboard: ${String((e as Error)?.message ?? e)}`);
    return text;
  }
  const n = analysis.report.kernels.length;
  void vscode.window.showInformationMessage(`Roofline Lens: copied the analysis of ${n} kernel${n === 1 ? '' : 's'} as Markdown.`);
  return text;
}

/** Turns both kinds of lens off when any is on, else both on. Returns the new state. */
async function toggleCodeLens(config: Config): Promise<boolean> {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const { kernels, loops } = config.read(uri).codeLens;
  const on = !(kernels || loops);
  await config.update('codeLens.kernels', on, uri);
  await config.update('codeLens.loops', on, uri);
  return on;
}
