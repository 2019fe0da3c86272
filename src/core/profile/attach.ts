/**
 * Measured results beside the estimates: matches a profile's launches to the
 * analysed kernels and gives each matched kernel its measured dot, the
 * situation it is in, and the estimate-vs-measurement ratios. Pure; the
 * reports it receives are not modified (new kernel records are returned).
 *
 * Each dot is placed under the roofs of the GPU it ran on (gpu.ts identifies
 * the profile's devices), and compared with the estimate of exactly its
 * launch when the launch's name carries its sizes (bindings.ts).
 */
import type { BindingValue } from '../analyze';
import { GPU_CATALOG } from '../gpus/catalog';
import type { GpuSpec } from '../gpus/types';
import type { GpuSummary, KernelReport, MeasuredSummary, ProfileDeviceSummary, ProfileSummary } from '../report/types';
import type { Diagnostic } from '../ir';
import { ESTIMATE_DIAGNOSTICS, type LaunchEstimate } from './bindings';
import { classify, compareEstimate, estimateFromReport, estimateOnGpu, estimatePerLaunchFromReport, measuredTotals } from './classify';
import { identifyDevice, type DeviceGpu } from './gpu';
import { parseProfile } from './index';
import { matchKernels, type MeasuredGroup } from './match';
import { PMSG, pdiag } from './messages';
import type { ProfileDiagnostic } from './types';

/** At most this many launches are re-estimated for their sizes per import (each is an analysis of its file). */
export const MAX_LAUNCH_ESTIMATES = 64;

/** Re-analyses a kernel with a measured launch's `NAME=VALUE` sizes (see bindings.ts `estimateForLaunch`). */
export type Reestimate = (file: string, kernel: KernelReport, launch: { name: string; bindings: Record<string, BindingValue> }) => LaunchEstimate | undefined;

export interface AttachOptions {
  /** Keep every launch apart (default: launches of one instantiation are summed). */
  perLaunch?: boolean;
  /** measured name → source kernel (`file:name` or `name`). */
  overrides?: Record<string, string>;
  /** Shown in the summary. */
  path?: string;
  /** The GPUs a device of the profile can be: the table and any custom GPUs (default: the table). */
  gpus?: readonly GpuSpec[];
  /** Estimates a kernel for a launch's sizes; without it, launches are compared with the kernel's own estimate. */
  reestimate?: Reestimate;
  /** Ids of further GPUs the report shows (the CLI's `--gpu a,b`): a device that is one of them is not a mismatch. */
  alsoShown?: readonly string[];
}

interface FileLike {
  path: string;
  language: 'triton' | 'cuda' | 'wgsl';
  kernels: KernelReport[];
  diagnostics?: Diagnostic[];
}

function summary(g: MeasuredGroup, k: KernelReport, launch: LaunchEstimate | undefined, selected: GpuSpec, device: DeviceGpu | undefined, opts: AttachOptions): MeasuredSummary {
  const estimate = launch?.kernel ?? k;
  const gpu = device?.gpu ?? selected;
  const roof = gpu.id === selected.id ? estimateFromReport(estimate, selected) : estimateOnGpu(estimate, gpu);
  const t = measuredTotals(g);
  const c = classify(t, roof);
  const perLaunch = estimatePerLaunchFromReport(estimate);
  const comparison = compareEstimate(t, perLaunch);
  const notes = [...comparison.notes];
  if (g.launchBindings && !launch) notes.unshift(launchNote(g.launchBindings, opts.reestimate !== undefined));
  if (launch) notes.unshift(...launchNotes(launch, g.launchBindings!));
  if (device && device.isSelected === false)
    notes.unshift(`Measured on ${device.device.label} (${device.gpu.name}${device.evidence ? `: ${device.evidence}` : ''}), not on ${selected.name}: the dot is placed under ${device.gpu.name}'s roofs.`);
  const flops = g.flops;
  return {
    key: g.key,
    name: g.demangled,
    launches: g.invocations,
    timeSeconds: g.timeSeconds ?? null,
    flops: flops?.total ?? null,
    flopsLowerBound: flops?.lowerBound ?? false,
    ...(flops?.lowerBoundReasons?.length ? { flopsLowerBoundReasons: flops.lowerBoundReasons } : {}),
    ...(flops ? { flopConvention: flops.convention } : {}),
    dramBytes: g.dramBytes ?? null,
    l2Bytes: g.l2Bytes ?? null,
    achievedFlops: c.achievedFlops,
    achievedIntensity: c.achievedIntensity,
    fractionOfRoof: c.fractionOfRoof,
    fractionOfEstimate: c.fractionOfEstimate,
    situation: c.situation,
    ...(c.reason ? { reason: c.reason } : {}),
    advice: c.advice,
    flopsRatio: comparison.flopsRatio,
    bytesRatio: comparison.bytesRatio,
    compulsoryRatio: comparison.compulsoryRatio,
    notes,
    missing: g.missing,
    origin: g.origin,
    ...(device ? { gpu: { device: device.device.key, label: device.device.label, id: gpu.id, name: gpu.name, isSelected: device.isSelected } } : {}),
    ...(g.launchBindings ? { launchSizes: g.launchBindings } : {}),
    ...(launch
      ? {
          launchEstimate: {
            bindings: launch.kernel.bindings,
            bindingSources: launch.kernel.bindingSources,
            unbound: launch.kernel.unbound,
            units: launch.kernel.units,
            flops: perLaunch.flops,
            bytes: perLaunch.bytes,
            compulsoryBytes: perLaunch.compulsoryBytes ?? null,
            arithmeticIntensity: launch.kernel.arithmeticIntensity,
            compulsoryIntensity: launch.kernel.compulsoryIntensity,
            attainableFlops: roof.attainableFlops,
            bound: roof.attainableFlops === null ? 'unknown' : roof.attainableFlops < roof.peakFlops ? 'memory' : 'compute',
            overridden: launch.overridden,
            unused: launch.unused,
          },
        }
      : {}),
  };
}

function pairs(b: Record<string, BindingValue>): string {
  return Object.entries(b)
    .map(([n, v]) => `${n}=${v}`)
    .join(', ');
}

function launchNote(b: Record<string, BindingValue>, tried: boolean): string {
  return tried
    ? `The launch's sizes (${pairs(b)}) could not be applied (the source is not at hand, or more than ${MAX_LAUNCH_ESTIMATES} launch sizes): the estimate is the kernel's own.`
    : `The launch's sizes (${pairs(b)}) were not applied: the estimate is the kernel's own.`;
}

function launchNotes(l: LaunchEstimate, launch: Record<string, BindingValue>): string[] {
  const out: string[] = [];
  if (l.applied.length) out.push(`Estimated for the measured launch: ${l.applied.map((n) => `${n}=${l.kernel.bindings[n]}`).join(', ')} (from the profile).`);
  for (const o of l.overridden)
    out.push(`${o.name}=${o.used} from ${o.by === 'user' ? 'the --set / settings value' : 'a roofline pragma'} overrides the launch's ${o.name}=${o.launch}: the estimate is not for the measured launch.`);
  if (l.unused.length) out.push(`The launch's ${l.unused.map((n) => `${n}=${launch[n]}`).join(', ')} ${l.unused.length > 1 ? 'name no symbols' : 'names no symbol'} of the kernel: not used.`);
  return out;
}

/** Reads a profile and returns the files with `measured` on every matched kernel, and a summary. */
export function attachProfile<F extends FileLike>(files: F[], selected: GpuSpec | GpuSummary, profileText: string, opts: AttachOptions = {}): { files: F[]; profile: ProfileSummary } {
  const table = opts.gpus ?? GPU_CATALOG.gpus;
  const gpu = asSpec(selected, table);
  const imported = parseProfile(profileText);
  const sources = files.flatMap((f) => f.kernels.map((k) => ({ name: k.name, file: f.path, language: f.language })));
  const match = matchKernels(imported.launches, sources, { aggregate: !opts.perLaunch, overrides: opts.overrides });
  const byKey = new Map(match.kernels.map((m) => [m.key, m]));
  const devices = new Map(
    imported.devices.map((d) => {
      const id = identifyDevice(d, table, gpu);
      return [d.key, id.isSelected === false && opts.alsoShown?.includes(id.gpu.id) ? { ...id, isSelected: true } : id] as const;
    }),
  );
  let budget = MAX_LAUNCH_ESTIMATES;
  const estimate = (file: string, k: KernelReport, g: MeasuredGroup): LaunchEstimate | undefined => {
    if (!g.launchBindings || !opts.reestimate || budget <= 0) return undefined;
    budget--;
    return opts.reestimate(file, k, { name: g.demangled, bindings: g.launchBindings });
  };
  const out = files.map((f) => {
    let diagnostics = f.diagnostics;
    const kernels = f.kernels.map((k) => {
      const m = byKey.get(`${f.path}:${k.name}`);
      if (!m || m.groups.length === 0) return k;
      const launches = m.groups.map((g) => estimate(f.path, k, g));
      const measured = m.groups.map((g, i) => summary(g, k, launches[i], gpu, g.device !== undefined ? devices.get(g.device) : undefined, opts));
      // Every measured launch of the kernel has the same sizes: the kernel's estimate is the one for them.
      const one = launches[0];
      const same = launches.every((l, i) => l !== undefined && sameSizes(m.groups[0].launchBindings!, m.groups[i].launchBindings!));
      if (!one || !same || one.applied.length === 0) return { ...k, measured };
      if (diagnostics) {
        const stale = (d: Diagnostic) => ESTIMATE_DIAGNOSTICS.has(d.code) && d.message.startsWith(`${k.name}:`);
        diagnostics = [...diagnostics.filter((d) => !stale(d)), ...one.diagnostics].sort((a, b) => a.line - b.line);
      }
      const sizes = one.applied.map((n) => `${n}=${one.kernel.bindings[n]}`).join(', ');
      return { ...one.kernel, assumptions: [...one.kernel.assumptions, `estimated for the measured launch's sizes (${sizes}, from the profile)`], measured };
    });
    return { ...f, kernels, ...(diagnostics ? { diagnostics } : {}) };
  });
  const deviceDiagnostics: ProfileDiagnostic[] = [];
  for (const d of devices.values()) {
    if (d.isSelected !== false) continue;
    const others = d.alternatives.map((id) => table.find((g) => g.id === id)?.name ?? id);
    if (d.known) deviceDiagnostics.push(pdiag('gpuMismatch', 'warning', PMSG.gpuMismatch(d.device.label, d.evidence, d.gpu.name, d.gpu.id, gpu.name, others)));
    else deviceDiagnostics.push(pdiag('gpuUnknown', 'warning', PMSG.gpuUnknown(d.device.label, d.evidence, gpu.name)));
  }
  const deviceSummaries: ProfileDeviceSummary[] = [...devices.values()].map((d) => ({
    key: d.device.key,
    label: d.device.label,
    evidence: d.evidence,
    gpu: { id: d.gpu.id, name: d.gpu.name },
    known: d.known,
    isSelected: d.isSelected,
    alternatives: d.alternatives,
  }));
  return {
    files: out,
    profile: {
      ...(opts.path ? { path: opts.path } : {}),
      format: imported.format,
      launches: imported.launches.length,
      matched: match.kernels.filter((m) => m.groups.length).length,
      unmatched: [...new Set(match.unmatched.map((l) => l.demangled))],
      ambiguous: match.ambiguous.map((a) => ({ name: a.demangled, candidates: a.candidates })),
      ...(deviceSummaries.length ? { devices: deviceSummaries } : {}),
      diagnostics: [...deviceDiagnostics, ...imported.diagnostics, ...match.diagnostics].map((d) => ({
        severity: d.severity,
        message: d.message,
        ...(d.line ? { line: d.line } : {}),
        code: d.code,
      })),
    },
  };
}

/** The selected GPU as a table entry (a report's GPU summary is looked up by id, else taken as it is). */
function asSpec(g: GpuSpec | GpuSummary, table: readonly GpuSpec[]): GpuSpec {
  if ('architecture' in g) return g;
  const known = table.find((t) => t.id === g.id);
  return known ?? { ...g, vendor: 'custom', architecture: '', sources: {} };
}

function sameSizes(a: Record<string, BindingValue>, b: Record<string, BindingValue>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
