/**
 * One pending wake-up: `at()` arms a timer for a deadline, or moves an armed one earlier; a later
 * deadline than the armed one waits for it (a wake-up that comes early finds nothing due, and the
 * caller arms again).
 */
export class WakeTimer {
  private timer: NodeJS.Timeout | undefined;
  private deadline = Infinity;

  constructor(private readonly wake: () => void) {}

  /** Wakes at `deadline` (ms, the caller's clock, `now` on it) or earlier; Infinity: nothing to wake for. */
  at(deadline: number, now: number): void {
    if (!(deadline < this.deadline)) return;
    this.cancel();
    this.deadline = deadline;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.deadline = Infinity;
        this.wake();
      },
      Math.max(0, deadline - now),
    );
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.deadline = Infinity;
  }
}
