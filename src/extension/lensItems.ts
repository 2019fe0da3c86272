/**
 * The lens items of a file's kernels, as the CodeLens provider shows them,
 * built in chunks so a file with thousands of kernels never holds the
 * editor's thread in one piece, and kept per kernel report: the core hands
 * back the same report object for a kernel an edit did not touch, so after
 * an edit only the changed kernels' lenses are built again. Free of `vscode`.
 */
import type { KernelReport } from '../core/report/types';
import { headerTop, kernelLenses, loopLenses, type LensItem } from './present';

/** Kernels whose lenses are built between two pauses. */
export const LENS_CHUNK = 200;

export interface LensShow {
  kernels: boolean;
  loops: boolean;
}

const built = new WeakMap<KernelReport, { key: string; kernel: LensItem[]; loops: LensItem[] }>();

/** The kernel lenses (at `top`, the kernel's first header line, 1-based) and loop lenses of one kernel. */
export function lensItemsOf(k: KernelReport, gpuName: string, top: number): { kernel: LensItem[]; loops: LensItem[] } {
  const key = `${gpuName}\u0000${top}`;
  const hit = built.get(k);
  if (hit && hit.key === key) return hit;
  const entry = { key, kernel: kernelLenses(k, gpuName, top), loops: loopLenses(k) };
  built.set(k, entry);
  return entry;
}

/**
 * Every kernel's lens items, in chunks of LENS_CHUNK kernels with `pause()`
 * between them; undefined when `cancelled()` says so at a pause. `decorate`
 * may change a kernel's items (an imported profile's measured figure).
 */
export async function fileLensItems(
  kernels: readonly KernelReport[],
  lineAt: (i: number) => string,
  lineCount: number,
  gpuName: string,
  show: LensShow,
  pause: () => Promise<void>,
  cancelled: () => boolean = () => false,
  decorate: (k: KernelReport, items: { kernel: LensItem[]; loops: LensItem[] }, top: number) => { kernel: LensItem[]; loops: LensItem[]; ref: KernelReport } = (k, items) => ({ ...items, ref: k }),
): Promise<{ item: LensItem; kernel: KernelReport }[] | undefined> {
  const out: { item: LensItem; kernel: KernelReport }[] = [];
  for (let i = 0; i < kernels.length; i++) {
    if (i > 0 && i % LENS_CHUNK === 0) {
      await pause();
      if (cancelled()) return undefined;
    }
    const own = kernels[i];
    const top = headerTop(lineAt, Math.min(own.line, lineCount) - 1) + 1;
    const d = decorate(own, lensItemsOf(own, gpuName, top), top);
    const items = [...(show.kernels ? d.kernel : []), ...(show.loops ? d.loops : [])];
    for (const item of items) if (item.line >= 1 && item.line <= lineCount) out.push({ item, kernel: d.ref });
  }
  return out;
}
