/**
 * Offset commits of a classic task (src/actors/task/classic/classic-task-runner.ts), through kafkajs's offset
 * manager with autoCommit off. A chunk whose put succeeded resolves its last offset; the fetch's last
 * chunk commits every offset resolved so far. A fetch that ends before its last chunk committed (a
 * stop, a task failure, a rebalance, a chunk given back) commits what it resolved before eachBatch
 * returns: kafkajs leaves the group or rejoins only after every eachBatch call returned, and it keeps
 * resolved offsets in memory only, dropping them then (its own commit on disconnect or rejoin is the
 * autoCommit one, off here). Connect commits at the same two moments: on close and on revocation.
 *
 * A stop bounds the commits too: kafkajs retries a commit the coordinator does not answer for minutes.
 * Once the stop's time is up, the commits under way are given up on, and none is sent after: their
 * offsets count as not committed (the batch as left uncommitted, released), their records are read
 * again by the partition's next owner, and a WARN names the offsets. Should such a commit still land,
 * those records are simply not read again.
 */
import type { SourceFetch } from './source.js';
import type { Logger } from 'pino';
import { isRejoinError } from '../../../kafka/kafkajs/classic-consumer.js';
import type { ClassicTaskCounters } from './records.js';
import { StopCuts } from './stop-cuts.js';

type Offsets = ReturnType<SourceFetch['uncommittedOffsets']>;

/** The part of a classic batch (one chunk of a fetch) its commit reads and writes. */
export interface CommitChunk {
  readonly id: string;
  readonly payload: SourceFetch;
  /** Offset of the last delivered record; resolving it also resolves trailing control records. */
  readonly lastOffset: string;
  /** The fetch's last chunk: its success commits every offset resolved so far (one commit per fetch). */
  readonly commits: boolean;
  /** A commit request was made for this chunk, whatever its outcome: the fetch needs no other. */
  commitSent?: boolean;
  /** The group moved on (rebalance, expired member); eachBatch rethrows it so kafkajs rejoins. */
  groupError?: unknown;
}

export class ClassicCommits {
  /** Commits under way, which a stop that ran out of time gives up on. */
  private readonly cuts = new StopCuts();

  constructor(
    private readonly counters: ClassicTaskCounters,
    private readonly log: Logger,
  ) {}

  /**
   * After a successful put (and dead-lettering): resolve the chunk; the fetch's last chunk commits. False
   * when the stop gave up on that commit: the chunk is not committed.
   */
  async chunk(work: CommitChunk): Promise<boolean> {
    const { payload } = work;
    payload.resolveOffset(work.lastOffset);
    // one commit per fetch in steady state: a commit per chunk cost a saturated bench ~60% (6ce3736);
    // a fetch that ends early commits what it resolved in leftovers()
    if (!work.commits) return true;
    work.commitSent = true;
    // every resolved offset belongs to a batch whose put succeeded, so all of them may go
    const offsets = payload.uncommittedOffsets();
    try {
      if ((await this.cuts.race(() => payload.commitOffsetsIfNecessary(offsets))) === 'cut')
        return this.givenUp(payload, offsets, { batchId: work.id });
      this.counters.commits++;
      return true;
    } catch (err) {
      this.counters.commitFailures++;
      if (isRejoinError(err)) work.groupError ??= err;
      throw err;
    }
  }

  /**
   * The fetch ends before its last chunk committed: commit the offsets resolved and not committed yet,
   * while the member still holds its generation (during a rebalance the coordinator accepts the old
   * generation's commit until the member rejoins). No request when nothing is resolved. A failure is
   * logged, not thrown: those records are delivered again, as after a crash.
   */
  async leftovers(payload: SourceFetch, why: string): Promise<void> {
    const offsets = payload.uncommittedOffsets();
    if (offsets.topics.length === 0) return;
    const { topic, partition } = payload.batch;
    try {
      if ((await this.cuts.race(() => payload.commitOffsetsIfNecessary(offsets))) === 'cut') {
        this.givenUp(payload, offsets, { why });
        return;
      }
      this.counters.commits++;
      this.log.debug({ topic, partition, why, offsets: offsets.topics }, 'resolved offsets committed');
    } catch (err) {
      this.counters.commitFailures++;
      this.log.warn(
        { topic, partition, why, err: err instanceof Error ? err.message : String(err) },
        'offsets of written records not committed; those records will be delivered again',
      );
    }
  }

  /** The stop ran out of time: commits under way are given up on, and no other is sent. */
  giveUp(): void {
    this.cuts.giveUp();
  }

  private givenUp(payload: SourceFetch, offsets: Offsets, at: object): false {
    const { topic, partition } = payload.batch;
    this.log.warn(
      { ...at, topic, partition, offsets: offsets.topics },
      'offset commit given up: the stop ran out of time; not committed, those records will be delivered again',
    );
    return false;
  }
}

/**
 * Heartbeats (kafkajs sends one only once heartbeat.interval.ms has passed since the last) and returns
 * the group's error when the member must rejoin. Other errors are left to kafkajs, which reconnects.
 */
export async function rejoinNeeded(payload: SourceFetch): Promise<unknown> {
  try {
    await payload.heartbeat();
    return undefined;
  } catch (err) {
    return isRejoinError(err) ? err : undefined;
  }
}
