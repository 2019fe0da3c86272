/**
 * Never silently wrong (COUNTING.md, "Honesty"): a kernel in which a memory
 * access, a call or a branch could not be fully accounted for is
 * `complete: false`, with the ids of the reasons, and each of its numbers says
 * which way it can be off:
 *
 * - FLOPs not counted (an unknown call) → FLOPs are a lower bound, and so is
 *   the intensity when the bytes are exact;
 * - bytes not counted (a store the analysis could not attribute) → bytes are a
 *   lower bound and the intensity an upper bound when the FLOPs are exact;
 * - both → the intensity is unknown (null);
 * - a kernel cut short by a budget, or one the analysis failed on, has no
 *   numbers at all.
 */
import type { KernelIR } from '../ir';
import { lossOf, type MessageId } from '../messages';

export type BoundKind = 'exact' | 'lower' | 'upper' | 'unknown';

export interface Completeness {
  complete: boolean;
  reasons: MessageId[];
  /** How many times each reason was said about the kernel. */
  counts: Partial<Record<MessageId, number>>;
  bounds: { flops: BoundKind; bytes: BoundKind; arithmeticIntensity: BoundKind };
  /** How far the intensity can be trusted. */
  intensity: BoundKind;
}

export function completeness(k: KernelIR, _totals: { flops: number | null; bytes: number | null; intensity: number | null }): Completeness {
  let flops = false;
  let bytes = false;
  const reasons = new Set<MessageId>();
  const counts: Partial<Record<MessageId, number>> = {};
  for (const d of k.diagnostics) {
    const loss = lossOf(d.code);
    if (!loss) continue;
    reasons.add(d.code as MessageId);
    counts[d.code as MessageId] = (counts[d.code as MessageId] ?? 0) + 1;
    if (loss === 'flops' || loss === 'all') flops = true;
    if (loss === 'bytes' || loss === 'all') bytes = true;
  }
  if (k.truncated) {
    reasons.add('kernelTruncated');
    counts.kernelTruncated ??= 1;
    flops = bytes = true;
  }
  if (k.failed) {
    reasons.add('internal');
    counts.internal ??= 1;
    flops = bytes = true;
  }
  const intensity: BoundKind = flops && bytes ? 'unknown' : flops ? 'lower' : bytes ? 'upper' : 'exact';
  return {
    complete: reasons.size === 0,
    reasons: [...reasons].sort(),
    counts,
    bounds: { flops: flops ? 'lower' : 'exact', bytes: bytes ? 'lower' : 'exact', arithmeticIntensity: intensity },
    intensity,
  };
}
