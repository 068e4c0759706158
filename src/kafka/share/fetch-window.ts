/**
 * How many polls' worth of records one ShareFetch asks for (MaxRecords, and MaxBytes with it).
 *
 * Each ShareFetch and its acknowledgements cost the broker and this process about the same whether it
 * brings 500 records or 2,000 (Kafka 4.4, 2 cores, a 1-task JDBC drain: the broker's CPU per row fell
 * from 6–18 to 5–11 µs at four polls' worth per fetch). So while polls take the pieces quickly, one
 * fetch brings several polls' worth, handed out a poll's worth at a time (poll-queue.ts).
 *
 * The cost is a lock: a piece that waits in the queue for its poll is acquired, and nothing renews it
 * there (the supervisor renews a batch's locks once a task has taken it). So the window is sized from
 * how fast polls take pieces: the k-th piece of an answer waits about k−1 intervals between polls, and
 * that wait must stay under a tenth of the lock ({@link LOCK_SHARE}). Polls seconds apart keep the
 * window at its floor, which is what every fetch asked before.
 *
 * That is what protects an embedder's polls. The runtime does not leave pieces waiting: it takes the
 * rest of an answer into batches at once (share-task-runner.ts), whose locks the supervisor renews or
 * releases like any batch's; there the window's size decides cost, not safety.
 */

/** The longest a piece may be expected to wait for its poll, as a share of the acquisition lock. */
export const LOCK_SHARE = 0.1;
/** Weight of a shorter interval between hand-outs in their running average (a longer one counts whole). */
const SMOOTHING = 0.2;

export interface FetchWindowOptions {
  /** Records one poll takes (the pieces' size). */
  readonly perPoll: number;
  /** The floor: MaxRecords and MaxBytes as configured (a shared member asks for its tasks' polls). */
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** The ceiling, in polls' worth. */
  readonly maxPolls: number;
}

/** MaxRecords and MaxBytes for one ShareFetch. */
export interface FetchAsk {
  readonly maxRecords: number;
  readonly maxBytes: number;
}

export class FetchWindow {
  private readonly floor: FetchAsk;
  private readonly minPolls: number;
  private intervalMs: number | undefined;
  private lastHandOut: number | undefined;

  constructor(private readonly o: FetchWindowOptions) {
    this.floor = { maxRecords: o.maxRecords, maxBytes: o.maxBytes };
    this.minPolls = Math.max(1, Math.floor(o.maxRecords / o.perPoll));
  }

  /** A piece went to a poll at `now` (ms). */
  handedOut(now: number): void {
    if (this.lastHandOut !== undefined) {
      const gap = now - this.lastHandOut;
      // polls served by one answer in the same millisecond (or a clock stepped back) say nothing
      if (gap <= 0) return;
      // a slower gap counts at once (pieces already waiting would outlast the budget), a faster one slowly
      const i = this.intervalMs;
      this.intervalMs = i === undefined || gap >= i ? gap : i + SMOOTHING * (gap - i);
    }
    this.lastHandOut = now;
  }

  /** Polls' worth the next ShareFetch asks for, under an acquisition lock of `lockMs`. */
  polls(lockMs: number): number {
    if (this.intervalMs === undefined || lockMs <= 0) return this.minPolls;
    const fits = 1 + Math.floor((lockMs * LOCK_SHARE) / this.intervalMs);
    return Math.max(this.minPolls, Math.min(this.o.maxPolls, fits));
  }

  /** What the next ShareFetch asks for: the floor, or more polls' worth, MaxBytes grown with them. */
  ask(lockMs: number): FetchAsk {
    const polls = this.polls(lockMs);
    if (polls <= this.minPolls) return this.floor;
    const maxRecords = this.o.perPoll * polls;
    // MaxBytes by the same factor as MaxRecords, also for a floor that is not whole polls
    return { maxRecords, maxBytes: Math.round((this.o.maxBytes * maxRecords) / this.o.maxRecords) };
  }
}
