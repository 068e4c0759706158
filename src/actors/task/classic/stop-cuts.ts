/**
 * Requests a classic task's stop may stop waiting for. kafkajs retries a dead-letter write or an offset
 * commit for as long as its retry settings allow (seconds, minutes against a broker that is down) and
 * cannot cancel it. Each request is raced against the stop giving up: from then on it is `'cut'` at
 * once, and no new one is sent. The request itself goes on unwatched; whatever it ends with is ignored
 * (Promise.race handles its rejection).
 */
export class StopCuts {
  private cut = false;
  /** What ends each race under way, one per request: nothing accrues. */
  private readonly cuts = new Set<() => void>();

  /** Races under way. */
  get size(): number {
    return this.cuts.size;
  }

  /** True once {@link giveUp} was called. */
  get givenUp(): boolean {
    return this.cut;
  }

  /** `request()`'s outcome, or `'cut'` when the stop gives up first; not sent at all once it has. */
  async race<T>(request: () => Promise<T>): Promise<T | 'cut'> {
    if (this.cut) return 'cut';
    let cut: () => void = () => {};
    const cutting = new Promise<'cut'>((resolve) => (cut = () => resolve('cut')));
    this.cuts.add(cut);
    try {
      return await Promise.race([request(), cutting]);
    } finally {
      this.cuts.delete(cut);
    }
  }

  /** Ends every race under way with `'cut'`, and every later one before it sends anything. */
  giveUp(): void {
    this.cut = true;
    for (const cut of this.cuts) cut();
  }
}
