/**
 * Text (terminal) and Markdown (pull-request comment) renderings of a diff
 * between two revisions (report/diff.ts computes it).
 */
import { flopRate, intensity, percent, seconds } from './format';
import { turnedMemoryBound, type DiffReport, type KernelChange, type KernelSnapshot, type PipelineChange, type Regression } from './diff';
import { boundLabel, mdCode, mdRow, mdText } from './render';

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

/** "T ≥ 54.4 µs → 41.2 µs (−24.4 %), 3 → 2 launches". */
function pipelineChange(x: PipelineChange): string {
  const pct = x.before && x.after !== null ? ` (${x.after >= x.before ? '+' : '−'}${percent(Math.abs(x.after - x.before) / x.before)})` : '';
  const l = x.launchesBefore !== x.launchesAfter ? `, ${x.launchesBefore ?? '–'} → ${x.launchesAfter ?? '–'} launches` : '';
  return `T_lower ${x.before === null ? '–' : seconds(x.before)} → ${x.after === null ? '–' : seconds(x.after)}${pct}${l}`;
}

