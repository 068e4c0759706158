/**
 * Between a share consumer's fetches and its callers' `poll()`s: answers go to the poll that has waited
 * longest, or wait for the next poll; an answer of several polls' worth is handed out in pieces.
 *
 * Each piece remembers when the ShareFetch that acquired it was sent, because a piece can wait here
 * (every poller busy) while its acquisition lock runs: the caller must time the lock from then, not
 * from its own poll, or it would renew or release too late.
 */
import type { ShareRecord } from './share-record.js';

interface Waiter {
  resolve(records: ShareRecord[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class PollQueue {
  private readonly waiters: Waiter[] = [];
  private readonly ready: ShareRecord[][] = [];
  private readonly sentAt = new WeakMap<readonly ShareRecord[], number>();
  /** Set while the queue is held: where answers go instead of to polls (see {@link hold}). */
  private releaseHeld: ((records: ShareRecord[]) => void) | undefined;

  /**
   * @param perPoll about how many records one poll() is given at most (see {@link deliver})
   * @param onHandOut told each time a piece goes to a poll, with Date.now() (fetch-window.ts)
   */
  constructor(
    private readonly perPoll: number,
    private readonly onHandOut: (now: number) => void = () => undefined,
  ) {}

  /** Polls waiting for records. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Some poll waits for records, and the queue is not held: a fetch is wanted. */
  get wanting(): boolean {
    return this.waiters.length > 0 && this.releaseHeld === undefined;
  }

  /**
   * Holds the queue (`release` given) or lets it go (undefined). While held, waiting polls want no fetch
   * (they end with [] at their `maxWaitMs`), and every answer, like the pieces already waiting for a
   * poll, goes to `release` instead: nobody would take them before their locks ran out.
   */
  hold(release: ((records: ShareRecord[]) => void) | undefined): void {
    this.releaseHeld = release;
    if (release) for (const piece of this.ready.splice(0)) release(piece);
  }

  /**
   * A piece waiting for a poll, taken without waiting and without counting as a poll's hand-out (the
   * runtime takes the rest of an answer into batches it supervises, share-task-runner.ts).
   */
  takeReady(): ShareRecord[] | undefined {
    return this.ready.shift();
  }

  /** Records waiting for a poll now, or a poll that waits until an answer or `maxWaitMs` ([] then). */
  take(maxWaitMs: number): ShareRecord[] | Promise<ShareRecord[]> {
    const ready = this.ready.shift();
    if (ready) {
      this.onHandOut(Date.now());
      return ready;
    }
    return new Promise<ShareRecord[]>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve([]);
        }, maxWaitMs),
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * An answer's records, acquired by a ShareFetch sent at `sentAt` (Date.now()). It is cut into the
   * nearest whole number of polls' worth, in equal pieces: MaxRecords is a soft limit (the broker returns
   * whole producer batches), so a one-poll answer of 591 records for 500 stays one piece, as it was.
   */
  deliver(records: ShareRecord[], sentAt: number): void {
    if (this.releaseHeld) return this.releaseHeld(records);
    const pieces = Math.max(1, Math.round(records.length / this.perPoll));
    const size = Math.ceil(records.length / pieces);
    for (let from = 0; from < records.length; from += size) {
      const piece = pieces === 1 ? records : records.slice(from, from + size);
      this.sentAt.set(piece, sentAt);
      const w = this.waiters.shift();
      if (w) {
        clearTimeout(w.timer);
        this.onHandOut(Date.now());
        w.resolve(piece);
      } else {
        this.ready.push(piece);
      }
    }
  }

  /** When the ShareFetch that acquired records a poll returned was sent; undefined for other arrays. */
  acquiredAt(records: readonly ShareRecord[]): number | undefined {
    return this.sentAt.get(records);
  }

  /** Every waiting poll gets [] and records not yet handed out are dropped (the caller releases them). */
  close(): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve([]);
    }
    this.ready.length = 0;
  }

  /** Every waiting poll fails with `err`. */
  fail(err: Error): void {
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }
}
