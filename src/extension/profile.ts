/**
 * The imported profile (issue 9, editor side): Roofline: Import Profile…
 * reads an Nsight Compute CSV or a Proton JSON file, remembers it per
 * workspace (workspaceState) with the aggregate/per-launch choice and the
 * manual matches, re-reads it when the file changes, and attaches its
 * measurements to reports for the lenses, the hovers and the panel.
 * Roofline: Clear Profile forgets it.
 */
import * as vscode from 'vscode';
import { GPU_CATALOG } from '../core/gpus/catalog';
import type { Dtype, GpuSpec } from '../core/gpus/types';
import { kernelId } from '../core/report/chart';
import type { Language } from '../core/ir';
import { parseProfile } from '../core/profile';
import { attachProfile, type Reestimate } from '../core/profile/attach';
import { estimateForLaunch } from '../core/profile/bindings';
import { identifyDevice } from '../core/profile/gpu';
import type { FileReport, ProfileSummary } from '../core/report/types';
import type { Analyzer } from './analyzer';
import type { Config } from './config';
import { Owner } from './owner';
import { measuredOfFile, type MeasuredByKernel } from './profilePresent';

const STATE_KEY = 'rooflineLens.profile';
const CONTEXT_KEY = 'rooflineLens.profileLoaded';
/** As the command line: larger files are refused. */
const MAX_PROFILE_BYTES = 256 * 1024 * 1024;
const RELOAD_DELAY_MS = 300;

/** What is remembered per workspace. */
interface Remembered {
  uri: string;
  perLaunch: boolean;
  /** measured name → `path:kernel`. */
  overrides: Record<string, string>;
}

/** Arguments of rooflineLens.importProfile (a path or URI string also works); the file dialog asks when absent. */
export interface ImportRequest {
  uri?: string;
  perLaunch?: boolean;
}

export interface ImportResult {
  uri: string;
  format: string;
  launches: number;
  problems: string[];
}

interface Loaded {
  uri: vscode.Uri;
  text: string;
  format: string;
  launches: number;
  /** The importer's warnings and errors. */
  problems: string[];
}

/** A source file the measured launches can be re-estimated in (for a launch's own sizes). */
export interface SourceText {
  uri: vscode.Uri;
  text: string;
  language: Language;
  /** The panel's what-if values of one kernel: they win over the launch's sizes, as settings do. */
  whatIf?: { kernelId: string; set: Record<string, number | boolean>; dtypes: Record<string, Dtype> };
}

/** What the store needs from the rest of the extension to estimate launches and name GPUs (absent in tests). */
export interface ProfileEnv {
  analyzer: Analyzer;
  config: Config;
}

export class ProfileStore {
  private remembered: Remembered | undefined;
  private loaded: Loaded | undefined;
  private generation = 0;
  private watch: Owner | undefined;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly perFile = new WeakMap<FileReport, { generation: number; gpu: string; measured: MeasuredByKernel; file: FileReport | undefined }>();
  /** Ambiguous launches seen by the last attach (for Roofline: Match Profile Kernel…). */
  private lastAmbiguous: ProfileSummary['ambiguous'] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the profile, its options or its file's content change. */
  readonly onDidChange = this.changed.event;

  constructor(
    owner: Owner,
    private readonly memento: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    private readonly env?: ProfileEnv,
  ) {
    owner.add(this.changed);
    owner.add({ dispose: () => this.stopWatching() });
  }

  /** Re-reads the profile remembered for this workspace, if any. */
  async restore(): Promise<void> {
    const r = readRemembered(this.memento.get(STATE_KEY));
    if (!r) return;
    this.remembered = r;
    const uri = vscode.Uri.parse(r.uri);
    try {
      this.loaded = await this.read(uri);
      this.watchFile(uri);
      // Launches with sizes are re-estimated synchronously, by the host's own parsers.
      await this.env?.analyzer.prepareSync();
    } catch (e) {
      this.log.warn(`the remembered profile ${uri.toString(true)} could not be read: ${message(e)}`);
      this.remembered = undefined;
      await this.memento.update(STATE_KEY, undefined);
    }
    this.fire();
  }

  get current(): { uri: vscode.Uri; name: string; format: string; launches: number } | undefined {
    const l = this.loaded;
    return l ? { uri: l.uri, name: basename(l.uri), format: l.format, launches: l.launches } : undefined;
  }

  get perLaunch(): boolean {
    return this.remembered?.perLaunch ?? false;
  }

  get overrides(): Readonly<Record<string, string>> {
    return this.remembered?.overrides ?? {};
  }

  get ambiguous(): ProfileSummary['ambiguous'] {
    return this.lastAmbiguous;
  }

  /** Imports `req` (a file dialog when it names no file); returns what was read, or undefined. */
  async importProfile(req?: ImportRequest | string): Promise<ImportResult | undefined> {
    const request: ImportRequest = typeof req === 'string' ? { uri: req } : (req ?? {});
    const uri = request.uri ? toUri(request.uri) : await this.ask();
    if (!uri) return undefined;
    let loaded: Loaded;
    try {
      loaded = await this.read(uri);
    } catch (e) {
      void vscode.window.showErrorMessage(`Roofline Lens: cannot import ${basename(uri)}: ${message(e)}`);
      return undefined;
    }
    const { problems } = loaded;
    if (loaded.launches === 0) {
      void vscode.window.showErrorMessage(`Roofline Lens: ${basename(uri)} holds no kernel launches: ${problems[0] ?? 'unknown format'}`);
      return undefined;
    }
    const sameFile = this.remembered?.uri === uri.toString();
    // Launches with sizes are re-estimated synchronously, by the host's own parsers.
    await this.env?.analyzer.prepareSync();
    this.loaded = loaded;
    this.remembered = { uri: uri.toString(), perLaunch: request.perLaunch ?? this.remembered?.perLaunch ?? false, overrides: sameFile ? this.overrides : {} };
    await this.save();
    this.watchFile(uri);
    this.fire();
    for (const p of problems) this.log.warn(`${basename(uri)}: ${p}`);
    const n = loaded.launches;
    void vscode.window.showInformationMessage(`Roofline Lens: imported ${basename(uri)} (${loaded.format}): ${n} launch${n === 1 ? '' : 'es'}.`);
    this.offerGpuSwitch(loaded);
    return { uri: uri.toString(), format: loaded.format, launches: n, problems };
  }

  /**
   * A profile of another GPU than the selected one: says so, and offers to
   * switch (Roofline: Select GPU with the profile's GPU). Its dots are placed
   * under their own GPU's roofs either way.
   */
  private offerGpuSwitch(loaded: Loaded): void {
    if (!this.env) return;
    const settings = this.env.config.read();
    const table = [...GPU_CATALOG.gpus, ...settings.customGpus];
    const devices = parseProfile(loaded.text).devices.map((d) => identifyDevice(d, table, settings.gpu));
    const other = devices.find((d) => d.isSelected === false && d.known);
    if (!other) return;
    const action = `Switch to ${other.gpu.name}`;
    const where = devices.length > 1 ? `${other.device.label} of ` : '';
    void vscode.window
      .showWarningMessage(
        `Roofline Lens: ${where}${basename(loaded.uri)} ran on ${other.gpu.name}${other.evidence ? ` (${other.evidence})` : ''}, not on the selected ${settings.gpu.name}. Its dots are placed under ${other.gpu.name}'s roofs; switch GPU to see the estimates for it too.`,
        action,
      )
      .then((pick) => (pick === action ? vscode.commands.executeCommand('rooflineLens.selectGpu', other.gpu.id) : undefined));
  }

  async clear(): Promise<void> {
    if (!this.remembered && !this.loaded) return;
    this.remembered = undefined;
    this.loaded = undefined;
    this.lastAmbiguous = [];
    this.stopWatching();
    await this.save();
    this.fire();
  }

  async setPerLaunch(on: boolean): Promise<void> {
    if (!this.remembered || this.remembered.perLaunch === on) return;
    this.remembered = { ...this.remembered, perLaunch: on };
    await this.save();
    this.fire();
  }

  /** Matches the measured `name` to `target` (`path:kernel`), or lets the matcher decide again (undefined). */
  async setOverride(name: string, target: string | undefined): Promise<void> {
    if (!this.remembered) return;
    const overrides = { ...this.remembered.overrides };
    if (target === undefined) delete overrides[name];
    else overrides[name] = target;
    this.remembered = { ...this.remembered, overrides };
    await this.save();
    this.fire();
  }

  /**
   * The files with `measured` on each matched kernel, and the summary;
   * undefined without a profile. `sources` gives a report's text, so a launch
   * whose name carries its sizes is compared with the kernel estimated for them.
   */
  attach(files: FileReport[], gpu: GpuSpec, sources?: (path: string) => SourceText | undefined): { files: FileReport[]; summary: ProfileSummary } | undefined {
    const l = this.loaded;
    if (!l) return undefined;
    const customGpus = this.env?.config.read().customGpus ?? [];
    const r = attachProfile(files, gpu, l.text, {
      perLaunch: this.perLaunch,
      overrides: { ...this.overrides },
      path: l.uri.toString(true),
      gpus: [...GPU_CATALOG.gpus, ...customGpus],
      ...(sources ? { reestimate: this.reestimator(gpu, sources) } : {}),
    });
    this.lastAmbiguous = r.profile.ambiguous;
    return { files: r.files, summary: r.profile };
  }

  /** Re-analyses a kernel with a launch's sizes (the file's settings bindings win over them). */
  private reestimator(gpu: GpuSpec, sources: (path: string) => SourceText | undefined): Reestimate | undefined {
    const env = this.env;
    if (!env) return undefined;
    return (path, kernel, launch) => {
      const src = sources(path);
      if (!src) return undefined;
      const whatIf = src.whatIf && src.whatIf.kernelId === kernelId(path, kernel) ? src.whatIf : undefined;
      const user = { ...env.config.read(src.uri).bindings, ...whatIf?.set };
      let failed = false;
      const estimate = estimateForLaunch(kernel, src.text, launch, user, (set) => {
        const r = env.analyzer.analyseTextNow(src.uri, src.text, src.language, { gpu, set, ...(whatIf ? { dtypes: whatIf.dtypes } : {}) });
        if (!r) failed = true;
        return r ?? { path, language: src.language, diagnostics: [], kernels: [] };
      });
      return failed ? undefined : estimate;
    };
  }

  /** The measurements of one file's kernels, by `line:name` (cached per report); empty without a profile. */
  measuredOf(report: FileReport, gpu: GpuSpec, source?: SourceText): MeasuredByKernel {
    return this.attachedFile(report, gpu, source)?.measured ?? new Map();
  }

  /**
   * The kernel as the profile estimates it: when every measured launch of it
   * has the same sizes (`matmul_kernel [M=4096, …]`), the kernel analysed for
   * them (binding source `profile`); undefined otherwise.
   */
  kernelOf(report: FileReport, gpu: GpuSpec, kernel: { line: number; name: string }, source?: SourceText): FileReport['kernels'][number] | undefined {
    const k = this.attachedFile(report, gpu, source)?.file?.kernels.find((x) => x.line === kernel.line && x.name === kernel.name);
    return k && Object.values(k.bindingSources).some((b) => b.source === 'profile') ? k : undefined;
  }

  private attachedFile(report: FileReport, gpu: GpuSpec, source?: SourceText): { measured: MeasuredByKernel; file: FileReport | undefined } | undefined {
    if (!this.loaded || report.kernels.length === 0) return undefined;
    const hit = this.perFile.get(report);
    if (hit && hit.generation === this.generation && hit.gpu === gpu.id) return hit;
    const attached = this.attach([report], gpu, source ? (path) => (path === report.path ? source : undefined) : undefined);
    const file = attached?.files[0];
    const entry = { generation: this.generation, gpu: gpu.id, measured: file ? measuredOfFile(file, this.overrides) : new Map(), file };
    this.perFile.set(report, entry);
    return entry;
  }

  private async ask(): Promise<vscode.Uri | undefined> {
    const picked = await vscode.window.showOpenDialog({
      title: 'Roofline: Import Profile',
      openLabel: 'Import',
      canSelectMany: false,
      defaultUri: this.loaded?.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri,
      filters: { 'Nsight Compute CSV or Proton JSON': ['csv', 'json'], 'All files': ['*'] },
    });
    return picked?.[0];
  }

  private async read(uri: vscode.Uri): Promise<Loaded> {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > MAX_PROFILE_BYTES) throw new Error(`${stat.size} bytes is larger than the ${MAX_PROFILE_BYTES / 1024 / 1024} MB the importer reads`);
    const text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    const imported = parseProfile(text);
    const problems = imported.diagnostics.filter((d) => d.severity !== 'info').map((d) => d.message);
    return { uri, text, format: imported.format, launches: imported.launches.length, problems };
  }

  /** Re-reads the file when it changes on disk (debounced: writers touch it several times). */
  private watchFile(uri: vscode.Uri): void {
    this.stopWatching();
    const w = new Owner();
    this.watch = w;
    const folder = uri.with({ path: uri.path.slice(0, uri.path.lastIndexOf('/')) || '/' });
    const watcher = w.add(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, basename(uri))));
    const reload = (): void => {
      if (this.reloadTimer !== undefined) clearTimeout(this.reloadTimer);
      this.reloadTimer = setTimeout(() => void this.reload(uri), RELOAD_DELAY_MS);
    };
    w.add(watcher.onDidChange(reload));
    w.add(watcher.onDidCreate(reload));
    w.add(watcher.onDidDelete(() => this.log.warn(`the imported profile ${uri.toString(true)} was deleted; its last content stays loaded until you clear it`)));
  }

  private async reload(uri: vscode.Uri): Promise<void> {
    this.reloadTimer = undefined;
    if (this.loaded?.uri.toString() !== uri.toString()) return;
    try {
      const next = await this.read(uri);
      if (next.text === this.loaded?.text) return;
      this.loaded = next;
      this.log.info(`re-read the profile ${uri.toString(true)}: ${next.launches} launches`);
      this.fire();
    } catch (e) {
      this.log.warn(`could not re-read the profile ${uri.toString(true)}: ${message(e)}`);
    }
  }

  private stopWatching(): void {
    if (this.reloadTimer !== undefined) clearTimeout(this.reloadTimer);
    this.reloadTimer = undefined;
    this.watch?.dispose();
    this.watch = undefined;
  }

  private async save(): Promise<void> {
    await this.memento.update(STATE_KEY, this.remembered);
  }

  private fire(): void {
    this.generation++;
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, this.loaded !== undefined);
    this.changed.fire();
  }
}

function readRemembered(x: unknown): Remembered | undefined {
  if (typeof x !== 'object' || x === null) return undefined;
  const r = x as Record<string, unknown>;
  if (typeof r.uri !== 'string' || r.uri.length > 4000) return undefined;
  const overrides: Record<string, string> = {};
  if (typeof r.overrides === 'object' && r.overrides !== null)
    for (const [k, v] of Object.entries(r.overrides)) if (typeof v === 'string') overrides[k] = v;
  return { uri: r.uri, perLaunch: r.perLaunch === true, overrides };
}

/** A URI string (`file:///…`, `vscode-test-web://…`) or an absolute file path. */
function toUri(s: string): vscode.Uri {
  return /^[a-z][a-z0-9+.-]+:/i.test(s) && !/^[a-z]:[\\/]/i.test(s) ? vscode.Uri.parse(s) : vscode.Uri.file(s);
}

function basename(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}

function message(e: unknown): string {
  return String((e as Error)?.message ?? e);
}

// ---------------------------------------------------------------------------
// Commands
// ---------------------------------------------------------------------------

interface MatchItem extends vscode.QuickPickItem {
  target?: string;
}

/** Roofline: Import Profile…, Clear Profile, and Match Profile Kernel… (for ambiguous matches). */
export function registerProfileCommands(owner: Owner, profiles: ProfileStore): void {
  owner.add(vscode.commands.registerCommand('rooflineLens.importProfile', (req?: ImportRequest | string) => profiles.importProfile(req)));
  owner.add(vscode.commands.registerCommand('rooflineLens.clearProfile', () => profiles.clear()));
  owner.add(vscode.commands.registerCommand('rooflineLens.matchProfileKernel', (name?: string, target?: string | null) => matchKernel(profiles, name, target)));
}

/**
 * Settles an ambiguous match: `name` is the measured kernel, `target` the
 * source kernel (`path:kernel`; null lets the matcher decide again). What is
 * missing is asked with quick picks over the last ambiguous launches.
 */
async function matchKernel(profiles: ProfileStore, name?: string, target?: string | null): Promise<string | undefined> {
  if (!profiles.current) {
    void vscode.window.showInformationMessage('Roofline Lens: import a profile first.');
    return undefined;
  }
  const ambiguous = profiles.ambiguous;
  const measured = name ?? (await vscode.window.showQuickPick(ambiguous.map((a) => a.name), { title: 'Roofline: Match Profile Kernel', placeHolder: 'Measured kernel that matches several source kernels' }));
  if (!measured) return undefined;
  let chosen = target;
  if (chosen === undefined) {
    const candidates = ambiguous.find((a) => a.name === measured)?.candidates ?? [];
    const items: MatchItem[] = [...candidates.map((c) => ({ label: c, target: c })), { label: '$(discard) Let the matcher decide', target: undefined }];
    const pick = await vscode.window.showQuickPick(items, { title: `Roofline: ${measured} is…`, placeHolder: 'The source kernel this measurement belongs to' });
    if (!pick) return undefined;
    chosen = pick.target ?? null;
  }
  await profiles.setOverride(measured, chosen ?? undefined);
  return chosen ?? undefined;
}
