/**
 * Time budgets, so no input can hang the host and a large file never blocks
 * it for long:
 *
 * - the *hard* budget stops any work (`spent()`, cheap enough for inner loops);
 * - the *slice* says when to stop starting new kernels (`over()`): the caller
 *   gets partial results, marked as such, and calls again; cached kernels make
 *   every call progress.
 */
export class Budget {
  private readonly deadline: number;
  private readonly sliceEnd: number;
  private steps = 0;
  expired = false;

  constructor(hardMs: number, sliceMs = Infinity) {
    const now = Date.now();
    this.deadline = now + Math.max(1, hardMs);
    this.sliceEnd = now + Math.max(0, sliceMs);
  }

  /** True once the hard budget is spent. */
  spent(): boolean {
    if (this.expired) return true;
    if ((++this.steps & 255) === 0 && Date.now() > this.deadline) this.expired = true;
    return this.expired;
  }

  /** True once the time slice is over: finish the current unit of work, start no new one. */
  over(): boolean {
    return this.sliceEnd !== Infinity && Date.now() > this.sliceEnd;
  }
}
