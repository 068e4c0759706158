/**
 * The end of a classic task's stop, after its puts' grace (ClassicTaskRunner.stop): the batches still
 * ending (puts being aborted, offset commits), the group join under way, leaving the group and
 * disconnecting, closing the dead-letter producer. Against a broker that does not answer, kafkajs
 * retries a commit or a leave for minutes, and a stop that waited for them could not be bounded.
 *
 * So these steps get the grace again ({@link closeWindowMs}). The step still running when it is over is
 * abandoned: the commits under way are given up on (classic-commits.ts: not committed, their records
 * are read again), the stop returns, and that step and the ones after it go on in the background, in
 * order, unwatched; one WARN names what was abandoned. A member that did not leave is dropped by the
 * coordinator after `session.timeout.ms`; its partitions move on then.
 */
import type { Logger } from 'pino';

/** Beyond `fetch.max.wait.ms`: one LeaveGroup round trip and the disconnect, with room to spare. */
const LEAVE_MARGIN_MS = 1000;

/**
 * How long the steps after the puts' grace may take: the grace again, but never less than a healthy
 * leave needs, as kafkajs's leave first waits for the fetch in flight (up to `fetch.max.wait.ms`).
 */
export function closeWindowMs(graceMs: number, fetchMaxWaitMs: number): number {
  return Math.max(graceMs, fetchMaxWaitMs + LEAVE_MARGIN_MS);
}

/** The steps, each started once the one before it ended. */
export interface CloseSteps {
  /** Every batch has ended: its put aborted, its offset commit answered or given up on. */
  readonly batchesEnded: () => Promise<unknown>;
  readonly joinSettled: () => Promise<unknown>;
  /** kafkajs's disconnect: it waits for the eachBatch calls (their commits), leaves, disconnects. */
  readonly leave: () => Promise<unknown>;
  readonly closeDeadLetters: () => Promise<unknown>;
}

export interface CloseOptions {
  readonly log: Logger;
  /** `task.shutdown.graceful.timeout.ms`. */
  readonly graceMs: number;
  readonly fetchMaxWaitMs: number;
  readonly sessionTimeoutMs: number;
  /** Called once when the time is up: gives up the commits under way. */
  readonly onRunOut: () => void;
}

const WHAT: Record<keyof CloseSteps, string> = {
  batchesEnded: 'the batches still ending (puts being aborted, offset commits)',
  joinSettled: 'the group join under way',
  leave: 'the consumer to leave the group and disconnect',
  closeDeadLetters: 'the dead-letter producer to close',
};

/**
 * Runs the steps in order, waiting for them until {@link closeWindowMs} has passed; what was abandoned,
 * if anything was. An abandoned step and those after it go on, in order, in the background.
 */
export async function closeWithin(steps: CloseSteps, o: CloseOptions): Promise<string | undefined> {
  const windowMs = closeWindowMs(o.graceMs, o.fetchMaxWaitMs);
  const startedAt = Date.now();
  const order = Object.keys(WHAT) as Array<keyof CloseSteps>;
  // each step starts once the one before it ended; a rejection counts as ended (the step logs it)
  let previous: Promise<unknown> = Promise.resolve();
  const ends = order.map((step) => (previous = previous.then(steps[step]).catch(() => undefined)));
  for (const [i, step] of order.entries()) {
    if (await settledBy(ends[i]!, startedAt + windowMs)) continue;
    const abandoned = WHAT[step];
    o.onRunOut();
    o.log.warn(
      { abandoned, notAwaited: order.slice(i + 1).map((s) => WHAT[s]), waitedMs: Date.now() - startedAt },
      `stop gave up waiting for ${abandoned} after ${windowMs} ms (task.shutdown.graceful.timeout.ms, after the puts' grace); it and the steps after it go on in the background: offset commits still under way are given up, not committed, and their records will be delivered again; a member that has not left is dropped by the coordinator after session.timeout.ms (${o.sessionTimeoutMs} ms)`,
    );
    return abandoned;
  }
  return undefined;
}

/** True when `work` (which does not reject) ended before `deadline` (a `Date.now()` time). */
async function settledBy(work: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
