/**
 * How a kernel report is shown in the editor: CodeLens titles, hover
 * Markdown, diagnostic sentences and pragma edits. Pure functions over the
 * core's report, free of `vscode`, so every word is unit-tested.
 *
 * Wording rules: numbers come from the report and are formatted by
 * core/report/format; an unknown number is written `?` together with the
 * symbol that would make it known; nothing is rounded into a verdict the
 * report does not make.
 */
import type { BindingValue } from '../core/analyze';
import { readPragmas } from '../core/bindings';
import type { GpuSpec } from '../core/gpus/types';
import type { BindingSource, Language } from '../core/ir';
import { bytes, flopRate, flops, intensity, percent, sig, si } from '../core/report/format';
import { boundsSentence, incompleteText, marks, sizeMins, steadyText, steadyVerdict } from '../core/report/honesty';
import type { BreakdownItem, KernelReport, RegionReport } from '../core/report/types';

/** A loop whose share of the kernel's FLOPs or bytes reaches this gets its own lens. */
export const HOT_SHARE = 0.2;

/** Rows shown per hover table before "… N more". */
const MAX_ROWS = 12;

// ---------------------------------------------------------------------------
// Languages
// ---------------------------------------------------------------------------

/** VS Code language ids the extension serves, with the analysis language of each. */
export const SERVED_LANGUAGES: Readonly<Record<string, Language>> = {
  python: 'triton',
  'cuda-cpp': 'cuda',
  wgsl: 'wgsl',
  javascript: 'wgsl',
  typescript: 'wgsl',
};

export function analysisLanguage(languageId: string): Language | undefined {
  return Object.hasOwn(SERVED_LANGUAGES, languageId) ? SERVED_LANGUAGES[languageId] : undefined;
}

/** A cheap text test run before any parsing: files that fail it cannot hold a kernel. */
export function mayHaveKernels(languageId: string, text: string): boolean {
  switch (analysisLanguage(languageId)) {
    case 'triton':
      return text.includes('triton');
    case 'cuda':
      return text.includes('__global__');
    case 'wgsl':
      return text.includes('@compute');
    default:
      return false;
  }
}

export function commentPrefix(language: Language): string {
  return language === 'triton' ? '#' : '//';
}

// ---------------------------------------------------------------------------
// Shared phrases
// ---------------------------------------------------------------------------

/**
 * `memory-bound (DRAM)`, `memory-bound (L2)`, `compute-bound`, `bound unknown`;
 * with a `?` when the counts are bounds that could still change it (a lower
 * bound of the intensity below the ridge, an upper bound above it).
 */
export function verdict(k: KernelReport): string {
  const ai = k.complete ? 'exact' : k.bounds?.arithmeticIntensity;
  const unsure = (k.bound === 'memory' && ai === 'lower') || (k.bound === 'compute' && ai === 'upper') ? '?' : '';
  if (k.bound === 'compute') return `compute-bound${unsure}`;
  if (k.bound === 'memory') return `memory-bound (${k.boundLevel === 'l2' ? 'L2' : 'DRAM'})${unsure}`;
  return 'bound unknown';
}

/** Bytes a unit requests from global memory (loads + stores), or null. */
export function unitBytes(k: KernelReport): number | null {
  const { loadBytes, storeBytes } = k.perUnit;
  return loadBytes === null || storeBytes === null ? null : loadBytes + storeBytes;
}

/**
 * The unbound symbols that keep the per-unit counts unknown (those in the
 * FLOP and byte formulas); when none of them is in a formula, every unbound
 * symbol, in the report's order.
 */
export function blockingSymbols(k: KernelReport): string[] {
  const formulas = [k.formulas.flops, k.formulas.loadBytes, k.formulas.storeBytes];
  const blocking = k.unbound.filter((n) => formulas.some((f) => mentions(f, n)));
  return blocking.length > 0 ? blocking : [...k.unbound];
}

/** Does `text` mention the symbol `name` as a whole token? */
export function mentions(text: string, name: string): boolean {
  const isNameChar = (c: string | undefined): boolean => c !== undefined && /[\w.]/.test(c);
  for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
    if (!isNameChar(text[i - 1]) && !isNameChar(text[i + name.length])) return true;
  }
  return false;
}

/** Share of `part` in `whole` (0..1), or null when either is unknown or the whole is 0. */
export function share(part: number | null, whole: number | null): number | null {
  return part === null || whole === null || whole <= 0 ? null : part / whole;
}

function regionBytes(r: RegionReport): number | null {
  return r.loadBytes === null || r.storeBytes === null ? null : r.loadBytes + r.storeBytes;
}

/** A count as written in prose: `64`, `4096`, `1.05 M`. */
function count(n: number): string {
  return Number.isInteger(n) && n < 1e6 ? String(n) : si(n, '').trimEnd();
}

// ---------------------------------------------------------------------------
// CodeLens
// ---------------------------------------------------------------------------

export type LensAction = { kind: 'panel' } | { kind: 'bind'; symbol: string } | { kind: 'none' };

export interface LensItem {
  /** 1-based line the lens sits above. */
  line: number;
  title: string;
  action: LensAction;
}

/**
 * The lens above a kernel (at `line`, 1-based: its first decorator line), e.g. `AI 83.6 FLOP/B · memory-bound (L2) · H100 SXM ·
 * 268 MFLOP / 3.21 MB per program`; an unknown intensity reads `AI ? · bind K`,
 * with one more `bind N` lens per further symbol it needs.
 */
export function kernelLenses(k: KernelReport, gpuName: string, line = k.line): LensItem[] {
  const at = (title: string, action: LensAction): LensItem => ({ line, title, action });
  const m = marks(k);
  const inc = incompleteText(k);
  const tail = inc ? ` · ${inc}` : '';
  const reasons = k.incompleteReasons ?? [];
  if (k.perUnit.flops === null && k.perUnit.loadBytes === null && (reasons.includes('kernelTruncated') || reasons.includes('internal'))) {
    return [at(`AI ? · ${reasons.includes('internal') ? 'internal error (see Problems)' : 'analysis cut short by its budget (see Problems)'}`, { kind: 'panel' })];
  }
  const ai = k.arithmeticIntensity;
  if (ai !== null) {
    const work = `${m.flops}${flops(k.perUnit.flops)} / ${m.bytes}${bytes(unitBytes(k))} per ${k.unit}`;
    return [at(`AI ${m.intensity}${intensity(ai)} FLOP/B · ${verdict(k)} · ${gpuName} · ${work}${tail}`, { kind: 'panel' })];
  }
  if (k.bound === 'compute') {
    return [at(`AI ∞ (no global-memory bytes) · compute-bound · ${gpuName} · ${m.flops}${flops(k.perUnit.flops)} per ${k.unit}${tail}`, { kind: 'panel' })];
  }
  const [first, ...rest] = blockingSymbols(k);
  const binds = (names: string[]) => names.map((s) => at(`bind ${s}`, { kind: 'bind', symbol: s }));
  if (k.arithmeticIntensitySteady) {
    // A real, labelled number: the dominant loop's intensity per iteration, not the full count.
    return [at(`${steadyText(k)} · ${steadyVerdict(k)} · ${gpuName}${tail}`, { kind: 'panel' }), ...binds([first, ...rest].filter((s): s is string => s !== undefined))];
  }
  // A complete count of nothing is an answer, not a failure: the kernel touches no global memory and does no FLOPs.
  if (first === undefined && k.complete && k.perUnit.flops === 0 && unitBytes(k) === 0)
    return [at(`no global work · 0 FLOP, 0 B per ${k.unit} (nothing to place on the roofline)`, { kind: 'panel' })];
  if (first === undefined) return [at(`AI ? · ${incompleteReason(k)}`, { kind: 'panel' })];
  return [at(`AI ? · bind ${first}${tail}`, { kind: 'bind', symbol: first }), ...binds(rest)];
}

function incompleteReason(k: KernelReport): string {
  if (k.perUnit.flops === 0 && unitBytes(k) === 0) return 'no FLOPs or global-memory bytes counted';
  return 'counts incomplete (see Problems)';
}

/** Loops that dominate the kernel's FLOPs or bytes, or whose trip count is unknown. */
export function hotLoops(k: KernelReport): RegionReport[] {
  return k.regions.filter((r) => {
    if (r.kind !== 'loop') return false;
    if (r.trips === null) return true;
    const f = share(r.flops, k.perUnit.flops);
    const b = share(regionBytes(r), unitBytes(k));
    return (f !== null && f >= HOT_SHARE) || (b !== null && b >= HOT_SHARE);
  });
}

/** `loop: 64 trips · 100 % of FLOPs · 99.2 % of bytes`, or `loop: ? trips (cdiv(K, BLOCK_K)) · bind K`. */
export function loopLenses(k: KernelReport): LensItem[] {
  return hotLoops(k).map((r) => {
    if (r.trips === null) {
      const symbol = k.unbound.find((n) => mentions(r.tripsFormula, n));
      const title = `loop: ? trips (${r.tripsFormula})${symbol ? ` · bind ${symbol}` : ''}`;
      return { line: r.line, title, action: symbol ? { kind: 'bind', symbol } : { kind: 'none' } };
    }
    const parts = [`loop: ${count(r.trips)} trips`];
    const f = share(r.flops, k.perUnit.flops);
    const b = share(regionBytes(r), unitBytes(k));
    if (f !== null) parts.push(`${percent(f)} of FLOPs`);
    if (b !== null) parts.push(`${percent(b)} of bytes`);
    return { line: r.line, title: parts.join(' · '), action: { kind: 'none' } };
  });
}

// ---------------------------------------------------------------------------
// Hover
// ---------------------------------------------------------------------------

/** Command links the hover may offer (command: URIs built by the caller). */
export interface HoverLinks {
  bind(symbol: string): string;
  panel(): string;
}

/** Escapes text for Markdown prose and table cells. */
export function mdText(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** Escapes prose that marks code with backticks: the code spans stay, everything else is escaped. */
export function mdProse(s: string): string {
  const parts = s.split('`');
  if (parts.length % 2 === 0) return mdText(s);
  return parts.map((p, i) => (i % 2 === 1 ? mdCode(p) : mdText(p))).join('');
}

/** A Markdown code span that survives backticks and pipes inside `s`. */
export function mdCode(s: string): string {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const body = s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return `${fence}${body.startsWith('`') || body.endsWith('`') ? ` ${body} ` : body}${fence}`;
}

function bandwidth(x: number): string {
  return si(x, 'B/s');
}

/** The sentence saying what would change the verdict ("compute-bound needs ≥ 295 FLOP/B: …"). */
export function verdictChange(k: KernelReport): string {
  const tile = k.arithmeticIntensity;
  const dram = k.compulsoryIntensity ?? tile;
  const dramName = k.compulsoryIntensity !== null ? 'compulsory intensity' : 'tile intensity';
  const short = (need: number, now: number): string => (now > 0 ? ` (${sig(need / now, 2)}× short)` : '');
  if (k.bound === 'unknown') {
    const names = blockingSymbols(k);
    return names.length > 0
      ? `Bind ${names.map(mdCode).join(', ')} to place this kernel on the roofline.`
      : 'The counts are incomplete, so this kernel has no place on the roofline yet.';
  }
  if (k.bound === 'compute') {
    if (dram === null) return 'No global-memory bytes: compute-bound at any bandwidth.';
    const dramPart = `its ${dramName} (now ${intensity(dram)}) falls below ${intensity(k.ridgePoint)} FLOP/B against DRAM`;
    const l2Part =
      k.l2RidgePoint !== null && tile !== null ? ` or its tile intensity (now ${intensity(tile)}) below ${intensity(k.l2RidgePoint)} FLOP/B against L2` : '';
    return `**Memory-bound if** ${dramPart}${l2Part}.`;
  }
  const dramShort = dram !== null && dram < k.ridgePoint;
  const l2Short = k.l2RidgePoint !== null && tile !== null && tile < k.l2RidgePoint;
  const dramNeed = `≥ ${intensity(k.ridgePoint)} FLOP/B`;
  const l2Need = k.l2RidgePoint === null ? '' : `≥ ${intensity(k.l2RidgePoint)} FLOP/B per tile`;
  if (k.boundLevel === 'l2' && tile !== null && k.l2RidgePoint !== null) {
    const also = dramShort && dram !== null ? ` DRAM also needs ${dramNeed} (${dramName} now ${intensity(dram)}).` : '';
    return `**Compute-bound needs ${l2Need}** against L2: the tile intensity is ${intensity(tile)} FLOP/B${short(k.l2RidgePoint, tile)}; larger tiles reuse each loaded byte more.${also}`;
  }
  const now = dram === null ? '?' : intensity(dram);
  const also = l2Short && tile !== null ? ` L2 also needs ${l2Need} (tile intensity now ${intensity(tile)}).` : '';
  return `**Compute-bound needs ${dramNeed}** against DRAM: the ${dramName} is ${now} FLOP/B${dram === null ? '' : short(k.ridgePoint, dram)}.${also}`;
}

/** `min(peak …, DRAM … × … = …, L2 … × … = …)` with the limiting term named. */
function attainableLine(k: KernelReport, gpu: GpuSpec): string {
  const tile = k.arithmeticIntensity;
  const dram = k.compulsoryIntensity ?? tile;
  const terms = [`peak ${flopRate(k.peak.flops)} (${k.peak.kind} ${k.peak.dtype})`];
  if (dram !== null) terms.push(`DRAM ${bandwidth(gpu.memoryBandwidth)} × ${intensity(dram)} FLOP/B = ${flopRate(gpu.memoryBandwidth * dram)}`);
  if (gpu.l2Bandwidth !== null && tile !== null) terms.push(`L2 ${bandwidth(gpu.l2Bandwidth)} × ${intensity(tile)} FLOP/B = ${flopRate(gpu.l2Bandwidth * tile)}`);
  const limit = k.bound === 'compute' ? 'the peak limits' : k.boundLevel === 'l2' ? 'L2 limits' : 'DRAM limits';
  const ofPeak = k.attainableFlops === null ? '' : ` (${percent(k.attainableFlops / k.peak.flops)} of peak)`;
  return `Attainable **${flopRate(k.attainableFlops)}**${ofPeak} = min(${terms.join(', ')}): ${limit}.`;
}

/** A Markdown table; `align` has one letter per column: l(eft) or r(ight). */
function table(header: string[], align: string, rows: string[][]): string[] {
  if (rows.length === 0) return [];
  const out = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (align[i] === 'r' ? ' ---: ' : ' --- ')).join('|')}|`];
  for (const r of rows.slice(0, MAX_ROWS)) out.push(`| ${r.join(' | ')} |`);
  if (rows.length > MAX_ROWS) out.push(`| … ${rows.length - MAX_ROWS} more |${' |'.repeat(header.length - 1)}`);
  return out;
}

function breakdownRows(items: BreakdownItem[], whole: number | null, fmt: (x: number | null) => string): string[][] {
  return items.map((it) => {
    const s = share(it.value, whole);
    return [mdText(it.label), String(it.line), fmt(it.value), s === null ? '?' : percent(s), mdCode(it.formula)];
  });
}

/** Where a binding's value came from, as the hover says it. */
export function bindingSourceText(source: BindingSource, detail: string): string {
  return source === 'user' ? 'setting rooflineLens.bindings' : detail;
}

function bindingLines(k: KernelReport, links: HoverLinks): string[] {
  const out: string[] = [];
  const names = Object.keys(k.bindings).sort();
  if (names.length > 0) {
    out.push('**Bindings**', '');
    for (const n of names.slice(0, MAX_ROWS * 2)) {
      const src = k.bindingSources[n];
      out.push(`- ${mdCode(n)} = ${mdCode(String(k.bindings[n]))}${src ? ` · ${mdProse(bindingSourceText(src.source, src.detail))}` : ''}`);
    }
    if (names.length > MAX_ROWS * 2) out.push(`- … ${names.length - MAX_ROWS * 2} more`);
    out.push('');
  }
  if (k.unbound.length > 0) {
    out.push(`**Unbound**: ${k.unbound.map((n) => `${mdCode(n)} ([bind](${links.bind(n)}))`).join(', ')}`, '');
  }
  if (k.undecided && k.undecided.length > 0) {
    out.push(`**Not bound, the costlier choice counted**: ${k.undecided.map((n) => `${mdCode(n)} ([bind](${links.bind(n)}))`).join(', ')}`, '');
  }
  return out;
}

/** The analysis speaks the command line's flags; this says what they are in the editor. */
const EDITOR_FLAGS = 'In the editor, `--set NAME=…` is the `rooflineLens.bindings` setting (or a pragma comment) and `--dtype NAME=…` is `rooflineLens.dtypes`.';

/** The full analysis of one kernel, shown when hovering its name. */
export function kernelHover(k: KernelReport, gpu: GpuSpec, links: HoverLinks): string {
  const out: string[] = [];
  out.push(`**${mdText(k.name)}** · **${verdict(k)}** on ${mdText(gpu.name)} · [show roofline](${links.panel()})`, '');
  const m = marks(k);
  if (!k.complete) out.push(`**${mdText(capitalize(incompleteText(k)))}**. ${mdText(boundsSentence(k))} The warnings name each and how to fix it.`, '');
  const ai = k.arithmeticIntensity === null ? (k.bound === 'compute' ? '∞' : '?') : `${m.intensity}${intensity(k.arithmeticIntensity)}`;
  const compulsory = k.compulsoryIntensity === null ? '' : ` · compulsory ${m.intensity}${intensity(k.compulsoryIntensity)} FLOP/B`;
  const l2Ridge = k.l2RidgePoint === null ? '' : `, ${intensity(k.l2RidgePoint)} FLOP/B (L2)`;
  out.push(`AI **${mdText(ai)} FLOP/B** per ${k.unit} (tile)${compulsory} · ridge point ${intensity(k.ridgePoint)} FLOP/B (DRAM)${l2Ridge}`, '');
  const s = k.arithmeticIntensitySteady;
  if (s?.scope === 'kernel') {
    const comp = s.compulsory === null ? '' : ` (compulsory ${intensity(s.compulsory)} FLOP/B)`;
    out.push(
      `**Intensity without the sizes**: FLOPs and bytes both scale with ${s.independentOf.map((n) => `${mdCode(n)} ([bind](${links.bind(n)}))`).join(', ')}, so their ratio is ${intensity(s.value)} FLOP/B for any value${comp} · **${steadyVerdict(k)}** on ${mdText(gpu.name)}, attainable ${flopRate(s.attainableFlops)}. Bind them for the FLOPs and bytes themselves.`,
      '',
    );
  } else if (s?.scope === 'range' && s.range) {
    out.push(
      `**Intensity without the sizes**: FLOPs and bytes both grow with ${s.independentOf.map((n) => `${mdCode(n)} ([bind](${links.bind(n)}))`).join(', ')}, and their ratio stays between ${intensity(s.range[0])} and ${intensity(s.range[1])} FLOP/B for any ${mdText(sizeMins(s.independentOf))} (${intensity(s.value)} as they grow) · **${steadyVerdict(k)}** on ${mdText(gpu.name)} at both ends, attainable ${flopRate(s.attainableFlops)}. Bind them for the FLOPs and bytes themselves.`,
      '',
    );
  } else if (s) {
    const comp = s.compulsory === null ? '' : ` (compulsory ${intensity(s.compulsory)} FLOP/B in the limit)`;
    out.push(
      `**Steady state** of the loop at line ${s.loopLine} (${mdCode(s.loopLabel)}): ${intensity(s.value)} FLOP/B per iteration${comp}, independent of ${s.independentOf.map((n) => `${mdCode(n)} ([bind](${links.bind(n)}))`).join(', ')} · **${steadyVerdict(k)}** on ${mdText(gpu.name)}, attainable ${flopRate(s.attainableFlops)}. ${s.limit ? 'The whole kernel tends to it as the loop grows; ' : ''}not the full count: bind ${s.independentOf.map(mdCode).join(', ')} for that.`,
      '',
    );
  }
  if (k.bound !== 'unknown') out.push(attainableLine(k, gpu), '');
  out.push(verdictChange(k), '', '---', '');

  const units = k.units === null ? '' : ` · ${count(k.units)} ${k.unit}s`;
  out.push(`**Per ${k.unit}**: ${m.flops}${flops(k.perUnit.flops)} · loads ${m.bytes}${bytes(k.perUnit.loadBytes)} · stores ${m.bytes}${bytes(k.perUnit.storeBytes)}${units}`, '');
  out.push(`- FLOPs = ${mdCode(k.formulas.flops)}`);
  out.push(`- loads = ${mdCode(k.formulas.loadBytes)} B · stores = ${mdCode(k.formulas.storeBytes)} B`);
  if (k.formulas.units) out.push(`- ${k.unit}s = ${mdCode(k.formulas.units)}`);
  out.push('');

  const flopRows = breakdownRows(k.breakdown.flops, k.perUnit.flops, flops);
  if (flopRows.length > 0) out.push('**FLOPs by operation**', '', ...table(['operation', 'line', 'FLOPs', 'share', 'formula'], 'lrrrl', flopRows), '');
  const byteRows = breakdownRows(k.breakdown.bytes, unitBytes(k), bytes);
  if (byteRows.length > 0) out.push('**Bytes by tensor**', '', ...table(['access', 'line', 'bytes', 'share', 'formula'], 'lrrrl', byteRows), '');
  const loopRows = k.regions.map((r) => [
    mdCode(r.label),
    String(r.line),
    r.kind === 'loop' ? `${r.trips === null ? '?' : count(r.trips)} = ${mdCode(r.tripsFormula)}` : 'taken',
    shareText(share(r.flops, k.perUnit.flops)),
    shareText(share(regionBytes(r), unitBytes(k))),
  ]);
  if (loopRows.length > 0) out.push('**Loops and branches**', '', ...table(['region', 'line', 'trips', 'FLOPs', 'bytes'], 'lrrrr', loopRows), '');

  out.push(...bindingLines(k, links));
  if (k.assumptions.length > 0) out.push('**Assumptions**', '', ...k.assumptions.map((a) => `- ${mdProse(a)}`), '');
  if (k.assumptions.some((a) => a.includes('--set') || a.includes('--dtype'))) out.push(EDITOR_FLAGS, '');
  if (k.compulsory?.note) out.push(`Compulsory traffic: ${mdProse(k.compulsory.note)}`, '');
  return out.join('\n').trimEnd();
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function shareText(s: number | null): string {
  return s === null ? '?' : percent(s);
}

/** One line naming the kernel's verdict, closing the smaller hovers. */
export function kernelSummary(k: KernelReport, gpuName: string): string {
  const ai = k.arithmeticIntensity === null ? '?' : intensity(k.arithmeticIntensity);
  return `${mdCode(k.name)}: AI ${ai} FLOP/B · ${verdict(k)} on ${mdText(gpuName)} (hover the kernel name for the whole analysis)`;
}

/** What the kernel counted on one line: loop or branch headers, operations, loads and stores. */
export function lineHover(k: KernelReport, line: number, gpuName: string): string | undefined {
  const parts: string[] = [];
  const unitB = unitBytes(k);
  for (const r of k.regions.filter((x) => x.line === line)) {
    const f = share(r.flops, k.perUnit.flops);
    const b = share(regionBytes(r), unitB);
    const contributes = `per ${k.unit} it contributes ${flops(r.flops)} (${shareText(f)} of FLOPs) and ${bytes(regionBytes(r))} (${shareText(b)} of bytes)`;
    if (r.kind === 'loop') {
      const n = r.trips === null ? '? trips' : `${count(r.trips)} trips`;
      parts.push(`**Loop** ${mdCode(r.label)}: ${n} per entry = ${mdCode(r.tripsFormula)}; ${contributes}.`);
    } else parts.push(`**Branch** ${mdCode(r.label)}: counted as taken; ${contributes}.`);
  }
  for (const it of k.breakdown.flops.filter((x) => x.line === line)) {
    parts.push(`${mdCode(it.label)}: ${flops(it.value)} per ${k.unit} (${shareText(share(it.value, k.perUnit.flops))} of FLOPs) = ${mdCode(it.formula)}`);
  }
  for (const it of k.breakdown.bytes.filter((x) => x.line === line)) {
    parts.push(`${mdText(it.label)}: ${bytes(it.value)} per ${k.unit} (${shareText(share(it.value, unitB))} of bytes) = ${mdCode(it.formula)}`);
  }
  if (parts.length === 0) return undefined;
  return [...parts.flatMap((p) => [p, '']), '---', '', kernelSummary(k, gpuName)].join('\n');
}

/** Lines (1-based) that have a hover of their own: region headers and breakdown items. */
export function hoverLines(k: KernelReport): Set<number> {
  return new Set([...k.regions.map((r) => r.line), ...k.breakdown.flops.map((x) => x.line), ...k.breakdown.bytes.map((x) => x.line)]);
}

// ---------------------------------------------------------------------------
// Diagnostics
// ---------------------------------------------------------------------------

/** Why a kernel has no intensity, as an information diagnostic; undefined when it has one. */
export function notEstimatedReason(k: KernelReport, language: Language): string | undefined {
  if (k.arithmeticIntensity !== null || k.bound !== 'unknown') return undefined;
  const names = blockingSymbols(k);
  if (names.length > 0) {
    const list = names.map((n) => `\`${n}\``).join(', ');
    const pragma = `${commentPrefix(language)} roofline: ${names[0]}=…`;
    return `${k.name}: arithmetic intensity not estimated: ${list} unknown. Bind ${names.length > 1 ? 'them' : 'it'} with "Roofline: Bind Symbol…", the rooflineLens.bindings setting or a \`${pragma}\` comment.`;
  }
  if (k.perUnit.flops === 0 && unitBytes(k) === 0) return `${k.name}: arithmetic intensity not estimated: no FLOPs and no global-memory bytes were counted.`;
  return `${k.name}: arithmetic intensity not estimated: the counts are incomplete (see the other problems reported for this file).`;
}

// ---------------------------------------------------------------------------
// Pragma comments
// ---------------------------------------------------------------------------

/** A one-line edit: replace line `line` (0-based) with `text`, or insert `text` before it. */
export interface LineEdit {
  line: number;
  text: string;
  replace: boolean;
}

/** The pragma text of a value (`4096`, `true`, `fp16`). */
export function pragmaValue(value: BindingValue): string {
  return String(value);
}

/** Can `value` be written in a pragma (no spaces, commas or comment ends)? */
export function isPragmaValue(value: BindingValue): boolean {
  const s = pragmaValue(value);
  return s.length > 0 && s.length <= 100 && !/[\s,]|\*\//.test(s);
}

/**
 * Where `name=value` goes: replaces the value in an existing pragma that binds
 * `name`; else appends to a pragma line right above the kernel; else inserts
 * `# roofline: name=value` (or `//`) above the kernel and its one-line
 * decorators, attributes or template header.
 */
export function pragmaEdit(lines: readonly string[], kernelLine: number, language: Language, name: string, value: BindingValue): LineEdit {
  const pair = `${name}=${pragmaValue(value)}`;
  for (let i = 0; i < lines.length; i++) {
    if (!readPragmas(lines[i]).some((p) => p.name === name)) continue;
    const replaced = replacePair(lines[i], name, pair);
    if (replaced !== undefined) return { line: i, text: replaced, replace: true };
  }
  const def = Math.min(Math.max(kernelLine - 1, 0), Math.max(lines.length - 1, 0));
  const top = headerTop((i) => lines[i], def);
  const above = top > 0 ? lines[top - 1] : undefined;
  const prefix = commentPrefix(language);
  if (above !== undefined && above.trimStart().startsWith(`${prefix} roofline:`) && !above.includes('*/')) {
    return { line: top - 1, text: `${above.trimEnd()} ${pair}`, replace: true };
  }
  const indent = /^\s*/.exec(lines[def] ?? '')?.[0] ?? '';
  return { line: top, text: `${indent}${prefix} roofline: ${pair}`, replace: false };
}

/** Replaces the `name=…` token in a pragma line, or undefined when it is not there as a token. */
function replacePair(line: string, name: string, pair: string): string | undefined {
  const start = line.indexOf('roofline:');
  for (let i = line.indexOf(`${name}=`, start); i >= 0; i = line.indexOf(`${name}=`, i + 1)) {
    const before = line[i - 1];
    if (before !== undefined && !/[\s,:]/.test(before)) continue;
    let end = i + name.length + 1;
    while (end < line.length && !/[\s,]/.test(line[end]) && !line.startsWith('*/', end)) end++;
    return line.slice(0, i) + pair + line.slice(end);
  }
  return undefined;
}

/**
 * The first line (0-based) of a kernel's one-line decorators, attributes or
 * template header above its definition line `def` (0-based); `def` itself
 * when there are none. Lenses and pragmas go above it.
 */
export function headerTop(lineAt: (i: number) => string, def: number): number {
  let top = def;
  while (top > 0 && isHeaderLine(lineAt(top - 1))) top--;
  return top;
}

/** A decorator, attribute or template header written on one line above a kernel. */
function isHeaderLine(line: string): boolean {
  const t = line.trim();
  const balanced = [...t].reduce((depth, c) => depth + (c === '(' ? 1 : c === ')' ? -1 : 0), 0) === 0;
  if (t.startsWith('@')) return balanced;
  return t.startsWith('template') && t.endsWith('>');
}
