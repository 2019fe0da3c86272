/**
 * How an imported profile's measurements read in the editor: the CodeLens
 * suffix, the hover's "Measured" section, and which measurements belong to
 * one file when a manual match sends a launch elsewhere. Pure, free of
 * `vscode`.
 */
import { flopRate, intensity, percent, seconds } from '../core/report/format';
import type { FileReport, MeasuredSummary } from '../core/report/types';
import { mdCode, mdProse } from './present';
import { ratioText } from './panelModel';

/** A kernel's measurements by `line:name` (the key lenses and hovers look up). */
export type MeasuredByKernel = Map<string, MeasuredSummary[]>;

export function measuredKey(k: { line: number; name: string }): string {
  return `${k.line}:${k.name}`;
}

/**
 * The measurements of one file's kernels. A launch matched by hand
 * (`overrides[name] = "path:kernel"`) to a kernel of another file is dropped
 * here, even when this file has a kernel of the same name.
 */
export function measuredOfFile(file: FileReport, overrides: Readonly<Record<string, string>>): MeasuredByKernel {
  const elsewhere = (m: MeasuredSummary): boolean => {
    const target = overrides[m.name] ?? overrides[m.key];
    return target !== undefined && target.includes(':') && !target.startsWith(`${file.path}:`);
  };
  const out: MeasuredByKernel = new Map();
  for (const k of file.kernels) {
    const ms = (k.measured ?? []).filter((m) => !elsewhere(m));
    if (ms.length) out.set(measuredKey(k), ms);
  }
  return out;
}

/** ` · measured 612 TFLOP/s, 78 % of roof` (the first launch group; `+N more` for the others), or ''. */
export function measuredLensSuffix(ms: readonly MeasuredSummary[] | undefined): string {
  const m = ms?.[0];
  if (!m) return '';
  const what = m.achievedFlops !== null ? flopRate(m.achievedFlops) : m.timeSeconds !== null ? seconds(m.timeSeconds) : m.situation;
  const roof = m.fractionOfRoof !== null ? `, ${percent(m.fractionOfRoof)} of roof` : '';
  const more = ms.length > 1 ? ` (+${ms.length - 1} more)` : '';
  return ` · measured ${what}${roof}${more}`;
}

/** The hover's "Measured" section: per launch group the dot, the situation, the advice and the ratios. */
export function measuredHover(ms: readonly MeasuredSummary[]): string {
  const out = ['**Measured** (imported profile)', ''];
  for (const m of ms) {
    const launches = `${m.launches} launch${m.launches === 1 ? '' : 'es'}`;
    const dot = m.achievedFlops !== null ? `${flopRate(m.achievedFlops)}${m.achievedIntensity !== null ? ` at ${intensity(m.achievedIntensity)} FLOP/B` : ''}` : m.timeSeconds !== null ? seconds(m.timeSeconds) : '';
    const roof = m.fractionOfRoof !== null ? ` · ${percent(m.fractionOfRoof)} of the roof` : '';
    const estimate = m.fractionOfEstimate !== null ? ` · ${percent(m.fractionOfEstimate)} of the estimate` : '';
    out.push(`${mdCode(m.key)} · ${launches}${dot ? ` · ${dot}` : ''}${roof}${estimate}`, '');
    const situation = m.situation === 'unknown' ? `situation unknown${m.reason ? ` (${mdProse(m.reason)})` : ''}` : `**${m.situation}**`;
    out.push(`${situation}${m.advice[0] ? `: ${mdProse(m.advice[0])}` : ''}`, '');
    for (const a of m.advice.slice(1)) out.push(`- ${mdProse(a)}`);
    if (m.advice.length > 1) out.push('');
    const ratios: string[] = [];
    if (m.flopsRatio !== null) ratios.push(`FLOPs ${ratioText(m.flopsRatio)}${m.flopsLowerBound ? ' (a lower bound)' : ''}`);
    if (m.bytesRatio !== null) ratios.push(`DRAM bytes ${ratioText(m.bytesRatio)}`);
    if (m.compulsoryRatio !== null) ratios.push(`DRAM bytes vs compulsory ${ratioText(m.compulsoryRatio)}`);
    if (ratios.length) out.push(`Measured ÷ estimate: ${ratios.join(', ')}`, '');
    for (const n of m.notes) out.push(`- ${mdProse(n)}`);
    if (m.missing.length) out.push(`- missing counters: ${m.missing.map(mdCode).join(', ')}`);
    if (m.notes.length || m.missing.length) out.push('');
  }
  return out.join('\n').trimEnd();
}
