/**
 * One pending wake-up at a time: `at()` arms a timer unless one is armed already. The consumer's
 * deadlines of one kind only move later, so the armed one is never later than a new one; a wake-up
 * that comes early finds nothing due and arms again.
 */
export class WakeTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly wake: () => void) {}

  /** Wakes at `deadline` (ms, the caller's clock, `now` on it); Infinity: nothing to wake for. */
  at(deadline: number, now: number): void {
    if (deadline === Infinity || this.timer) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.wake();
      },
      Math.max(0, deadline - now),
    );
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
