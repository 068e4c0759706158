/**
 * The heartbeat timer of a worker-group member: one beat every interval, the next scheduled only after the
 * previous one answered (a slow coordinator never gets two at once). Each start() begins a new chain and
 * ends the old one, so a beat of a past generation never schedules another.
 */
export class Heartbeats {
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #chain = 0;

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  start(beat: () => Promise<void>): void {
    this.stop();
    const chain = this.#chain;
    const tick = (): void => {
      if (chain !== this.#chain) return; // stopped, or a newer generation runs its own
      this.#timer = setTimeout(() => void beat().finally(tick), this.#intervalMs);
      this.#timer.unref?.();
    };
    tick();
  }

  stop(): void {
    this.#chain++;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
