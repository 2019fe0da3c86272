/** A wall-clock budget that analysis loops check, so no input can hang the host. */
export class Budget {
  private readonly deadline: number;
  private steps = 0;
  expired = false;

  constructor(ms: number) {
    this.deadline = Date.now() + Math.max(1, ms);
  }

  /** True once the budget is spent; cheap enough to call in inner loops. */
  spent(): boolean {
    if (this.expired) return true;
    if ((++this.steps & 255) === 0 && Date.now() > this.deadline) this.expired = true;
    return this.expired;
  }
}
