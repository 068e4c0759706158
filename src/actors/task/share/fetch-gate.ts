/**
 * Pause for a task runner that fetches in a loop: while the gate is closed, the next fetch waits.
 *
 * Share mode pauses this way rather than inside the runner: the ShareConsumer only sends ShareFetch
 * while a poll() waits, so holding poll() back stops fetching, while batches already acquired finish,
 * are acknowledged and keep their locks renewed (acknowledgements do not need a poll). Each task's
 * lease on its share member has one (connector/share-member.ts).
 */
export class FetchGate {
  private paused = false;
  private released = false;
  private waiters: Array<() => void> = [];

  /** @param onChange told after every pause, resume and release (a shared member holds on it) */
  constructor(private readonly onChange?: () => void) {}

  get isPaused(): boolean {
    return this.paused && !this.released;
  }

  /** Released for a stop: fetching is over for good. */
  get isReleased(): boolean {
    return this.released;
  }

  pause(): void {
    this.paused = true;
    this.onChange?.();
  }

  resume(): void {
    this.paused = false;
    this.wake();
    this.onChange?.();
  }

  /** Opens the gate for good (the task is stopping): waiting fetches return at once. */
  release(): void {
    this.released = true;
    this.wake();
    this.onChange?.();
  }

  /** Resolves true when fetching may go on, false once the gate was released for a stop. */
  async whenOpen(): Promise<boolean> {
    while (this.paused && !this.released) await new Promise<void>((r) => this.waiters.push(r));
    return !this.released || !this.paused;
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}
