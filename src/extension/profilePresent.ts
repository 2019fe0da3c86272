/**
 * How an imported profile's measurements read in the editor: the CodeLens
 * suffix, the hover's "Measured" section, and which measurements belong to
 * one file when a manual match sends a launch elsewhere. Pure, free of
 * `vscode`.
 */
import { flopRate, intensity, percent, seconds } from '../core/report/format';
import type { FileReport, MeasuredSummary } from '../core/report/types';
import { bindingSourceText, mdCode, mdProse, mdText } from './present';
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
    out.push(`${mdCode(m.key)} · ${launches}${dot ? ` · ${dot}${m.flopsLowerBound ? ' (FLOPs a lower bound)' : ''}` : ''}${roof}${estimate}`, '');
    if (m.gpu && (m.gpu.isSelected === false || m.key.includes(' @ GPU ')))
      out.push(`Ran on **${mdText(m.gpu.name)}** (${mdText(m.gpu.label)})${m.gpu.isSelected === false ? ', not the selected GPU' : ''}: placed under its roofs.`, '');
    const convention = conventionText(m.flopConvention);
    if (convention) out.push(convention, '');
    for (const r of m.flopsLowerBoundReasons ?? []) out.push(`- lower bound: ${mdProse(r)}`);
    if (m.flopsLowerBoundReasons?.length) out.push('');
    out.push(...launchEstimateLines(m));
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

/** Which FLOP convention the dot uses, one sentence (docs/profiles.md, "FLOP conventions"). */
function conventionText(c: string | undefined): string {
  if (c === 'ncu-counters') return 'FLOPs from Nsight Compute counters, as its roofline sections count them (half-precision instructions as packed pairs: HFMA2 = 4 FLOPs; tensor ops 1:1).';
  if (c === 'ncu-section') return "FLOPs from the achieved FLOP/s of Nsight Compute's roofline section × the duration (ncu's own convention).";
  if (c === 'launch-metadata') return "FLOPs and bytes from the kernel's launch_metadata (its author's formulas, not measured).";
  return '';
}

/** The estimate for the measured launch (its sizes from the profile), with every binding and its source. */
function launchEstimateLines(m: MeasuredSummary): string[] {
  const e = m.launchEstimate;
  if (!e) return [];
  const out: string[] = [];
  const at = e.arithmeticIntensity !== null ? ` at ${intensity(e.arithmeticIntensity)} FLOP/B` : '';
  const compulsory = e.compulsoryIntensity !== null ? ` (compulsory ${intensity(e.compulsoryIntensity)} FLOP/B)` : '';
  const attainable = e.attainableFlops !== null ? `${flopRate(e.attainableFlops)} attainable${at}${compulsory}, ${e.bound === 'unknown' ? 'bound unknown' : `${e.bound}-bound`}` : 'not computable';
  out.push(`**Estimate for this launch**: ${attainable}${e.unbound.length ? ` · unbound: ${e.unbound.map(mdCode).join(', ')}` : ''}`, '');
  for (const n of Object.keys(e.bindings).sort()) {
    const src = e.bindingSources[n];
    out.push(`- ${mdCode(n)} = ${mdCode(String(e.bindings[n]))}${src ? ` · ${mdProse(bindingSourceText(src.source, src.detail))}` : ''}`);
  }
  if (Object.keys(e.bindings).length) out.push('');
  return out;
}
