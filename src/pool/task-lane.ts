/**
 * The order of one task instance's work in a thread (ADR 0020). Steps (creating the instance, starting
 * a put, stopping) take their turn one after another, in the order they arrived. A put's turn ends once
 * the put has started; it then runs on while later turns are taken, and at most the instance's
 * `putsAtOnce()` puts run at once (1 unless the task says otherwise: Connect's one put at a time).
 * A step that must not overlap a put (a stop, a new assignment, a new instance) first waits for the
 * running ones.
 */
const noop = (): void => undefined;

export class TaskLane {
  #tail: Promise<void> = Promise.resolve();
  readonly #running = new Set<Promise<unknown>>();
  /** Turns taken and not yet over. */
  #turns = 0;
  readonly #onIdle: () => void;

  /** `onIdle`: called whenever the last turn or put ends with nothing else to do (to forget the lane). */
  constructor(onIdle: () => void = noop) {
    this.#onIdle = onIdle;
  }

  /** No turn waits or runs, and no put runs. */
  get idle(): boolean {
    return this.#turns === 0 && this.#running.size === 0;
  }

  /** Runs `step` after every step that arrived before it; resolves with what it returns. */
  turn<T>(step: () => Promise<T>): Promise<T> {
    this.#turns++;
    const run = this.#tail.then(step);
    this.#tail = run.then(noop, noop);
    void this.#tail.then(() => {
      this.#turns--;
      this.#checkIdle();
    });
    return run;
  }

  /** Counts `put` as running until it settles. */
  track(put: Promise<unknown>): void {
    this.#running.add(put);
    const done = (): void => {
      this.#running.delete(put);
      this.#checkIdle();
    };
    put.then(done, done);
  }

  /** Resolves once fewer than `limit` puts run. */
  async room(limit: number): Promise<void> {
    while (this.#running.size >= Math.max(1, limit)) await Promise.race(this.#running).catch(noop);
  }

  /** Resolves once no put runs. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  #checkIdle(): void {
    if (this.idle) this.#onIdle();
  }
}
