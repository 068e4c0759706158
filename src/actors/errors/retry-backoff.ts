/**
 * Backoff after retriable put failures, as Connect's `errors.retry.delay.max.ms` bounds it: the delay
 * doubles from `initialMs` per consecutive failure up to `maxMs`, and one success resets it. In share mode
 * the records are released at once, so this throttles fetching, not the records themselves.
 */
export class RetryBackoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private failures = 0;
  private until = 0;
  private readonly now: () => number;

  constructor(initialMs: number, maxMs: number, now: () => number = Date.now) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.now = now;
  }

  /** A retriable failure; `hintMs` (from the task) wins when it is longer than our own delay. */
  failed(hintMs?: number): number {
    const own = Math.min(this.maxMs, this.initialMs * 2 ** this.failures);
    this.failures++;
    const delay = Math.min(this.maxMs, Math.max(own, hintMs ?? 0));
    this.until = this.now() + delay;
    return delay;
  }

  succeeded(): void {
    this.failures = 0;
    this.until = 0;
  }

  remainingMs(): number {
    return Math.max(0, this.until - this.now());
  }
}
