/**
 * Matching measured launches to the kernels of the analysed source, by name:
 *
 * 1. An override (`overrides[measured] = source`) wins. Its key may be the
 *    name as the profiler wrote it, the demangled name, the qualified name or
 *    the base name; its value a source kernel's `file:name` or plain name.
 * 2. Otherwise a source kernel whose name equals the measured qualified name
 *    (`vllm::rms_norm_kernel`) or the demangled or written name; failing
 *    that, one whose last name component equals the measured base name
 *    (`rms_norm_kernel`).
 * 3. A C++ name (mangled, or with parameters, templates or namespaces) never
 *    matches a Triton kernel.
 *
 * Several candidates left: the launch is ambiguous (the candidates are
 * listed; an override settles it). None: unmatched.
 *
 * Launches of one source kernel are aggregated per instantiation (the
 * demangled name, template arguments kept: time, bytes, FLOPs and
 * invocations summed) or kept apart, one group per launch. A Proton launch
 * named by `launch_metadata` (`matmul_kernel [M=4096, N=4096, K=4096]`)
 * matches by the name before the bracket; launches of different sizes stay
 * different groups. In a profile of several GPUs, groups are also split by
 * GPU: each dot belongs under one GPU's roofs.
 */
import { PMSG, pdiag, shortName } from './messages';
import { splitLaunchName } from './names';
import type { FlopCounts, FlopDtype, MeasuredLaunch, Origin, ProfileDiagnostic, SourceKernel } from './types';

export interface MatchOptions {
  /** Sum the launches of one instantiation (true) or keep every launch apart (false). */
  aggregate: boolean;
  /** measured name → source kernel (`file:name` or `name`). */
  overrides?: Record<string, string>;
}

/** One instantiation's launches summed, or one launch. */
export interface MeasuredGroup {
  /** `demangled` when aggregated; `name#launchIndex` when kept apart. */
  key: string;
  name: string;
  demangled: string;
  launchIndices: number[];
  /** The profiler's launch ids (ncu `ID`), where it has them. */
  ids: number[];
  /** The GPU the launches ran on (`ProfileImport.devices` key), when the export says. */
  device?: string;
  /** The launch's `NAME=VALUE` sizes (a `launch_metadata` bracket), when its name has them. */
  launchBindings?: Record<string, number | boolean | string>;
  invocations: number;
  /** Set when every launch of the group has the same one. */
  grid?: [number, number, number];
  block?: [number, number, number];
  context?: string;
  /** Sums over the group; absent when some launch lacks the quantity. */
  timeSeconds?: number;
  dramBytes?: number;
  l2Bytes?: number;
  flops?: FlopCounts;
  origin: { flops: Origin; bytes: Origin };
  missing: string[];
}

export interface KernelMatch {
  kernel: SourceKernel;
  /** `file:name`, or `name` without a file. */
  key: string;
  groups: MeasuredGroup[];
}

export interface AmbiguousLaunches {
  name: string;
  demangled: string;
  launches: MeasuredLaunch[];
  /** Keys of the source kernels it could be. */
  candidates: string[];
}

export interface MatchResult {
  /** Every source kernel, in the order given; `groups` is empty when nothing matched it. */
  kernels: KernelMatch[];
  unmatched: MeasuredLaunch[];
  ambiguous: AmbiguousLaunches[];
  diagnostics: ProfileDiagnostic[];
}

export function sourceKey(k: SourceKernel): string {
  return k.file ? `${k.file}:${k.name}` : k.name;
}

type Resolution = { kind: 'match'; index: number } | { kind: 'ambiguous'; candidates: number[] } | { kind: 'none' };

export function matchKernels(launches: MeasuredLaunch[], sourceKernels: SourceKernel[], opts: MatchOptions): MatchResult {
  const diagnostics: ProfileDiagnostic[] = [];
  const keys = sourceKernels.map(sourceKey);
  const overrides = resolveOverrides(opts.overrides ?? {}, sourceKernels, keys, diagnostics);
  const assigned: MeasuredLaunch[][] = sourceKernels.map(() => []);
  const unmatched: MeasuredLaunch[] = [];
  const ambiguous = new Map<string, AmbiguousLaunches>();
  const usedOverrides = new Set<string>();
  for (const l of launches) {
    const r = resolve(l, sourceKernels, overrides, usedOverrides);
    if (r.kind === 'match') assigned[r.index].push(l);
    else if (r.kind === 'none') unmatched.push(l);
    else {
      const a = ambiguous.get(l.name) ?? { name: l.name, demangled: l.demangled, launches: [], candidates: r.candidates.map((i) => keys[i]) };
      a.launches.push(l);
      ambiguous.set(l.name, a);
    }
  }
  for (const from of overrides.keys()) if (!usedOverrides.has(from)) diagnostics.push(pdiag('overrideUnused', 'info', PMSG.overrideUnused(from)));
  for (const a of ambiguous.values()) diagnostics.push(pdiag('ambiguous', 'warning', PMSG.ambiguous(`\`${shortName(a.demangled)}\``, a.candidates.join(', '))));
  if (unmatched.length > 0) diagnostics.push(pdiag('unmatched', 'info', PMSG.unmatched(listNames(unmatched))));
  const multiGpu = new Set(launches.map((l) => l.device ?? '')).size > 1;
  const kernels = sourceKernels.map((kernel, i) => ({ kernel, key: keys[i], groups: groupLaunches(assigned[i], opts.aggregate, multiGpu) }));
  return { kernels, unmatched, ambiguous: [...ambiguous.values()], diagnostics };
}

/** Override targets as source indices; bad targets are reported and dropped. */
function resolveOverrides(raw: Record<string, string>, sources: SourceKernel[], keys: string[], diagnostics: ProfileDiagnostic[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [from, to] of Object.entries(raw)) {
    const exact = keys.indexOf(to);
    const byName = sources.map((s, i) => (s.name === to ? i : -1)).filter((i) => i >= 0);
    if (exact >= 0) out.set(from, exact);
    else if (byName.length === 1) out.set(from, byName[0]);
    else if (byName.length > 1) diagnostics.push(pdiag('overrideAmbiguous', 'error', PMSG.overrideAmbiguous(from, to, byName.map((i) => keys[i]).join(', '))));
    else diagnostics.push(pdiag('overrideUnknown', 'error', PMSG.overrideUnknown(from, to)));
  }
  return out;
}

function resolve(l: MeasuredLaunch, sources: SourceKernel[], overrides: Map<string, number>, used: Set<string>): Resolution {
  for (const k of [l.name, l.demangled, l.qualifiedName, l.baseName]) {
    const target = overrides.get(k);
    if (target !== undefined) {
      used.add(k);
      return { kind: 'match', index: target };
    }
  }
  const cpp = l.name.startsWith('_Z') || (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(l.demangled) && splitLaunchName(l.name) === null);
  const allowed = sources.map((s, i) => ({ s, i })).filter(({ s }) => !(cpp && s.language === 'triton'));
  const exact = allowed.filter(({ s }) => s.name === l.qualifiedName || s.name === l.demangled || s.name === l.name);
  const cands = exact.length > 0 ? exact : allowed.filter(({ s }) => lastComponent(s.name) === l.baseName);
  if (cands.length === 0) return { kind: 'none' };
  if (cands.length === 1) return { kind: 'match', index: cands[0].i };
  return { kind: 'ambiguous', candidates: cands.map((c) => c.i) };
}

function lastComponent(name: string): string {
  const i = name.lastIndexOf('::');
  return i >= 0 ? name.slice(i + 2) : name;
}

function listNames(launches: MeasuredLaunch[]): string {
  const names = [...new Set(launches.map((l) => l.demangled))];
  const shown = names.slice(0, 5).map((n) => `\`${shortName(n)}\``).join(', ');
  return (names.length > 1 ? 'kernels ' : 'kernel ') + shown + (names.length > 5 ? ` and ${names.length - 5} more` : '');
}

// ---- groups ------------------------------------------------------------------

function groupLaunches(launches: MeasuredLaunch[], aggregate: boolean, multiGpu: boolean): MeasuredGroup[] {
  const byKey = new Map<string, MeasuredLaunch[]>();
  for (const l of launches) {
    const gpu = multiGpu && aggregate ? ` @ GPU ${l.device ?? '?'}` : '';
    const key = aggregate ? `${l.demangled}${gpu}` : `${l.name}#${l.launchIndex}`;
    const list = byKey.get(key);
    if (list) list.push(l);
    else byKey.set(key, [l]);
  }
  return [...byKey.entries()].map(([key, ls]) => sumGroup(key, ls));
}

function sumGroup(key: string, ls: MeasuredLaunch[]): MeasuredGroup {
  const first = ls[0];
  const g: MeasuredGroup = {
    key,
    name: first.name,
    demangled: first.demangled,
    launchIndices: ls.map((l) => l.launchIndex),
    ids: ls.flatMap((l) => (l.id !== undefined ? [l.id] : [])),
    invocations: ls.reduce((a, l) => a + l.invocations, 0),
    origin: first.origin,
    missing: [...new Set(ls.flatMap((l) => l.missing))],
  };
  const grid = same(ls.map((l) => l.grid));
  const block = same(ls.map((l) => l.block));
  const context = same(ls.map((l) => l.context));
  const device = same(ls.map((l) => l.device));
  const bindings = same(ls.map((l) => (l.launchBindings ? JSON.stringify(l.launchBindings) : undefined)));
  if (device !== undefined) g.device = device;
  if (bindings !== undefined) g.launchBindings = ls[0].launchBindings;
  if (grid) g.grid = grid;
  if (block) g.block = block;
  if (context) g.context = context;
  setSum(g, 'timeSeconds', ls.map((l) => l.timeSeconds));
  setSum(g, 'dramBytes', ls.map((l) => l.dramBytes));
  setSum(g, 'l2Bytes', ls.map((l) => l.l2Bytes));
  const flops = sumFlops(ls.map((l) => l.flops));
  if (flops) g.flops = flops;
  return g;
}

function setSum(g: MeasuredGroup, key: 'timeSeconds' | 'dramBytes' | 'l2Bytes', values: (number | undefined)[]): void {
  if (values.every((v) => v !== undefined)) g[key] = values.reduce((a, v) => a + v!, 0);
}

/** The common value (strings, or dim3 tuples compared element by element), or undefined when they differ or one is missing. */
function same<T extends string | number[]>(values: (T | undefined)[]): T | undefined {
  const first = values[0];
  if (first === undefined) return undefined;
  const equal = (v: T | undefined) => v !== undefined && (typeof v === 'string' ? v === first : (v as number[]).every((x, i) => x === (first as number[])[i]));
  return values.every(equal) ? first : undefined;
}

function sumFlops(all: (FlopCounts | undefined)[]): FlopCounts | undefined {
  if (all.some((f) => f === undefined)) return undefined;
  const fs = all as FlopCounts[];
  const tensors = fs.map((f) => f.tensor);
  return {
    total: fs.reduce((a, f) => a + f.total, 0),
    byDtype: addRecords(fs.map((f) => f.byDtype)),
    tensor: tensors.every((t) => t !== null)
      ? {
          total: tensors.reduce((a, t) => a + t!.total, 0),
          byDtype: addRecords(tensors.map((t) => t!.byDtype)),
          ...(tensors.some((t) => t!.sparse) ? { sparse: tensors.reduce((a, t) => a + (t!.sparse ?? 0), 0) } : {}),
        }
      : null,
    lowerBound: fs.some((f) => f.lowerBound),
    ...(fs.some((f) => f.lowerBoundReasons?.length) ? { lowerBoundReasons: [...new Set(fs.flatMap((f) => f.lowerBoundReasons ?? []))] } : {}),
    convention: fs.every((f) => f.convention === fs[0].convention) ? fs[0].convention : 'ncu-counters',
  };
}

function addRecords(rs: Partial<Record<FlopDtype, number>>[]): Partial<Record<FlopDtype, number>> {
  const out: Partial<Record<FlopDtype, number>> = {};
  for (const r of rs) for (const [k, v] of Object.entries(r)) out[k as FlopDtype] = (out[k as FlopDtype] ?? 0) + (v ?? 0);
  return out;
}
