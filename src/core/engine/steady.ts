/**
 * Steady-state intensity (COUNTING.md, "Honesty"): when a kernel's counts stay
 * symbolic only because of loop trip counts, the intensity of its dominant
 * loop per iteration is still a real number — the one tile sizes change
 * (a matmul's K loop: 2·BM·BN·BK FLOPs per (BM + BN)·BK elements, K cancels).
 * It is reported beside the full count, labelled with the loop and the
 * symbols it does not depend on, and never presented as the full count.
 */
import type { GpuSpec } from '../gpus/types';
import type { KernelIR, Region } from '../ir';
import type { KernelReport } from '../report/types';
import { evaluate, freeSymbols, type Env } from '../sym/expr';

interface Totals {
  flops: number;
  bytes: number;
}

/** Totals of a region per entry (its own trips excluded), or null when some amount is not evaluable. */
function body(r: Region, env: Env): Totals | null {
  const t: Totals = { flops: 0, bytes: 0 };
  for (const e of r.events) {
    const v = evaluate(e.kind === 'flop' || e.kind === 'int' ? e.count : e.elems, env);
    if (v === undefined) return null;
    if (e.kind === 'flop') t.flops += Math.max(0, v);
    else if ((e.kind === 'load' || e.kind === 'store') && e.space === 'global') t.bytes += Math.max(0, v) * e.elemBytes;
  }
  for (const c of r.children) {
    if (c.kind === 'choice') {
      // The arms of a choice: the costlier by the same measure as the count (FLOPs + bytes here).
      let best: Totals | null = null;
      for (const a of c.children) {
        const x = body(a, env);
        if (!x) return null;
        if (!best || x.flops + x.bytes > best.flops + best.bytes) best = x;
      }
      if (best) {
        t.flops += best.flops;
        t.bytes += best.bytes;
      }
      continue;
    }
    const inner = body(c, env);
    const trips = c.kind === 'loop' || c.kind === 'branch' ? evaluate(c.trips, env) : 1;
    if (!inner || trips === undefined) return null;
    t.flops += inner.flops * Math.max(0, trips);
    t.bytes += inner.bytes * Math.max(0, trips);
  }
  return t;
}

/** The body's totals per trip with the trip symbols at 2^20 and 2^24, when they agree within 0.1 % (intensity). */
function grownBody(c: Region, env: Env, tripSyms: string[]): Totals | undefined {
  if (tripSyms.length === 0) return undefined;
  const at = (x: number): Totals | null => {
    const e = new Map(env);
    for (const s of tripSyms) e.set(s, x);
    return body(c, e);
  };
  const a = at(2 ** 20);
  const b = at(2 ** 24);
  if (!a || !b || a.bytes <= 0 || b.bytes <= 0 || b.flops <= 0) return undefined;
  const ra = a.flops / a.bytes;
  const rb = b.flops / b.bytes;
  return Math.abs(ra - rb) <= 1e-3 * rb ? b : undefined;
}

interface Candidate {
  loop: Region;
  per: Totals;
  /** The body's intensity when it does not depend on the sizes (`per` is then at sizes 1024). */
  ratio?: number;
  /** The body's intensity over the sizes when it moves a little with them (`ratio` is its limit). */
  range?: [number, number];
  symbols: string[];
}

/**
 * Loops whose trip count is not evaluable: the steady-state candidates, when
 * their body is evaluable, or when the body's intensity is the same for every
 * value of the unbound sizes it holds (a row loop over BLOCK columns: BLOCK
 * FLOPs per 4·BLOCK bytes). `per` is then the body at those sizes = 1024, for
 * comparing loops; `ratio` its intensity.
 */
function candidates(r: Region, env: Env, out: Candidate[], unbound: string[]): void {
  for (const c of r.children) {
    if (c.kind === 'loop' && evaluate(c.trips, env) === undefined) {
      const tripSyms = [...freeSymbols(c.trips)].filter((s) => !env.has(s));
      const per = body(c, env);
      if (per) {
        out.push({ loop: c, per, symbols: tripSyms.sort() });
        continue;
      }
      const sized = ratioFree(unbound, env, (e) => body(c, e));
      if (sized) {
        out.push({ loop: c, per: sized.at1024, ratio: sized.value, symbols: [...new Set([...tripSyms, ...unbound])].sort() });
        continue;
      }
      // A body whose intensity hardly moves with the sizes (BLOCK lanes of work plus a scalar per trip).
      const near = rangeOf(unbound, env, (e) => body(c, e));
      if (near?.at1024) {
        out.push({ loop: c, per: near.at1024, ratio: near.value, range: near.range, symbols: [...new Set([...tripSyms, ...unbound])].sort() });
        continue;
      }
      // A body that holds a branch taken once every P trips (a wrapping counter's epilogue, P from the
      // trip count): per trip as the trip count grows, where that branch's share vanishes.
      const grown = grownBody(c, env, tripSyms);
      if (grown) {
        out.push({ loop: c, per: grown, symbols: tripSyms.sort() });
        continue;
      }
    }
    candidates(c, env, out, unbound);
  }
}

/** Assignments of the symbols at different magnitudes, and each symbol varied on its own. */
function samples(syms: string[]): Map<string, number>[] {
  const out = [16, 128, 1024, 65536].map((v) => new Map(syms.map((s): [string, number] => [s, v])));
  syms.forEach((_, i) => out.push(new Map(syms.map((s, j): [string, number] => [s, j === i ? 4096 : 256]))));
  return out;
}

/** FLOPs ÷ bytes of `of` when it is the same at every sample of `syms` (bytes positive; FLOPs positive, or 0 at every sample). */
function ratioFree(syms: string[], env: Env, of: (e: Env) => Totals | null): { value: number; at1024: Totals } | undefined {
  let first: number | undefined;
  let at1024: Totals | undefined;
  for (const a of samples(syms)) {
    const e = new Map(env);
    for (const [s, v] of a) e.set(s, v);
    const t = of(e);
    // No FLOPs at any size (a copy, a gather) is an exact intensity too: 0.
    if (!t || t.flops < 0 || t.bytes <= 0) return undefined;
    const r = t.flops / t.bytes;
    if (first === undefined) first = r;
    else if (Math.abs(r - first) > 1e-9 * first) return undefined;
    if ([...a.values()].every((v) => v === 1024)) at1024 = t;
  }
  return first === undefined || !at1024 ? undefined : { value: first, at1024 };
}

/** The lowest size a range of intensities is claimed for: tiles below 16 (a `tl.dot`'s minimum) are rare. */
export const RANGE_MIN_SIZE = 16;
/** The widest range reported as a number: its ends differ by at most this factor. */
export const RANGE_MAX_SPREAD = 1.25;

/** The smallest value a range is claimed for: RANGE_MIN_SIZE, but 1 for a loop's trip count (a loop may run once). */
export function rangeMin(sym: string): number {
  return /^trips_L\d+$/.test(sym) ? 1 : RANGE_MIN_SIZE;
}

/** Assignments for a range: every symbol from its minimum up to 2^20 together, and each at either end while the others sit at the other. */
function rangeSamples(syms: string[]): Map<string, number>[] {
  const hi = 2 ** 20;
  const at = (v: number) => (s: string): [string, number] => [s, Math.max(v, rangeMin(s))];
  const out = [1, 64, 256, 1024, 4096, 65536, hi].map((v) => new Map(syms.map(at(v))));
  if (syms.length > 1)
    syms.forEach((_, i) => {
      out.push(new Map(syms.map((s, j): [string, number] => [s, j === i ? rangeMin(s) : hi])));
      out.push(new Map(syms.map((s, j): [string, number] => [s, j === i ? hi : rangeMin(s)])));
      out.push(new Map(syms.map((s, j): [string, number] => [s, j === i ? rangeMin(s) : 1024])));
    });
  return out;
}

/**
 * The whole kernel's intensity when it hardly depends on the unbound sizes:
 * a row-wise kernel over BLOCK columns that also stores one scalar per row
 * (BLOCK·c FLOPs per BLOCK·b + 4 bytes). Evaluated at every size from 16 to
 * 2^20, together and each symbol at either end on its own; reported when every
 * sample has FLOPs and bytes and the extremes differ by at most
 * RANGE_MAX_SPREAD. `value` is the limit as the sizes grow.
 */
function sizeRange(k: KernelIR, env: Env, syms: string[]): { value: number; range: [number, number] } | undefined {
  return rangeOf(syms, env, (e) => body(k.body, e));
}

/** The lowest and highest FLOPs ÷ bytes of `of` over the range samples, when they are within RANGE_MAX_SPREAD; `value` at the largest sizes. */
function rangeOf(syms: string[], env: Env, of: (e: Env) => Totals | null): { value: number; range: [number, number]; at1024?: Totals } | undefined {
  let lo = Infinity;
  let hi = 0;
  let value: number | undefined;
  let at1024: Totals | undefined;
  const all = rangeSamples(syms);
  for (let i = 0; i < all.length; i++) {
    const e = new Map(env);
    for (const [s, v] of all[i]) e.set(s, v);
    const t = of(e);
    if (i === 3 && t) at1024 = t;
    if (!t || t.flops <= 0 || t.bytes <= 0 || !Number.isFinite(t.flops) || !Number.isFinite(t.bytes)) return undefined;
    const r = t.flops / t.bytes;
    lo = Math.min(lo, r);
    hi = Math.max(hi, r);
    if (hi > lo * RANGE_MAX_SPREAD) return undefined;
    if (i === 6) value = r;
  }
  return value === undefined ? undefined : { value, range: [lo, hi], ...(at1024 ? { at1024 } : {}) };
}

export interface SteadyState {
  value: number;
  loopLine: number;
  loopLabel: string;
  independentOf: string[];
  /** True when the whole kernel's intensity tends to this value as the symbols grow. */
  limit: boolean;
  /** The compulsory intensity's limit as the symbols grow, when the other sizes are known. */
  compulsory: number | null;
  /**
   * `kernel`: the whole kernel's intensity, the same for every value of the
   * unbound symbols (exact); `range`: the whole kernel's intensity, within
   * `range` for every value ≥ RANGE_MIN_SIZE of them (`value` is its limit as
   * they grow); absent: a loop's steady state.
   */
  scope?: 'kernel' | 'range';
  /** scope `range`: the lowest and highest intensity over the sizes. */
  range?: [number, number];
}

/** FLOPs ÷ compulsory bytes of the whole launch at these bindings, when every size is known. */
function compulsoryAt(k: KernelIR, env: Env): number | undefined {
  const t = body(k.body, env);
  const units = k.units ? evaluate(k.units, env) : undefined;
  if (!t || units === undefined || units <= 0 || k.footprints.length === 0) return undefined;
  let bytes = 0;
  for (const f of k.footprints) {
    const r = f.read ? evaluate(f.read, env) : 0;
    const w = f.written ? evaluate(f.written, env) : 0;
    if (r === undefined || w === undefined) return undefined;
    bytes += (Math.max(0, r) + Math.max(0, w)) * f.elemBytes;
  }
  // Compulsory traffic never exceeds what the units request.
  bytes = Math.min(bytes, units * t.bytes);
  return bytes > 0 ? (units * t.flops) / bytes : undefined;
}

/**
 * The whole kernel's intensity when it does not depend on the unbound sizes:
 * FLOPs and bytes both scale with them (an element-wise or row-wise kernel
 * with its BLOCK unbound), so their ratio is exact for every value. Checked
 * numerically at assignments of different magnitudes, each symbol varied on
 * its own too; undefined unless every one gives the same ratio.
 */
function sizeFree(k: KernelIR, env: Env, syms: string[]): { value: number; compulsory: number | null } | undefined {
  const r = ratioFree(syms, env, (e) => body(k.body, e));
  if (!r) return undefined;
  const comp = samples(syms).map((a) => {
    const e = new Map(env);
    for (const [s, v] of a) e.set(s, v);
    return compulsoryAt(k, e);
  });
  const c0 = comp[0];
  const compulsory = c0 !== undefined && comp.every((c) => c !== undefined && Math.abs(c - c0) <= 1e-9 * c0) ? c0 : null;
  return { value: r.value, compulsory };
}

export function steadyState(k: KernelIR, opts: { env: Env; gpu: GpuSpec }, report: KernelReport): SteadyState | undefined {
  if (report.unbound.length === 0) return undefined;
  const free = sizeFree(k, opts.env, report.unbound);
  if (free) return { value: free.value, loopLine: k.line, loopLabel: '', independentOf: [...report.unbound], limit: true, compulsory: free.compulsory, scope: 'kernel' };
  const loop = loopSteady(k, opts, report);
  if (loop) return loop;
  const near = sizeRange(k, opts.env, report.unbound);
  return near && { value: near.value, loopLine: k.line, loopLabel: '', independentOf: [...report.unbound], limit: true, compulsory: null, scope: 'range', range: near.range };
}

/** The dominant loop's steady state, when only trip counts (and sizes its body's intensity does not depend on) are unbound. */
function loopSteady(k: KernelIR, opts: { env: Env; gpu: GpuSpec }, report: KernelReport): SteadyState | undefined {
  const found: Candidate[] = [];
  candidates(k.body, opts.env, found, report.unbound);
  if (found.length === 0) return undefined;
  // Only trip counts may be unknown: every unbound symbol must be one of the loops' symbols (or the grid's).
  const loopSyms = new Set(found.flatMap((c) => c.symbols));
  const gridSyms = k.units ? freeSymbols(k.units) : new Set<string>();
  if (report.unbound.some((s) => !loopSyms.has(s) && !gridSyms.has(s))) return undefined;
  const ridge = (opts.gpu.peaks.vector.fp32 ?? 1) / opts.gpu.memoryBandwidth;
  const weight = (t: Totals) => t.flops + t.bytes * ridge;
  const best = found.reduce((a, b) => (weight(b.per) > weight(a.per) ? b : a));
  if (best.per.bytes <= 0 || best.per.flops <= 0) return undefined;
  let value = best.ratio ?? best.per.flops / best.per.bytes;
  let range = best.range;
  // Two loops of the same length (a pass that reads, then one that reads again and writes): none
  // dominates, and the kernel's intensity as their trip count grows is that of their sum. When it
  // exists and differs from the heaviest loop's, it is the steady state.
  const whole = kernelLimit(k, opts.env, loopSyms, report.unbound);
  const viaKernel = whole !== undefined && Math.abs(whole.value - value) > 1e-3 * value;
  if (viaKernel) {
    value = whole.value;
    range = whole.range;
  }
  // The whole kernel's intensity as the symbols grow: equal to the loop's when it dominates.
  const at = (x: number): number | undefined => {
    const env = new Map(opts.env);
    for (const s of loopSyms) if (!env.has(s)) env.set(s, x);
    const t = body(k.body, env);
    return t && t.bytes > 0 ? t.flops / t.bytes : undefined;
  };
  const a = at(2 ** 24);
  const b = at(2 ** 28);
  const limit = viaKernel || (a !== undefined && b !== undefined && Math.abs(a - b) <= 1e-4 * Math.abs(b) && Math.abs(b - value) <= 1e-3 * value);
  const withSyms = (x: number): Map<string, number> => {
    const env = new Map(opts.env);
    for (const s of loopSyms) if (!env.has(s)) env.set(s, x);
    return env;
  };
  const c1 = compulsoryAt(k, withSyms(2 ** 24));
  const c2 = compulsoryAt(k, withSyms(2 ** 28));
  const compulsory = c1 !== undefined && c2 !== undefined && Math.abs(c1 - c2) <= 1e-3 * Math.abs(c2) ? c2 : null;
  return { value, loopLine: best.loop.line, loopLabel: best.loop.label, independentOf: best.symbols, limit, compulsory, ...(range ? { range } : {}) };
}

/** Symbols the counts of the events depend on (sizes), as opposed to those only in trip counts. */
function eventSymbols(r: Region, out: Set<string> = new Set()): Set<string> {
  for (const e of r.events) freeSymbols(e.kind === 'flop' || e.kind === 'int' ? e.count : e.elems, out);
  for (const c of r.children) eventSymbols(c, out);
  return out;
}

/**
 * The whole kernel's intensity as the symbols found only in trip counts grow
 * (at 2^14 and 2^18 times the sizes, which must agree), at sizes 16, 1024 and
 * 65 536 for the symbols
 * the loop bodies hold; undefined when there are no such trip symbols, it does
 * not converge, or it moves with the sizes by more than RANGE_MAX_SPREAD.
 */
function kernelLimit(k: KernelIR, env: Env, loopSyms: Set<string>, unbound: string[]): { value: number; range?: [number, number] } | undefined {
  const sizes = eventSymbols(k.body);
  const free = [...new Set([...loopSyms, ...unbound])].filter((s) => !env.has(s));
  const trips = free.filter((s) => !sizes.has(s));
  if (trips.length === 0) return undefined;
  const sized = free.length > trips.length;
  const at = (x: number, size: number): number | undefined => {
    const e = new Map(env);
    for (const s of free) e.set(s, trips.includes(s) ? x : Math.max(size, rangeMin(s)));
    const t = body(k.body, e);
    return t && t.bytes > 0 && t.flops >= 0 ? t.flops / t.bytes : undefined;
  };
  const limits: number[] = [];
  for (const size of sized ? [RANGE_MIN_SIZE, 1024, 65536] : [1024]) {
    // The trip symbols far beyond the sizes (a loop over C in steps of BLOCK_C runs 2^14 and 2^18 times).
    const a = at(size * 2 ** 14, size);
    const b = at(size * 2 ** 18, size);
    if (a === undefined || b === undefined || Math.abs(a - b) > 1e-3 * Math.abs(b)) return undefined;
    limits.push(b);
  }
  const lo = Math.min(...limits);
  const hi = Math.max(...limits);
  if (lo <= 0 || hi > lo * RANGE_MAX_SPREAD) return undefined;
  return { value: limits[limits.length - 1], ...(sized ? { range: [lo, hi] as [number, number] } : {}) };
}
