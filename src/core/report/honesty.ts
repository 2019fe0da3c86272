/**
 * How every surface (lens, hover, CLI text and Markdown, SARIF) shows a
 * number that is not a clean figure (COUNTING.md, "Honesty"): a lower bound
 * is written `≥ 1.2 kFLOP`, an upper bound `≤ 0.5 FLOP/B`, and the kernel says
 * what it could not count (`incomplete: 2 unknown calls`). A kernel whose
 * counts are symbolic only because of loop trips shows its steady-state
 * intensity, `≈ 85.3 FLOP/B`, labelled with the loop and the symbols.
 */
import { reasonPhrase } from '../messages';
import { intensity } from './format';
import { rangeMin } from '../engine/steady';
import type { BoundKind, KernelReport, SteadyIntensity } from './types';

/** `≥ ` for a lower bound, `≤ ` for an upper bound, nothing for an exact number. */
export function boundMark(kind: BoundKind | undefined): string {
  return kind === 'lower' ? '≥ ' : kind === 'upper' ? '≤ ' : '';
}

/** The mark of each of a kernel's numbers. */
export function marks(k: KernelReport): { flops: string; bytes: string; intensity: string } {
  const b = k.complete ? undefined : k.bounds;
  return { flops: boundMark(b?.flops), bytes: boundMark(b?.bytes), intensity: boundMark(b?.arithmeticIntensity) };
}

/** `incomplete: 2 unknown calls, 1 store not counted`, or '' for a complete kernel. */
export function incompleteText(k: KernelReport): string {
  if (k.complete) return '';
  const reasons = k.incompleteReasons ?? [];
  const parts = reasons.map((id) => reasonPhrase(id, k.incompleteCounts?.[id] ?? 1));
  return `incomplete: ${parts.join(', ') || 'see the diagnostics'}`;
}

/** What the incompleteness does to the numbers, in one sentence. */
export function boundsSentence(k: KernelReport): string {
  if (k.complete || !k.bounds) return '';
  if (k.status === 'partial' && k.perUnit.flops === null && k.perUnit.loadBytes === null) return 'No numbers are shown: they would be too small.';
  const b = k.bounds;
  const parts: string[] = [];
  if (b.flops === 'lower') parts.push('FLOPs are a lower bound');
  if (b.bytes === 'lower') parts.push('bytes are a lower bound');
  if (b.arithmeticIntensity === 'lower') parts.push('so the intensity is a lower bound');
  else if (b.arithmeticIntensity === 'upper') parts.push('so the intensity is an upper bound');
  else if (b.arithmeticIntensity === 'unknown') parts.push('so the intensity is not known');
  return parts.length ? `${parts.join(', ')}.` : '';
}

/**
 * `≈ 85.3 FLOP/B · K-loop steady state (K unbound)`, or for an intensity the
 * unbound sizes cancel out of, `AI 0.0833 FLOP/B · the same for any BLOCK
 * (BLOCK unbound)`; '' when the kernel has neither.
 */
export function steadyText(k: KernelReport): string {
  const s = k.arithmeticIntensitySteady;
  if (!s) return '';
  const syms = s.independentOf;
  // An incomplete kernel's intensity is a bound whatever the sizes: `AI ≥ 0.25`, like its full number.
  const m = marks(k).intensity;
  if (s.scope === 'kernel') return `AI ${m}${intensity(s.value)} FLOP/B · ${sizeFreeLabel(syms)} (${syms.join(', ')} unbound)`;
  if (s.scope === 'range') return `AI ${m || '≈ '}${intensity(s.value)} FLOP/B · ${sizeLabel(s)} (${syms.join(', ')} unbound)`;
  const loop = syms.length === 1 ? `${syms[0]}-loop` : 'loop';
  return `AI ${m || '≈ '}${intensity(s.value)} FLOP/B · ${loop} steady state (${syms.join(', ')} unbound)`;
}

/** `any BLOCK_SIZE`, `any M, N`: the intensity of a kernel whose FLOPs and bytes scale together with the unbound sizes. */
export function sizeFreeLabel(syms: string[]): string {
  return `the same for any ${syms.slice(0, 3).join(', ')}${syms.length > 3 ? ', …' : ''}`;
}

/**
 * What the whole-kernel intensity holds for: `the same for any BLOCK` (exact),
 * or `0.25–0.255 for any BLOCK ≥ 16` (a range over the sizes); '' for a loop's
 * steady state.
 */
export function sizeLabel(s: SteadyIntensity): string {
  if (s.scope === 'kernel') return sizeFreeLabel(s.independentOf);
  if (s.scope !== 'range' || !s.range) return '';
  return `${intensity(s.range[0])}–${intensity(s.range[1])} for any ${sizeMins(s.independentOf)}`;
}

/** `BLOCK ≥ 16, trips_L12 ≥ 1`: the sizes a range of intensities is claimed for. */
export function sizeMins(syms: string[]): string {
  const mins = syms.map((n) => `${n} ≥ ${rangeMin(n)}`);
  return `${mins.slice(0, 3).join(', ')}${mins.length > 3 ? ', …' : ''}`;
}

/** True for an intensity of the whole kernel (exact or a range over the sizes), not a loop's steady state. */
export function wholeKernel(s: SteadyIntensity | undefined): boolean {
  return s?.scope === 'kernel' || s?.scope === 'range';
}

/** `memory-bound (L2)` / `compute-bound` at the steady-state intensity. */
export function steadyVerdict(k: KernelReport): string {
  const s = k.arithmeticIntensitySteady;
  if (!s) return '';
  return s.bound === 'compute' ? 'compute-bound' : `memory-bound (${s.boundLevel === 'l2' ? 'L2' : 'DRAM'})`;
}
