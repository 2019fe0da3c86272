/** The survey as text: one column per language group, then lists. */
import { top, type Counts, type Summary } from './aggregate';
import type { KernelRow } from './file';
import { GROUPS, type SurveyGroup } from './scan';

const LABEL: Record<SurveyGroup, string> = { triton: 'triton', cuda: 'cuda', wgsl: 'wgsl', 'wgsl-embedded': 'wgsl-in-js' };

function pct(n: number, of: number): string {
  return of > 0 ? `${n} (${((100 * n) / of).toFixed(0)}%)` : String(n);
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function countRows(cols: Counts[]): string[][] {
  const r = (label: string, f: (c: Counts) => string): string[] => [label, ...cols.map(f)];
  return [
    r('files analysed', (c) => String(c.files)),
    r('  with definitions but no kernel found', (c) => String(c.filesMissingKernels)),
    r('  crashes / timeouts', (c) => `${c.crashes} / ${c.timeouts}`),
    r('  internal-error diagnostics', (c) => String(c.internalErrors)),
    r('definitions in the text', (c) => String(c.defined)),
    r('  of which helpers (named by another jit fn)', (c) => String(c.helpers)),
    r('  @pointwise_dynamic (not kernels today)', (c) => String(c.otherDecorators)),
    r('kernels found', (c) => String(c.found)),
    r('  matching a kernel definition (per file)', (c) => pct(c.foundOfDefined, c.defined - c.helpers)),
    r('  beyond the kernel definitions', (c) => String(c.foundBeyondDefined)),
    r('kernels with numbers, no bindings', (c) => pct(c.withNumbers, c.found)),
    r('  and clean (no warning, not incomplete)', (c) => pct(c.withNumbersClean, c.found)),
    r('  and clean, not suspicious', (c) => pct(c.withNumbersCleanUnsuspicious, c.found)),
    r('steady-state intensity reported', (c) => String(c.withSteadyIntensity)),
    r('a number on first open (full or labelled)', (c) => pct(c.withFirstOpenNumber, c.found)),
    r('  else clean "no global work" (0 FLOP, 0 B)', (c) => pct(c.noGlobalWork, c.found)),
    r('complete: false', (c) => (c.completeNotReported === c.found && c.found > 0 ? 'not reported' : pct(c.completeFalse, c.found))),
    r('status ok / partial', (c) => `${c.status.ok ?? 0} / ${c.status.partial ?? 0}`),
    r('SUSPICIOUS stores, 0 store B (clean)', (c) => String(c.suspicious.storesButZeroStoreBytes)),
    r('  (clean or not)', (c) => String(c.storesButZeroStoreBytesAnyStatus)),
    r('SUSPICIOUS all zero (0 FLOP, 0 B, 0 B)', (c) => String(c.suspicious.allZero)),
    r('SUSPICIOUS loads, 0 load B (clean)', (c) => String(c.suspicious.loadsButZeroLoadBytes)),
    r('  (clean or not)', (c) => String(c.loadsButZeroLoadBytesAnyStatus)),
    r('kernels with an unknown call', (c) => String(c.suspicious.unknownCall)),
    r('host pipelines (launch sequences)', (c) => String(c.pipelines)),
    r('  launches listed / with numbers', (c) => `${c.pipelineLaunches} / ${c.pipelineLaunchesResolved}`),
    r('  pipelines with every launch resolved', (c) => String(c.pipelinesResolved)),
    r('  fusion candidates', (c) => String(c.fusionCandidates)),
    r('analysis time, s (sum)', (c) => (c.ms / 1000).toFixed(1)),
  ];
}

export interface RunInfo {
  roots: string[];
  filesSkipped: Record<string, number>;
  sampled: { root: string; dir: string; candidates: number; kept: number }[];
  wallMs: number;
  peakRssMb: number;
  jobs: number;
  gpu: string;
}

export function renderText(s: Summary, info: RunInfo, kernels: KernelRow[], n = 12): string {
  const out: string[] = [];
  const skipped = Object.entries(info.filesSkipped)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  out.push(`Roofline Lens survey: ${info.roots.length} folder(s), ${s.totals.files} files analysed${skipped ? ` (not analysed: ${skipped})` : ''}`);
  for (const x of info.sampled) out.push(`  sample: ${x.root}/${x.dir}: ${x.kept} of ${x.candidates} files with a kernel marker`);
  out.push(`GPU ${info.gpu}, CLI defaults, no --set. Wall ${(info.wallMs / 1000).toFixed(1)} s, peak RSS ${info.peakRssMb.toFixed(0)} MB, ${info.jobs || 'no'} worker thread(s).`);
  out.push('');
  out.push(table(['', ...GROUPS.map((g) => LABEL[g]), 'total'], countRows([...GROUPS.map((g) => s.languages[g]), s.totals])));
  const reasons = top(s.totals.reasons, n);
  if (reasons.length) {
    out.push('', 'complete: false, by reason id:');
    for (const [k, v] of reasons) out.push(`  ${String(v).padStart(6)}  ${k}`);
  }
  out.push('', 'Most frequent diagnostics (id severity):');
  for (const g of [...GROUPS, 'total'] as const) {
    const c = g === 'total' ? s.totals : s.languages[g];
    if (c.files === 0) continue;
    const t = top(c.diagnostics, n);
    out.push(`  ${g === 'total' ? 'total' : LABEL[g]}: ${t.map(([k, v]) => `${k} ${v}`).join(', ') || '-'}`);
  }
  out.push('', 'What the most frequent ids say (message templates, all languages):');
  for (const [key] of top(s.totals.diagnostics, 8)) {
    const code = key.slice(0, key.lastIndexOf(' '));
    const t = top(s.totals.templates[code] ?? {}, 4);
    if (!t.length || out.some((l) => l.startsWith(`  ${code}: `))) continue;
    out.push(`  ${code}: ${t.map(([k, v]) => `${v}× "${k}"`).join('; ')}`);
  }
  out.push('', 'Unknown calls by name (diagnostics):');
  for (const g of GROUPS) {
    const t = top(s.languages[g].unknownCalls, 20);
    if (t.length) out.push(`  ${LABEL[g]}: ${t.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  out.push('', 'Per folder:');
  out.push(
    table(
      ['folder', 'files', 'defined', 'found', 'numbers', 'clean', 'clean+unsusp.', 'stores/0B', 'all-zero', 'loads/0B', 'unknown', 'crash', 's'],
      Object.entries(s.roots)
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([r, c]) => [
          r,
          String(c.files),
          String(c.defined),
          String(c.found),
          pct(c.withNumbers, c.found),
          pct(c.withNumbersClean, c.found),
          pct(c.withNumbersCleanUnsuspicious, c.found),
          String(c.suspicious.storesButZeroStoreBytes),
          String(c.suspicious.allZero),
          String(c.suspicious.loadsButZeroLoadBytes),
          String(c.suspicious.unknownCall),
          String(c.crashes + c.timeouts),
          (c.ms / 1000).toFixed(1),
        ]),
    ),
  );
  out.push('', 'Slowest files:');
  for (const f of s.slowest) out.push(`  ${String(f.ms).padStart(7)} ms  ${f.file} (${f.kernels} kernels, ${(f.bytes / 1024).toFixed(0)} KB)`);
  const sus = kernels.filter((k) => k.suspicious.some((x) => x !== 'unknownCall'));
  if (sus.length) {
    out.push('', `Suspicious kernels (first ${Math.min(sus.length, 25)} of ${sus.length}; --json has all):`);
    for (const k of sus.slice(0, 25))
      out.push(`  ${k.file}:${k.line} ${k.kernel}: ${k.flops ?? '?'} FLOP, ${k.loadBytes ?? '?'} B in, ${k.storeBytes ?? '?'} B out, ${k.status}: ${k.suspicious.filter((x) => x !== 'unknownCall').join(', ')}`);
  }
  if (s.crashes.length) {
    out.push('', `Crashes and timeouts (${s.crashes.length}):`);
    for (const c of s.crashes.slice(0, 25)) out.push(`  ${c.outcome} ${c.file}: ${c.error}`);
  }
  return out.join('\n') + '\n';
}
