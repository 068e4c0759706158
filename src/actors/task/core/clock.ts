/**
 * The clock the supervisor (and any actor that needs time) is given. It is structurally an XState
 * `Clock`, so the same object can be passed as `createActor(logic, { clock })`.
 */

export type TimerHandle = unknown;

export interface Clock {
  /** Milliseconds; a batch's `acquiredAt` and `RENEWED.until` must be read from this same clock. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Node clamps longer delays to 1 ms (with a warning), which would turn a far deadline into a busy loop. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Real time. `Date.now()` because acquisition times and renew replies are stamped with it across the
 * runtime; a wall-clock jump only moves a renew or an expiry verdict, and either is counted, never
 * silent. Timers are unref'd so supervision alone never keeps a process alive.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const timer = setTimeout(fn, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * Deterministic time for tests. Unlike XState's own SimulatedClock, `advanceTo` runs every timer at
 * its own due time (now() reads the due time inside the callback), in (due time, creation) order,
 * including timers scheduled by callbacks along the way — which is what lock arithmetic needs.
 */
export class SimulatedClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<number, PendingTimer>();

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): number {
    const seq = this.#seq++;
    this.#timers.set(seq, { at: this.#now + Math.max(0, ms), seq, fn });
    return seq;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  get pending(): number {
    return this.#timers.size;
  }

  /** Due time of the next timer, if any. */
  nextDueAt(): number | undefined {
    return this.#next()?.at;
  }

  advance(ms: number): void {
    this.advanceTo(this.#now + ms);
  }

  advanceTo(time: number): void {
    if (time < this.#now) throw new RangeError(`SimulatedClock cannot go back from ${this.#now} to ${time}`);
    for (let next = this.#next(); next !== undefined && next.at <= time; next = this.#next()) {
      this.#timers.delete(next.seq);
      this.#now = next.at;
      next.fn();
    }
    this.#now = time;
  }

  /** Run timers until none is left; `maxTimers` guards against a callback that re-arms forever. */
  runAll(maxTimers = 1_000_000): void {
    for (let fired = 0, next = this.#next(); next !== undefined; next = this.#next(), fired++) {
      if (fired >= maxTimers) throw new Error(`SimulatedClock.runAll: more than ${maxTimers} timers fired`);
      this.#timers.delete(next.seq);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
  }

  #next(): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq))
        best = timer;
    }
    return best;
  }
}
