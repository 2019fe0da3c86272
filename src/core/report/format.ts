/**
 * Number formatting shared by the CLI, the CodeLens, the hover and the chart.
 */

const SI = [
  { v: 1e18, s: 'E' },
  { v: 1e15, s: 'P' },
  { v: 1e12, s: 'T' },
  { v: 1e9, s: 'G' },
  { v: 1e6, s: 'M' },
  { v: 1e3, s: 'k' },
];

/** Three significant digits, no exponent for everyday magnitudes. */
export function sig(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '−∞' : '?';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e6) {
    const d = Math.max(0, digits - 1 - Math.floor(Math.log10(a)));
    return String(Number(x.toFixed(Math.min(d, 6))));
  }
  return x.toPrecision(digits);
}

/** `268 M`, `3.1 G`, `989 T` with a unit suffix. */
export function si(x: number | null | undefined, unit: string): string {
  if (x === null || x === undefined) return '?';
  if (!Number.isFinite(x)) return x > 0 ? `∞ ${unit}` : '?';
  const a = Math.abs(x);
  for (const p of SI) if (a >= p.v) return `${sig(x / p.v)} ${p.s}${unit}`;
  return `${sig(x)} ${unit}`;
}

/** Bytes in decimal units (kB, MB, GB), as bandwidths are quoted. */
export function bytes(x: number | null | undefined): string {
  return si(x, 'B');
}

export function flops(x: number | null | undefined): string {
  return si(x, 'FLOP');
}

export function flopRate(x: number | null | undefined): string {
  return si(x, 'FLOP/s');
}

export function intensity(x: number | null | undefined): string {
  if (x === null || x === undefined) return '?';
  if (x === Infinity) return '∞';
  if (x >= 100) return String(Math.round(x));
  return sig(x);
}

export function seconds(x: number | null | undefined): string {
  if (x === null || x === undefined) return '?';
  if (x >= 1) return `${sig(x)} s`;
  if (x >= 1e-3) return `${sig(x * 1e3)} ms`;
  if (x >= 1e-6) return `${sig(x * 1e6)} µs`;
  return `${sig(x * 1e9)} ns`;
}

export function percent(x: number | null | undefined): string {
  if (x === null || x === undefined) return '?';
  return `${sig(x * 100, 3)} %`;
}
