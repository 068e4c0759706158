/**
 * A KIP-932 share-group consumer: any member may acquire any record, acknowledges each record
 * (ACCEPT / RELEASE / REJECT, RENEW on Kafka ≥ 4.2), and gets records back when their acquisition lock
 * expires. See docs/share-consumer.md.
 *
 * Several polls may be outstanding at once and acknowledgements may come in any order: the runtime
 * pipelines batches. Requests to one leader are serialized through its {@link NodeChannel} (the share
 * session's epoch forbids two at once); requests to different leaders run in parallel. Whenever a
 * session is free, {@link ShareConsumer.pump} sends the request `nextRequest` (next-request.ts) picks:
 * renewals first, then a ShareFetch when a poll waits (carrying the pending acknowledgements), else a
 * ShareAcknowledge. See ADR 0005.
 */
import type { Logger } from 'pino';
import { SharesinkError } from '../../errors.js';
import { defaultLogger } from '../../logger.js';
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import type { ShareTopicPartitions } from '../protocol/messages/share-group-heartbeat.js';
import { randomUuid } from '../protocol/uuid.js';
import { AckCode, type AcknowledgeType } from './ack-batches.js';
import { Membership } from './membership.js';
import { newAckEntry, type PartitionAckResult } from './ack-entries.js';
import { placeSessions, type NodeChannel } from './node-channel.js';
import type { OffsetSet } from './offset-set.js';
import { ShareConsumerMetrics } from './share-consumer-metrics.js';
import { closeSession, releaseOutstanding, sendAcks, type AckContext } from './acknowledger.js';
import { applyOutcome, OutcomeLog, type ConsumerState, type RequestOutcome } from './request-outcome.js';
import { fetchSettings, type PollOptions, type ShareConsumerOptions } from './share-consumer-options.js';
import { fetchOnce, handOut, type FetchContext } from './share-fetcher.js';
import { queueAcks } from './ack-queue.js';
import { lingerMs, nextRequest } from './next-request.js';
import type { AckTarget, ShareRecord } from './share-record.js';
import { PartitionDirectory } from './partition-directory.js';
import { FetchWindow } from './fetch-window.js';
import { PollQueue } from './poll-queue.js';
import { RenewSupport } from './renew-support.js';
import type { ShareTransport } from './transport.js';
import { ConsumerClosedError, UnknownTopicError } from './share-errors.js';
import { createClusterTransport } from './cluster-transport.js';
import { traceNow } from './share-trace.js';
import { WakeTimer } from './wake-timer.js';

export type { AckTarget, PartitionAckResult, PollOptions, ShareConsumerOptions, ShareRecord };

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
  private readonly outstanding = new Map<string, OffsetSet>();
  private readonly polls: PollQueue;
  /** How many polls' worth a ShareFetch asks for (fetch-window.ts). */
  private readonly window: FetchWindow;
  /** What the requests' outcomes set: the lock duration and whether metadata is out of date. */
  private readonly state: ConsumerState = { lockTimeoutMs: undefined, metadataStale: false };
  private refreshing: Promise<void> | undefined;
  private fatal: Error | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly retryWake = new WakeTimer(() => this.kick()); // a session's backoff ended
  private readonly ackLingerMs: number;
  private readonly lingerWake = new WakeTimer(() => this.kick()); // lingering acks due alone (ADR 0021)
  /** A pump is due at the end of this turn (see {@link scheduleSend}). */
  private sendScheduled = false;
  private readonly fetchContext: FetchContext;
  private readonly ackContext: AckContext;
  /** Logs and counts what the requests report (retry lines once per 30 s per broker and cause). */
  private readonly outcomeLog: OutcomeLog;
  /** Per leader: RENEW acknowledgements work there (Kafka ≥ 4.2). */
  private readonly renewSupport: RenewSupport;
  /** Rejects a pending subscribe() when the member cannot join at all. */
  private onFatalOnce: ((e: Error) => void) | undefined;

  constructor(options: ShareConsumerOptions) {
    this.opts = options;
    this.ackLingerMs = lingerMs(options.ackLingerMs);
    this.groupId = options.groupId;
    this.memberId = randomUuid();
    this.log = (options.logger ?? defaultLogger()).child({
      groupId: options.groupId,
      memberId: this.memberId,
    });
    this.transport = options.transport ?? createClusterTransport({ ...options, logger: this.log });
    this.renewSupport = new RenewSupport(this.transport, this.groupId);
    this.membership = new Membership({
      groupId: options.groupId,
      memberId: this.memberId,
      rackId: options.rackId ?? null,
      transport: this.transport,
      logger: this.log,
      onAssignment: (a) => this.onAssignment(a),
      onFatal: (e) => this.fail(e),
    });
    this.outcomeLog = new OutcomeLog(this.log, this.metrics);
    const settings = fetchSettings(options);
    const perPoll = options.pollMaxRecords ?? settings.maxRecords;
    this.window = new FetchWindow({ ...settings, perPoll, maxPolls: options.fetchMaxPolls ?? 1 });
    this.polls = new PollQueue(perPoll, (now) => this.window.handedOut(now));
    const member = {
      transport: this.transport,
      groupId: this.groupId,
      memberId: this.memberId,
      dir: this.dir,
    };
    this.ackContext = member;
    this.fetchContext = { ...member, settings };
  }

  /** How long acquired records stay locked, as the broker last reported it (AcquisitionLockTimeoutMs). */
  get acquisitionLockTimeoutMs(): number | undefined {
    return this.state.lockTimeoutMs;
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
    const taken = this.polls.take(options.maxWaitMs ?? 1000);
    if (Array.isArray(taken)) return Promise.resolve(taken);
    this.kick();
    return taken;
  }

  /** Records a fetch brought for a later poll, taken now without fetching; undefined when none wait. */
  takeReady(): ShareRecord[] | undefined {
    return this.closed || this.fatal ? undefined : this.polls.takeReady();
  }

  /**
   * When the ShareFetch that acquired the records of a poll() result was sent (`Date.now()`): their
   * acquisition locks run from then, also while they waited for a poll.
   */
  acquiredAt(records: readonly ShareRecord[]): number | undefined {
    return this.polls.acquiredAt(records);
  }

  /**
   * Holds the consumer while no poll's records would be used (a paused connector, share-member.ts):
   * waiting polls make no ShareFetch, and what a fetch under way brings back, or what waits for a poll,
   * is released at once (or given to `release`, which must acknowledge it), not fetched again and again.
   */
  hold(held: boolean, release?: (records: ShareRecord[]) => void): void {
    // closed: close() released what was outstanding; failed: the locks lapse
    const own = (records: ShareRecord[]) =>
      void (!this.closed && !this.fatal && this.acknowledge(records, 'release'));
    this.polls.hold(held ? (release ?? own) : undefined);
    if (!held) this.kick();
  }

  /**
   * Records the outcome of records this consumer was given. ACCEPT / RELEASE / REJECT are final; RENEW
   * extends the lock and the record stays acquired (Kafka ≥ 4.2). Acknowledgements go out with the next
   * ShareFetch to the partition's leader or with {@link commit}. The promise reports what the broker
   * said, per partition; it never rejects.
   */
  acknowledge(target: AckTarget, type: AcknowledgeType): Promise<PartitionAckResult[]> {
    this.throwIfUnusable();
    const queues = {
      dir: this.dir,
      outstanding: this.outstanding,
      channels: this.channels,
      renewSupport: this.renewSupport,
    };
    const entries = queueAcks(queues, target, type, this.countAck);
    this.scheduleSend();
    return Promise.all(entries.map((e) => e.result));
  }

  /**
   * Sends every pending acknowledgement with the next request on its session, starting that request
   * now when the session is free (a ShareFetch when a poll waits, else a ShareAcknowledge), and resolves
   * with the broker's answers.
   */
  commit(): Promise<PartitionAckResult[]> {
    const waiting: Promise<PartitionAckResult>[] = [];
    for (const ch of this.channels.values()) {
      if (ch.terminal.length > 0) ch.flushAcks = true;
      for (const e of ch.terminal) waiting.push(e.result);
      for (const e of ch.renew) waiting.push(e.result);
    }
    this.kick();
    return Promise.all(waiting);
  }

  /**
   * Pumps at the end of this turn rather than at once: the runtime polls again as soon as a put ends,
   * and that poll's ShareFetch then carries the acknowledgements instead of waiting behind a
   * ShareAcknowledge of their own (one round trip per batch instead of two).
   */
  private scheduleSend(): void {
    if (this.sendScheduled || this.closed) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      this.kick();
    });
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
    this.retryWake.cancel();
    this.lingerWake.cancel();
    // records fetched but never handed out are outstanding too: released below with the rest
    this.polls.close();
    releaseOutstanding(this.outstanding, this.dir, this.channels, this.countAck);
    await Promise.all(
      [...this.channels.values()].map((ch) =>
        ch.run(async () => this.apply(await closeSession(this.ackContext, ch), ch.nodeId)),
      ),
    );
    await this.membership.leave();
    await this.transport.close();
    // a refresh still waiting on the cluster ends with its close: nothing of it may outlive close()
    await this.refreshing;
    this.log.info(this.metrics.snapshot(), 'share consumer closed');
  }

  // ---------------------------------------------------------------- requests

  /** Starts the next request on every free session; arms timers for backoffs and lingering acks. */
  private kick(): void {
    if (this.closed) return;
    if (this.state.metadataStale && this.polls.wanting && !this.fatal && !this.refreshing) {
      void this.refreshMetadata().then(() => this.kick());
    }
    const now = Date.now();
    let earliestRetry = Infinity;
    let earliestAck = Infinity;
    for (const ch of this.channels.values()) {
      this.pump(ch, now);
      if (this.polls.wanting) earliestRetry = Math.min(earliestRetry, ch.backoffEndsAt(now));
      if (!ch.busy) earliestAck = Math.min(earliestAck, ch.acksDueAt(this.ackLingerMs));
    }
    this.retryWake.at(earliestRetry, now);
    // acks left lingering for a ShareFetch (ADR 0021) go alone when their time is up
    this.lingerWake.at(earliestAck, now);
  }

  /** When `ch`'s session has no request in flight, sends the next one it needs, if any. */
  private pump(ch: NodeChannel, now = Date.now()): void {
    const next = nextRequest({
      ...ch.sessionState(this.ackLingerMs),
      consumerClosed: this.closed,
      consumerFailed: this.fatal !== undefined,
      pollWaits: this.polls.wanting,
      metadataStale: this.state.metadataStale,
      now,
    });
    if (next === 'none') return;
    const queuedAt = traceNow();
    // sendAcks: final acks, then renewals, each in a ShareAcknowledge; or fails both on a reset session
    const job =
      next === 'fetch'
        ? () => this.fetchFrom(ch, queuedAt)
        : async () => this.apply(await sendAcks(this.ackContext, ch, queuedAt), ch.nodeId);
    ch.busy = true;
    void ch
      .run(job)
      .catch((err: Error) => {
        const failed = this.outcomeLog.requestFailed(ch, err);
        if (failed === 'fatal') this.fail(err);
        else this.state.metadataStale = true;
      })
      .finally(() => {
        ch.busy = false;
        this.kick();
      });
  }

  private async fetchFrom(ch: NodeChannel, queuedAt: number): Promise<void> {
    const maxWaitMs = ch.pacing.waitMs({
      longPollMs: this.opts.fetchMaxWaitMs ?? 500,
      ackFlushDelayMs: this.opts.ackFlushDelayMs ?? 100,
      // acks of records we hold would queue behind this fetch; acks it carries are answered with it
      acksMayWait: ch.terminal.length > 0 || this.holdsRecords(),
    });
    const sentAt = Date.now();
    const ask = this.window.ask(this.state.lockTimeoutMs ?? 0);
    const result = await fetchOnce(this.fetchContext, ch, maxWaitMs, queuedAt, ask);
    this.apply(result, ch.nodeId);
    for (const a of result.autoAcks) {
      if (a.type === 'reject') this.outcomeLog.undecodable(a);
      ch.addTerminal(newAckEntry(a.tp, a.type, AckCode[a.type], a.offsets, this.countAck));
    }
    if (result.latencyMs !== undefined) this.metrics.onFetch(result.latencyMs, result.recordCount);
    // a backlog is likely when an answer fills the floor (an answer cut by MaxBytes still counts)
    ch.pacing.answered(result.recordCount, this.fetchContext.settings.maxRecords);
    if (result.recordCount > 0) this.polls.deliver(handOut(result.acquired, this.outstanding), sentAt);
  }

  /** Applies what a request reported: counters and lines, lock duration, stale metadata, failure. */
  private apply(outcome: RequestOutcome, nodeId: number): void {
    const fatal = applyOutcome(outcome, nodeId, this.state, this.outcomeLog);
    if (fatal) this.fail(fatal);
  }

  /** Counts one partition's acknowledgement result, and logs it when it failed. */
  private readonly countAck = (r: PartitionAckResult): void => this.outcomeLog.countAck(r);

  /** True while some record handed out (or fetched for a later poll) awaits a final acknowledgement. */
  private holdsRecords(): boolean {
    return [...this.outstanding.values()].some((offsets) => offsets.size > 0);
  }

  // ---------------------------------------------------------------- membership and metadata

  private onAssignment(assignment: ShareTopicPartitions[]): void {
    const { partitions, unknownTopics } = this.dir.setAssignment(assignment);
    this.log.info({ partitions }, 'share group assignment');
    if (unknownTopics) this.state.metadataStale = true;
    if (this.state.metadataStale) void this.refreshMetadata().then(() => this.kick());
    else {
      this.placePartitions();
      this.kick();
    }
  }

  private refreshMetadata(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        this.state.metadataStale = false;
        this.dir.applyMetadata(await this.transport.metadata(this.subscription));
        this.outcomeLog.metadataRefreshed();
        if (this.closed) return;
        // a partition without a leader (election under way) would otherwise be asked about in a tight loop
        if (!this.placePartitions()) await new Promise((r) => setTimeout(r, 200));
      } catch (err) {
        this.state.metadataStale = true;
        if (this.closed) return; // closing: no news, and no retry follows
        this.outcomeLog.metadataFailed(err);
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
    if (!complete) this.state.metadataStale = true;
    for (const nodeId of placeSessions(perNode, this.channels)) this.renewSupport.probe(nodeId);
    return complete;
  }

  /** True when acknowledging RENEW can work with the leader of every assigned partition (Kafka ≥ 4.2). */
  renewSupported(): Promise<boolean> {
    return this.renewSupport.everywhere([...this.channels.keys()]);
  }

  private fail(err: Error): void {
    if (this.fatal) return;
    this.fatal = err;
    this.log.error({ err }, 'share consumer failed');
    this.onFatalOnce?.(err);
    this.polls.fail(err);
    this.kick(); // no fetch will come: lingering acks go now
  }

  private throwIfUnusable(): void {
    if (this.fatal) throw this.fatal;
    if (this.closed) throw new ConsumerClosedError();
  }
}
