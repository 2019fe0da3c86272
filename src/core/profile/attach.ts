/**
 * Measured results beside the estimates: matches a profile's launches to the
 * analysed kernels and gives each matched kernel its measured dot, the
 * situation it is in, and the estimate-vs-measurement ratios. Pure; the
 * reports it receives are not modified (new kernel records are returned).
 */
import type { GpuSummary, KernelReport, MeasuredSummary, ProfileSummary } from '../report/types';
import { assess } from './classify';
import { parseProfile } from './index';
import { matchKernels, type MeasuredGroup } from './match';

export interface AttachOptions {
  /** Keep every launch apart (default: launches of one instantiation are summed). */
  perLaunch?: boolean;
  /** measured name → source kernel (`file:name` or `name`). */
  overrides?: Record<string, string>;
  /** Shown in the summary. */
  path?: string;
}

interface FileLike {
  path: string;
  language: 'triton' | 'cuda' | 'wgsl';
  kernels: KernelReport[];
}

function summary(g: MeasuredGroup, k: KernelReport, gpu: GpuSummary): MeasuredSummary {
  const { classification: c, comparison } = assess(g, k, gpu);
  return {
    key: g.key,
    name: g.demangled,
    launches: g.invocations,
    timeSeconds: g.timeSeconds ?? null,
    flops: g.flops?.total ?? null,
    flopsLowerBound: g.flops?.lowerBound ?? false,
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
    notes: comparison.notes,
    missing: g.missing,
    origin: g.origin,
  };
}

/** Reads a profile and returns the files with `measured` on every matched kernel, and a summary. */
export function attachProfile<F extends FileLike>(files: F[], gpu: GpuSummary, profileText: string, opts: AttachOptions = {}): { files: F[]; profile: ProfileSummary } {
  const imported = parseProfile(profileText);
  const sources = files.flatMap((f) => f.kernels.map((k) => ({ name: k.name, file: f.path, language: f.language })));
  const match = matchKernels(imported.launches, sources, { aggregate: !opts.perLaunch, overrides: opts.overrides });
  const byKey = new Map(match.kernels.map((m) => [m.key, m]));
  const out = files.map((f) => ({
    ...f,
    kernels: f.kernels.map((k) => {
      const m = byKey.get(`${f.path}:${k.name}`);
      return m && m.groups.length ? { ...k, measured: m.groups.map((g) => summary(g, k, gpu)) } : k;
    }),
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
      diagnostics: [...imported.diagnostics, ...match.diagnostics].map((d) => ({ severity: d.severity, message: d.message, ...(d.line ? { line: d.line } : {}) })),
    },
  };
}
