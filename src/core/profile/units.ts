/**
 * Units and numbers as profilers print them. Nsight Compute scales units with
 * SI factors: byte-based units by 1000 (Kbyte, Mbyte, Gbyte), time by 1000
 * (nsecond, usecond, msecond) — its CLI manual, "Metrics and Units". The
 * abbreviations KB/MB/GB are read the same way; only the binary spellings
 * KiB/MiB/GiB are 1024-based. docs/profiles.md lists every unit.
 */

export type Dimension =
  | 'bytes'
  | 'seconds'
  | 'count'
  | 'cycles'
  | 'frequency'
  | 'percent'
  /** bytes/s: `dram__bytes.sum.per_second` ("Tbyte/s", "Gbyte/second"). */
  | 'byteRate'
  /** counts/s: `….sum.per_second` of an instruction or op counter ("1/ns", "inst/second"), FLOP/s. */
  | 'countRate'
  /** counts per cycle: `….sum.per_cycle_elapsed` ("inst/cycle", "op/cycle"). */
  | 'countPerCycle'
  /** FLOPs (or ops) per byte: a roofline section's arithmetic intensity ("FLOP/byte"). */
  | 'intensity';

export interface Unit {
  dimension: Dimension;
  /** value in base units = value × 10^pow10 × factor */
  pow10: number;
  factor: number;
}

interface BaseWord {
  dimension: Dimension;
  prefixes: Record<string, number>;
}

const SI_UP: Record<string, number> = { '': 0, K: 3, k: 3, M: 6, G: 9, T: 12, P: 15 };
const SI_DOWN: Record<string, number> = { '': 0, m: -3, u: -6, µ: -6, μ: -6, n: -9, p: -12 };
const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4 };

const BASE_WORDS: Record<string, BaseWord> = {
  byte: { dimension: 'bytes', prefixes: SI_UP },
  bytes: { dimension: 'bytes', prefixes: SI_UP },
  B: { dimension: 'bytes', prefixes: SI_UP },
  second: { dimension: 'seconds', prefixes: SI_DOWN },
  seconds: { dimension: 'seconds', prefixes: SI_DOWN },
  sec: { dimension: 'seconds', prefixes: SI_DOWN },
  s: { dimension: 'seconds', prefixes: SI_DOWN },
  inst: { dimension: 'count', prefixes: SI_UP },
  op: { dimension: 'count', prefixes: SI_UP },
  ops: { dimension: 'count', prefixes: SI_UP },
  flop: { dimension: 'count', prefixes: SI_UP },
  FLOP: { dimension: 'count', prefixes: SI_UP },
  flops: { dimension: 'count', prefixes: SI_UP },
  FLOPs: { dimension: 'count', prefixes: SI_UP },
  cycle: { dimension: 'cycles', prefixes: SI_UP },
  cycles: { dimension: 'cycles', prefixes: SI_UP },
  hz: { dimension: 'frequency', prefixes: SI_UP },
  Hz: { dimension: 'frequency', prefixes: SI_UP },
  // "1/ns" (a count per nanosecond), as ncu prints per_second rates of op counters.
  '1': { dimension: 'count', prefixes: { '': 0 } },
};

const unitCache = new Map<string, Unit | null>();

/** The unit an ncu unit string names, or null when the importer does not know it. */
export function parseUnit(text: string): Unit | null {
  let unit = unitCache.get(text);
  if (unit === undefined) {
    unit = parseUnitText(text.trim());
    if (unitCache.size < 1024) unitCache.set(text, unit);
  }
  return unit;
}

function parseUnitText(u: string): Unit | null {
  if (u === '') return { dimension: 'count', pow10: 0, factor: 1 };
  if (u === '%') return { dimension: 'percent', pow10: 0, factor: 1 };
  const slash = u.indexOf('/');
  if (slash >= 0) return parseRate(u.slice(0, slash), u.slice(slash + 1));
  return parseSimple(u);
}

function parseSimple(u: string): Unit | null {
  for (const [word, base] of Object.entries(BASE_WORDS)) {
    if (!u.endsWith(word)) continue;
    const prefix = u.slice(0, u.length - word.length);
    if (prefix in base.prefixes) return { dimension: base.dimension, pow10: base.prefixes[prefix], factor: 1 };
    if (base.dimension === 'bytes' && word === 'B' && prefix in BINARY) return { dimension: 'bytes', pow10: 0, factor: 1024 ** BINARY[prefix] };
  }
  return null;
}

/**
 * A quotient unit: `cycle/nsecond` (a frequency), `Tbyte/s` (bytes/s),
 * `1/ns` or `inst/second` (counts/s), `inst/cycle` (counts per cycle),
 * `FLOP/byte` (an intensity).
 */
function parseRate(num: string, den: string): Unit | null {
  const n = parseSimple(num.trim());
  const d = parseSimple(den.trim());
  if (!n || !d) return null;
  const kinds: Partial<Record<Dimension, Partial<Record<Dimension, Dimension>>>> = {
    cycles: { seconds: 'frequency' },
    bytes: { seconds: 'byteRate' },
    count: { seconds: 'countRate', cycles: 'countPerCycle', bytes: 'intensity' },
  };
  const dimension = kinds[n.dimension]?.[d.dimension];
  if (!dimension) return null;
  return { dimension, pow10: n.pow10 - d.pow10, factor: n.factor / d.factor };
}

export function describeDimension(d: Dimension): string {
  return {
    bytes: 'bytes',
    seconds: 'time',
    count: 'a count',
    cycles: 'cycles',
    frequency: 'frequency',
    percent: 'a percentage',
    byteRate: 'bytes per second',
    countRate: 'a count per second',
    countPerCycle: 'a count per cycle',
    intensity: 'operations per byte',
  }[d];
}

const PLAIN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const GROUPED = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?$/;

/**
 * The number a profiler printed, as a normalised decimal string, or null when
 * it is not a number. Thousands separators are commas ("1,234,567.5"); a
 * lone comma elsewhere ("1,5") is not read as a decimal point.
 */
export function normaliseNumber(text: string): string | null {
  const t = text.trim();
  if (PLAIN.test(t)) return t;
  if (GROUPED.test(t)) return t.replace(/,/g, '');
  return null;
}

/**
 * `digits` (a normalised number) in base units. Powers of ten shift the
 * decimal exponent, so "134.24" Mbyte is exactly 134240000.
 */
export function toBase(digits: string, unit: Unit): number {
  const shifted = unit.pow10 === 0 ? Number(digits) : shiftExponent(digits, unit.pow10);
  return shifted * unit.factor;
}

function shiftExponent(digits: string, pow10: number): number {
  const e = digits.search(/[eE]/);
  if (e < 0) return Number(`${digits}e${pow10}`);
  return Number(`${digits.slice(0, e)}e${Number(digits.slice(e + 1)) + pow10}`);
}
