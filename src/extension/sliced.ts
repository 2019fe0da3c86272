/**
 * One file's analysis in time slices, for hosts that must stay responsive:
 *
 *   grammar of the file's language (loaded once) ──► parse in slices (a halted
 *   tree-sitter parse resumes where it stopped) ──► analyzeSource with `sliceMs`
 *   again and again: each call adds kernels (the `focus` lines first, the
 *   rest from the per-kernel cache), each partial report goes to `onPartial`
 *
 * Between two slices it awaits `pause()` (a macrotask), so the event loop
 * runs, and stops when `cancelled()` says the result is no longer wanted.
 * No `vscode` and no Node built-ins: it runs in the extension host, in a
 * Node worker thread and in a web worker.
 */
import { analyzeSource, parsedInput, progressOf, type AnalyzeOptions } from '../core/analyze';
import type { Language } from '../core/ir';
import { grammarOf, loadGrammar, parseSlice, type Parsers } from '../core/parsers';
import type { FileReport } from '../core/report/types';

export interface SliceControl {
  /** The longest piece of work between two pauses, ms (a kernel already started finishes). */
  sliceMs: number;
  /**
   * Where nothing waits on the slices (a worker), they may grow up to this,
   * ms (default: `sliceMs`): every analysis call repeats the file-level work
   * (scans of the whole file), so after the first slice — the kernels on
   * screen — a slice is made about 8 times as long as the last call took.
   */
  maxSliceMs?: number;
  /** Yields to the event loop between slices. */
  pause(): Promise<void>;
  /** True once the result is no longer wanted: the analysis stops at its next pause. */
  cancelled?(): boolean;
  /** Each partial report: the kernels analysed so far (those of `focus` first), in file order. */
  onPartial?(report: FileReport): void;
  /** A clock, ms (Date.now by default). */
  now?(): number;
}

export type SlicedOptions = AnalyzeOptions & { path: string; language: Language };

/** The longest a parse is split into slices without a safety net (budgetMs), ms. */
const MAX_SLICED_PARSE_MS = 120_000;

/** Analyses `text` in slices; undefined when cancelled. Never throws on user input. */
export async function analyseInSlices(parsers: Parsers, text: string, options: SlicedOptions, control: SliceControl): Promise<FileReport | undefined> {
  const now = control.now ?? Date.now;
  const cancelled = (): boolean => control.cancelled?.() ?? false;
  await loadGrammar(parsers, options.language);
  if (cancelled()) return undefined;
  const grammar = grammarOf(options.language);
  if (grammar) {
    // The first parse of a large file is one tree-sitter call: split it. Past the safety net the
    // frontend's own parse (with its parse budget) decides. A parse is finished even when a newer
    // text cancels this analysis: the newer text's parse then edits this tree instead of starting
    // over, so a file typed into faster than it parses still gets parsed.
    const parser = parsers[grammar];
    const limit = options.parseMs ?? options.budgetMs ?? MAX_SLICED_PARSE_MS;
    const started = now();
    // The text the frontend parses (CUDA: `__align__` spelled as the grammar reads it, its project headers in
    // front, parsed from the headers' own tree), so that its parse finds this tree.
    const parsed = parsedInput(text, options.language, options.related);
    let since = started;
    while (!parseSlice(parser, options.path, parsed.text, control.sliceMs, parsed.prefix) && now() - started < limit) {
      await control.pause();
      since = now();
    }
    // The parse's last slice and the analysis's first are two slices, not one.
    if (now() - since >= control.sliceMs / 2) await control.pause();
    if (cancelled()) return undefined;
  }
  let analysed = -1;
  let sliceMs = control.sliceMs;
  const maxSliceMs = Math.max(control.sliceMs, control.maxSliceMs ?? control.sliceMs);
  // Whether a partial report with kernels was handed on: until then a slice ends with the kernels on screen
  // (`focusFirst`), so they are shown as soon as they are done, not at the end of a slice grown while the file
  // was scanned.
  let shown = false;
  for (;;) {
    const started = now();
    const report = analyzeSource(text, parsers, { ...options, sliceMs, ...(shown ? {} : { focusFirst: true }) });
    // Complete, or no progress (a kernel the safety net cut short is redone by every call): done.
    // Progress: the statements of a scan that spans slices, then (past every statement) the kernels.
    if (!report.partial || progressOf(report.partial) <= analysed) return report;
    analysed = progressOf(report.partial);
    sliceMs = Math.min(maxSliceMs, Math.max(control.sliceMs, 8 * (now() - started)));
    // A scan still under way has no kernels to show: the editor keeps what it shows until some arrive.
    if (report.partial.scanned === undefined) {
      control.onPartial?.(report);
      shown = true;
    }
    await control.pause();
    if (cancelled()) return undefined;
  }
}
