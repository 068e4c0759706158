/**
 * The WARN lines of what sharesink retries on its own while a broker is down (`share fetch failed;
 * retrying`, `metadata refresh failed`), held back the way kafkajs's connection lines are
 * (repeated-lines.ts). Each retry logged one: with every attempt taking ~8 s of connection attempts,
 * a broker down for an hour printed hundreds of the same line.
 *
 * A failure is logged the first time, then once per 30 s for the same subject and cause, carrying
 * `repeatsLeftOut=N`, the count of identical lines left out since the last one. When the subject works
 * again after a failure that was logged, one NOTICE line says so (a terminal shows it, as it showed
 * the WARN), with how many attempts failed and for
 * how long; a failure that was held back ends quietly, as it began.
 */
import type { Logger } from 'pino';
import { notice } from '../logger.js';
import { RepeatedLines, REPEAT_WINDOW_MS } from './repeated-lines.js';

interface Failing {
  readonly since: number;
  failures: number;
  /** A line of this failure was logged: its end is worth a line too. */
  logged: boolean;
}

export class RetryLines {
  private readonly repeats: RepeatedLines;
  /** What fails now, by subject. */
  private readonly failing = new Map<string | number, Failing>();

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    windowMs = REPEAT_WINDOW_MS,
  ) {
    this.repeats = new RepeatedLines(windowMs, now);
  }

  /**
   * One failed attempt at `subject` (a broker's node id, `metadata`), for `cause` (a short reason,
   * e.g. `connect ECONNREFUSED`): logged at WARN as `msg` with `fields` unless a line of the same subject
   * and cause was logged less than the window ago.
   */
  failed(subject: string | number, cause: string, fields: object, msg: string): void {
    let failing = this.failing.get(subject);
    if (failing === undefined)
      this.failing.set(subject, (failing = { since: this.now(), failures: 0, logged: false }));
    failing.failures++;
    const left = this.repeats.admit(`${subject}\u0000${cause}`);
    if (left === undefined) return;
    failing.logged = true;
    this.log.warn(left > 0 ? { ...fields, repeatsLeftOut: left } : fields, msg);
  }

  /** `subject` worked: one NOTICE line `msg` when it had failed and that was logged. Cheap when nothing fails. */
  recovered(subject: string | number, fields: object, msg: string): void {
    if (this.failing.size === 0) return;
    const failing = this.failing.get(subject);
    if (failing === undefined) return;
    this.failing.delete(subject);
    if (failing.logged)
      notice(
        this.log,
        { ...fields, failures: failing.failures, failedForMs: this.now() - failing.since },
        msg,
      );
  }
}
