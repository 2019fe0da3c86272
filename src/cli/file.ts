/**
 * One input file of `analyze`, read and analysed: what the command does per
 * file in its own thread and in each worker thread (src/cli/parallel.ts).
 */
import * as fs from 'node:fs';
import { forgetDocument, languageOf, type UserInputs } from '../core/analyze';
import type { GpuSpec } from '../core/gpus/types';
import { say } from '../core/messages';
import type { RelatedFile } from '../core/related';
import type { MultiGpuFile } from '../core/report/render';
import { analysisLanguage, analyzeForGpus, decode, worthReporting, type ParsersFor } from './inputs';
import { readRelated } from './related';

export interface AnalysisSettings {
  gpus: GpuSpec[];
  user: UserInputs;
  /**
   * `--budget-ms`: a wall-clock safety net per file. None by default: the
   * analysis is then bounded by deterministic step budgets only, so the same
   * files give the same output on a busy machine and on an idle one.
   */
  budgetMs?: number;
}

export function unreadable(file: string, why: string): MultiGpuFile {
  return { path: file, language: languageOf(file) ?? 'triton', diagnostics: [say('unreadable', 1, file, why)], kernels: [] };
}

/** The related files a source names, read from disk, as analysis options (none when it names none). */
export function relatedOf(file: string, src: string): { related?: Record<string, RelatedFile> } {
  const related = readRelated(file, languageOf(file), src);
  return related ? { related } : {};
}

/** The analysis options of `--budget-ms` (none without it). */
export function budgetOf(s: AnalysisSettings): { budgetMs?: number } {
  return s.budgetMs !== undefined ? { budgetMs: s.budgetMs } : {};
}

/** One input file's report, or null when a file found in a folder is not worth reporting (no kernel language in it). */
export async function analyzeFile(file: string, explicit: boolean, parsers: ParsersFor, s: AnalysisSettings, sources?: Map<string, string>): Promise<MultiGpuFile | null> {
  let src: string;
  try {
    src = decode(fs.readFileSync(file));
  } catch (e) {
    return unreadable(file, (e as Error).message);
  }
  if (!explicit && !worthReporting(file, src)) return null;
  sources?.set(file, src);
  const ready = await parsers(analysisLanguage(file));
  const report = analyzeForGpus(src, ready, s.gpus, { ...s.user, path: file, language: languageOf(file), ...budgetOf(s), ...relatedOf(file, src) });
  // The CLI reads each file once: its tree is not kept (a profile's re-estimates parse it again).
  forgetDocument(file);
  return report;
}
