/**
 * Text (terminal) and Markdown (review comment) renderings of an analysis
 * report, for one GPU or several (the diff between two revisions is rendered
 * by renderDiff.ts).
 *
 * A report for several GPUs is an ordinary report of the first GPU whose
 * kernels also carry `byGpu`: the roofline verdict on every selected GPU
 * (the analysis is the same on each, only the roof differs).
 */
import type { AnalysisReport, FileReport, GpuSummary, KernelReport, MeasuredSummary, PipelineReport, ProfileSummary } from './types';
import { fusionLines, pipelineRows, pipelineSummary } from './pipelines';
import { bytes, flopRate, flops, intensity, percent, seconds, si } from './format';
import { boundsSentence, incompleteText, marks, sizeFreeLabel, sizeLabel, steadyText, steadyVerdict, wholeKernel } from './honesty';

// ---------------------------------------------------------------------------
// Several GPUs
// ---------------------------------------------------------------------------

/** One GPU's roofline verdict for a kernel (an entry of the JSON's `byGpu`). */
export interface GpuVerdict {
  bound: KernelReport['bound'];
  boundLevel: KernelReport['boundLevel'];
  attainableFlops: number | null;
  ridgePoint: number;
  l2RidgePoint: number | null;
  peak: KernelReport['peak'];
}

export type MultiGpuKernel = KernelReport & { byGpu?: Record<string, GpuVerdict> };
export type MultiGpuFile = FileReport & { kernels: MultiGpuKernel[] };

/** A report with, when more than one GPU was selected, `gpus` and per-kernel `byGpu`. */
export interface MultiGpuReport extends AnalysisReport {
  gpus?: GpuSummary[];
  files: MultiGpuFile[];
}

/** The roofline part of a kernel report. */
export function verdictOf(k: KernelReport): GpuVerdict {
  return { bound: k.bound, boundLevel: k.boundLevel, attainableFlops: k.attainableFlops, ridgePoint: k.ridgePoint, l2RidgePoint: k.l2RidgePoint, peak: k.peak };
}

/** Every GPU of a report, the first one first. */
export function reportGpus(r: MultiGpuReport): GpuSummary[] {
  return r.gpus && r.gpus.length ? r.gpus : [r.gpu];
}

/** A kernel's verdict on one of the report's GPUs, or undefined when it was not computed. */
export function verdictOn(k: MultiGpuKernel, gpuId: string, r: MultiGpuReport): GpuVerdict | undefined {
  return k.byGpu?.[gpuId] ?? (gpuId === r.gpu.id ? verdictOf(k) : undefined);
}

// ---------------------------------------------------------------------------
// Phrases shared by every format
// ---------------------------------------------------------------------------

/** "compute", "memory (L2)", "memory (DRAM)", "unknown". */
export function boundLabel(v: Pick<GpuVerdict, 'bound' | 'boundLevel'>): string {
  if (v.bound === 'compute') return 'compute';
  if (v.bound === 'memory') return v.boundLevel === 'l2' ? 'memory (L2)' : 'memory (DRAM)';
  return 'unknown';
}

/** "fp16 tensor" / "fp32 vector". */
export function peakLabel(p: GpuVerdict['peak']): string {
  return `${p.dtype} ${p.kind}`;
}

function attainableShare(v: GpuVerdict): string {
  return v.attainableFlops === null ? '?' : percent(v.attainableFlops / v.peak.flops);
}

/** "811 TFLOP/s (82 % of fp16 tensor peak)". */
export function attainableText(v: GpuVerdict): string {
  if (v.attainableFlops === null) return '?';
  return `${flopRate(v.attainableFlops)} (${attainableShare(v)} of ${peakLabel(v.peak)} peak)`;
}

/**
 * One sentence saying why a kernel is bound the way it is on one GPU, e.g.
 * "memory-bound (DRAM) on H100 SXM — compulsory AI 0.168 FLOP/B < ridge 39.9,
 * attainable 563 GFLOP/s (0.421 % of fp16 vector peak)".
 */
export function verdictSentence(k: KernelReport, v: GpuVerdict, gpuName: string): string {
  const dramAi = k.compulsoryIntensity !== null ? `compulsory AI ${intensity(k.compulsoryIntensity)}` : `AI ${intensity(k.arithmeticIntensity)}`;
  const att = `attainable ${attainableText(v)}`;
  if (v.bound === 'memory' && v.boundLevel === 'l2')
    return `memory-bound (L2) on ${gpuName} — AI ${intensity(k.arithmeticIntensity)} FLOP/B < L2 ridge ${intensity(v.l2RidgePoint)}, ${att}`;
  if (v.bound === 'memory') return `memory-bound (DRAM) on ${gpuName} — ${dramAi} FLOP/B < ridge ${intensity(v.ridgePoint)}, ${att}`;
  if (v.bound === 'compute') {
    const l2 = v.l2RidgePoint !== null && k.arithmeticIntensity !== null ? ` and AI ${intensity(k.arithmeticIntensity)} ≥ L2 ridge ${intensity(v.l2RidgePoint)}` : '';
    return `compute-bound on ${gpuName} — ${dramAi} FLOP/B ≥ ridge ${intensity(v.ridgePoint)}${l2}, ${att}`;
  }
  if (k.arithmeticIntensitySteady)
    return wholeKernel(k.arithmeticIntensitySteady)
      ? `${steadyVerdict(k)} on ${gpuName} — ${steadyText(k)}; bind ${k.arithmeticIntensitySteady.independentOf.join(', ')} for the FLOPs and bytes`
      : `${steadyVerdict(k)} on ${gpuName} at the steady state — ${steadyText(k)}; bind ${k.arithmeticIntensitySteady.independentOf.join(', ')} for the full count`;
  const why = k.unbound.length ? `bind ${k.unbound.slice(0, 3).join(', ')}` : 'its arithmetic intensity could not be estimated';
  return `bound unknown on ${gpuName} — ${why}`;
}

function boundCell(k: KernelReport, v: GpuVerdict | undefined): string {
  if (!v) return '?';
  if (v.bound === 'unknown' && k.arithmeticIntensitySteady)
    return `${steadyVerdict(k)}${wholeKernel(k.arithmeticIntensitySteady) ? '' : ' at steady state'} (bind ${k.arithmeticIntensitySteady.independentOf.join(', ')}${wholeKernel(k.arithmeticIntensitySteady) ? ' for the counts' : ''})`;
  if (v.bound === 'unknown' && k.unbound.length) return `unknown (bind ${k.unbound.slice(0, 3).join(', ')})`;
  return boundLabel(v);
}

/** The numbers of a kernel as cells: a lower bound `≥ 1.2 kFLOP`, a steady state `≈ 85.3 (K-loop)`. */
function cells(k: KernelReport): { flops: string; load: string; store: string; bytes: string; ai: string; compulsory: string } {
  const m = marks(k);
  const s = k.arithmeticIntensitySteady;
  const ai =
    k.arithmeticIntensity !== null
      ? `${m.intensity}${intensity(k.arithmeticIntensity)}`
      : s?.scope === 'kernel'
        ? `${m.intensity}${intensity(s.value)} (${sizeFreeLabel(s.independentOf)})`
        : s?.scope === 'range'
          ? `${m.intensity || '≈ '}${intensity(s.value)} (${sizeLabel(s)})`
          : s
          ? `${m.intensity || '≈ '}${intensity(s.value)} (${s.independentOf.length === 1 ? `${s.independentOf[0]}-loop` : 'loop'} steady state)`
          : intensity(null);
  return {
    flops: `${k.perUnit.flops === null ? '' : m.flops}${flops(k.perUnit.flops)}`,
    load: `${k.perUnit.loadBytes === null ? '' : m.bytes}${bytes(k.perUnit.loadBytes)}`,
    store: `${k.perUnit.storeBytes === null ? '' : m.bytes}${bytes(k.perUnit.storeBytes)}`,
    bytes: `${totalBytes(k) === null ? '' : m.bytes}${bytes(totalBytes(k))}`,
    ai,
    compulsory: k.compulsoryIntensity === null ? intensity(null) : `${m.intensity}${intensity(k.compulsoryIntensity)}`,
  };
}

/** `k: incomplete: 2 unknown calls — FLOPs are a lower bound, …` and the steady state's verdict, as note lines. */
function kernelNotes(k: KernelReport): string[] {
  const out: string[] = [];
  if (!k.complete) out.push(`${k.name}: ${incompleteText(k)} — ${boundsSentence(k)}`);
  if (k.arithmeticIntensity === null && k.arithmeticIntensitySteady) {
    const s = k.arithmeticIntensitySteady;
    if (s.scope === 'kernel') out.push(`${k.name}: ${steadyText(k)} · ${steadyVerdict(k)}; FLOPs and bytes scale together with ${s.independentOf.join(', ')}: bind them for the counts`);
    else if (s.scope === 'range') out.push(`${k.name}: ${steadyText(k)} · ${steadyVerdict(k)} at both ends; FLOPs and bytes grow together with ${s.independentOf.join(', ')}: bind them for the counts`);
    else out.push(`${k.name}: ${steadyText(k)} (loop at line ${s.loopLine}) · ${steadyVerdict(k)}; not the full count: bind ${s.independentOf.join(', ')}`);
  }
  return out;
}

function totalBytes(k: { perUnit: KernelReport['perUnit'] }): number | null {
  const { loadBytes, storeBytes } = k.perUnit;
  return loadBytes !== null && storeBytes !== null ? loadBytes + storeBytes : null;
}

/** Distinct peaks the kernels of a report use on one GPU, with their ridge points. */
function ridgeSummary(r: MultiGpuReport, g: GpuSummary): string {
  const seen = new Map<string, GpuVerdict>();
  for (const f of r.files)
    for (const k of f.kernels) {
      const v = verdictOn(k, g.id, r);
      if (v && !seen.has(peakLabel(v.peak))) seen.set(peakLabel(v.peak), v);
    }
  const parts = [...seen.entries()].map(([label, v]) => `${label} ${intensity(v.ridgePoint)}${v.l2RidgePoint !== null ? ` / ${intensity(v.l2RidgePoint)}` : ''}`);
  return parts.length ? `; ridge points (FLOP/B, DRAM${g.l2Bandwidth ? ' / L2' : ''}): ${parts.join(', ')}` : '';
}

function gpuLine(r: MultiGpuReport, g: GpuSummary): string {
  return `${g.name} (${g.id}): DRAM ${si(g.memoryBandwidth, 'B/s')}${g.l2Bandwidth ? `, L2 ${si(g.l2Bandwidth, 'B/s')}` : ''}${ridgeSummary(r, g)}`;
}

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function table(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => pad(c, w[i])).join('  ').trimEnd()).join('\n');
}

function compactVerdict(k: KernelReport, v: GpuVerdict | undefined): string {
  if (!v) return '?';
  if (v.bound === 'unknown') return boundCell(k, v);
  return `${boundLabel(v)} ${flopRate(v.attainableFlops)} ${attainableShare(v)}`;
}

/** A readable table for a terminal. */
export function renderText(r: MultiGpuReport): string {
  const gpus = reportGpus(r);
  const out: string[] = gpus.map((g) => `GPU: ${gpuLine(r, g)}`);
  for (const d of r.diagnostics ?? []) out.push(`${d.severity}: ${d.message}`);
  for (const f of r.files) {
    out.push('', `${f.path} (${f.language})`);
    if (f.kernels.length) {
      const head = ['kernel', 'line', 'FLOPs/unit', 'load/unit', 'store/unit', 'AI', 'AI (compulsory)'];
      const rows = [gpus.length > 1 ? [...head, ...gpus.map((g) => g.id)] : [...head, 'ridge', 'bound', '% of peak', 'peak']];
      for (const k of f.kernels) {
        const c = cells(k);
        const row = [k.name, String(k.line), c.flops, c.load, c.store, c.ai, c.compulsory];
        if (gpus.length > 1) rows.push([...row, ...gpus.map((g) => compactVerdict(k, verdictOn(k, g.id, r)))]);
        else rows.push([...row, intensity(k.ridgePoint), boundCell(k, verdictOf(k)), attainableShare(verdictOf(k)), `${k.peak.kind} ${k.peak.dtype} ${flopRate(k.peak.flops)}`]);
      }
      out.push(table(rows).replace(/^/gm, '  '));
      for (const k of f.kernels) for (const n of kernelNotes(k)) out.push(`  ${n}`);
    }
    for (const k of f.kernels) for (const m of k.measured ?? []) out.push(`  measured ${measuredLabel(k.name, m)}: ${measuredSentence(m)}`);
    for (const p of f.pipelines ?? []) out.push('', ...pipelineText(p));
    for (const d of f.diagnostics) out.push(`  ${f.path}:${d.line}: ${d.severity}: ${d.message}`);
  }
  if (r.profile) out.push('', ...profileLines(r.profile).map((l) => `profile: ${l}`));
  return out.join('\n') + '\n';
}

/**
 * The kernel name of a measured group, with the launch's sizes
 * (`matmul_kernel [M=4096, N=4096, K=4096]`) and, when it ran on another GPU
 * than the selected one or the profile has several, the GPU.
 */
export function measuredLabel(kernel: string, m: MeasuredSummary): string {
  const sizes = m.launchSizes ? ` [${Object.entries(m.launchSizes).map(([n, v]) => `${n}=${v}`).join(', ')}]` : '';
  const gpu = m.gpu && (m.gpu.isSelected === false || m.key.includes(' @ GPU ')) ? ` on ${m.gpu.label} (${m.gpu.name})` : '';
  return `${kernel}${sizes}${gpu}`;
}

/** "612 TFLOP/s at 120 FLOP/B, 78 % of the roof: compute-intensive · FLOPs ×0.98, DRAM bytes 34 % of the estimate". */
export function measuredSentence(m: MeasuredSummary): string {
  const parts: string[] = [];
  const launches = m.launches > 1 ? ` (${m.launches} launches)` : '';
  if (m.achievedFlops !== null) parts.push(`${flopRate(m.achievedFlops)}${m.achievedIntensity !== null ? ` at ${intensity(m.achievedIntensity)} FLOP/B` : ''}${launches}`);
  else if (m.timeSeconds !== null) parts.push(`${seconds(m.timeSeconds)}${launches}`);
  if (m.fractionOfRoof !== null) parts.push(`${percent(m.fractionOfRoof)} of the roof`);
  const head = parts.join(', ');
  const situation = m.situation === 'unknown' ? `situation unknown${m.reason ? ` (${m.reason})` : ''}` : m.situation;
  const extra: string[] = [];
  if (m.flopsLowerBound) extra.push('FLOPs a lower bound');
  if (m.flopConvention === 'launch-metadata') extra.push('FLOPs and bytes from launch_metadata');
  else if (m.flopConvention === 'ncu-section') extra.push("FLOPs from ncu's roofline section");
  const e = m.launchEstimate;
  if (e && e.attainableFlops !== null) extra.push(`estimate for this launch ${flopRate(e.attainableFlops)} attainable at ${e.arithmeticIntensity === null ? '?' : intensity(e.arithmeticIntensity)} FLOP/B`);
  const ratios: string[] = [];
  if (m.flopsRatio !== null) ratios.push(`FLOPs ${ratioText(m.flopsRatio)}`);
  if (m.bytesRatio !== null) ratios.push(`DRAM bytes ${ratioText(m.bytesRatio)}`);
  const tail = `${extra.length ? ` · ${extra.join(' · ')}` : ''}${ratios.length ? ` · measured/estimate: ${ratios.join(', ')}` : ''}`;
  const missing = m.missing.length ? ` · missing: ${m.missing.join(', ')}` : '';
  return `${head ? head + ': ' : ''}${situation}${tail}${missing}`;
}

function ratioText(r: number): string {
  return `×${r >= 10 ? Math.round(r) : r.toFixed(2)}`;
}

function profileLines(p: ProfileSummary): string[] {
  const out = [`${p.path ?? 'profile'} (${p.format}): ${p.launches} launches, ${p.matched} kernels matched`];
  for (const d of p.devices ?? [])
    out.push(`${d.label}: ${d.known ? d.gpu.name : `unidentified (compared with ${d.gpu.name})`}${d.evidence ? ` (${d.evidence})` : ''}${d.isSelected === false ? ', not the selected GPU' : ''}`);
  if (p.unmatched.length) out.push(`unmatched: ${p.unmatched.slice(0, 10).join(', ')}${p.unmatched.length > 10 ? ', …' : ''}`);
  for (const a of p.ambiguous) out.push(`ambiguous: ${a.name} could be ${a.candidates.join(' or ')} (pick one with --match '${a.name}=FILE:KERNEL')`);
  for (const d of p.diagnostics) out.push(`${d.severity}${d.line ? ` (line ${d.line})` : ''}: ${d.message}`);
  return out;
}

// ---------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------

/** Text for a Markdown table cell or list item: no pipes, no raw HTML, one line. */
export function mdText(s: string): string {
  return s.replace(/\r?\n/g, ' ').replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An inline code span that survives backticks and pipes in its content. */
export function mdCode(s: string): string {
  const text = s.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence.length > 1 ? ' ' : ''}${text}${fence.length > 1 ? ' ' : ''}${fence}`;
}

/** A Markdown table row. */
export function mdRow(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function mdVerdictCell(k: KernelReport, v: GpuVerdict | undefined): string {
  if (!v || v.bound === 'unknown') return mdText(boundCell(k, v));
  return `${boundLabel(v)} · ${flopRate(v.attainableFlops)} (${attainableShare(v)})`;
}

function kernelTable(r: MultiGpuReport, f: MultiGpuFile): string[] {
  const gpus = reportGpus(r);
  const multi = gpus.length > 1;
  const verdictHeads = multi ? gpus.map((g) => mdText(g.name)) : ['bound', 'attainable (% of peak)'];
  const rows = [
    mdRow(['kernel', 'location', 'unit', 'AI (FLOP/B)', 'compulsory AI', ...verdictHeads, 'FLOPs / unit', 'bytes / unit']),
    mdRow(['---', '---', '---', '--:', '--:', ...verdictHeads.map(() => '---'), '--:', '--:']),
  ];
  for (const k of f.kernels) {
    const verdicts = multi
      ? gpus.map((g) => mdVerdictCell(k, verdictOn(k, g.id, r)))
      : [mdText(boundCell(k, verdictOf(k))), k.attainableFlops === null ? '?' : `${flopRate(k.attainableFlops)} (${attainableShare(verdictOf(k))} of ${peakLabel(k.peak)})`];
    const c = cells(k);
    rows.push(mdRow([mdCode(k.name), mdCode(`${f.path}:${k.line}`), k.unit, mdText(c.ai), mdText(c.compulsory), ...verdicts, mdText(c.flops), mdText(c.bytes)]));
  }
  return rows;
}

/** Bindings grouped by where they came from: "`M=4096`, `N=4096` (launch at line 66); ...". */
function bindingGroups(k: KernelReport): string[] {
  const groups = new Map<string, string[]>();
  for (const [n, v] of Object.entries(k.bindings)) {
    const from = k.bindingSources[n]?.detail || k.bindingSources[n]?.source || 'unknown source';
    groups.set(from, [...(groups.get(from) ?? []), mdCode(`${n}=${String(v)}`)]);
  }
  return [...groups.entries()].map(([from, names]) => `${names.join(', ')} (${mdText(from)})`);
}

function kernelDetails(k: KernelReport): string[] {
  const out = [`**${mdCode(k.name)}** (${k.computeDtype} math on the ${peakLabel(k.peak)} unit)`, ''];
  out.push(`- FLOPs per ${k.unit}: ${mdCode(k.formulas.flops)}; bytes loaded: ${mdCode(k.formulas.loadBytes)}, stored: ${mdCode(k.formulas.storeBytes)}`);
  const bindings = bindingGroups(k);
  if (bindings.length) out.push(`- bindings: ${bindings.join('; ')}`);
  if (k.unbound.length) out.push(`- unbound: ${k.unbound.map(mdCode).join(', ')}`);
  if (k.compulsory?.note) out.push(`- compulsory traffic: ${mdText(k.compulsory.note)}`);
  for (const a of k.assumptions) out.push(`- assumes ${mdText(a)}`);
  out.push('');
  return out;
}

function measuredTable(f: MultiGpuFile): string[] {
  const rows: string[] = [];
  for (const k of f.kernels)
    for (const m of k.measured ?? [])
      rows.push(
        mdRow([
          mdCode(measuredLabel(k.name, m)),
          m.launches.toString(),
          m.achievedFlops === null ? '?' : flopRate(m.achievedFlops),
          m.achievedIntensity === null ? '?' : intensity(m.achievedIntensity),
          m.fractionOfRoof === null ? '?' : percent(m.fractionOfRoof),
          mdText(m.situation),
          m.flopsRatio === null ? '?' : ratioText(m.flopsRatio),
          m.bytesRatio === null ? '?' : ratioText(m.bytesRatio),
          mdText(m.advice[1] ?? m.advice[0] ?? ''),
        ]),
      );
  if (!rows.length) return [];
  return [
    '**Measured** (imported profile)',
    '',
    mdRow(['kernel', 'launches', 'achieved', 'AI (FLOP/B)', 'of roof', 'situation', 'FLOPs meas./est.', 'DRAM bytes meas./est.', 'first advice']),
    mdRow(['---', '--:', '--:', '--:', '--:', '---', '--:', '--:', '---']),
    ...rows,
    '',
  ];
}

function pipelineText(p: PipelineReport): string[] {
  return [`  pipeline ${p.name} (line ${p.line}): ${pipelineSummary(p)}`, table(pipelineRows(p)).replace(/^/gm, '    '), ...fusionLines(p).map((l) => `    ${l}`), ...p.notes.map((n) => `    note: ${n}`)];
}

function pipelineMarkdown(p: PipelineReport): string[] {
  const rows = pipelineRows(p);
  return [
    `**Pipeline ${mdCode(p.name)}** (line ${p.line}): ${mdText(pipelineSummary(p))}`,
    '',
    mdRow(rows[0]),
    mdRow(rows[0].map(() => '---')),
    ...rows.slice(1).map((r) => mdRow(r.map(mdText))),
    '',
    ...fusionLines(p).map((l) => `- ${mdText(l)}`),
    ...p.notes.map((n) => `- note: ${mdText(n)}`),
    '',
  ];
}

function fileMarkdown(r: MultiGpuReport, f: MultiGpuFile): string[] {
  const out = [`### ${mdCode(f.path)}`, ''];
  if (f.kernels.length) out.push(...kernelTable(r, f), '', ...measuredTable(f));
  else out.push(`_no ${f.language} kernels_`, '');
  for (const k of f.kernels) for (const n of kernelNotes(k)) out.push(`- **${k.complete ? 'note' : 'incomplete'}** ${mdText(n)}`);
  for (const p of f.pipelines ?? []) out.push(...pipelineMarkdown(p));
  const visible = f.diagnostics.filter((d) => d.severity !== 'info');
  for (const d of visible) out.push(`- **${d.severity}** (line ${d.line}): ${mdText(d.message)}`);
  if (visible.length) out.push('');
  const notes = f.diagnostics.filter((d) => d.severity === 'info');
  if (f.kernels.length || notes.length) {
    out.push('<details><summary>Bindings, formulas and assumptions</summary>', '');
    for (const k of f.kernels) out.push(...kernelDetails(k));
    for (const d of notes) out.push(`- line ${d.line}: ${mdText(d.message)}`);
    if (notes.length) out.push('');
    out.push('</details>', '');
  }
  return out;
}

const MD_FOOTER =
  '<sub>Static estimate for one interior tile (masks assumed true). AI = FLOPs ÷ bytes one unit requests; compulsory AI = FLOPs ÷ bytes of the whole launch with perfect reuse; attainable = min(peak, DRAM bw × compulsory AI, L2 bw × AI).</sub>';

/** A review-ready Markdown report: one table per file, details folded away. */
export function renderMarkdown(r: MultiGpuReport): string {
  const gpus = reportGpus(r);
  const out = [`## Roofline Lens: ${gpus.map((g) => mdText(g.name)).join(', ')}`, ''];
  for (const g of gpus) out.push(`- ${mdText(gpuLine(r, g))}`);
  for (const d of r.diagnostics ?? []) out.push(`- **${d.severity}**: ${mdText(d.message)}`);
  out.push('');
  for (const f of r.files) out.push(...fileMarkdown(r, f));
  if (r.profile) out.push(...profileLines(r.profile).map((l) => `- profile: ${mdText(l)}`), '');
  out.push(MD_FOOTER);
  return out.join('\n') + '\n';
}
