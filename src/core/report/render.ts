/**
 * Text (terminal) and Markdown (review comment) renderings of an analysis
 * report, for one GPU or several, and of a diff between two revisions.
 *
 * A report for several GPUs is an ordinary report of the first GPU whose
 * kernels also carry `byGpu`: the roofline verdict on every selected GPU
 * (the analysis is the same on each, only the roof differs).
 */
import type { AnalysisReport, FileReport, GpuSummary, KernelReport, MeasuredSummary, PipelineReport, ProfileSummary } from './types';
import { fusionLines, pipelineRows, pipelineSummary } from './pipelines';
import { bytes, flopRate, flops, intensity, percent, seconds, si } from './format';
import type { DiffReport, KernelChange, KernelSnapshot, PipelineChange, Regression } from './diff';

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
  const why = k.unbound.length ? `bind ${k.unbound.slice(0, 3).join(', ')}` : 'its arithmetic intensity could not be estimated';
  return `bound unknown on ${gpuName} — ${why}`;
}

function boundCell(k: KernelReport, v: GpuVerdict | undefined): string {
  if (!v) return '?';
  if (v.bound === 'unknown' && k.unbound.length) return `unknown (bind ${k.unbound.slice(0, 3).join(', ')})`;
  return boundLabel(v);
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
  for (const f of r.files) {
    out.push('', `${f.path} (${f.language})`);
    if (f.kernels.length) {
      const head = ['kernel', 'line', 'FLOPs/unit', 'load/unit', 'store/unit', 'AI', 'AI (compulsory)'];
      const rows = [gpus.length > 1 ? [...head, ...gpus.map((g) => g.id)] : [...head, 'ridge', 'bound', '% of peak', 'peak']];
      for (const k of f.kernels) {
        const cells = [k.name, String(k.line), flops(k.perUnit.flops), bytes(k.perUnit.loadBytes), bytes(k.perUnit.storeBytes), intensity(k.arithmeticIntensity), intensity(k.compulsoryIntensity)];
        if (gpus.length > 1) rows.push([...cells, ...gpus.map((g) => compactVerdict(k, verdictOn(k, g.id, r)))]);
        else rows.push([...cells, intensity(k.ridgePoint), boundCell(k, verdictOf(k)), attainableShare(verdictOf(k)), `${k.peak.kind} ${k.peak.dtype} ${flopRate(k.peak.flops)}`]);
      }
      out.push(table(rows).replace(/^/gm, '  '));
    }
    for (const k of f.kernels) for (const m of k.measured ?? []) out.push(`  measured ${k.name}: ${measuredSentence(m)}`);
    for (const p of f.pipelines ?? []) out.push('', ...pipelineText(p));
    for (const d of f.diagnostics) out.push(`  ${f.path}:${d.line}: ${d.severity}: ${d.message}`);
  }
  if (r.profile) out.push('', ...profileLines(r.profile).map((l) => `profile: ${l}`));
  return out.join('\n') + '\n';
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
  const ratios: string[] = [];
  if (m.flopsRatio !== null) ratios.push(`FLOPs ${ratioText(m.flopsRatio)}`);
  if (m.bytesRatio !== null) ratios.push(`DRAM bytes ${ratioText(m.bytesRatio)}`);
  const tail = ratios.length ? ` · measured/estimate: ${ratios.join(', ')}` : '';
  const missing = m.missing.length ? ` · missing: ${m.missing.join(', ')}` : '';
  return `${head ? head + ': ' : ''}${situation}${tail}${missing}`;
}

function ratioText(r: number): string {
  return `×${r >= 10 ? Math.round(r) : r.toFixed(2)}`;
}

function profileLines(p: ProfileSummary): string[] {
  const out = [`${p.path ?? 'profile'} (${p.format}): ${p.launches} launches, ${p.matched} kernels matched`];
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

function mdRow(cells: string[]): string {
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
    rows.push(mdRow([mdCode(k.name), mdCode(`${f.path}:${k.line}`), k.unit, intensity(k.arithmeticIntensity), intensity(k.compulsoryIntensity), ...verdicts, flops(k.perUnit.flops), bytes(totalBytes(k))]));
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
          mdCode(k.name),
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

/** "T ≥ 54.4 µs → 41.2 µs (−24.4 %), 3 → 2 launches". */
function pipelineChange(x: PipelineChange): string {
  const pct = x.before && x.after !== null ? ` (${x.after >= x.before ? '+' : '−'}${percent(Math.abs(x.after - x.before) / x.before)})` : '';
  const l = x.launchesBefore !== x.launchesAfter ? `, ${x.launchesBefore ?? '–'} → ${x.launchesAfter ?? '–'} launches` : '';
  return `T_lower ${x.before === null ? '–' : seconds(x.before)} → ${x.after === null ? '–' : seconds(x.after)}${pct}${l}`;
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
  out.push('');
  for (const f of r.files) out.push(...fileMarkdown(r, f));
  if (r.profile) out.push(...profileLines(r.profile).map((l) => `- profile: ${mdText(l)}`), '');
  out.push(MD_FOOTER);
  return out.join('\n') + '\n';
}

// ---------------------------------------------------------------------------
// Diff
// ---------------------------------------------------------------------------

function signedPercent(before: number | null, after: number | null): string {
  if (before === null || after === null || !Number.isFinite(before) || !Number.isFinite(after) || before === 0) return '';
  const pct = ((after - before) / before) * 100;
  if (Math.abs(pct) < 0.05) return '';
  return ` (${pct > 0 ? '+' : '−'}${intensity(Math.abs(pct))} %)`;
}

function change(before: number | null, after: number | null): string {
  const a = intensity(before);
  const b = intensity(after);
  return a === b ? a : `${a} → ${b}${signedPercent(before, after)}`;
}

function snapshotVerdict(s: KernelSnapshot, gpuId: string): string {
  const v = s.byGpu[gpuId];
  if (!v) return '?';
  if (v.bound === 'unknown') return s.unbound.length ? `unknown (bind ${s.unbound.slice(0, 3).join(', ')})` : 'unknown';
  return `${boundLabel(v)} ${flopRate(v.attainableFlops)}`;
}

/** True when the kernel went from compute- to memory-bound on this GPU. */
export function turnedMemoryBound(c: KernelChange, gpuId: string): boolean {
  return c.before?.byGpu[gpuId]?.bound === 'compute' && c.after?.byGpu[gpuId]?.bound === 'memory';
}

function verdictChange(c: KernelChange, gpuId: string): string {
  const before = c.before ? snapshotVerdict(c.before, gpuId) : '';
  const after = c.after ? snapshotVerdict(c.after, gpuId) : '';
  if (!c.before) return after;
  if (!c.after || before === after) return before;
  return `${turnedMemoryBound(c, gpuId) ? '⚠ ' : ''}${before} → ${after}`;
}

/** The kernel's name, "(was old)" when renamed; `code` wraps each name (a code span in Markdown). */
function kernelTitle(c: KernelChange, code: (s: string) => string = (s) => s): string {
  const s = (c.after ?? c.before)!;
  if (c.before && c.after && c.before.name !== c.after.name) return `${code(c.after.name)} (was ${code(c.before.name)})`;
  return code(s.name);
}

/** "path:line", "(was old path)" when moved; `code` wraps each path. */
function locationOf(c: KernelChange, code: (s: string) => string = (s) => s): string {
  const s = (c.after ?? c.before)!;
  const loc = code(`${s.path}:${s.line}`);
  return c.before && c.after && c.before.path !== c.after.path ? `${loc} (was ${code(c.before.path)})` : loc;
}

function diffCounts(d: DiffReport): string {
  const n = (kind: KernelChange['change']): number => d.kernels.filter((c) => c.change === kind).length;
  return `${n('changed')} changed, ${n('added')} added, ${n('removed')} removed, ${n('unchanged')} unchanged`;
}

function revisionLabel(d: DiffReport, side: 'base' | 'head'): string {
  const rev = d[side];
  if (rev.commit === null) return 'working tree';
  const short = rev.commit.slice(0, 12);
  return rev.ref && rev.ref !== rev.commit ? `${short} (${rev.ref})` : short;
}

const SECTIONS: { kind: KernelChange['change']; title: string }[] = [
  { kind: 'changed', title: 'Changed' },
  { kind: 'added', title: 'Added' },
  { kind: 'removed', title: 'Removed' },
];

/** The diff for a terminal. */
export function renderDiffText(d: DiffReport, regressions: Regression[]): string {
  const out = [`roofline-lens diff ${revisionLabel(d, 'base')} → ${revisionLabel(d, 'head')} on ${d.gpus.map((g) => g.id).join(', ')}`];
  out.push(`${d.files.length} kernel file(s) changed; kernels: ${diffCounts(d)}`);
  for (const { kind } of SECTIONS) {
    const list = d.kernels.filter((c) => c.change === kind);
    if (!list.length) continue;
    out.push('');
    for (const c of list) {
      const s = (c.after ?? c.before)!;
      out.push(`${kind.padEnd(8)} ${kernelTitle(c)}  ${locationOf(c)}`);
      out.push(`         AI ${change(c.before?.arithmeticIntensity ?? s.arithmeticIntensity, s.arithmeticIntensity)}; compulsory AI ${change(c.before?.compulsoryIntensity ?? s.compulsoryIntensity, s.compulsoryIntensity)}`);
      for (const g of d.gpus) out.push(`         ${g.id}: ${verdictChange(c, g.id)}`);
      if (c.caveat) out.push(`         note: ${c.caveat}`);
    }
  }
  const pls = (d.pipelines ?? []).filter((x) => x.change !== 'unchanged');
  if (pls.length) out.push('', ...pls.map((x) => `pipeline ${x.change.padEnd(8)} ${x.name}  ${x.path}: ${pipelineChange(x)}`));
  if (d.notes.length) out.push('');
  for (const n of d.notes) out.push(`note     ${n.path}${n.line ? `:${n.line}` : ''} (${n.side}): ${n.message}`);
  if (regressions.length) out.push('', `${regressions.length} regression(s):`, ...regressions.map((x) => `  ${x.message}`));
  return out.join('\n') + '\n';
}

function diffTable(d: DiffReport, list: KernelChange[]): string[] {
  const rows = [
    mdRow(['kernel', 'location', 'AI (FLOP/B)', 'compulsory AI', ...d.gpus.map((g) => mdText(g.name))]),
    mdRow(['---', '---', '--:', '--:', ...d.gpus.map(() => '---')]),
  ];
  for (const c of list) {
    const s = (c.after ?? c.before)!;
    const ai = change(c.before?.arithmeticIntensity ?? s.arithmeticIntensity, s.arithmeticIntensity);
    const cai = change(c.before?.compulsoryIntensity ?? s.compulsoryIntensity, s.compulsoryIntensity);
    rows.push(mdRow([kernelTitle(c, mdCode), locationOf(c, mdCode), ai, cai, ...d.gpus.map((g) => mdText(verdictChange(c, g.id)))]));
  }
  return rows;
}

/** The diff as a pull-request comment. */
export function renderDiffMarkdown(d: DiffReport, regressions: Regression[]): string {
  const out = [`## Roofline Lens diff: ${mdText(revisionLabel(d, 'base'))} → ${mdText(revisionLabel(d, 'head'))}`, ''];
  out.push(`GPUs: ${d.gpus.map((g) => mdText(g.name)).join(', ')}. ${d.files.length} kernel file(s) changed; kernels: ${diffCounts(d)}.`, '');
  if (regressions.length) {
    out.push(`**${regressions.length} regression(s)**`, '');
    for (const x of regressions) out.push(`- ${mdText(x.message)}`);
    out.push('');
  }
  for (const { kind, title } of SECTIONS) {
    const list = d.kernels.filter((c) => c.change === kind);
    if (!list.length) continue;
    out.push(`### ${title}`, '', ...diffTable(d, list), '');
    for (const c of list.filter((x) => x.caveat)) out.push(`- ${kernelTitle(c, mdCode)}: ${mdText(c.caveat!)}`);
    if (list.some((x) => x.caveat)) out.push('');
  }
  const pls = (d.pipelines ?? []).filter((x) => x.change !== 'unchanged');
  if (pls.length) {
    out.push('### Pipelines', '');
    for (const x of pls) out.push(`- ${mdCode(x.name)} (${mdCode(x.path)}), ${x.change}: ${mdText(pipelineChange(x))}`);
    out.push('');
  }
  if (d.notes.length) {
    out.push('### Notes', '');
    for (const n of d.notes) out.push(`- ${mdCode(n.path + (n.line ? `:${n.line}` : ''))} (${n.side}): ${mdText(n.message)}`);
    out.push('');
  }
  const same = d.kernels.filter((c) => c.change === 'unchanged');
  if (same.length) {
    out.push(`<details><summary>Unchanged kernels (${same.length})</summary>`, '', ...diffTable(d, same), '', '</details>', '');
  }
  out.push('<sub>Static estimates for one interior tile; AI = FLOPs ÷ bytes one unit requests. ⚠ marks a kernel that went from compute- to memory-bound.</sub>');
  return out.join('\n') + '\n';
}
