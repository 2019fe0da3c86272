/**
 * Counting: kernel IR + bindings + GPU → the per-unit report.
 *
 *   IR region tree ──► symbolic totals (formulas)
 *                 └──► numeric totals (each event × its enclosing trips;
 *                      of a choice, the costlier arm: engine/choice.ts)
 *                           └──► intensities ──► roofline (peak, ridge, bound)
 *                           └──► honesty: complete / lower bounds (engine/honesty.ts)
 *
 * Numeric totals are evaluated event by event rather than from the symbolic
 * sum, so a formula too long to print never costs a number.
 */
import type { Dtype, GpuSpec } from '../gpus/types';
import type { Event, KernelIR, Region } from '../ir';
import { add, evaluate, freeSymbols, mul, num as numExpr, ONE, printExpr, type Env, type Expr } from '../sym/expr';
import type { BreakdownItem, KernelReport, PerUnit, RegionReport, TimeBounds } from '../report/types';
import { choosePeak, roofline } from './roofline';
import { armCost, PROBE_ENV_VALUE } from '../engine/choice';
import { completeness } from '../engine/honesty';
import { assumption, type Assumption } from '../messages';
import { steadyState } from '../engine/steady';

interface Acc {
  flops: number | null;
  load: number | null;
  store: number | null;
  shared: number | null;
  uniform: number | null;
  special: number | null;
  int: number | null;
}

function accZero(): Acc {
  return { flops: 0, load: 0, store: 0, shared: 0, uniform: 0, special: 0, int: 0 };
}

/** Sum of two counts; null (unknown) when either is unknown or the sum stops being finite. */
function addN(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  const s = a + b;
  return Number.isFinite(s) ? s : null;
}

function finite(x: number | null): number | null {
  return x !== null && Number.isFinite(x) ? x : null;
}

/**
 * A count rounded to 12 significant digits: counts are exact rationals, and
 * averaging (unrolled loops, persistent loops) must not show 510.99999999999994.
 */
function tidy(x: number | null): number | null {
  return x === null || x === 0 ? x : Number(x.toPrecision(12));
}

type Keyed = Map<string, { label: string; line: number; value: number | null; formula: Expr[] }>;

interface Walk {
  env: Env;
  gpu: GpuSpec;
  symFlops: Expr[];
  symLoad: Expr[];
  symStore: Expr[];
  regions: RegionReport[];
  flopsByKey: Keyed;
  bytesByKey: Keyed;
  /** FLOPs by (dtype, tensorCore) for the compute dtype. */
  flopsByType: Map<string, number>;
  free: Set<string>;
  /** Sentences about the choices made (which arm counted, and why). */
  chosen: Assumption[];
  /**
   * Only the numbers (the `Acc` returned) and the free sizes: no formula,
   * region or sentence. What a choice compares its arms by; the arm it keeps
   * is walked again in full.
   */
  countOnly: boolean;
}

function newWalk(env: Env, gpu: GpuSpec, free: Set<string>, countOnly = false): Walk {
  return { env, gpu, symFlops: [], symLoad: [], symStore: [], regions: [], flopsByKey: new Map(), bytesByKey: new Map(), flopsByType: new Map(), free, chosen: [], countOnly };
}

/** Adds a walk of an arm into its parent. */
function mergeWalk(into: Walk, from: Walk): void {
  into.symFlops.push(...from.symFlops);
  into.symLoad.push(...from.symLoad);
  into.symStore.push(...from.symStore);
  into.regions.push(...from.regions);
  into.chosen.push(...from.chosen);
  for (const [k, v] of from.flopsByKey) for (const f of v.formula) record(into.flopsByKey, k, v.label, v.line, v.value, f);
  for (const [k, v] of from.bytesByKey) for (const f of v.formula) record(into.bytesByKey, k, v.label, v.line, v.value, f);
  for (const [k, v] of from.flopsByType) into.flopsByType.set(k, (into.flopsByType.get(k) ?? 0) + v);
}

function record(m: Keyed, key: string, label: string, line: number, value: number | null, formula: Expr): void {
  const cur = m.get(key);
  if (cur) {
    cur.value = addN(cur.value, value);
    cur.formula.push(formula);
  } else m.set(key, { label, line, value, formula: [formula] });
}

function addAcc(acc: Acc, sub: Acc): void {
  for (const k of Object.keys(acc) as (keyof Acc)[]) acc[k] = addN(acc[k], sub[k]);
}

function walkRegion(r: Region, mult: Expr, multVal: number | null, w: Walk): Acc {
  if (r.kind === 'choice') return walkChoice(r, mult, multVal, w);
  // A branch's trips: 1, or the share of the loop's trips a periodic condition holds on.
  const trips = r.kind === 'loop' || r.kind === 'branch' ? r.trips : ONE;
  const tripsVal = evaluate(trips, w.env);
  if (tripsVal === undefined) freeSymbols(trips, w.free);
  const m = w.countOnly ? mult : mul(mult, trips);
  const mv = multVal === null || tripsVal === undefined ? null : finite(multVal * Math.max(0, tripsVal));
  const acc = accZero();
  for (const e of r.events) addEvent(e, m, mv, w, acc);
  for (const c of r.children) addAcc(acc, walkRegion(c, m, mv, w));
  if (!w.countOnly && (r.kind === 'loop' || r.kind === 'branch')) {
    w.regions.push({
      line: r.line,
      kind: r.kind,
      label: r.label,
      trips: tripsVal === undefined ? null : Math.max(0, tripsVal),
      tripsFormula: printExpr(trips),
      flops: acc.flops,
      loadBytes: acc.load,
      storeBytes: acc.store,
    });
  }
  return acc;
}

/**
 * A choice counts its costlier arm (COUNTING.md): every arm is counted apart
 * (numbers only), and the one kept is walked again in full (its formulas,
 * regions and sentences). Walking every arm in full built the formulas of
 * arms thrown away, at every level of choices within choices.
 */
function walkChoice(r: Region, mult: Expr, multVal: number | null, w: Walk): Acc {
  const arms = r.children.map((c) => {
    const sub = newWalk(w.env, w.gpu, new Set(), true);
    const acc = walkRegion({ ...c, kind: 'kernel' }, mult, multVal, sub);
    // Arms whose counts are symbolic are compared with every free size at a probe value.
    let probe: Acc | undefined;
    if ([acc.flops, acc.load, acc.store].some((x) => x === null)) {
      const env = new Map(w.env);
      for (const s of sub.free) if (!env.has(s)) env.set(s, PROBE_ENV_VALUE);
      probe = walkRegion({ ...c, kind: 'kernel' }, mult, multVal === null ? 1 : multVal, newWalk(env, w.gpu, new Set(), true));
    }
    return { region: c, acc, sub, cost: armCost(probe ?? acc, w.gpu), probed: probe !== undefined };
  });
  if (arms.length === 0) return accZero();
  let best = arms[0];
  for (const a of arms.slice(1)) if (a.cost > best.cost) best = a;
  for (const s of best.sub.free) w.free.add(s);
  if (w.countOnly) return best.acc;
  const kept = newWalk(w.env, w.gpu, new Set());
  walkRegion({ ...best.region, kind: 'kernel' }, mult, multVal, kept);
  mergeWalk(w, kept);
  const others = arms.filter((a) => a !== best).map((a) => a.region.label);
  w.chosen.push(assumption('armChosen', r.label, r.line, best.region.label, others.join(', '), r.why ?? 'data', arms.some((a) => a.probed)));
  w.regions.push({
    line: r.line,
    kind: 'branch',
    label: `${r.label} → ${best.region.label} (costlier)`,
    trips: 1,
    tripsFormula: '1',
    flops: best.acc.flops,
    loadBytes: best.acc.load,
    storeBytes: best.acc.store,
  });
  return best.acc;
}

function addEvent(e: Event, m: Expr, mv: number | null, w: Walk, acc: Acc): void {
  const amount = e.kind === 'flop' || e.kind === 'int' ? e.count : e.elems;
  const v0 = evaluate(amount, w.env);
  if (v0 === undefined) freeSymbols(amount, w.free);
  const v = v0 === undefined || mv === null ? null : finite(Math.max(0, v0) * mv);
  const bytes = addNumbers(e, v, acc);
  // A count-only walk (a choice comparing its arms) keeps the numbers alone.
  if (w.countOnly) return;
  const total = mul(m, amount);
  if (e.kind === 'flop') {
    w.symFlops.push(total);
    record(w.flopsByKey, e.op, e.op, e.line, v, total);
    if (v !== null && v > 0) {
      const k = `${e.dtype}|${e.tensorCore ? 1 : 0}`;
      w.flopsByType.set(k, (w.flopsByType.get(k) ?? 0) + v);
    }
  } else if (e.kind !== 'int') {
    const bytesExpr = mul(total, numExpr(e.elemBytes));
    if (e.space === 'global') {
      (e.kind === 'load' ? w.symLoad : w.symStore).push(bytesExpr);
      record(w.bytesByKey, `${e.kind} ${e.target}`, `${e.kind} ${e.target} (${e.dtype})`, e.line, bytes, bytesExpr);
    }
  }
}

/** An event's numbers (`v` its amount, times the trips around it) added to `acc`; a memory event's bytes. */
function addNumbers(e: Event, v: number | null, acc: Acc): number | null {
  if (e.kind === 'flop') {
    acc.flops = addN(acc.flops, v);
    if (e.special) acc.special = addN(acc.special, v);
    return null;
  }
  if (e.kind === 'int') {
    acc.int = addN(acc.int, v);
    return null;
  }
  const bytes = v === null ? null : finite(v * e.elemBytes);
  if (e.space === 'global') {
    if (e.kind === 'load') acc.load = addN(acc.load, bytes);
    else acc.store = addN(acc.store, bytes);
  } else if (e.space === 'shared') acc.shared = addN(acc.shared, bytes);
  else acc.uniform = addN(acc.uniform, bytes);
  return bytes;
}

/** Formulas of more terms than this are not printed (the numbers are still exact). */
const MAX_FORMULA_TERMS = 512;

function printSum(xs: Expr[]): string {
  if (xs.length === 0) return '0';
  if (xs.length > MAX_FORMULA_TERMS) return '(formula too long to print)';
  const s = add(...xs);
  if (s.poisoned) return xs.length > 1 ? '(formula too long to print)' : '?';
  return printExpr(s);
}

export interface CountOptions {
  gpu: GpuSpec;
  env: Env;
}

/** Counts one kernel and places it on the GPU's roofline. */
export function countKernel(k: KernelIR, opts: CountOptions): KernelReport {
  const w = newWalk(opts.env, opts.gpu, new Set());
  const acc = k.truncated || k.failed ? nullAcc() : walkRegion(k.body, ONE, 1, w);
  const undecided = [...new Set(k.needed)].filter((n) => !opts.env.has(n)).sort();

  // Compute dtype: the arithmetic that dominates the FLOPs.
  let computeDtype: Dtype = 'fp32';
  let tensorCore = false;
  let best = -1;
  for (const [key, v] of w.flopsByType) {
    if (v > best) {
      best = v;
      const [d, t] = key.split('|');
      computeDtype = d as Dtype;
      tensorCore = t === '1';
    }
  }
  if (best <= 0) {
    // No evaluated FLOPs: pick the type of any FLOP event, else int32 for integer-only kernels.
    const firstFlop = findFirst(k.body, (e) => e.kind === 'flop');
    if (firstFlop && firstFlop.kind === 'flop') {
      computeDtype = firstFlop.dtype;
      tensorCore = firstFlop.tensorCore;
    } else if (findFirst(k.body, (e) => e.kind === 'int')) computeDtype = 'int32';
  }

  const peak = choosePeak(opts.gpu, computeDtype, tensorCore);
  const assumptions = [...k.assumptions];
  if (peak.note) assumptions.push(assumption('peakFallback', peak.note));
  for (const c of w.chosen) assumptions.push(c);

  const perUnitBytes = addN(acc.load, acc.store);
  const tileAI =
    acc.flops === null || perUnitBytes === null
      ? null
      : perUnitBytes === 0
        ? acc.flops > 0
          ? Infinity
          : null
        : acc.flops / perUnitBytes;

  // Units and compulsory traffic.
  const unitsRaw = k.units ? evaluate(k.units, opts.env) : undefined;
  // A grid that evaluates to a negative or non-finite count is unknown, not a number.
  const units = unitsRaw !== undefined && Number.isFinite(unitsRaw) && unitsRaw >= 0 ? unitsRaw : null;
  if (k.units && units === null) freeSymbols(k.units, w.free);
  let compulsory: KernelReport['compulsory'] = null;
  let compulsoryAI: number | null = null;
  if (k.footprints.length > 0 && !k.truncated && !k.failed) {
    let cl: number | null = 0;
    let cs: number | null = 0;
    for (const f of k.footprints) {
      const r = f.read ? evaluate(f.read, opts.env) : 0;
      const wr = f.written ? evaluate(f.written, opts.env) : 0;
      cl = r === undefined || cl === null ? null : finite(cl + Math.max(0, r) * f.elemBytes);
      cs = wr === undefined || cs === null ? null : finite(cs + Math.max(0, wr) * f.elemBytes);
    }
    const totalFlops = units === null || acc.flops === null ? null : finite(units * acc.flops);
    // Compulsory traffic can never exceed what the units request.
    if (units !== null && cl !== null && acc.load !== null) cl = Math.min(cl, units * acc.load);
    if (units !== null && cs !== null && acc.store !== null) cs = Math.min(cs, units * acc.store);
    compulsory = { loadBytes: cl, storeBytes: cs, flops: totalFlops };
    if (totalFlops !== null && cl !== null && cs !== null) {
      const b = cl + cs;
      compulsoryAI = b > 0 ? finite(totalFlops / b) : totalFlops > 0 ? Infinity : null;
    }
    if (k.compulsoryNote) compulsory.note = k.compulsoryNote;
  } else if (k.compulsoryNote) {
    compulsory = { loadBytes: null, storeBytes: null, flops: null, note: k.compulsoryNote };
  }

  // Honesty: what could not be accounted for makes the numbers bounds, never clean figures.
  const honest = completeness(k, { flops: acc.flops, bytes: perUnitBytes, intensity: tileAI === Infinity ? null : tileAI });
  const rl = roofline({
    peak: peak.flops,
    memoryBandwidth: opts.gpu.memoryBandwidth,
    l2Bandwidth: opts.gpu.l2Bandwidth,
    tileIntensity: honest.intensity === 'unknown' ? null : tileAI,
    compulsoryIntensity: honest.intensity === 'unknown' ? null : compulsoryAI,
  });

  const perUnit: PerUnit = { flops: tidy(acc.flops), loadBytes: tidy(acc.load), storeBytes: tidy(acc.store) };
  if (acc.shared !== 0) perUnit.sharedBytes = tidy(acc.shared);
  if (acc.uniform !== 0) perUnit.uniformBytes = tidy(acc.uniform);
  if (acc.special !== 0) perUnit.specialOps = tidy(acc.special);
  if (acc.int !== 0) perUnit.intOps = tidy(acc.int);

  // Time bounds agree with `attainable`: the memory term is the larger of DRAM and L2 time.
  const timeOf = (flops: number | null, dramBytes: number | null, tileBytes: number | null): TimeBounds => {
    const math = flops === null ? null : finite(flops / peak.flops);
    const dram = dramBytes === null ? null : finite(dramBytes / opts.gpu.memoryBandwidth);
    const l2 = opts.gpu.l2Bandwidth && tileBytes !== null ? finite(tileBytes / opts.gpu.l2Bandwidth) : null;
    const memory = dram === null ? null : l2 === null ? dram : Math.max(dram, l2);
    return {
      math,
      memory,
      lower: math === null || memory === null ? null : Math.max(math, memory),
      upper: math === null || memory === null ? null : math + memory,
    };
  };
  const launchTileBytes = units !== null && perUnitBytes !== null ? finite(units * perUnitBytes) : null;
  const launchDramBytes =
    compulsory && compulsory.loadBytes !== null && compulsory.storeBytes !== null ? compulsory.loadBytes + compulsory.storeBytes : launchTileBytes;

  const bindings: Record<string, number | boolean | string> = {};
  const bindingSources: KernelReport['bindingSources'] = {};
  for (const [n, b] of Object.entries(k.bindings)) {
    bindings[n] = b.value;
    bindingSources[n] = { source: b.source, detail: b.detail };
  }
  const unbound = [...w.free].filter((n) => !opts.env.has(n)).sort();

  const toItems = (m: Keyed): BreakdownItem[] =>
    [...m.values()]
      .map((x) => ({ label: x.label, line: x.line, value: x.value, formula: printSum(x.formula) }))
      .sort((a, b) => (b.value ?? -1) - (a.value ?? -1));

  w.regions.sort((a, b) => a.line - b.line);
  const known = unbound.length === 0 && acc.flops !== null && perUnitBytes !== null;
  const report: KernelReport = {
    name: k.name,
    line: k.line,
    ...(k.range ? { endLine: k.range.endLine + 1 } : {}),
    unit: k.unit,
    bindings,
    bindingSources,
    unbound,
    ...(k.suggestions ? { suggestions: k.suggestions } : {}),
    perUnit,
    complete: honest.complete,
    ...(honest.complete ? {} : { incompleteReasons: honest.reasons, incompleteCounts: honest.counts, bounds: honest.bounds }),
    ...(undecided.length ? { undecided } : {}),
    units,
    computeDtype,
    arithmeticIntensity: tileAI === Infinity || honest.intensity === 'unknown' ? null : tileAI,
    compulsoryIntensity: compulsoryAI === Infinity || honest.intensity === 'unknown' ? null : compulsoryAI,
    compulsory,
    peak: { kind: peak.kind, dtype: peak.dtype, flops: peak.flops },
    ridgePoint: rl.ridgePoint,
    l2RidgePoint: rl.l2RidgePoint,
    bound: rl.bound,
    boundLevel: rl.boundLevel,
    attainableFlops: rl.attainable,
    time: {
      perUnit: timeOf(acc.flops, perUnitBytes, perUnitBytes),
      launch: units === null ? null : timeOf(acc.flops === null ? null : finite(units * acc.flops), launchDramBytes, launchTileBytes),
    },
    formulas: {
      flops: printSum(w.symFlops),
      loadBytes: printSum(w.symLoad),
      storeBytes: printSum(w.symStore),
      ...(k.units ? { units: printExpr(k.units) } : {}),
    },
    regions: w.regions,
    breakdown: { flops: toItems(w.flopsByKey), bytes: toItems(w.bytesByKey) },
    assumptions: assumptions.map((a) => a.text),
    assumptionIds: assumptions.map((a) => a.id),
    status: k.truncated || k.failed || !known ? 'partial' : honest.complete ? 'ok' : 'incomplete',
  };
  // Only when the intensity itself is not known (sizes that change only the grid leave it known).
  if (!known && report.arithmeticIntensity === null && !k.truncated && !k.failed) {
    const steady = steadyState(k, opts, report);
    // `AI ≥ 0` says nothing: no FLOPs counted while some may be missing is no number.
    const noInfo = steady?.value === 0 && !report.complete && report.bounds?.flops !== 'exact';
    if (steady && !noInfo) {
      const at = (ai: number) => roofline({ peak: peak.flops, memoryBandwidth: opts.gpu.memoryBandwidth, l2Bandwidth: opts.gpu.l2Bandwidth, tileIntensity: ai, compulsoryIntensity: steady.compulsory });
      const srl = at(steady.value);
      // A range of intensities is a verdict only when both ends give the same one.
      const ends = steady.range ? steady.range.map(at) : [];
      const agree = ends.every((e) => e.bound === srl.bound && e.boundLevel === srl.boundLevel);
      if (srl.attainable !== null && srl.bound !== 'unknown' && agree)
        report.arithmeticIntensitySteady = { ...steady, bound: srl.bound, boundLevel: srl.boundLevel, attainableFlops: srl.attainable };
    }
  }
  return report;
}

function nullAcc(): Acc {
  return { flops: null, load: null, store: null, shared: 0, uniform: 0, special: 0, int: 0 };
}

function findFirst(r: Region, pred: (e: Event) => boolean): Event | undefined {
  for (const e of r.events) if (pred(e)) return e;
  for (const c of r.children) {
    const f = findFirst(c, pred);
    if (f) return f;
  }
  return undefined;
}

/** Every symbol a kernel's counts, trips and units mention. */
export function symbolsOf(k: KernelIR): Set<string> {
  const out = new Set<string>(k.needed);
  const visit = (r: Region): void => {
    freeSymbols(r.trips, out);
    for (const e of r.events) freeSymbols(e.kind === 'flop' || e.kind === 'int' ? e.count : e.elems, out);
    for (const c of r.children) visit(c);
  };
  visit(k.body);
  if (k.units) freeSymbols(k.units, out);
  for (const f of k.footprints) {
    if (f.read) freeSymbols(f.read, out);
    if (f.written) freeSymbols(f.written, out);
  }
  return out;
}
