/**
 * Profiler results next to the static estimates (issue 9): import an Nsight
 * Compute CSV or a Triton Proton JSON profile, match the measured kernels to
 * the source's kernels, place each measured dot under the roofs and compare
 * it with the estimate. Pure: no editor, no Node built-ins. docs/profiles.md
 * describes the formats, the formulas and the thresholds.
 */
import { detectProfileFormat, guessOtherTool } from './detect';
import { PMSG, pdiag } from './messages';
import { parseNcuCsv } from './ncu';
import { parseProtonJson } from './proton';
import type { ProfileImport } from './types';

export * from './types';
export { detectProfileFormat } from './detect';
export { demangle } from './demangle';
export { analyseKernelName } from './names';
export { parseNcuCsv } from './ncu';
export { parseProtonJson } from './proton';
export { matchKernels, sourceKey, type MatchOptions, type MatchResult, type KernelMatch, type MeasuredGroup, type AmbiguousLaunches } from './match';
export {
  classify,
  compareEstimate,
  assess,
  estimateFromReport,
  estimatePerLaunchFromReport,
  measuredTotals,
  ON_ROOF_FRACTION,
  AGREEMENT,
  type Situation,
  type Classification,
  type RoofEstimate,
  type EstimatePerLaunch,
  type EstimateComparison,
  type MeasuredPoint,
  type MeasuredTotals,
} from './classify';

/** Imports any supported export, choosing the importer from the content. */
export function parseProfile(text: string): ProfileImport {
  if (text.includes('\u0000')) return { format: 'unknown', launches: [], devices: [], diagnostics: [pdiag('binary', 'error', PMSG.binary())] };
  const format = detectProfileFormat(text);
  if (format === 'proton') return parseProtonJson(text);
  if (format === 'ncu-raw' || format === 'ncu-details') return parseNcuCsv(text);
  if (text.trim() === '') return { format, launches: [], devices: [], diagnostics: [pdiag('empty', 'error', PMSG.empty())] };
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return parseProtonJson(text);
  const guess = guessOtherTool(text);
  return { format, launches: [], devices: [], diagnostics: [guess ? pdiag('unknownFormat', 'error', PMSG.unknownFormat(guess)) : pdiag('noHeader', 'error', PMSG.noHeader())] };
}
