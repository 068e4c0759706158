/**
 * A consumer-group member on the consumer protocol (KIP-848) over sharesink's own wire layer: the
 * heartbeats and reconciliation of {@link ConsumerMembership}, a fetch loop per partition leader (Fetch
 * v13+, by topic id, full fetches without a session), start positions from the group's committed offsets
 * or `auto.offset.reset`, and commits with the member id and epoch. Each partition is with the
 * application one fetch at a time (`each`), and the next one is read ahead meanwhile (fetch-loops.ts);
 * a fetch that ends before resolving everything drops what was read ahead, and the partition is read
 * again after the last offset resolved. A revoked partition's fetch is told it is stale, and the
 * revocation waits for it to end, which commits what it put (the classic task runner does).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { KafkaCluster, type KafkaClusterOptions } from '../cluster.js';
import { KafkaConnectionError, KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { failureFields } from '../errors/failure-reason.js';
import { Fetch, type FetchResponse } from '../protocol/messages/fetch.js';
import { randomUuid } from '../protocol/uuid.js';
import { ConsumerMembership, type OwnedPartition } from './consumer-membership.js';
import { fetchCommitted, listOffsets, type MemberRef } from './group-offsets.js';
import { OffsetCommits } from './offset-commits.js';
import { FetchLoops, partitionKey, type Asked } from './fetch-loops.js';
import {
  dropReadAhead,
  newPartitionState,
  PartitionRevokedError,
  type OffsetsByTopic,
  type PartitionFetch,
  type PartitionState,
  type ReadAhead,
} from './partition-state.js';

export type { PartitionFetch, OffsetsByTopic } from './partition-state.js';

export interface GroupConsumerOptions extends Omit<KafkaClusterOptions, 'logger' | 'openConnection'> {
  readonly logger: Logger;
  readonly groupId: string;
  /** `group.instance.id`: static membership. */
  readonly instanceId?: string | null;
  /** `group.remote.assignor` (Kafka's `uniform` or `range`); default: the broker's. */
  readonly serverAssignor?: string | null;
  /** `max.poll.interval.ms`. Default 300 000. */
  readonly rebalanceTimeoutMs?: number;
  /** Default `earliest`, as Connect sets for sink connectors. */
  readonly autoOffsetReset?: 'earliest' | 'latest' | 'none';
  readonly fetchMaxWaitMs?: number;
  readonly fetchMinBytes?: number;
  readonly fetchMaxBytes?: number;
  readonly maxPartitionFetchBytes?: number;
  /** Fetches with the application at once. Default 4. */
  readonly concurrency?: number;
  /** `max.poll.records`: the application puts a fetch in chunks of this many (see FetchLoopsHost.chunkRecords). */
  readonly maxPollRecords?: number;
}

const LONG_POLL_MARGIN_MS = 10_000;

export class GroupConsumer {
  readonly cluster: KafkaCluster;
  private readonly o: GroupConsumerOptions;
  private readonly log: Logger;
  private readonly membership: ConsumerMembership;
  private readonly parts = new Map<string, PartitionState>();
  private readonly paused = new Set<string>();
  private readonly loops: FetchLoops;
  private readonly commits: OffsetCommits;
  private topics: string[] = [];
  private running = false;
  private each: ((fetch: PartitionFetch) => Promise<void>) | undefined;
  private assignmentListener: (owned: Array<{ topic: string; partition: number }>) => void = () => {};
  private crashListener: (error: Error) => void = () => {};
  private fatalError: Error | undefined;
  private onFatalWhileJoining: ((e: Error) => void) | undefined;

  constructor(options: GroupConsumerOptions) {
    this.o = options;
    this.log = options.logger;
    this.cluster = new KafkaCluster({ ...options, logger: options.logger });
    this.membership = new ConsumerMembership({
      cluster: this.cluster,
      groupId: options.groupId,
      memberId: randomUuid(),
      instanceId: options.instanceId ?? null,
      rackId: null,
      rebalanceTimeoutMs: options.rebalanceTimeoutMs ?? 300_000,
      serverAssignor: options.serverAssignor ?? null,
      logger: options.logger,
      onRevoke: (ps, lost) => this.revoke(ps, lost),
      onAssign: (ps) => this.assign(ps),
      onFatal: (e) => this.fatal(e),
    });
    this.commits = new OffsetCommits(this.cluster, () => this.member());
    this.loops = new FetchLoops({
      log: this.log,
      parts: this.parts,
      concurrency: options.concurrency ?? 4,
      chunkRecords: options.maxPollRecords,
      isRunning: () => this.running,
      isPaused: (topic) => this.paused.has(topic),
      leaderOf: (s) => this.leaderOf(s),
      fetch: (node, lane, asked) => this.fetchFrom(node, lane, asked),
      refreshMetadata: async () => void (await this.cluster.refreshMetadata(this.topics)),
      resetPosition: (s) => this.resetPosition(s),
      deliver: (s, b) => this.each!(this.partitionFetch(s, b)),
    });
  }

  get memberId(): string {
    return this.membership.memberId;
  }

  onAssignment(listener: (owned: Array<{ topic: string; partition: number }>) => void): void {
    this.assignmentListener = listener;
  }

  /** A failure no retry mends (a refused join, `auto.offset.reset=none` without an offset). */
  onCrash(listener: (error: Error) => void): void {
    this.crashListener = listener;
  }

  /** Joins the group and starts fetching; resolves after the first heartbeat, rejects on a refusal. */
  async start(topics: readonly string[], each: (fetch: PartitionFetch) => Promise<void>): Promise<void> {
    this.topics = [...topics];
    this.each = each;
    this.running = true;
    await this.cluster.refreshMetadata(this.topics);
    const refused = new Promise<never>((_, reject) => (this.onFatalWhileJoining = reject));
    this.membership.subscribe(this.topics);
    try {
      await Promise.race([this.membership.joinedOnce, refused]);
    } finally {
      this.onFatalWhileJoining = undefined;
    }
    // a member the coordinator gives nothing (more tasks than partitions) is in the group all the same
    if (this.parts.size === 0) this.emitAssignment();
  }

  /** Stops fetching these topics: what was read ahead is dropped; the fetches with the application finish. */
  pause(topics: readonly string[]): void {
    for (const t of topics) this.paused.add(t);
    for (const s of this.parts.values()) if (this.paused.has(s.topic)) dropReadAhead(s);
  }

  resume(topics: readonly string[]): void {
    for (const t of topics) this.paused.delete(t);
    this.loops.kick();
  }

  /** Gives every partition up (after their fetches ended and committed), leaves the group, disconnects. */
  async close(): Promise<void> {
    await this.membership.leave();
    this.running = false;
    await this.loops.ended();
    await this.cluster.close();
  }

  private fatal(error: Error): void {
    this.fatalError ??= error;
    this.running = false;
    if (this.onFatalWhileJoining) this.onFatalWhileJoining(error);
    else this.crashListener(error);
  }

  private member(): MemberRef {
    return {
      groupId: this.o.groupId,
      memberId: this.membership.memberId,
      memberEpoch: this.membership.memberEpoch,
      instanceId: this.o.instanceId ?? null,
    };
  }

  private emitAssignment(): void {
    const owned = [...this.parts.values()]
      .filter((s) => !s.revoked)
      .map((s) => ({ topic: s.topic, partition: s.partition }));
    this.assignmentListener(owned);
  }

  private async assign(added: OwnedPartition[]): Promise<void> {
    await this.cluster.refreshMetadata(this.topics);
    const committed = await fetchCommitted(this.cluster, this.member(), added);
    const at = new Map(committed.map((c) => [`${c.topic}:${c.partition}`, c.offset]));
    const missing = added.filter((p) => (at.get(`${p.topic}:${p.partition}`) ?? -1) < 0);
    if (missing.length > 0) {
      const reset = this.o.autoOffsetReset ?? 'earliest';
      if (reset === 'none') {
        this.fatal(
          new KafkaError(KafkaErrorCode.OFFSET_OUT_OF_RANGE, {
            api: 'OffsetFetch',
            subject: `${missing.map((p) => `${p.topic}-${p.partition}`).join(', ')}: no committed offset and auto.offset.reset=none`,
          }),
        );
        return;
      }
      for (const r of await listOffsets(this.cluster, missing, reset, 0))
        at.set(`${r.topic}:${r.partition}`, r.offset);
    }
    for (const p of added) {
      const position = at.get(`${p.topic}:${p.partition}`) ?? 0;
      this.parts.set(
        partitionKey(p.topicId, p.partition),
        newPartitionState(p.topic, p.topicId, p.partition, position),
      );
    }
    this.emitAssignment();
    this.loops.kick();
  }

  private async revoke(gone: OwnedPartition[], lost: boolean): Promise<void> {
    const states = gone.flatMap((p) => this.parts.get(partitionKey(p.topicId, p.partition)) ?? []);
    for (const s of states) {
      s.revoked = true;
      dropReadAhead(s);
    }
    await Promise.all(states.map((s) => s.idle));
    if (!lost) {
      // what the fetches resolved and did not commit (the runner commits at a fetch's end already)
      const left = states.filter((s) => s.resolvedNext !== undefined && s.resolvedNext > s.committedNext);
      await this.commits
        .commit(left.map((s) => ({ topic: s.topic, partition: s.partition, offset: s.resolvedNext! })))
        .catch((err: unknown) =>
          this.log.warn(
            failureFields(err),
            'offsets of revoked partitions not committed; they will be read again',
          ),
        );
    }
    for (const p of gone) this.parts.delete(partitionKey(p.topicId, p.partition));
    this.emitAssignment();
  }

  private leaderOf(s: PartitionState): number {
    return this.cluster.leaderFor(s.topicId, s.partition) ?? -1;
  }

  private async fetchFrom(node: number, lane: number, asked: readonly Asked[]): Promise<FetchResponse> {
    const maxWaitMs = this.o.fetchMaxWaitMs ?? 500;
    const conn = await this.cluster.connectionTo(node, `fetch-${lane}`);
    const res = await conn.call(
      Fetch,
      {
        maxWaitMs,
        minBytes: this.o.fetchMinBytes ?? 1,
        maxBytes: this.o.fetchMaxBytes ?? 52_428_800,
        isolationLevel: 0,
        rackId: '',
        topics: byTopicId(asked, this.o.maxPartitionFetchBytes ?? 1_048_576),
      },
      { timeoutMs: maxWaitMs + LONG_POLL_MARGIN_MS },
    );
    if (res.nodeEndpoints.length > 0) this.cluster.updateNodes(res.nodeEndpoints);
    return res;
  }

  private async resetPosition(s: PartitionState): Promise<void> {
    const reset = this.o.autoOffsetReset ?? 'earliest';
    if (reset === 'none') {
      this.fatal(
        new KafkaError(KafkaErrorCode.OFFSET_OUT_OF_RANGE, {
          api: 'Fetch',
          subject: `${s.topic}-${s.partition}`,
        }),
      );
      return;
    }
    const [at] = await listOffsets(this.cluster, [s], reset, 0);
    this.log.warn(
      { topic: s.topic, partition: s.partition, from: s.position, to: at?.offset },
      'fetch offset out of range; reset by auto.offset.reset',
    );
    if (at !== undefined) s.position = at.offset;
  }

  private partitionFetch(s: PartitionState, b: ReadAhead): PartitionFetch {
    const uncommitted = (): OffsetsByTopic =>
      s.resolvedNext === undefined || s.resolvedNext <= s.committedNext
        ? { topics: [] }
        : {
            topics: [
              { topic: s.topic, partitions: [{ partition: s.partition, offset: String(s.resolvedNext) }] },
            ],
          };
    return {
      topic: s.topic,
      partition: s.partition,
      records: b.records,
      lastOffset: String(b.lastOffset),
      resolveOffset: (offset) => {
        const next = Number(offset) + 1;
        if (s.resolvedNext === undefined || next > s.resolvedNext) s.resolvedNext = next;
      },
      uncommittedOffsets: uncommitted,
      commitOffsetsIfNecessary: async () => {
        const next = s.resolvedNext;
        if (next === undefined || next <= s.committedNext) return;
        await this.commitWithRetry(s, next);
        s.committedNext = Math.max(s.committedNext, next);
      },
      heartbeat: () =>
        s.revoked ? Promise.reject(new PartitionRevokedError(s.topic, s.partition)) : Promise.resolve(),
      isRunning: () => this.running,
      isStale: () => s.revoked,
    };
  }

  /**
   * STALE_MEMBER_EPOCH: the epoch moved on under the commit; the next heartbeat brings the new one. A
   * broken connection: the commits' connection is shared by every partition's commits.
   */
  private async commitWithRetry(s: PartitionState, next: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.commits.commit([{ topic: s.topic, partition: s.partition, offset: next }]);
      } catch (err) {
        // a connection error is retriable too: the same offset sent again is the same commit
        const retriable =
          err instanceof KafkaConnectionError ||
          (err instanceof KafkaError &&
            (err.kafkaCode === KafkaErrorCode.STALE_MEMBER_EPOCH || err.retriable));
        if (!retriable || attempt >= 5) throw err;
        await sleep(100 * attempt);
      }
    }
  }
}

function byTopicId(asked: readonly Asked[], partitionMaxBytes: number) {
  const out = new Map<
    string,
    Array<{ partition: number; currentLeaderEpoch: number; fetchOffset: number; partitionMaxBytes: number }>
  >();
  for (const { s, offset } of asked) {
    const list = out.get(s.topicId) ?? [];
    list.push({ partition: s.partition, currentLeaderEpoch: -1, fetchOffset: offset, partitionMaxBytes });
    out.set(s.topicId, list);
  }
  return [...out].map(([topicId, partitions]) => ({ topicId, partitions }));
}
