/**
 * What the roofline panel shows, computed from reports: the kernel table,
 * the what-if controls of the selected kernel and the new values of its
 * formulas, the GPU and precision choices, and the profile summary. Pure
 * functions over the core's reports, free of `vscode`, so every rule here is
 * unit-tested.
 */
import type { GpuSpec } from '../core/gpus/types';
import type { Language } from '../core/ir';
import { kernelId, type PrecisionKey } from '../core/report/chart';
import { bytes, flopRate, flops, intensity, percent } from '../core/report/format';
import { boundsSentence, incompleteText, marks, sizeLabel, wholeKernel } from '../core/report/honesty';
import { measuredLabel } from '../core/report/render';
import type { FileReport, KernelReport, MeasuredSummary, ProfileSummary } from '../core/report/types';
import type { TableCell, TableColumn, TableModel, TableRow } from '../shared/table';
import type { Choice, ProfileModel, WhatIfControl, WhatIfModel, WhatIfResult, WhatIfState } from '../shared/panelProtocol';
import { WHAT_IF_DTYPES } from '../shared/panelProtocol';
import { commentPrefix, isPragmaValue, mentions, pragmaValue, unitBytes, verdict } from './present';
import { isSymbolName } from '../shared/symbols';

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

const KERNEL_COLUMNS: TableColumn[] = [
  { key: 'kernel', label: 'kernel', numeric: false },
  { key: 'at', label: 'line', numeric: true },
  { key: 'ai', label: 'AI (FLOP/B)', numeric: true, title: 'Tile intensity: FLOPs ÷ bytes one unit requests from global memory' },
  { key: 'compulsory', label: 'compulsory AI', numeric: true, title: 'FLOPs ÷ the bytes the whole launch must move at least (perfect reuse)' },
  { key: 'attainable', label: 'attainable', numeric: true, title: 'min(peak, bandwidth × intensity)' },
  { key: 'ofPeak', label: '% of peak', numeric: true },
  { key: 'bound', label: 'bound', numeric: false },
  { key: 'flops', label: 'FLOPs / unit', numeric: true },
  { key: 'bytes', label: 'bytes / unit', numeric: true, title: 'Global-memory loads + stores of one unit' },
];

const WORKSPACE_AT: TableColumn = { key: 'at', label: 'file', numeric: false };

/** Shown when some kernel's numbers are not the full, clean count: what they are and what to do. */
const NOTES_COLUMN: TableColumn = { key: 'notes', label: 'notes', numeric: false, title: 'Steady-state numbers (bind the symbol for the full count), incomplete counts and why a kernel has no dot' };

const PROFILE_COLUMNS: TableColumn[] = [
  { key: 'achieved', label: 'measured', numeric: true, title: 'Achieved FLOP/s in the imported profile' },
  { key: 'ofRoof', label: 'of roof', numeric: true, title: 'Achieved FLOP/s ÷ the roof at the measured intensity' },
  { key: 'ofEstimate', label: 'of estimate', numeric: true, title: "Achieved FLOP/s ÷ the estimate's attainable FLOP/s" },
  { key: 'situation', label: 'situation', numeric: false },
  { key: 'advice', label: 'advice', numeric: false },
  { key: 'flopsRatio', label: 'FLOPs meas./est.', numeric: true },
  { key: 'bytesRatio', label: 'bytes meas./est.', numeric: true, title: 'Measured DRAM bytes ÷ the estimate (per launch × launches)' },
];

function num(x: number | null, text: (x: number) => string): TableCell {
  return x === null || !Number.isFinite(x) ? { text: x === Infinity ? '∞' : '?', sort: x === Infinity ? Infinity : null } : { text: text(x), sort: x };
}

function txt(text: string, title?: string): TableCell {
  return title ? { text, sort: text, title } : { text, sort: text };
}

/** `×0.75`, `×12`. */
export function ratioText(r: number): string {
  return `×${r >= 10 ? Math.round(r) : r.toFixed(2)}`;
}

/** A number with the mark of its bound (`≥ 0.5`), sorted by its value. */
function marked(x: number | null, mark: string, text: (x: number) => string, title?: string): TableCell {
  const c = num(x, text);
  return { ...c, text: c.sort === null || typeof c.sort !== 'number' ? c.text : `${mark}${c.text}`, ...(title ? { title } : {}) };
}

/** `K-loop` for one symbol, `loop` for several. */
function loopName(symbols: string[]): string {
  return symbols.length === 1 ? `${symbols[0]}-loop` : 'loop';
}

/**
 * What a kernel's row says about its numbers when they are not the full,
 * clean count (COUNTING.md, "Honesty"), or '' when they are.
 */
export function kernelNote(k: KernelReport): string {
  const parts: string[] = [];
  const s = k.arithmeticIntensity === null ? k.arithmeticIntensitySteady : undefined;
  if (s && wholeKernel(s)) parts.push(`${sizeLabel(s)}: bind ${s.independentOf.join(', ')} for the FLOPs and bytes`);
  else if (s) parts.push(`${loopName(s.independentOf)} steady state (line ${s.loopLine}): not the full count — bind ${s.independentOf.join(', ')}`);
  if (!k.complete) {
    const sentence = boundsSentence(k);
    parts.push(`${incompleteText(k)}${sentence ? ` — ${sentence.replace(/\.$/, '')}` : ''}`);
  }
  // A log axis has no 0: a kernel without FLOPs (a copy) is memory-bound but has no dot.
  if ((k.arithmeticIntensity ?? s?.value) === 0) parts.push('not on the chart: no FLOPs (intensity 0 has no place on a log axis)');
  else if (!s && (k.arithmeticIntensity === null || k.attainableFlops === null) && k.bound !== 'compute') {
    const why = k.unbound.length ? `bind ${k.unbound.join(', ')}` : k.complete ? 'its counts are not known' : 'its intensity is not known';
    parts.push(`not on the chart: ${why}`);
  }
  return parts.join('; ');
}

function kernelCells(f: FileReport, k: KernelReport, workspace: boolean): Record<string, TableCell> {
  const s = k.arithmeticIntensity === null ? k.arithmeticIntensitySteady : undefined;
  const peak = `${k.peak.kind} ${k.peak.dtype} peak ${flopRate(k.peak.flops)}`;
  const base = { kernel: txt(k.name), at: workspace ? txt(`${f.path}:${k.line}`) : num(k.line, String) };
  const m = marks(k);
  const note = kernelNote(k);
  const notes: Record<string, TableCell> = note ? { notes: txt(note, note) } : {};
  if (s && wholeKernel(s)) {
    // Exact, or within a narrow range: FLOPs and bytes scale together with the unbound sizes; only the counts need them.
    const title = `${sizeLabel(s)}: FLOPs and bytes both ${s.scope === 'range' ? 'grow' : 'scale'} with ${s.independentOf.join(', ')}; bind them for the counts`;
    return {
      ...base,
      ai: { text: `${m.intensity || (s.scope === 'range' ? '≈ ' : '')}${intensity(s.value)}`, sort: s.value, title },
      compulsory: s.compulsory === null ? num(null, intensity) : { text: intensity(s.compulsory), sort: s.compulsory, title },
      attainable: { text: flopRate(s.attainableFlops), sort: s.attainableFlops },
      ofPeak: { text: percent(s.attainableFlops / k.peak.flops), sort: s.attainableFlops / k.peak.flops },
      bound: txt(s.bound === 'compute' ? 'compute-bound' : `memory-bound (${s.boundLevel === 'l2' ? 'L2' : 'DRAM'})`, peak),
      flops: num(k.perUnit.flops, flops),
      bytes: num(unitBytes(k), bytes),
      ...notes,
    };
  }
  if (s) {
    // The steady state: a real, labelled number, never the full count.
    const loop = loopName(s.independentOf);
    const title = `${loop} steady state: the intensity per iteration of the loop at line ${s.loopLine} (${s.loopLabel})${s.limit ? ', which the whole kernel tends to' : ''}; not the full count — bind ${s.independentOf.join(', ')}`;
    return {
      ...base,
      ai: { text: `${m.intensity || "≈ "}${intensity(s.value)} (${loop} steady state)`, sort: s.value, title },
      compulsory: s.compulsory === null ? num(null, intensity) : { text: `≈ ${intensity(s.compulsory)}`, sort: s.compulsory, title },
      attainable: { text: `≈ ${flopRate(s.attainableFlops)}`, sort: s.attainableFlops, title },
      ofPeak: { text: `≈ ${percent(s.attainableFlops / k.peak.flops)}`, sort: s.attainableFlops / k.peak.flops },
      bound: txt(`${s.bound === 'compute' ? 'compute-bound' : `memory-bound (${s.boundLevel === 'l2' ? 'L2' : 'DRAM'})`} at the steady state`, peak),
      flops: num(k.perUnit.flops, flops),
      bytes: num(unitBytes(k), bytes),
      ...notes,
    };
  }
  // A bound of the intensity moves the attainable FLOP/s on the slope, not on the flat roof.
  const att = m.intensity === '≤ ' ? '≤ ' : m.intensity === '≥ ' && k.bound !== 'compute' ? '≥ ' : '';
  const sentence = k.complete ? undefined : boundsSentence(k) || undefined;
  return {
    ...base,
    ai: marked(k.arithmeticIntensity, m.intensity, intensity, sentence),
    compulsory: marked(k.compulsoryIntensity, m.intensity, intensity, sentence),
    attainable: marked(k.attainableFlops, att, flopRate),
    ofPeak: marked(k.attainableFlops === null ? null : k.attainableFlops / k.peak.flops, att, percent),
    bound: txt(verdict(k), peak),
    flops: marked(k.perUnit.flops, m.flops, flops),
    bytes: marked(unitBytes(k), m.bytes, bytes),
    ...notes,
  };
}

/** A measured launch's own estimate (its sizes from the profile) in the estimate's columns. */
function launchEstimateCells(m: MeasuredSummary): Record<string, TableCell> {
  const e = m.launchEstimate;
  if (!e) return {};
  return {
    ai: num(e.arithmeticIntensity, intensity),
    compulsory: num(e.compulsoryIntensity, intensity),
    attainable: num(e.attainableFlops, flopRate),
    flops: num(e.flops !== null && e.units ? e.flops / e.units : null, flops),
  };
}

function measuredCells(m: MeasuredSummary | undefined): Record<string, TableCell> {
  if (!m) return Object.fromEntries(PROFILE_COLUMNS.map((c) => [c.key, { text: '—', sort: null }]));
  const situation = m.situation === 'unknown' ? `unknown${m.reason ? ` (${m.reason})` : ''}` : m.situation;
  return {
    achieved: m.flopsLowerBound && m.achievedFlops !== null ? { text: `≥ ${flopRate(m.achievedFlops)}`, sort: m.achievedFlops, title: (m.flopsLowerBoundReasons ?? ['counters are missing']).join('\n') } : num(m.achievedFlops, flopRate),
    ofRoof: num(m.fractionOfRoof, percent),
    ofEstimate: num(m.fractionOfEstimate, percent),
    situation: txt(situation),
    advice: txt(m.advice.slice(0, 2).join(' '), m.advice.join('\n')),
    flopsRatio: num(m.flopsRatio, ratioText),
    bytesRatio: num(m.bytesRatio, ratioText),
  };
}

/**
 * One row per kernel; with a profile, one row per measured launch group
 * (a kernel without a match keeps one row with empty measured cells).
 */
export function panelTable(files: FileReport[], opts: { workspace: boolean; profile: boolean }): TableModel {
  const columns = KERNEL_COLUMNS.map((c) => (c.key === 'at' && opts.workspace ? WORKSPACE_AT : c));
  if (files.some((f) => f.kernels.some((k) => kernelNote(k) !== ''))) columns.push(NOTES_COLUMN);
  if (opts.profile) columns.push(...PROFILE_COLUMNS);
  const rows: TableRow[] = [];
  for (const f of files)
    for (const k of f.kernels) {
      const id = kernelId(f.path, k);
      const base = kernelCells(f, k, opts.workspace);
      const measured = opts.profile ? (k.measured ?? []) : [];
      if (measured.length <= 1) {
        const m = measured[0];
        const named: Record<string, TableCell> = m && (m.launchSizes || m.gpu?.isSelected === false) ? { kernel: txt(measuredLabel(k.name, m)) } : {};
        rows.push({ id, kernelId: id, cells: opts.profile ? { ...base, ...(m ? launchEstimateCells(m) : {}), ...named, ...measuredCells(m) } : base });
      } else
        for (const m of measured) {
          const name = txt(m.key.includes('#') ? `${k.name} · launch ${m.key.slice(m.key.lastIndexOf('#') + 1)}` : m.launchSizes || m.gpu ? measuredLabel(k.name, m) : `${k.name} · ${m.key}`);
          rows.push({ id: `${id}|${m.key}`, kernelId: id, cells: { ...base, ...launchEstimateCells(m), kernel: name, ...measuredCells(m) } });
        }
    }
  return { columns, rows };
}

// ---------------------------------------------------------------------------
// What-if
// ---------------------------------------------------------------------------

/** Names that are tile, block or warp sizes by convention (BLOCK_M, TILE_K, BM, num_warps, blockDim.x, …). */
export function isTileLike(name: string): boolean {
  return /block|tile|warp|stage|group_size|workgroup|^[BT][MNKD]?$|_SIZE$|SIZE_/i.test(name);
}

export function isPowerOfTwo(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1 && (v & (v - 1)) === 0 && v <= 2 ** 30;
}

/** Halves or doubles a power-of-two stepper's value (never below 1). */
export function stepPowerOfTwo(v: number, up: boolean): number {
  const p = Math.round(Math.log2(Math.max(1, v)));
  return 2 ** Math.max(0, Math.min(40, up ? p + 1 : p - 1));
}

/** Global tensors and their element types, from the bytes breakdown (`load a_ptr (fp16)`). */
export function tensorTypes(k: KernelReport): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of k.breakdown.bytes) {
    const m = /^(?:load|store) (\S+) \((\w+)\)$/.exec(item.label);
    if (m && !out.has(m[1])) out.set(m[1], m[2]);
  }
  return out;
}

/** Tensors whose element type the analysis assumed (the only ones a CUDA or WGSL dtype changes). */
function assumedTypes(k: KernelReport): Set<string> {
  const out = new Set<string>();
  for (const a of k.assumptions) {
    const m = /^element type of `([^`]+)`/.exec(a);
    if (m) out.add(m[1]);
  }
  return out;
}

/** Does any of the kernel's formulas (counts, units, trips, breakdown) mention `name`? */
function usedInFormulas(k: KernelReport, name: string): boolean {
  const formulas = [k.formulas.flops, k.formulas.loadBytes, k.formulas.storeBytes, k.formulas.units ?? '', ...k.regions.map((r) => r.tripsFormula), ...k.breakdown.flops.map((b) => b.formula), ...k.breakdown.bytes.map((b) => b.formula)];
  return formulas.some((f) => mentions(f, name));
}

function bindingControls(current: KernelReport, baseline: KernelReport, state: WhatIfState | undefined): WhatIfControl[] {
  const names = new Set([...Object.keys(baseline.bindings), ...baseline.unbound, ...Object.keys(state?.set ?? {})]);
  const out: WhatIfControl[] = [];
  for (const name of names) {
    const source = baseline.bindingSources[name];
    if (source?.source === 'derived' || !isSymbolName(name)) continue;
    // A settings or pragma value reaches every kernel that shares the name; shown only where a formula uses it.
    const global = source?.source === 'user' || source?.source === 'pragma';
    if (global && state?.set[name] === undefined && !usedInFormulas(baseline, name)) continue;
    const base = Object.hasOwn(baseline.bindings, name) ? baseline.bindings[name] : null;
    if (typeof base === 'string') continue;
    const override = state?.set[name];
    const value = override ?? (Object.hasOwn(current.bindings, name) ? current.bindings[name] : base);
    if (typeof value === 'string') continue;
    const kind = typeof (value ?? base) === 'boolean' ? 'bool' : isTileLike(name) || isPowerOfTwo(base) ? 'pow2' : 'number';
    out.push({ name, kind, value, baseline: base, source: source?.detail ?? 'unbound', changed: override !== undefined });
  }
  const rank = (c: WhatIfControl): number => (c.baseline === null ? 0 : c.kind === 'pow2' && isTileLike(c.name) ? 1 : 2);
  return out.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function dtypeControls(language: Language, current: KernelReport, baseline: KernelReport, state: WhatIfState | undefined): WhatIfControl[] {
  const base = tensorTypes(baseline);
  const now = tensorTypes(current);
  const assumed = assumedTypes(baseline);
  const out: WhatIfControl[] = [];
  for (const [name, type] of base) {
    const override = state?.dtypes[name];
    if (language !== 'triton' && !assumed.has(name) && override === undefined) continue;
    const value = override ?? now.get(name) ?? type;
    out.push({
      name,
      kind: 'dtype',
      value,
      baseline: type,
      source: assumed.has(name) ? 'assumed' : 'from the source',
      options: [...WHAT_IF_DTYPES],
      changed: override !== undefined,
    });
  }
  return out;
}

function results(current: KernelReport, baseline: KernelReport): WhatIfResult[] {
  const row = (label: string, formula: string, value: string, before: string): WhatIfResult => ({ label, formula, value, baseline: before });
  const ai = (k: KernelReport): string => (k.arithmeticIntensity === null ? '?' : `${intensity(k.arithmeticIntensity)} FLOP/B`);
  return [
    row('FLOPs', current.formulas.flops, flops(current.perUnit.flops), flops(baseline.perUnit.flops)),
    row('loads', `${current.formulas.loadBytes} B`, bytes(current.perUnit.loadBytes), bytes(baseline.perUnit.loadBytes)),
    row('stores', `${current.formulas.storeBytes} B`, bytes(current.perUnit.storeBytes), bytes(baseline.perUnit.storeBytes)),
    row('AI', 'FLOPs ÷ (loads + stores)', ai(current), ai(baseline)),
    row('attainable', `min(${current.peak.kind} ${current.peak.dtype} peak, bandwidth × AI)`, flopRate(current.attainableFlops), flopRate(baseline.attainableFlops)),
    row('bound', '', verdict(current), verdict(baseline)),
  ];
}

/** `# roofline: BLOCK_M=64 K=4096` (or `//`) for the values changed by what-if; '' when none is. Element types have no pragma. */
export function pragmaFor(language: Language, controls: WhatIfControl[]): string {
  const changed = controls.filter((c) => c.kind !== 'dtype' && c.changed && (typeof c.value === 'number' || typeof c.value === 'boolean'));
  const pairs = changed.filter((c) => isPragmaValue(c.value as number | boolean)).map((c) => `${c.name}=${pragmaValue(c.value as number | boolean)}`);
  return pairs.length ? `${commentPrefix(language)} roofline: ${pairs.join(' ')}` : '';
}

/**
 * The what-if section of the selected kernel: a control per binding (and
 * unbound symbol) and per element type, and the new values of its formulas
 * next to the values without what-if.
 */
export function whatIfModel(file: FileReport, current: KernelReport, baseline: KernelReport, state: WhatIfState | undefined): WhatIfModel {
  const controls = [...bindingControls(current, baseline, state), ...dtypeControls(file.language, current, baseline, state)];
  return {
    kernelId: kernelId(file.path, baseline),
    kernelName: baseline.name,
    controls,
    results: results(current, baseline),
    pragma: pragmaFor(file.language, controls),
    changed: controls.some((c) => c.changed),
  };
}

// ---------------------------------------------------------------------------
// GPUs, precisions, the profile
// ---------------------------------------------------------------------------

export function gpuChoices(gpus: readonly GpuSpec[]): Choice[] {
  return gpus.map((g) => ({ value: g.id, label: g.name }));
}

/** Every precision the GPU has a peak for, checked when it is drawn. */
export function precisionChoices(gpu: GpuSpec, drawn: readonly PrecisionKey[]): (Choice & { checked: boolean })[] {
  const keys: PrecisionKey[] = [
    ...(Object.keys(gpu.peaks.tensor) as (keyof GpuSpec['peaks']['tensor'])[]).map((d) => `tensor:${d}` as PrecisionKey),
    ...(Object.keys(gpu.peaks.vector) as (keyof GpuSpec['peaks']['vector'])[]).map((d) => `vector:${d}` as PrecisionKey),
  ];
  return keys.map((key) => ({ value: key, label: `${key.replace(':', ' ')} ${flopRate(key.startsWith('tensor') ? gpu.peaks.tensor[key.slice(7) as never] : gpu.peaks.vector[key.slice(7) as never])}`, checked: drawn.includes(key) }));
}

export function profileModel(name: string, summary: ProfileSummary, perLaunch: boolean): ProfileModel {
  const problems: string[] = [];
  if (summary.unmatched.length) {
    const shown = summary.unmatched.slice(0, 8).join(', ');
    problems.push(`Not in these files: ${shown}${summary.unmatched.length > 8 ? `, and ${summary.unmatched.length - 8} more` : ''}.`);
  }
  for (const d of summary.diagnostics) if (d.severity !== 'info') problems.push(`${d.severity}${d.line ? ` (line ${d.line})` : ''}: ${d.message}`);
  const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  return {
    name,
    format: summary.format,
    perLaunch,
    summary: `${count(summary.launches, 'launch', 'launches')}, ${count(summary.matched, 'kernel', 'kernels')} matched`,
    ambiguous: summary.ambiguous.map((a) => ({ name: a.name, candidates: [...a.candidates] })),
    problems,
  };
}
