/**
 * Pipelines in words and tables (docs/pipelines.md): the CodeLens line, the
 * per-launch table of the text and Markdown reports and of the hover.
 */
import type { PipelineLaunchReport, PipelineReport } from './types';
import { bytes, flops, intensity, percent, seconds } from './format';

/** `pipeline: 3 launches · T ≥ 54.4 µs on H100 SXM · 100 % of it memory-bound · fusing 1 pair saves up to 24 %`. */
export function pipelineLens(p: PipelineReport, gpuName: string): string {
  const t = p.total;
  const parts = [`pipeline: ${t.launches} launch${t.launches === 1 ? '' : 'es'}`];
  if (t.resolved === 0) parts.push('no launch has numbers');
  else {
    parts.push(`T ${t.complete ? '≥' : '≥ (lower bound)'} ${seconds(t.time.lower)} on ${gpuName}`);
    if (t.memoryBoundShare !== null) parts.push(`${percent(t.memoryBoundShare)} of it memory-bound`);
    if (t.fusedPairs && t.fusedSaving !== null) parts.push(`fusing ${t.fusedPairs} pair${t.fusedPairs === 1 ? '' : 's'} saves up to ${percent(t.fusedSaving)}`);
  }
  if (t.resolved < t.launches && t.resolved > 0) parts.push(`${t.launches - t.resolved} without numbers`);
  return parts.join(' · ');
}

function launchLabel(l: PipelineLaunchReport): string {
  return `${l.kernel}${l.via ? ` (via ${l.via})` : ''}${l.repeat !== 1 ? ` ×${l.repeat ?? '?'}` : ''}`;
}

/** Rows: launch, line, units, FLOPs, compulsory bytes, T_lower, bound, share. */
export function pipelineRows(p: PipelineReport): string[][] {
  const rows = [['#', 'launch', 'line', 'units', 'FLOPs', 'bytes (compulsory)', 'T_lower', 'bound', 'share']];
  p.launches.forEach((l, i) => {
    if (l.unresolved && !l.time?.lower)
      rows.push([String(i + 1), launchLabel(l), String(l.callLine), l.units === null ? '?' : String(l.units), '?', '?', '?', `no numbers: ${l.unresolved}`, '–']);
    else
      rows.push([
        String(i + 1),
        launchLabel(l),
        String(l.callLine),
        l.units === null ? '?' : String(l.units),
        flops(l.flops),
        bytes(l.compulsoryBytes),
        seconds(l.time?.lower ?? null),
        l.bound,
        l.share === null ? '–' : percent(l.share),
      ]);
  });
  const t = p.total;
  // No launch with numbers: a total of 0 would read as a free pipeline.
  if (t.resolved === 0) rows.push(['', 'total', '', '', '?', '?', '?', 'no launch has numbers', '–']);
  else {
    const m = t.complete ? '' : '≥ ';
    rows.push(['', 'total', '', '', `${m}${flops(t.flops)}`, `${m}${bytes(t.compulsoryBytes)}`, `${m}${seconds(t.time.lower)}`, t.memoryBoundShare === null ? '?' : `${percent(t.memoryBoundShare)} memory-bound`, '100 %']);
  }
  return rows;
}

/** One sentence per fusion candidate: "fusing rmsnorm → matmul (h) saves 33.6 MB of DRAM traffic: T_lower 54.4 µs → 46.2 µs (−15 %); fused: memory-bound (bound: h stays on chip)". */
export function fusionLines(p: PipelineReport): string[] {
  return p.fusion.map(
    (f) =>
      `fusing ${f.fromKernel} → ${f.toKernel} (${f.tensors.join(', ')}) saves ${bytes(f.bytesSaved)} of DRAM traffic: T_lower ${seconds(f.lowerBefore)} → ${seconds(f.lowerAfter)} (−${percent(f.saving)}); the fused kernel would be ${f.fusedBound}-bound (a bound: assumes ${f.tensors.join(', ')} stays on chip)`,
  );
}

export function pipelineSummary(p: PipelineReport): string {
  const t = p.total;
  if (t.resolved === 0) return `${t.launches} launch${t.launches === 1 ? '' : 'es'}, none with numbers yet: each says what it needs`;
  return `${t.launches} launches, ${flops(t.flops)}, ${bytes(t.compulsoryBytes)} compulsory → ${intensity(t.intensity)} FLOP/B; T_lower ${seconds(t.time.lower)}, T_upper ${seconds(t.time.upper)} (T_math ${seconds(t.time.math)}, T_mem ${seconds(t.time.memory)})${t.complete ? '' : '; lower bound: some launches have no numbers'}`;
}

/** The hover above a pipeline function: summary, per-launch table, fusion candidates (Markdown). */
export function pipelineHover(p: PipelineReport, gpuName: string): string {
  const esc = (s: string) => s.replace(/[\\`*_{}[\]<>|]/g, (c) => '\\' + c);
  const rows = pipelineRows(p);
  const out = [`**pipeline \`${p.name}\`** on ${esc(gpuName)}: ${esc(pipelineSummary(p))}`, '', `| ${rows[0].join(' | ')} |`, `| ${rows[0].map(() => '---').join(' | ')} |`];
  for (const r of rows.slice(1)) out.push(`| ${r.map(esc).join(' | ')} |`);
  out.push('');
  for (const l of fusionLines(p)) out.push(`- ${esc(l)}`);
  for (const n of p.notes) out.push(`- note: ${esc(n)}`);
  const notes = p.launches.filter((l) => l.repeatNote).map((l) => `- ${esc(l.kernel)}: ${esc(l.repeatNote!)}`);
  out.push(...notes);
  return out.join('\n');
}
