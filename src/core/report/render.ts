/**
 * Text (terminal) and Markdown (review comment) renderings of a report.
 */
import type { AnalysisReport, FileReport, KernelReport } from './types';
import { bytes, flopRate, flops, intensity, percent, si } from './format';

function boundText(k: KernelReport): string {
  if (k.bound === 'unknown') return k.unbound.length ? `unknown (bind ${k.unbound.slice(0, 3).join(', ')})` : 'unknown';
  if (k.bound === 'compute') return 'compute';
  return k.boundLevel === 'l2' ? 'memory (L2)' : 'memory (DRAM)';
}

function pctOfPeak(k: KernelReport): string {
  return k.attainableFlops === null ? '?' : percent(k.attainableFlops / k.peak.flops);
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function table(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => pad(c, w[i])).join('  ').trimEnd()).join('\n');
}

function peakLine(k: KernelReport): string {
  return `${k.peak.kind} ${k.peak.dtype} ${flopRate(k.peak.flops)}`;
}

/** A readable table for a terminal. */
export function renderText(r: AnalysisReport): string {
  const out: string[] = [];
  out.push(`GPU: ${r.gpu.name} (${r.gpu.id}) · DRAM ${si(r.gpu.memoryBandwidth, 'B/s')}${r.gpu.l2Bandwidth ? ` · L2 ${si(r.gpu.l2Bandwidth, 'B/s')}` : ''}`);
  for (const f of r.files) {
    out.push('');
    out.push(`${f.path} (${f.language})`);
    if (f.kernels.length) {
      const rows = [['kernel', 'line', 'FLOPs/unit', 'load/unit', 'store/unit', 'AI', 'AI (compulsory)', 'ridge', 'bound', '% of peak', 'peak']];
      for (const k of f.kernels)
        rows.push([
          k.name,
          String(k.line),
          flops(k.perUnit.flops),
          bytes(k.perUnit.loadBytes),
          bytes(k.perUnit.storeBytes),
          intensity(k.arithmeticIntensity),
          intensity(k.compulsoryIntensity),
          intensity(k.ridgePoint),
          boundText(k),
          pctOfPeak(k),
          peakLine(k),
        ]);
      out.push(table(rows).replace(/^/gm, '  '));
    }
    for (const d of f.diagnostics) out.push(`  ${f.path}:${d.line}: ${d.severity}: ${d.message}`);
  }
  return out.join('\n') + '\n';
}

function mdEscape(s: string): string {
  return s.replace(/\|/g, '\\|');
}

function fileMarkdown(f: FileReport, gpuName: string): string {
  const out: string[] = [];
  out.push(`### \`${f.path}\` (${f.language})`);
  out.push('');
  if (f.kernels.length) {
    out.push('| kernel | line | unit | AI (FLOP/B) | compulsory AI | bound | attainable | % of peak | FLOPs / unit | bytes / unit |');
    out.push('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const k of f.kernels) {
      const b = k.perUnit.loadBytes !== null && k.perUnit.storeBytes !== null ? k.perUnit.loadBytes + k.perUnit.storeBytes : null;
      out.push(
        `| \`${mdEscape(k.name)}\` | ${f.path}:${k.line} | ${k.unit} | ${intensity(k.arithmeticIntensity)} | ${intensity(k.compulsoryIntensity)} | ${boundText(k)} | ${flopRate(k.attainableFlops)} | ${pctOfPeak(k)} | ${flops(k.perUnit.flops)} | ${bytes(b)} |`,
      );
    }
    out.push('');
    for (const k of f.kernels) {
      out.push(`<details><summary><code>${k.name}</code>: ridge ${intensity(k.ridgePoint)} FLOP/B on ${gpuName} (${peakLine(k)})</summary>`);
      out.push('');
      out.push(`- FLOPs per ${k.unit}: \`${mdEscape(k.formulas.flops)}\``);
      out.push(`- loads per ${k.unit}: \`${mdEscape(k.formulas.loadBytes)}\` B; stores: \`${mdEscape(k.formulas.storeBytes)}\` B`);
      const bs = Object.entries(k.bindings);
      if (bs.length) out.push(`- bindings: ${bs.map(([n, v]) => `\`${mdEscape(n)}=${String(v)}\` (${k.bindingSources[n]?.detail ?? '?'})`).join(', ')}`);
      if (k.unbound.length) out.push(`- unbound: ${k.unbound.map((n) => '`' + mdEscape(n) + '`').join(', ')}`);
      for (const a of k.assumptions) out.push(`- assumes ${mdEscape(a)}`);
      out.push('');
      out.push('</details>');
      out.push('');
    }
  } else out.push('_no kernels_\n');
  for (const d of f.diagnostics) out.push(`- ${d.severity} (line ${d.line}): ${mdEscape(d.message)}`);
  return out.join('\n');
}

/** A review-ready Markdown report. */
export function renderMarkdown(r: AnalysisReport): string {
  const out: string[] = [];
  out.push(`## Roofline Lens: ${r.gpu.name}`);
  out.push('');
  out.push(`DRAM ${si(r.gpu.memoryBandwidth, 'B/s')}${r.gpu.l2Bandwidth ? `, L2 ${si(r.gpu.l2Bandwidth, 'B/s')}` : ''}. Static estimates for one interior tile (masks assumed true); AI = FLOPs ÷ bytes requested per unit.`);
  out.push('');
  for (const f of r.files) out.push(fileMarkdown(f, r.gpu.name));
  return out.join('\n') + '\n';
}
