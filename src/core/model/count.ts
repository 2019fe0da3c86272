/**
 * Counting: kernel IR + bindings + GPU → the per-unit report.
 *
 *   IR region tree ──► symbolic totals (formulas)
 *                 └──► numeric totals (each event × its enclosing trips)
 *                           └──► intensities ──► roofline (peak, ridge, bound)
 *
 * Numeric totals are evaluated event by event rather than from the symbolic
 * sum, so a formula too long to print never costs a number.
 */
import type { Dtype, GpuSpec } from '../gpus/types';
import type { Event, KernelIR, Region } from '../ir';
import { add, evaluate, freeSymbols, mul, num as numExpr, ONE, printExpr, type Env, type Expr } from '../sym/expr';
import type { BreakdownItem, KernelReport, PerUnit, RegionReport, TimeBounds } from '../report/types';
import { choosePeak, roofline } from './roofline';

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

interface Walk {
  env: Env;
  totals: Acc;
  symFlops: Expr[];
  symLoad: Expr[];
  symStore: Expr[];
  regions: RegionReport[];
  flopsByKey: Map<string, { label: string; line: number; value: number | null; formula: Expr[] }>;
  bytesByKey: Map<string, { label: string; line: number; value: number | null; formula: Expr[] }>;
  /** FLOPs by (dtype, tensorCore) for the compute dtype. */
  flopsByType: Map<string, number>;
  free: Set<string>;
}

function record(
  m: Walk['flopsByKey'],
  key: string,
  label: string,
  line: number,
  value: number | null,
  formula: Expr,
): void {
  const cur = m.get(key);
  if (cur) {
    cur.value = addN(cur.value, value);
    cur.formula.push(formula);
  } else m.set(key, { label, line, value, formula: [formula] });
}

function walkRegion(r: Region, mult: Expr, multVal: number | null, w: Walk): Acc {
  const trips = r.kind === 'loop' ? r.trips : ONE;
  const tripsVal = evaluate(trips, w.env);
  if (tripsVal === undefined) freeSymbols(trips, w.free);
  const m = mul(mult, trips);
  const mv = multVal === null || tripsVal === undefined ? null : finite(multVal * Math.max(0, tripsVal));
  const acc = accZero();
  for (const e of r.events) addEvent(e, m, mv, w, acc);
  for (const c of r.children) {
    const sub = walkRegion(c, m, mv, w);
    for (const k of Object.keys(acc) as (keyof Acc)[]) acc[k] = addN(acc[k], sub[k]);
  }
  if (r.kind !== 'kernel') {
    w.regions.push({
      line: r.line,
      kind: r.kind,
      label: r.label,
      trips: r.kind === 'loop' ? (tripsVal === undefined ? null : Math.max(0, tripsVal)) : 1,
      tripsFormula: printExpr(trips),
      flops: acc.flops,
      loadBytes: acc.load,
      storeBytes: acc.store,
    });
  }
  return acc;
}

function addEvent(e: Event, m: Expr, mv: number | null, w: Walk, acc: Acc): void {
  const amount = e.kind === 'flop' || e.kind === 'int' ? e.count : e.elems;
  const v0 = evaluate(amount, w.env);
  if (v0 === undefined) freeSymbols(amount, w.free);
  const v = v0 === undefined || mv === null ? null : finite(Math.max(0, v0) * mv);
  const total = mul(m, amount);
  if (e.kind === 'flop') {
    acc.flops = addN(acc.flops, v);
    w.symFlops.push(total);
    if (e.special) acc.special = addN(acc.special, v);
    record(w.flopsByKey, e.op, e.op, e.line, v, total);
    if (v !== null && v > 0) {
      const k = `${e.dtype}|${e.tensorCore ? 1 : 0}`;
      w.flopsByType.set(k, (w.flopsByType.get(k) ?? 0) + v);
    }
  } else if (e.kind === 'int') {
    acc.int = addN(acc.int, v);
  } else {
    const bytes = v === null ? null : finite(v * e.elemBytes);
    const bytesExpr = mul(total, numExpr(e.elemBytes));
    if (e.space === 'global') {
      if (e.kind === 'load') {
        acc.load = addN(acc.load, bytes);
        w.symLoad.push(bytesExpr);
      } else {
        acc.store = addN(acc.store, bytes);
        w.symStore.push(bytesExpr);
      }
      record(w.bytesByKey, `${e.kind} ${e.target}`, `${e.kind} ${e.target} (${e.dtype})`, e.line, bytes, bytesExpr);
    } else if (e.space === 'shared') {
      acc.shared = addN(acc.shared, bytes);
    } else {
      acc.uniform = addN(acc.uniform, bytes);
    }
  }
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
  const w: Walk = {
    env: opts.env,
    totals: accZero(),
    symFlops: [],
    symLoad: [],
    symStore: [],
    regions: [],
    flopsByKey: new Map(),
    bytesByKey: new Map(),
    flopsByType: new Map(),
    free: new Set(),
  };
  const acc = walkRegion(k.body, ONE, 1, w);
  for (const n of k.needed) if (!opts.env.has(n)) w.free.add(n);

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
  if (peak.note) assumptions.push(peak.note);

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
  if (k.footprints.length > 0) {
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

  const rl = roofline({
    peak: peak.flops,
    memoryBandwidth: opts.gpu.memoryBandwidth,
    l2Bandwidth: opts.gpu.l2Bandwidth,
    tileIntensity: tileAI,
    compulsoryIntensity: compulsoryAI,
  });

  const perUnit: PerUnit = { flops: acc.flops, loadBytes: acc.load, storeBytes: acc.store };
  if (acc.shared !== 0) perUnit.sharedBytes = acc.shared;
  if (acc.uniform !== 0) perUnit.uniformBytes = acc.uniform;
  if (acc.special !== 0) perUnit.specialOps = acc.special;
  if (acc.int !== 0) perUnit.intOps = acc.int;

  const timeOf = (flops: number | null, bytes: number | null): TimeBounds => {
    const math = flops === null ? null : finite(flops / peak.flops);
    const memory = bytes === null ? null : finite(bytes / opts.gpu.memoryBandwidth);
    return {
      math,
      memory,
      lower: math === null || memory === null ? null : Math.max(math, memory),
      upper: math === null || memory === null ? null : math + memory,
    };
  };
  const launchBytes =
    compulsory && compulsory.loadBytes !== null && compulsory.storeBytes !== null
      ? compulsory.loadBytes + compulsory.storeBytes
      : units !== null && perUnitBytes !== null
        ? finite(units * perUnitBytes)
        : null;

  const bindings: Record<string, number | boolean | string> = {};
  const bindingSources: KernelReport['bindingSources'] = {};
  for (const [n, b] of Object.entries(k.bindings)) {
    bindings[n] = b.value;
    bindingSources[n] = { source: b.source, detail: b.detail };
  }
  const unbound = [...w.free].filter((n) => !opts.env.has(n)).sort();

  const toItems = (m: Walk['bytesByKey']): BreakdownItem[] =>
    [...m.values()]
      .map((x) => ({ label: x.label, line: x.line, value: x.value, formula: printSum(x.formula) }))
      .sort((a, b) => (b.value ?? -1) - (a.value ?? -1));

  w.regions.sort((a, b) => a.line - b.line);
  return {
    name: k.name,
    line: k.line,
    ...(k.range ? { endLine: k.range.endLine + 1 } : {}),
    unit: k.unit,
    bindings,
    bindingSources,
    unbound,
    perUnit,
    units,
    computeDtype,
    arithmeticIntensity: tileAI === Infinity ? null : tileAI,
    compulsoryIntensity: compulsoryAI === Infinity ? null : compulsoryAI,
    compulsory,
    peak: { kind: peak.kind, dtype: peak.dtype, flops: peak.flops },
    ridgePoint: rl.ridgePoint,
    l2RidgePoint: rl.l2RidgePoint,
    bound: rl.bound,
    boundLevel: rl.boundLevel,
    attainableFlops: rl.attainable,
    time: {
      perUnit: timeOf(acc.flops, perUnitBytes),
      launch: units === null ? null : timeOf(acc.flops === null ? null : finite(units * acc.flops), launchBytes),
    },
    formulas: {
      flops: printSum(w.symFlops),
      loadBytes: printSum(w.symLoad),
      storeBytes: printSum(w.symStore),
      ...(k.units ? { units: printExpr(k.units) } : {}),
    },
    regions: w.regions,
    breakdown: { flops: toItems(w.flopsByKey), bytes: toItems(w.bytesByKey) },
    assumptions,
    status: unbound.length === 0 && acc.flops !== null && perUnitBytes !== null ? 'ok' : 'partial',
  };
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
