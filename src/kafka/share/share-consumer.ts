/**
 * A KIP-932 share-group consumer: any member may acquire any record, acknowledges each record
 * (ACCEPT / RELEASE / REJECT, RENEW on Kafka ≥ 4.2), and gets records back when their acquisition lock
 * expires. See docs/share-consumer.md.
 *
 * Several polls may be outstanding at once and acknowledgements may come in any order: the runtime
 * pipelines batches. Requests to one leader are serialized through its {@link NodeChannel}; requests to
 * different leaders run in parallel.
 */
import type { Logger } from 'pino';
import { SharesinkError } from '../../errors.js';
import { defaultLogger } from '../../logger.js';
import { KafkaError, KafkaErrorCode } from '../errors.js';
import type { ShareFetchPartition, ShareFetchResponse } from '../protocol/messages/share-fetch.js';
import type { ShareTopicPartitions } from '../protocol/messages/share-group-heartbeat.js';
import { randomUuid } from '../protocol/uuid.js';
import { AckCode, type AcknowledgeType } from './ack-batches.js';
import { selectAcquired } from './acquired-records.js';
import { Membership } from './membership.js';
import {
  NodeChannel,
  newAckEntry,
  planAcks,
  type AckEntry,
  type PartitionAckResult,
} from './node-channel.js';
import { tpKey } from './share-session.js';
import { ShareConsumerMetrics } from './share-consumer-metrics.js';
import {
  METADATA_ERRORS,
  asSharesinkError,
  closeSession,
  indexEntries,
  sendAcks,
  settleAll,
  type AcknowledgerHost,
} from './acknowledger.js';
import { PartitionDirectory } from './partition-directory.js';
import type { ShareTransport } from './transport.js';
import {
  AckNotAllowedError,
  ConsumerClosedError,
  RenewUnsupportedError,
  SessionResetError,
  UnknownTopicError,
} from './share-errors.js';
import { createClusterTransport, type ClusterTransportOptions } from './cluster-transport.js';

export type { PartitionAckResult };

export interface ShareRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Buffer | null }>;
  /** 1 on the first delivery; +1 each time the record comes back (released or lock expired). */
  readonly deliveryCount: number;
}

/** Records to acknowledge: records as `poll()` returned them, or offsets of one partition. */
export type AckTarget =
  | ShareRecord
  | readonly ShareRecord[]
  | { readonly topic: string; readonly partition: number; readonly offsets: readonly number[] };

export interface ShareConsumerOptions extends Omit<ClusterTransportOptions, 'logger'> {
  readonly groupId: string;
  readonly logger?: Logger;
  readonly rackId?: string;
  /** Longest time the broker holds a ShareFetch open waiting for records (ShareFetch MaxWaitMs). Default 500. */
  readonly fetchMaxWaitMs?: number;
  readonly fetchMinBytes?: number;
  /**
   * ShareFetch MaxBytes, a soft limit (the broker still returns at least one batch). Default 1 MiB, as Kafka's
   * ShareConsumerPerformance uses: the broker's work per ShareFetch grows with MaxBytes when a backlog is
   * waiting (Kafka 4.4, 2 cores: 0.7 ms at 1 MiB vs 3.5 ms at 50 MiB for the same 592 records).
   */
  readonly fetchMaxBytes?: number;
  /** Soft limit of records per fetch (ShareFetch MaxRecords). Default 500. */
  readonly maxRecords?: number;
  /** Preferred records per acquired batch (ShareFetch BatchSize). Default: maxRecords. */
  readonly batchSize?: number;
  /** `record_limit` makes MaxRecords a hard limit (Kafka ≥ 4.2). Default `batch_optimized`. */
  readonly acquireMode?: 'batch_optimized' | 'record_limit';
  /**
   * Acknowledgements not carried by a ShareFetch or {@link ShareConsumer.commit} within this time are sent
   * on their own (ShareAcknowledge), so an awaited `acknowledge()` always settles. Default 100.
   */
  readonly ackFlushDelayMs?: number;
  /** For tests: the wire to use instead of a real cluster connection. */
  readonly transport?: ShareTransport;
}

export interface PollOptions {
  /** How long `poll()` waits for records before it returns []. Default 1000. */
  readonly maxWaitMs?: number;
}

/** See {@link ShareConsumerOptions.fetchMaxBytes}. */
const DEFAULT_FETCH_MAX_BYTES = 1_048_576;

const SESSION_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.SHARE_SESSION_NOT_FOUND,
  KafkaErrorCode.INVALID_SHARE_SESSION_EPOCH,
  KafkaErrorCode.SHARE_SESSION_LIMIT_REACHED,
]);
const FATAL_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.GROUP_AUTHORIZATION_FAILED,
  KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED,
  KafkaErrorCode.UNSUPPORTED_VERSION,
  KafkaErrorCode.INVALID_REQUEST,
]);

interface Waiter {
  resolve(records: ShareRecord[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class ShareConsumer {
  readonly groupId: string;
  /** Made here, kept for the consumer's life (KIP-932: the client names its member). */
  readonly memberId: string;
  readonly metrics = new ShareConsumerMetrics();
  private readonly opts: ShareConsumerOptions;
  private readonly log: Logger;
  private readonly transport: ShareTransport;
  private readonly membership: Membership;
  private subscription: string[] = [];
  private readonly dir = new PartitionDirectory();
  private readonly channels = new Map<number, NodeChannel>();
  /** Offsets handed out and not yet terminally acknowledged, per tpKey. */
  private readonly outstanding = new Map<string, Set<number>>();
  private readonly ready: ShareRecord[][] = [];
  private readonly waiters: Waiter[] = [];
  private lockTimeoutMs: number | undefined;
  private metadataStale = false;
  private refreshing: Promise<void> | undefined;
  private fatal: Error | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private kickTimer: NodeJS.Timeout | undefined;
  /** Rejects a pending subscribe() when the member cannot join at all. */
  private onFatalOnce: ((e: Error) => void) | undefined;

  constructor(options: ShareConsumerOptions) {
    this.opts = options;
    this.groupId = options.groupId;
    this.memberId = randomUuid();
    this.log = (options.logger ?? defaultLogger()).child({
      groupId: options.groupId,
      memberId: this.memberId,
    });
    this.transport = options.transport ?? createClusterTransport({ ...options, logger: this.log });
    this.membership = new Membership({
      groupId: options.groupId,
      memberId: this.memberId,
      rackId: options.rackId ?? null,
      transport: this.transport,
      logger: this.log,
      onAssignment: (a) => this.onAssignment(a),
      onFatal: (e) => this.fail(e),
    });
    this.ackHost = {
      transport: this.transport,
      groupId: this.groupId,
      memberId: this.memberId,
      topicName: (topicId) => this.dir.topicName(topicId),
      topLevelOk: (ch, code, message, api, entries) => this.topLevelOk(ch, code, message, api, entries),
      onLockTimeout: (ms) => (this.lockTimeoutMs = ms),
      onMetadataStale: () => (this.metadataStale = true),
    };
  }

  /** How long acquired records stay locked, as the broker last reported it (AcquisitionLockTimeoutMs). */
  get acquisitionLockTimeoutMs(): number | undefined {
    return this.lockTimeoutMs;
  }

  /** The partitions the group coordinator assigned to this member, as `topic:partition`. */
  get assignedPartitions(): string[] {
    return [...this.dir.assigned.values()].map((p) => `${p.topic}:${p.partition}`).sort();
  }

  /**
   * Joins the share group for `topics`. Resolves once the member is in the group; rejects at once for a
   * topic that does not exist, missing authorization, or a broker without share groups.
   */
  async subscribe(topics: readonly string[]): Promise<void> {
    this.throwIfUnusable();
    if (topics.length === 0)
      throw new SharesinkError('SHARESINK_SUBSCRIBE_EMPTY', 'subscribe() needs at least one topic');
    const metadata = await this.transport.metadata(topics);
    const missing = metadata
      .filter((t) => t.errorCode === KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      .map((t) => t.name);
    if (missing.length > 0) throw new UnknownTopicError(missing);
    const failed = metadata.find((t) => t.errorCode !== 0);
    if (failed) throw new KafkaError(failed.errorCode, { api: 'Metadata', subject: `topic ${failed.name}` });
    this.subscription = [...new Set(topics)];
    this.dir.applyMetadata(metadata);
    this.membership.subscribe(this.subscription);
    await Promise.race([
      this.membership.joined,
      new Promise<never>((_, reject) => {
        this.onFatalOnce = reject;
      }),
    ]);
    this.onFatalOnce = undefined;
  }

  /**
   * Acquired records from the next ShareFetch answer that has any, or [] after `maxWaitMs`. Every record
   * returned must later be acknowledged (or is released at close or when its lock expires).
   */
  poll(options: PollOptions = {}): Promise<ShareRecord[]> {
    try {
      this.throwIfUnusable();
    } catch (err) {
      return Promise.reject(err as Error);
    }
    const ready = this.ready.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise<ShareRecord[]>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve([]);
        }, options.maxWaitMs ?? 1000),
      };
      this.waiters.push(waiter);
      this.kick();
    });
  }

  /**
   * Records the outcome of records this consumer was given. ACCEPT / RELEASE / REJECT are final; RENEW
   * extends the lock and the record stays acquired (Kafka ≥ 4.2). Acknowledgements go out with the next
   * ShareFetch to the partition's leader or with {@link commit}. The promise reports what the broker
   * said, per partition; it never rejects.
   */
  acknowledge(target: AckTarget, type: AcknowledgeType): Promise<PartitionAckResult[]> {
    this.throwIfUnusable();
    const groups = this.dir.group(
      'offsets' in target ? target : Array.isArray(target) ? target : [target as ShareRecord],
    );
    const entries: AckEntry[] = [];
    for (const [key, { topic, partition, offsets }] of groups) {
      const tp = this.dir.partition(key)!;
      const out = this.outstanding.get(key);
      const bad = out ? offsets.filter((o) => !out.has(o)) : offsets;
      if (bad.length > 0) throw new AckNotAllowedError(topic, partition, bad);
      const leader = this.dir.leaderOf(key);
      const channel = leader === undefined ? undefined : this.channels.get(leader);
      if (type === 'renew') {
        if (!channel || !this.renewAvailable.get(channel.nodeId))
          throw new RenewUnsupportedError(channel?.nodeId);
        const entry = newAckEntry(tp, type, AckCode.renew, [...offsets], (r) => this.countAck(r));
        channel.renew.push(entry);
        entries.push(entry);
        continue;
      }
      for (const o of offsets) out!.delete(o);
      const entry = newAckEntry(tp, type, AckCode[type], [...offsets], (r) => this.countAck(r));
      entries.push(entry);
      if (!channel) entry.settle(new SessionResetError(`${topic}-${partition} has no known leader`));
      else channel.terminal.push(entry);
    }
    this.scheduleFlush();
    return Promise.all(entries.map((e) => e.result));
  }

  private flushTimer: NodeJS.Timeout | undefined;

  private scheduleFlush(): void {
    if (this.flushTimer || this.closed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      if (!this.closed) void this.commit();
    }, this.opts.ackFlushDelayMs ?? 100);
  }

  /** Sends every pending acknowledgement now (ShareAcknowledge) and resolves with the broker's answers. */
  async commit(): Promise<PartitionAckResult[]> {
    const waiting: Promise<PartitionAckResult>[] = [];
    for (const ch of this.channels.values()) {
      if (ch.terminal.length === 0 && ch.renew.length === 0) continue;
      for (const e of [...ch.terminal, ...ch.renew]) waiting.push(e.result);
      void ch.run(() => sendAcks(this.ackHost, ch));
    }
    return Promise.all(waiting);
  }

  /**
   * Sends the final acknowledgements, releases every record still held (so other members get them at once
   * rather than after the lock), closes the share sessions and leaves the group. Safe to call twice.
   */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.closed = true;
    if (this.kickTimer) clearTimeout(this.kickTimer);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.resolve([]);
    }
    // records fetched but never handed out are outstanding too: released below with the rest
    this.ready.length = 0;
    for (const [key, offsets] of this.outstanding) {
      if (offsets.size === 0) continue;
      const tp = this.dir.partition(key);
      const leader = this.dir.leaderOf(key);
      const ch = leader === undefined ? undefined : this.channels.get(leader);
      if (!tp || !ch) continue;
      ch.terminal.push(newAckEntry(tp, 'release', AckCode.release, [...offsets], (r) => this.countAck(r)));
      offsets.clear();
    }
    await Promise.all([...this.channels.values()].map((ch) => ch.run(() => closeSession(this.ackHost, ch))));
    await this.membership.leave();
    await this.transport.close();
    this.log.info(this.metrics.snapshot(), 'share consumer closed');
  }

  // ---------------------------------------------------------------- fetching

  private kick(): void {
    if (this.closed || this.fatal || this.waiters.length === 0) return;
    if (this.metadataStale) {
      void this.refreshMetadata().then(() => this.kick());
      return;
    }
    const now = Date.now();
    let earliestRetry = Infinity;
    for (const ch of this.channels.values()) {
      if (ch.fetching || ch.session.wantedPartitions.size === 0) continue;
      if (ch.backoffUntil > now) {
        earliestRetry = Math.min(earliestRetry, ch.backoffUntil);
        continue;
      }
      ch.fetching = true;
      void ch
        .run(() => this.fetchFrom(ch))
        .catch((err: Error) => this.onRequestFailure(ch, err))
        .finally(() => {
          ch.fetching = false;
          this.kick();
        });
    }
    if (earliestRetry !== Infinity && !this.kickTimer) {
      this.kickTimer = setTimeout(() => {
        this.kickTimer = undefined;
        this.kick();
      }, earliestRetry - now);
    }
  }

  private async fetchFrom(ch: NodeChannel): Promise<void> {
    const session = ch.session;
    const changes = session.pendingChanges();
    // acknowledgements cannot open a session: they wait for the next request on an open one
    const acks = session.isNew ? [] : ch.takeTerminal();
    const plan = planAcks(acks);
    const topics = new Map<string, Map<number, ShareFetchPartition>>();
    const addPartition = (topicId: string, partition: number) => {
      let parts = topics.get(topicId);
      if (!parts) topics.set(topicId, (parts = new Map()));
      let p = parts.get(partition);
      if (!p) parts.set(partition, (p = { partitionIndex: partition, acknowledgementBatches: [] }));
      return p;
    };
    for (const p of changes.added) addPartition(p.topicId, p.partition);
    for (const [topicId, parts] of plan) {
      for (const [partition, batches] of parts)
        addPartition(topicId, partition).acknowledgementBatches = batches;
    }
    const maxRecords = this.opts.maxRecords ?? 500;
    const started = performance.now();
    let res: ShareFetchResponse;
    try {
      res = await this.transport.shareFetch(ch.nodeId, {
        groupId: this.groupId,
        memberId: this.memberId,
        shareSessionEpoch: session.epoch,
        maxWaitMs: this.opts.fetchMaxWaitMs ?? 500,
        minBytes: this.opts.fetchMinBytes ?? 1,
        maxBytes: this.opts.fetchMaxBytes ?? DEFAULT_FETCH_MAX_BYTES,
        maxRecords,
        batchSize: this.opts.batchSize ?? maxRecords,
        shareAcquireMode: this.opts.acquireMode === 'record_limit' ? 1 : 0,
        isRenewAck: false,
        topics: [...topics].map(([topicId, parts]) => ({ topicId, partitions: [...parts.values()] })),
        forgottenTopicsData: changes.forgotten,
      });
    } catch (err) {
      session.reset();
      settleAll(acks, asSharesinkError(err));
      throw err;
    }
    const latencyMs = performance.now() - started;
    if (!this.topLevelOk(ch, res.errorCode, res.errorMessage, 'ShareFetch', acks)) return;
    session.commitChanges(changes);
    session.advance();
    if (res.acquisitionLockTimeoutMs > 0) this.lockTimeoutMs = res.acquisitionLockTimeoutMs;
    ch.backoffUntil = 0;

    const byPartition = indexEntries(acks);
    const delivered: ShareRecord[] = [];
    for (const topic of res.responses) {
      const topicName = this.dir.topicName(topic.topicId);
      for (const p of topic.partitions) {
        const key = tpKey(topic.topicId, p.partitionIndex);
        const ackErr =
          p.acknowledgeErrorCode === 0
            ? null
            : new KafkaError(p.acknowledgeErrorCode, {
                api: 'ShareFetch',
                brokerMessage: p.acknowledgeErrorMessage,
                subject: `${topicName ?? topic.topicId}-${p.partitionIndex}`,
              });
        for (const e of byPartition.get(key) ?? []) e.settle(ackErr);
        byPartition.delete(key);
        if (p.errorCode !== 0) {
          this.onPartitionError(p.errorCode, p.errorMessage, topicName ?? topic.topicId, p.partitionIndex);
          continue;
        }
        if (p.acquiredRecords.length === 0 || topicName === undefined) continue;
        await this.collect(
          ch,
          topic.topicId,
          topicName,
          p.partitionIndex,
          p.records,
          p.acquiredRecords,
          delivered,
        );
      }
    }
    // partitions the broker did not mention: nothing contradicts success of the request
    for (const rest of byPartition.values()) for (const e of rest) e.settle(null);
    this.metrics.onFetch(latencyMs, delivered.length);
    if (delivered.length > 0) this.deliver(delivered);
  }

  private async collect(
    ch: NodeChannel,
    topicId: string,
    topic: string,
    partition: number,
    bytes: Buffer,
    acquired: ShareFetchResponse['responses'][number]['partitions'][number]['acquiredRecords'],
    into: ShareRecord[],
  ): Promise<void> {
    const key = tpKey(topicId, partition);
    const tp = this.dir.assigned.get(key) ?? { topicId, topic, partition };
    let out = this.outstanding.get(key);
    if (!out) this.outstanding.set(key, (out = new Set()));
    let selection;
    try {
      selection = selectAcquired(await this.transport.decodeRecords(bytes), acquired);
    } catch (err) {
      // undecodable data is poison for every member: reject it rather than loop on redelivery
      const offsets: number[] = [];
      for (const r of acquired) for (let o = r.firstOffset; o <= r.lastOffset; o++) offsets.push(o);
      this.log.error({ err, topic, partition, offsets: offsets.length }, 'undecodable records rejected');
      ch.terminal.push(newAckEntry(tp, 'reject', AckCode.reject, offsets, (r) => this.countAck(r)));
      return;
    }
    for (const { record, deliveryCount } of selection.records) {
      out.add(record.offset);
      into.push({
        topic,
        partition,
        offset: record.offset,
        timestamp: record.timestamp,
        key: record.key,
        value: record.value,
        headers: record.headers,
        deliveryCount,
      });
    }
    if (selection.gaps.length > 0) {
      ch.terminal.push(newAckEntry(tp, 'gap', AckCode.gap, selection.gaps, (r) => this.countAck(r)));
    }
  }

  private deliver(records: ShareRecord[]): void {
    const w = this.waiters.shift();
    if (w) {
      clearTimeout(w.timer);
      w.resolve(records);
    } else {
      this.ready.push(records);
    }
  }

  // ---------------------------------------------------------------- acknowledging

  private readonly renewAvailable = new Map<number, boolean>();

  private readonly ackHost: AcknowledgerHost;

  /** Handles a request's top-level error code; false when the request's work is void. */
  private topLevelOk(
    ch: NodeChannel,
    code: number,
    message: string | null,
    api: string,
    acks: AckEntry[],
  ): boolean {
    if (code === 0) return true;
    const err = new KafkaError(code, { api, brokerMessage: message, subject: `broker ${ch.nodeId}` });
    settleAll(acks, err);
    if (SESSION_ERRORS.has(code)) {
      this.log.info({ nodeId: ch.nodeId, code: err.kafkaName }, 'share session reset');
      ch.session.reset();
      this.metrics.sessionResets++;
    } else {
      ch.session.advance();
    }
    if (FATAL_ERRORS.has(code)) this.fail(err);
    else this.backoff(ch);
    return false;
  }

  private onRequestFailure(ch: NodeChannel, err: Error): void {
    if ((err as { retriable?: boolean }).retriable === false || err.name === 'UnsupportedVersionError') {
      this.fail(err);
      return;
    }
    this.log.warn({ nodeId: ch.nodeId, err: err.message }, 'share fetch failed; retrying');
    this.metadataStale = true;
    this.backoff(ch);
  }

  private backoff(ch: NodeChannel): void {
    ch.backoffUntil = Date.now() + 200;
  }

  private onPartitionError(code: number, message: string | null, topic: string, partition: number): void {
    const err = new KafkaError(code, {
      api: 'ShareFetch',
      brokerMessage: message,
      subject: `${topic}-${partition}`,
    });
    if (METADATA_ERRORS.has(code)) {
      this.metadataStale = true;
      this.log.info(
        { topic, partition, code: err.kafkaName },
        'partition moved or unknown; refreshing metadata',
      );
    } else if (FATAL_ERRORS.has(code)) {
      this.fail(err);
    } else {
      this.log.warn({ topic, partition, err: err.message }, 'share fetch partition error');
    }
  }

  private countAck(r: PartitionAckResult): void {
    this.metrics.onAck(r.type, r.offsets.length, r.error !== null);
    if (r.error)
      this.log.warn(
        {
          topic: r.topic,
          partition: r.partition,
          type: r.type,
          count: r.offsets.length,
          err: r.error.message,
        },
        'acknowledgement failed',
      );
  }

  // ---------------------------------------------------------------- membership and metadata

  private onAssignment(assignment: ShareTopicPartitions[]): void {
    const { partitions, unknownTopics } = this.dir.setAssignment(assignment);
    this.log.info({ partitions }, 'share group assignment');
    if (unknownTopics) this.metadataStale = true;
    if (this.metadataStale) void this.refreshMetadata().then(() => this.kick());
    else {
      this.placePartitions();
      this.kick();
    }
  }

  private refreshMetadata(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        this.metadataStale = false;
        this.dir.applyMetadata(await this.transport.metadata(this.subscription));
        // a partition without a leader (election under way) would otherwise be asked about in a tight loop
        if (!this.placePartitions()) await new Promise((r) => setTimeout(r, 200));
      } catch (err) {
        this.metadataStale = true;
        this.log.warn({ err: (err as Error).message }, 'metadata refresh failed');
        await new Promise((r) => setTimeout(r, 200));
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /** Gives each leader's session the assigned partitions it leads; false when some have no leader yet. */
  private placePartitions(): boolean {
    const { perNode, complete } = this.dir.placement();
    if (!complete) this.metadataStale = true;
    for (const nodeId of perNode.keys()) {
      if (!this.channels.has(nodeId)) {
        this.channels.set(nodeId, new NodeChannel(nodeId));
        void this.transport.supportsRenew(nodeId).then(
          (ok) => this.renewAvailable.set(nodeId, ok),
          () => this.renewAvailable.set(nodeId, false),
        );
      }
    }
    for (const [nodeId, ch] of this.channels) ch.session.setWanted(perNode.get(nodeId) ?? []);
    return complete;
  }

  /** True when acknowledging RENEW can work with the leader of every assigned partition (Kafka ≥ 4.2). */
  async renewSupported(): Promise<boolean> {
    const nodes = [...this.channels.keys()];
    // before the first assignment, the coordinator stands in for the (future) leaders
    if (nodes.length === 0) nodes.push(await this.transport.groupCoordinator(this.groupId));
    const answers = await Promise.all(nodes.map((n) => this.transport.supportsRenew(n)));
    return answers.every(Boolean);
  }

  private fail(err: Error): void {
    if (this.fatal) return;
    this.fatal = err;
    this.log.error({ err }, 'share consumer failed');
    this.onFatalOnce?.(err);
    for (const w of this.waiters.splice(0)) {
      clearTimeout(w.timer);
      w.reject(err);
    }
  }

  private throwIfUnusable(): void {
    if (this.fatal) throw this.fatal;
    if (this.closed) throw new ConsumerClosedError();
  }
}
