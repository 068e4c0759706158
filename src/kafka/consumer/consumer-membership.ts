/**
 * Consumer-group membership on the consumer protocol (KIP-848, ConsumerGroupHeartbeat): the heartbeat loop,
 * member epochs, and the reconciliation of the assignment the coordinator computes (server-side assignor,
 * `group.remote.assignor`).
 *
 * The member id is the client's (v1), kept for the member's life; epoch 0 joins, -1 leaves, -2 leaves a
 * static member (`group.instance.id`) that will come back. The coordinator sends the partitions the member
 * may use now; the member reconciles one target at a time: it gives up what it no longer has (the owner
 * commits what was put first, as Connect's onPartitionsRevoked), then takes the new partitions, and tells
 * the coordinator what it owns in the next heartbeat, sent at once. Heartbeats go on while a revocation
 * waits for puts. FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID lose every partition (nothing committed: the
 * coordinator gave them away already) and rejoin at epoch 0 with the same member id.
 *
 * The coordinator accepts the previous epoch (an answer may have been lost) but resends the assignment
 * only on a change or to a full request (rebalance timeout, subscription and owned partitions all set).
 * The heartbeat after any failure is a full one, as the Java client's is, or partitions given in a lost
 * answer would never reach this member (the share membership has the same rule).
 */
import type { Logger } from 'pino';
import type { KafkaCluster } from '../cluster.js';
import { KafkaConnectionError, KafkaErrorCode, UnsupportedVersionError } from '../errors/kafka-errors.js';
import { failureFields } from '../errors/failure-reason.js';
import {
  ConsumerGroupHeartbeat,
  type ConsumerGroupHeartbeatResponse,
  type ConsumerTopicPartitions,
} from '../protocol/messages/consumer-group-heartbeat.js';
import { ConsumerGroupRefusedError, refusalOf } from './group-errors.js';

export interface OwnedPartition {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
}

export interface ConsumerMembershipOptions {
  readonly cluster: KafkaCluster;
  readonly groupId: string;
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** `max.poll.interval.ms`: how long the coordinator waits for this member to revoke. */
  readonly rebalanceTimeoutMs: number;
  /** `group.remote.assignor`; null = the broker's default. */
  readonly serverAssignor: string | null;
  readonly logger: Logger;
  /** Give these up; resolves once what was put from them is committed (lost: nothing to commit). */
  readonly onRevoke: (partitions: OwnedPartition[], lost: boolean) => Promise<void>;
  /** Start these; resolves once their fetch positions are known. */
  readonly onAssign: (partitions: OwnedPartition[]) => Promise<void>;
  /** A refusal no retry mends: the member stops. */
  readonly onFatal: (error: Error) => void;
}

const COORDINATOR_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.NOT_COORDINATOR,
  KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);
const FENCED: ReadonlySet<number> = new Set([
  KafkaErrorCode.FENCED_MEMBER_EPOCH,
  KafkaErrorCode.UNKNOWN_MEMBER_ID,
]);
/** Heartbeat period until the first partitions arrive: the coordinator assigns apart from heartbeats. */
const EARLY_MS = 250;

const key = (topicId: string, partition: number): string => `${topicId}:${partition}`;

export class ConsumerMembership {
  private readonly o: ConsumerMembershipOptions;
  private topics: string[] = [];
  private epoch = 0;
  private intervalMs = EARLY_MS;
  private coordinator: number | undefined;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private backoffMs = 100;
  /** Send a full heartbeat next: the last one failed, and its answer may have carried partitions. */
  private fullRequest = false;
  /** What this member owns now (reported to the coordinator). */
  private readonly owned = new Map<string, OwnedPartition>();
  /** The latest target not reconciled yet; reconciling runs one at a time. */
  private target: ConsumerTopicPartitions[] | undefined;
  private reconciling: Promise<void> | undefined;
  private assignedOnce = false;
  private joined!: () => void;
  /** Resolves after the first successful heartbeat. */
  readonly joinedOnce = new Promise<void>((r) => (this.joined = r));

  constructor(options: ConsumerMembershipOptions) {
    this.o = options;
  }

  get memberEpoch(): number {
    return this.epoch;
  }

  get memberId(): string {
    return this.o.memberId;
  }

  /** Joins (or changes the subscription) and keeps heartbeating until {@link leave}. */
  subscribe(topics: readonly string[]): void {
    this.topics = [...new Set(topics)].sort();
    this.running = true;
    this.schedule(0);
  }

  /** Stops heartbeating, gives every partition up, and leaves (epoch -1, or -2 for a static member). */
  async leave(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.beating?.catch(() => undefined);
    await this.reconciling?.catch(() => undefined);
    const all = [...this.owned.values()];
    this.owned.clear();
    if (all.length > 0) await this.o.onRevoke(all, false).catch(() => undefined);
    if (this.epoch <= 0) return;
    const leaveEpoch = this.o.instanceId !== null ? -2 : -1;
    try {
      await this.send(leaveEpoch);
    } catch (err) {
      this.o.logger.warn(
        failureFields(err),
        'leave heartbeat failed; the coordinator will expire the member',
      );
    }
    this.epoch = 0;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.beating) {
        void this.beating.then(() => this.schedule(0));
        return;
      }
      this.beating = this.beat().finally(() => (this.beating = undefined));
    }, delayMs);
  }

  private async send(memberEpoch: number): Promise<ConsumerGroupHeartbeatResponse> {
    const { cluster, groupId } = this.o;
    this.coordinator ??= (await cluster.findGroupCoordinator(groupId)).nodeId;
    const conn = await cluster.connectionTo(this.coordinator);
    const full = memberEpoch === 0 || this.fullRequest;
    return conn.call(ConsumerGroupHeartbeat, {
      groupId,
      memberId: this.o.memberId,
      memberEpoch,
      instanceId: this.o.instanceId,
      rackId: full ? this.o.rackId : null,
      rebalanceTimeoutMs: full ? this.o.rebalanceTimeoutMs : -1,
      subscribedTopicNames: memberEpoch < 0 ? null : this.topics,
      subscribedTopicRegex: null,
      serverAssignor: full ? this.o.serverAssignor : null,
      topicPartitions: memberEpoch < 0 ? null : this.ownedByTopicId(),
    });
  }

  private ownedByTopicId(): ConsumerTopicPartitions[] {
    const byId = new Map<string, number[]>();
    for (const p of this.owned.values()) {
      const list = byId.get(p.topicId) ?? [];
      list.push(p.partition);
      byId.set(p.topicId, list);
    }
    return [...byId].map(([topicId, partitions]) => ({ topicId, partitions }));
  }

  private async beat(): Promise<void> {
    let res: ConsumerGroupHeartbeatResponse;
    try {
      res = await this.send(this.epoch);
    } catch (err) {
      this.fullRequest = true;
      if (err instanceof UnsupportedVersionError)
        return this.fatal(KafkaErrorCode.UNSUPPORTED_VERSION, err.message);
      if (err instanceof KafkaConnectionError) this.coordinator = undefined;
      this.o.logger.debug(failureFields(err), 'heartbeat failed; retrying');
      return this.retry();
    }
    const code = res.errorCode;
    this.fullRequest = code !== 0;
    if (code !== 0) {
      const refusal = refusalOf(code);
      if (refusal !== undefined) return this.fatal(code, res.errorMessage);
      if (COORDINATOR_ERRORS.has(code)) this.coordinator = undefined;
      if (FENCED.has(code)) return this.fenced(code);
      this.o.logger.debug(
        { errorCode: code, brokerMessage: res.errorMessage },
        'heartbeat refused; retrying',
      );
      return this.retry();
    }
    this.backoffMs = 100;
    const firstJoin = this.epoch === 0;
    this.epoch = res.memberEpoch;
    this.intervalMs = res.heartbeatIntervalMs > 0 ? res.heartbeatIntervalMs : 3000;
    if (firstJoin) {
      this.o.logger.info({ memberId: this.o.memberId, epoch: this.epoch }, 'joined the consumer group');
      this.joined();
    }
    if (res.assignment !== null) {
      this.target = res.assignment.topicPartitions;
      this.reconcileSoon();
    }
    this.schedule(this.assignedOnce ? this.intervalMs : Math.min(EARLY_MS, this.intervalMs));
  }

  private retry(): void {
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
    this.schedule(wait);
  }

  private fatal(code: number, brokerMessage: string | null): void {
    this.running = false;
    const reason = refusalOf(code) ?? 'refused';
    this.o.onFatal(
      new ConsumerGroupRefusedError({ reason, groupId: this.o.groupId, kafkaCode: code, brokerMessage }),
    );
  }

  /** The coordinator gave this member's partitions away: lose them (no commit) and rejoin at epoch 0. */
  private fenced(code: number): void {
    this.o.logger.warn(
      { errorCode: code, epoch: this.epoch, partitions: this.owned.size },
      'fenced by the group coordinator; partitions lost, rejoining',
    );
    this.epoch = 0;
    this.target = undefined;
    const lost = [...this.owned.values()];
    this.owned.clear();
    const after = this.reconciling ?? Promise.resolve();
    this.reconciling = after
      .then(() => (lost.length > 0 ? this.o.onRevoke(lost, true) : undefined))
      .catch((err: unknown) => this.o.logger.warn(failureFields(err), 'giving up lost partitions failed'))
      .finally(() => {
        this.reconciling = undefined;
        this.schedule(0);
      });
  }

  private reconcileSoon(): void {
    if (this.reconciling !== undefined) return;
    this.reconciling = this.reconcile()
      .catch((err: unknown) => this.o.logger.warn(failureFields(err), 'reconciling the assignment failed'))
      .finally(() => {
        this.reconciling = undefined;
        if (this.target !== undefined) this.reconcileSoon();
      });
  }

  private async reconcile(): Promise<void> {
    const target = this.target;
    this.target = undefined;
    if (target === undefined || !this.running) return;
    const names = await this.o.cluster.resolveTopicIds(target.map((t) => t.topicId));
    const wanted = new Map<string, OwnedPartition>();
    for (const t of target) {
      const topic = names.get(t.topicId)?.name;
      if (topic === undefined) continue; // deleted meanwhile; the next target drops it
      for (const partition of t.partitions)
        wanted.set(key(t.topicId, partition), { topicId: t.topicId, topic, partition });
    }
    const revoked = [...this.owned].filter(([k]) => !wanted.has(k)).map(([, p]) => p);
    const added = [...wanted].filter(([k]) => !this.owned.has(k)).map(([, p]) => p);
    if (revoked.length > 0) {
      await this.o.onRevoke(revoked, false);
      for (const p of revoked) this.owned.delete(key(p.topicId, p.partition));
    }
    if (added.length > 0 && this.running) {
      await this.o.onAssign(added);
      for (const p of added) this.owned.set(key(p.topicId, p.partition), p);
    }
    if (revoked.length > 0 || added.length > 0) {
      this.assignedOnce = true;
      this.o.logger.info(
        { epoch: this.epoch, assigned: added.length, revoked: revoked.length, owned: this.owned.size },
        'assignment reconciled',
      );
      this.schedule(0); // tell the coordinator what is owned now
    }
  }
}
