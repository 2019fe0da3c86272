/**
 * Compares the analyses of two revisions of a set of files: kernels added,
 * removed and changed (old → new intensity, bound and attainable on each
 * GPU), following renamed files and renamed or moved kernels, and finds the
 * regressions a CI gate fails on.
 *
 * Pure: the caller reads the revisions (git) and analyses them; this module
 * only pairs and compares.
 */
import type { Severity } from '../ir';
import type { GpuSummary, PerUnit } from './types';
import { reportGpus, verdictOn, type GpuVerdict, type MultiGpuFile, type MultiGpuKernel, type MultiGpuReport } from './render';
import { intensity } from './format';

/** A revision: a commit, or the working tree (`commit: null`). */
export interface RevisionInfo {
  /** What the user asked for ("main", "HEAD~1"), or null when it was the default. */
  ref: string | null;
  commit: string | null;
}

/** How git saw a file change between the two revisions. */
export interface FileChange {
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'typechange';
  /** Path at the base revision (null when added). */
  oldPath: string | null;
  /** Path at the head revision (null when deleted). */
  newPath: string | null;
}

/** What a diff keeps of one kernel at one revision. */
export interface KernelSnapshot {
  path: string;
  name: string;
  line: number;
  unit: MultiGpuKernel['unit'];
  arithmeticIntensity: number | null;
  compulsoryIntensity: number | null;
  perUnit: PerUnit;
  unbound: string[];
  /** The verdict on every GPU of the diff, by GPU id. */
  byGpu: Record<string, GpuVerdict>;
}

export interface KernelChange {
  change: 'added' | 'removed' | 'changed' | 'unchanged';
  before?: KernelSnapshot;
  after?: KernelSnapshot;
  /** Set when the kernel was paired by the similarity of its text (renamed or moved), 0..1. */
  similarity?: number;
  /** Why the comparison cannot be trusted (a revision failed to parse, ...); never a regression then. */
  caveat?: string;
}

/** A file-level problem that kept a revision of a file from being compared. */
export interface DiffNote {
  path: string;
  side: 'base' | 'head';
  line?: number;
  severity: Severity;
  message: string;
}

export interface DiffReport {
  schemaVersion: 1;
  base: RevisionInfo;
  head: RevisionInfo;
  gpus: GpuSummary[];
  files: FileChange[];
  kernels: KernelChange[];
  notes: DiffNote[];
  /** Pipelines whose total time bound (T_lower on the first GPU) changed, appeared or went away (docs/pipelines.md). */
  pipelines?: PipelineChange[];
}

export interface PipelineChange {
  path: string;
  name: string;
  change: 'added' | 'removed' | 'changed' | 'unchanged';
  /** Pipeline T_lower, seconds (null: no numbers). */
  before: number | null;
  after: number | null;
  launchesBefore: number | null;
  launchesAfter: number | null;
}

/** Pairs pipelines by file and name; a change of T_lower by more than 0.1 % is a change. */
export function diffPipelines(base: MultiGpuReport, head: MultiGpuReport, files: FileChange[]): PipelineChange[] {
  const out: PipelineChange[] = [];
  const of = (r: MultiGpuReport, path: string | undefined) => (path ? (r.files.find((f) => f.path === path)?.pipelines ?? []) : []);
  for (const f of files) {
    const b = of(base, f.oldPath ?? undefined);
    const h = of(head, f.newPath ?? undefined);
    for (const name of new Set([...b.map((x) => x.name), ...h.map((x) => x.name)])) {
      const pb = b.find((x) => x.name === name);
      const ph = h.find((x) => x.name === name);
      const before = pb ? pb.total.time.lower : null;
      const after = ph ? ph.total.time.lower : null;
      const change = !pb ? 'added' : !ph ? 'removed' : before !== null && after !== null && Math.abs(after - before) <= 1e-3 * Math.max(before, after) && pb.total.launches === ph.total.launches ? 'unchanged' : 'changed';
      out.push({ path: (f.newPath ?? f.oldPath)!, name, change, before: pb && pb.total.resolved ? before : null, after: ph && ph.total.resolved ? after : null, launchesBefore: pb?.total.launches ?? null, launchesAfter: ph?.total.launches ?? null });
    }
  }
  return out;
}

/** One revision as the caller analysed it: the report of its changed files and their text. */
export interface RevisionInput {
  info: RevisionInfo;
  report: MultiGpuReport;
  /** File text by path, for pairing renamed kernels. */
  sources: Record<string, string>;
}

/** Pairs of kernels whose text is at least this similar are the same kernel renamed or moved. */
export const RENAME_SIMILARITY = 0.8;

/** Diagnostics after which a revision's kernels may be missing or partial. */
const UNTRUSTED_CODES = new Set(['parseError', 'internal', 'binaryInput', 'budget', 'tooLarge']);

// ---------------------------------------------------------------------------
// Snapshots and text similarity
// ---------------------------------------------------------------------------

interface Candidate {
  snapshot: KernelSnapshot;
  /** Normalised token bigrams of the kernel's text, its own name replaced. */
  bigrams: Map<string, number>;
  size: number;
  file: FileChange;
}

function snapshot(k: MultiGpuKernel, path: string, r: MultiGpuReport): KernelSnapshot {
  const byGpu: Record<string, GpuVerdict> = {};
  for (const g of reportGpus(r)) {
    const v = verdictOn(k, g.id, r);
    if (v) byGpu[g.id] = v;
  }
  return {
    path,
    name: k.name,
    line: k.line,
    unit: k.unit,
    arithmeticIntensity: k.arithmeticIntensity,
    compulsoryIntensity: k.compulsoryIntensity,
    perUnit: k.perUnit,
    unbound: k.unbound,
    byGpu,
  };
}

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c > '\x7f';
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}

/** Identifiers/numbers and single punctuation characters; whitespace dropped. */
function tokens(text: string, ownName: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    let j = i + 1;
    if (isIdentPart(c)) while (j < text.length && isIdentPart(text[j])) j++;
    const t = text.slice(i, j);
    out.push(t === ownName ? '\u0000self' : t);
    i = j;
  }
  return out;
}

function kernelText(source: string | undefined, k: MultiGpuKernel): string {
  if (source === undefined) return '';
  const lines = source.split('\n');
  const end = k.endLine ?? Math.min(lines.length, k.line + 200);
  return lines.slice(k.line - 1, end).join('\n');
}

function candidate(k: MultiGpuKernel, path: string, r: MultiGpuReport, source: string | undefined, file: FileChange): Candidate {
  const ts = tokens(kernelText(source, k), k.name);
  const bigrams = new Map<string, number>();
  for (let i = 0; i + 1 < ts.length; i++) {
    const b = `${ts[i]} ${ts[i + 1]}`;
    bigrams.set(b, (bigrams.get(b) ?? 0) + 1);
  }
  return { snapshot: snapshot(k, path, r), bigrams, size: Math.max(0, ts.length - 1), file };
}

/** Dice coefficient of two bigram multisets, 0..1. */
function similarity(a: Candidate, b: Candidate): number {
  if (a.size === 0 || b.size === 0) return 0;
  let common = 0;
  for (const [bg, n] of a.bigrams) common += Math.min(n, b.bigrams.get(bg) ?? 0);
  return (2 * common) / (a.size + b.size);
}

// ---------------------------------------------------------------------------
// Comparing
// ---------------------------------------------------------------------------

function sameNumber(a: number | null | undefined, b: number | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return a === b;
  if (a === b) return true;
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

function sameVerdict(a: GpuVerdict | undefined, b: GpuVerdict | undefined): boolean {
  if (!a || !b) return a === b;
  return a.bound === b.bound && a.boundLevel === b.boundLevel && sameNumber(a.attainableFlops, b.attainableFlops) && sameNumber(a.peak.flops, b.peak.flops);
}

function sameSnapshot(a: KernelSnapshot, b: KernelSnapshot): boolean {
  if (a.name !== b.name || a.path !== b.path) return false;
  if (!sameNumber(a.arithmeticIntensity, b.arithmeticIntensity) || !sameNumber(a.compulsoryIntensity, b.compulsoryIntensity)) return false;
  for (const key of ['flops', 'loadBytes', 'storeBytes'] as const) if (!sameNumber(a.perUnit[key], b.perUnit[key])) return false;
  const ids = new Set([...Object.keys(a.byGpu), ...Object.keys(b.byGpu)]);
  for (const id of ids) if (!sameVerdict(a.byGpu[id], b.byGpu[id])) return false;
  return true;
}

function fileOf(r: MultiGpuReport, path: string | null): MultiGpuFile | undefined {
  return path === null ? undefined : r.files.find((f) => f.path === path);
}

/** The first diagnostic after which the file's kernels cannot be trusted. */
function untrusted(f: MultiGpuFile | undefined): MultiGpuFile['diagnostics'][number] | undefined {
  return f?.diagnostics.find((d) => UNTRUSTED_CODES.has(d.code) && d.severity !== 'info');
}

function caveatFor(base: MultiGpuFile | undefined, head: MultiGpuFile | undefined): string | undefined {
  const b = untrusted(base);
  const h = untrusted(head);
  if (h) return `at head, ${head!.path}:${h.line}: ${h.message}`;
  if (b) return `at base, ${base!.path}:${b.line}: ${b.message}`;
  return undefined;
}

interface Pairing {
  kernels: KernelChange[];
  removed: Candidate[];
  added: Candidate[];
}

/** Pairs the kernels of one file change by name, in order; the rest are left for similarity. */
function pairByName(file: FileChange, base: RevisionInput, head: RevisionInput, out: Pairing): void {
  const bf = fileOf(base.report, file.oldPath);
  const hf = fileOf(head.report, file.newPath);
  const caveat = caveatFor(bf, hf);
  const left = [...(bf?.kernels ?? [])];
  for (const k of hf?.kernels ?? []) {
    const i = left.findIndex((o) => o.name === k.name);
    if (i < 0) {
      out.added.push(candidate(k, hf!.path, head.report, head.sources[hf!.path], file));
      continue;
    }
    const before = snapshot(left.splice(i, 1)[0], bf!.path, base.report);
    const after = snapshot(k, hf!.path, head.report);
    out.kernels.push({ change: sameSnapshot(before, after) ? 'unchanged' : 'changed', before, after, ...(caveat ? { caveat } : {}) });
  }
  for (const k of left) out.removed.push(candidate(k, bf!.path, base.report, base.sources[bf!.path], file));
}

/** Pairs removed and added kernels whose text is nearly the same (renamed, or moved to another file). */
function pairBySimilarity(p: Pairing, base: RevisionInput, head: RevisionInput): void {
  const scored: { r: Candidate; a: Candidate; s: number }[] = [];
  for (const r of p.removed) for (const a of p.added) scored.push({ r, a, s: similarity(r, a) });
  scored.sort((x, y) => y.s - x.s);
  const used = new Set<Candidate>();
  for (const { r, a, s } of scored) {
    if (s < RENAME_SIMILARITY || used.has(r) || used.has(a)) continue;
    used.add(r);
    used.add(a);
    const caveat = caveatFor(fileOf(base.report, r.snapshot.path), fileOf(head.report, a.snapshot.path));
    p.kernels.push({ change: 'changed', before: r.snapshot, after: a.snapshot, similarity: Math.round(s * 1000) / 1000, ...(caveat ? { caveat } : {}) });
  }
  for (const r of p.removed.filter((x) => !used.has(x))) {
    const missing = untrustedAt(head.report, r.file.newPath);
    const caveat = missing ? `not found at head, where ${missing}; the kernel may still be there` : caveatFor(fileOf(base.report, r.file.oldPath), undefined);
    p.kernels.push({ change: 'removed', before: r.snapshot, ...(caveat ? { caveat } : {}) });
  }
  for (const a of p.added.filter((x) => !used.has(x))) {
    const missing = untrustedAt(base.report, a.file.oldPath);
    const caveat = missing ? `not found at base, where ${missing}; the kernel may have been there` : caveatFor(undefined, fileOf(head.report, a.file.newPath));
    p.kernels.push({ change: 'added', after: a.snapshot, ...(caveat ? { caveat } : {}) });
  }
}

/** "path:line: message" of the diagnostic that makes a file untrusted, or undefined. */
function untrustedAt(r: MultiGpuReport, path: string | null): string | undefined {
  const f = fileOf(r, path);
  const d = untrusted(f);
  return f && d ? `${f.path}:${d.line}: ${d.message}` : undefined;
}

function notesOf(files: FileChange[], base: RevisionInput, head: RevisionInput, kernels: KernelChange[]): DiffNote[] {
  const notes: DiffNote[] = [];
  const add = (f: MultiGpuFile | undefined, side: DiffNote['side']): void => {
    const d = untrusted(f);
    if (f && d) notes.push({ path: f.path, side, line: d.line, severity: d.severity, message: d.message });
  };
  for (const file of files) {
    add(fileOf(base.report, file.oldPath), 'base');
    add(fileOf(head.report, file.newPath), 'head');
    if (file.status !== 'deleted' || file.oldPath === null) continue;
    const removed = kernels.filter((c) => c.change === 'removed' && c.before?.path === file.oldPath).length;
    const moved = kernels.filter((c) => c.after && c.before?.path === file.oldPath).length;
    const what = [removed ? `${removed} kernel(s) removed` : '', moved ? `${moved} kernel(s) moved to other files` : ''].filter(Boolean).join(', ');
    notes.push({ path: file.oldPath, side: 'head', severity: 'info', message: `file deleted${what ? `: ${what}` : ''}` });
  }
  return notes;
}

function order(c: KernelChange): string {
  const s = (c.after ?? c.before)!;
  return `${s.path}\u0000${String(s.line).padStart(8, '0')}`;
}

/** Compares two revisions of the changed files. */
export function diffReports(base: RevisionInput, head: RevisionInput, files: FileChange[]): DiffReport {
  const p: Pairing = { kernels: [], removed: [], added: [] };
  for (const file of files) pairByName(file, base, head, p);
  pairBySimilarity(p, base, head);
  p.kernels.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  return {
    schemaVersion: 1,
    base: base.info,
    head: head.info,
    gpus: reportGpus(head.report),
    files,
    kernels: p.kernels,
    notes: notesOf(files, base, head, p.kernels),
    ...(() => {
      const pl = diffPipelines(base.report, head.report, files);
      return pl.length ? { pipelines: pl } : {};
    })(),
  };
}

// ---------------------------------------------------------------------------
// Regressions
// ---------------------------------------------------------------------------

/** `--fail-on` conditions. */
export interface FailOn {
  /** A kernel went from compute- to memory-bound on any GPU of the diff. */
  boundRegression: boolean;
  /** The tile arithmetic intensity dropped by more than this many percent. */
  aiDropPercent: number | null;
}

export interface Regression {
  kind: 'bound-regression' | 'ai-drop';
  path: string;
  kernel: string;
  gpu?: string;
  message: string;
}

function aiDrop(before: number | null, after: number | null): number | null {
  if (before === null || after === null || Number.isNaN(before) || Number.isNaN(after)) return null;
  if (before === Infinity) return after === Infinity ? 0 : 100;
  if (before <= 0) return null;
  return ((before - after) / before) * 100;
}

/** True when the kernel went from compute- to memory-bound on this GPU. */
export function turnedMemoryBound(c: KernelChange, gpuId: string): boolean {
  return c.before?.byGpu[gpuId]?.bound === 'compute' && c.after?.byGpu[gpuId]?.bound === 'memory';
}

/** The changed kernels that meet a `--fail-on` condition; kernels with a caveat never do. */
export function findRegressions(d: DiffReport, failOn: FailOn): Regression[] {
  const out: Regression[] = [];
  for (const c of d.kernels) {
    if (c.change !== 'changed' || c.caveat || !c.before || !c.after) continue;
    const where = `${c.after.name} (${c.after.path}:${c.after.line})`;
    if (failOn.boundRegression)
      for (const g of d.gpus)
        if (turnedMemoryBound(c, g.id))
          out.push({ kind: 'bound-regression', path: c.after.path, kernel: c.after.name, gpu: g.id, message: `${where}: compute-bound → memory-bound on ${g.name}` });
    const drop = aiDrop(c.before.arithmeticIntensity, c.after.arithmeticIntensity);
    if (failOn.aiDropPercent !== null && drop !== null && drop > failOn.aiDropPercent)
      out.push({
        kind: 'ai-drop',
        path: c.after.path,
        kernel: c.after.name,
        message: `${where}: AI ${intensity(c.before.arithmeticIntensity)} → ${intensity(c.after.arithmeticIntensity)} FLOP/B, −${intensity(drop)} % (limit ${failOn.aiDropPercent} %)`,
      });
  }
  return out;
}
