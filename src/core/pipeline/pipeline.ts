/**
 * Whole pipelines (issue 18, docs/pipelines.md): the launches of a host
 * function, each analysed with its own bindings by the frontend (the launch's
 * site and host values as inputs), summed into the pipeline's roofline, with
 * a fusion what-if for consecutive launches that hand a tensor over.
 *
 *   HostPipelineFact (frontend) ──► per launch: analyse(inputs) ──► KernelReport + footprints
 *                               ──► launches[] (time.launch of count.ts: T_math, T_mem with the L2 term)
 *                               ──► total, shares, memory-bound time, fusion[]
 *
 * Pure: the per-launch analysis is a callback (analyze.ts runs the frontend).
 */
import type { GpuSpec } from '../gpus/types';
import type { HostPipelineFact, TensorFootprint } from '../ir';
import type { LaunchInputs } from '../frontend';
import type { KernelReport, PipelineFusion, PipelineLaunchReport, PipelineReport, TimeBounds } from '../report/types';
import { pipelineText } from '../messages';
import { evaluate } from '../sym/expr';

export interface LaunchAnalysis {
  report: KernelReport | undefined;
  footprints: TensorFootprint[];
  /** Why there is no report. */
  why?: string;
}

export type AnalyseLaunch = (inputs: LaunchInputs) => LaunchAnalysis;

/** What sets the number of units when no launch says it, by unit kind. */
const GEOMETRY: Record<string, string[]> = {
  program: ['tl.num_programs(0)'],
  block: ['gridDim.x'],
  workgroup: ['num_workgroups.x', 'num_workgroups.y'],
};

function tensorBytes(f: TensorFootprint | undefined, env: Map<string, number>, which: 'read' | 'written'): number | null {
  const e = f?.[which];
  if (!f || !e) return f ? 0 : null;
  const v = evaluate(e, env);
  return v === undefined ? null : Math.max(0, v) * f.elemBytes;
}

export function buildPipeline(fact: HostPipelineFact, gpu: GpuSpec, analyse: AnalyseLaunch): PipelineReport {
  const launches: PipelineLaunchReport[] = [];
  const notes: string[] = [];
  for (const l of fact.launches) {
    const base: PipelineLaunchReport = {
      kernel: l.kernel,
      line: l.line,
      callLine: l.callLine,
      ...(l.via ? { via: l.via } : {}),
      repeat: l.repeat,
      ...(l.repeatNote ? { repeatNote: l.repeatNote } : {}),
      units: null,
      bindings: {},
      flops: null,
      tileBytes: null,
      compulsoryBytes: null,
      time: null,
      bound: 'unknown',
      share: null,
      tensors: [],
      complete: false,
    };
    if (!l.inputs) {
      launches.push({ ...base, unresolved: l.unresolved ?? pipelineText('cannotAnalyse') });
      continue;
    }
    const a = analyse(l.inputs);
    const k = a.report;
    if (!k) {
      launches.push({ ...base, unresolved: a.why ?? pipelineText('notAnalysed', l.kernel) });
      continue;
    }
    const env = new Map<string, number>();
    for (const [n, v] of Object.entries(k.bindings)) if (typeof v === 'number') env.set(n, v);
    else if (typeof v === 'boolean') env.set(n, v ? 1 : 0);
    const perBytes = k.perUnit.loadBytes !== null && k.perUnit.storeBytes !== null ? k.perUnit.loadBytes + k.perUnit.storeBytes : null;
    const tile = k.units !== null && perBytes !== null ? k.units * perBytes : null;
    const comp = k.compulsory && k.compulsory.loadBytes !== null && k.compulsory.storeBytes !== null ? k.compulsory.loadBytes + k.compulsory.storeBytes : tile;
    const t = k.time.launch;
    const tensors = Object.entries(l.tensors).filter(([param]) => a.footprints.some((x) => x.target === param)).map(([param, id]) => {
      const f = a.footprints.find((x) => x.target === param);
      return { param, name: l.names[id] ?? id, id, readBytes: tensorBytes(f, env, 'read'), writtenBytes: tensorBytes(f, env, 'written') };
    });
    const why = k.units === null ? (k.formulas.units === undefined ? pipelineText('geometryUnknown', GEOMETRY[k.unit] ?? []) : pipelineText('unitsUnknown', k.unbound)) : t?.lower === null || t === null ? pipelineText('countsUnknown', k.unbound) : undefined;
    launches.push({
      ...base,
      units: k.units,
      bindings: k.bindings,
      flops: k.compulsory?.flops ?? (k.units !== null && k.perUnit.flops !== null ? k.units * k.perUnit.flops : null),
      tileBytes: tile,
      compulsoryBytes: comp,
      time: t,
      bound: t && t.math !== null && t.memory !== null ? (t.memory >= t.math ? 'memory' : 'compute') : 'unknown',
      tensors: tensors.map(({ param, name, readBytes, writtenBytes }) => ({ param, name, readBytes, writtenBytes })),
      complete: k.complete && !why,
      ...(why ? { unresolved: why } : {}),
      // ids kept aside for fusion
      ...({ _ids: Object.fromEntries(tensors.map((x) => [x.param, x.id])) } as object),
    });
  }
  // Totals: resolved launches × repeat.
  const rep = (l: PipelineLaunchReport) => l.repeat ?? 1;
  const ok = (l: PipelineLaunchReport) => l.time !== null && l.time.lower !== null && !l.unresolved;
  let flops = 0;
  let comp = 0;
  let tile = 0;
  const time: TimeBounds = { math: 0, memory: 0, lower: 0, upper: 0 };
  let memBound = 0;
  let runs = 0;
  let resolved = 0;
  for (const l of launches) {
    runs += rep(l);
    if (!ok(l)) continue;
    resolved += rep(l);
    flops += rep(l) * (l.flops ?? 0);
    comp += rep(l) * (l.compulsoryBytes ?? 0);
    tile += rep(l) * (l.tileBytes ?? 0);
    time.math! += rep(l) * (l.time!.math ?? 0);
    time.memory! += rep(l) * (l.time!.memory ?? 0);
    time.lower! += rep(l) * l.time!.lower!;
    time.upper! += rep(l) * (l.time!.upper ?? 0);
    if (l.bound === 'memory') memBound += rep(l) * l.time!.lower!;
  }
  for (const l of launches) if (ok(l) && time.lower! > 0) l.share = (rep(l) * l.time!.lower!) / time.lower!;
  if (launches.some((l) => l.repeat === null)) notes.push(pipelineText('unknownLoopNote'));
  if (resolved < runs) notes.push(pipelineText('lowerBoundsNote', runs - resolved, runs));
  if (fact.notes) notes.push(...fact.notes);

  // Fusion what-if: consecutive launches, same repeat, a tensor written by the first and read by the second.
  const fusion: PipelineFusion[] = [];
  const fusedLowerOf = (a: PipelineLaunchReport, b: PipelineLaunchReport, saved: number): { lower: number; bound: 'memory' | 'compute' } => {
    const math = (a.time!.math ?? 0) + (b.time!.math ?? 0);
    const dram = Math.max(0, (a.compulsoryBytes ?? 0) + (b.compulsoryBytes ?? 0) - saved) / gpu.memoryBandwidth;
    const l2 = gpu.l2Bandwidth ? Math.max(0, (a.tileBytes ?? 0) + (b.tileBytes ?? 0) - saved) / gpu.l2Bandwidth : 0;
    const mem = Math.max(dram, l2);
    return { lower: Math.max(math, mem), bound: mem >= math ? 'memory' : 'compute' };
  };
  const deltas: number[] = [];
  for (let i = 0; i + 1 < launches.length; i++) {
    const a = launches[i];
    const b = launches[i + 1];
    if (!ok(a) || !ok(b) || a.repeat !== b.repeat) continue;
    const ia = (a as unknown as { _ids: Record<string, string> })._ids;
    const ib = (b as unknown as { _ids: Record<string, string> })._ids;
    const handed: string[] = [];
    let saved = 0;
    for (const ta of a.tensors) {
      if (!ta.writtenBytes) continue;
      const id = ia[ta.param];
      for (const tb of b.tensors) {
        if (ib[tb.param] !== id || !tb.readBytes) continue;
        if (!handed.includes(ta.name)) handed.push(ta.name);
        saved += ta.writtenBytes + tb.readBytes;
      }
    }
    if (!handed.length) continue;
    const f = fusedLowerOf(a, b, saved);
    const before = time.lower!;
    const delta = rep(a) * (a.time!.lower! + b.time!.lower! - f.lower);
    const after = before - delta;
    deltas[i] = delta;
    fusion.push({
      from: i,
      to: i + 1,
      fromKernel: a.kernel,
      toKernel: b.kernel,
      tensors: handed,
      bytesSaved: rep(a) * saved,
      lowerBefore: before,
      lowerAfter: after,
      saving: before > 0 ? delta / before : 0,
      fusedBound: f.bound,
    });
  }
  // The best set of disjoint pairs (a chain a→b→c fuses either pair, not both, in this what-if).
  const best: number[] = [];
  const dp: { v: number; pick: boolean }[] = [];
  for (let i = launches.length - 2; i >= -1; i--) {
    if (i < 0) break;
    const skip = dp[i + 1]?.v ?? 0;
    const take = deltas[i] !== undefined ? deltas[i] + (dp[i + 2]?.v ?? 0) : -Infinity;
    dp[i] = take > skip ? { v: take, pick: true } : { v: skip, pick: false };
  }
  for (let i = 0; i < launches.length - 1; ) {
    if (dp[i]?.pick) {
      best.push(i);
      i += 2;
    } else i++;
  }
  const bestDelta = best.reduce((s, i) => s + deltas[i], 0);
  for (const l of launches) delete (l as unknown as { _ids?: unknown })._ids;
  const lower = time.lower!;
  return {
    name: fact.name,
    line: fact.line,
    endLine: fact.endLine,
    launches,
    total: {
      launches: runs,
      resolved,
      flops,
      compulsoryBytes: comp,
      tileBytes: tile,
      intensity: comp > 0 ? flops / comp : null,
      time,
      memoryBoundTime: memBound,
      memoryBoundShare: lower > 0 ? memBound / lower : null,
      complete: resolved === runs && launches.every((l) => l.complete),
      fusedPairs: best.length,
      fusedLower: best.length ? lower - bestDelta : null,
      fusedSaving: best.length && lower > 0 ? bestDelta / lower : null,
    },
    fusion,
    notes,
  };
}
