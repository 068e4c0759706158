/**
 * Share-group membership (KIP-932, ShareGroupHeartbeat v1): the heartbeat loop that joins the group,
 * receives the assignment (topic ids + partitions), and leaves on close.
 *
 * The member id is made by the client and kept for the member's life; epoch 0 joins, -1 leaves. There is
 * no rebalance protocol on the client side: the coordinator pushes a new assignment in a heartbeat
 * response and the member simply starts or stops fetching those partitions.
 *
 * The coordinator computes assignments apart from heartbeats (KIP-1263, `group.share.assignment.interval.ms`),
 * so the answer to the joining heartbeat carries no partitions, and at the regular cadence (default 5 s)
 * the first ones would come a whole interval later. Until partitions arrive, within one interval of
 * joining or of a subscription change, the member asks every {@link EARLY_HEARTBEAT_MS} instead.
 *
 * The coordinator sends the assignment only when it changed, to a joining member, or in answer to a full
 * request (one that names the subscription); it accepts the member's previous epoch because a response
 * may have been lost. So a heartbeat whose answer never came (a cut connection, a timeout, an error
 * code) may have carried partitions this member will otherwise never hear of: Kafka 4.4 answers the
 * previous epoch with the new epoch and no assignment, and the member would fetch nothing until it
 * left. The heartbeat after any failure is therefore a full one, as the Java client's is.
 */
import type { Logger } from 'pino';
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { failureFields } from '../errors/failure-reason.js';
import type { ShareTopicPartitions } from '../protocol/messages/share-group-heartbeat.js';
import { StillWaiting } from '../../observability/still-waiting.js';
import type { ShareTransport } from './transport.js';

export interface MembershipOptions {
  readonly groupId: string;
  readonly memberId: string;
  readonly rackId: string | null;
  readonly transport: ShareTransport;
  readonly logger: Logger;
  /** The full assignment, each time the coordinator sends a new one ([] when the member lost it). */
  readonly onAssignment: (assignment: ShareTopicPartitions[]) => void;
  /** A failure no retry will mend (authorization, group full, no share support). */
  readonly onFatal: (error: Error) => void;
  /** Backoff after a retriable failure; doubles up to `retryBackoffMaxMs`. */
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
}

/** Heartbeat period while the member waits for its first partitions (see the module comment). */
export const EARLY_HEARTBEAT_MS = 250;

const COORDINATOR_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.NOT_COORDINATOR,
  KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);
const REJOIN_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.UNKNOWN_MEMBER_ID,
  KafkaErrorCode.FENCED_MEMBER_EPOCH,
]);

export class Membership {
  private readonly opts: MembershipOptions;
  private subscription: string[] = [];
  /** The next heartbeat names the subscription: joining, a subscription change, or after a failure. */
  private fullRequest = false;
  private epoch = 0;
  private intervalMs = 1000;
  private backoffMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private inFlight: Promise<void> | undefined;
  private refreshCoordinator = false;
  /** True from joining or a subscription change until partitions arrive or one interval has passed. */
  private awaiting = false;
  private awaitingSince: number | undefined;
  private joinedOnce: { promise: Promise<void>; resolve: () => void };
  /** Retriable heartbeat failures (a coordinator still loading): debug, one WARN if they last. */
  private readonly coordinatorWait: StillWaiting;

  constructor(opts: MembershipOptions) {
    this.opts = opts;
    this.coordinatorWait = new StillWaiting({
      logger: opts.logger,
      what: `the share group coordinator of group ${opts.groupId}`,
    });
    this.backoffMs = opts.retryBackoffMs ?? 100;
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.joinedOnce = { promise, resolve };
  }

  get memberEpoch(): number {
    return this.epoch;
  }

  /** Resolves after the first successful heartbeat (the member is in the group). */
  get joined(): Promise<void> {
    return this.joinedOnce.promise;
  }

  subscribe(topics: readonly string[]): void {
    this.subscription = [...new Set(topics)].sort();
    this.fullRequest = true;
    this.awaitEarly();
    if (!this.running) {
      this.running = true;
      this.schedule(0);
    } else {
      this.schedule(0); // tell the coordinator now rather than at the next interval
    }
  }

  /** Stops the loop and sends the leave heartbeat (epoch -1). Never throws: leaving is best effort. */
  async leave(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.inFlight?.catch(() => undefined);
    if (this.epoch === 0) return;
    try {
      const node = await this.opts.transport.groupCoordinator(this.opts.groupId);
      await this.opts.transport.heartbeat(node, {
        groupId: this.opts.groupId,
        memberId: this.opts.memberId,
        memberEpoch: -1,
        rackId: null,
        subscribedTopicNames: null,
      });
    } catch (err) {
      // the reason once: `{ err }` repeated a connection error's text along its cause chain (failure-reason.ts)
      this.opts.logger.warn(
        failureFields(err),
        'leave heartbeat failed; the coordinator will expire the member',
      );
    }
    this.epoch = 0;
  }

  private awaitEarly(): void {
    this.awaiting = true;
    this.awaitingSince = undefined;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.inFlight) {
        // a heartbeat is already on the wire; run again right after it
        void this.inFlight.then(() => this.schedule(0));
        return;
      }
      this.inFlight = this.beat().finally(() => (this.inFlight = undefined));
    }, delayMs);
    this.timer.unref?.();
  }

  private async beat(): Promise<void> {
    const { transport, groupId, memberId, logger } = this.opts;
    const sendSubscription = this.epoch === 0 || this.fullRequest;
    this.fullRequest = false;
    let node: number;
    try {
      node = await transport.groupCoordinator(groupId, this.refreshCoordinator);
      this.refreshCoordinator = false;
      const res = await transport.heartbeat(node, {
        groupId,
        memberId,
        memberEpoch: this.epoch,
        rackId: this.epoch === 0 ? this.opts.rackId : null,
        subscribedTopicNames: sendSubscription ? this.subscription : null,
      });
      if (res.errorCode !== 0) {
        this.fullRequest = true;
        this.onError(
          new KafkaError(res.errorCode, {
            api: 'ShareGroupHeartbeat',
            brokerMessage: res.errorMessage,
            subject: `group ${groupId}`,
          }),
        );
        return;
      }
      this.coordinatorWait.succeeded();
      const wasJoining = this.epoch === 0;
      this.epoch = res.memberEpoch;
      if (res.heartbeatIntervalMs > 0) this.intervalMs = res.heartbeatIntervalMs;
      this.backoffMs = this.opts.retryBackoffMs ?? 100;
      if (wasJoining) {
        logger.info({ memberEpoch: this.epoch }, 'joined share group');
        this.joinedOnce.resolve();
      }
      if (res.assignment !== null) this.opts.onAssignment(res.assignment.topicPartitions);
      this.schedule(this.nextDelay(res.assignment?.topicPartitions));
    } catch (err) {
      this.fullRequest = true; // its answer may have carried partitions (module comment)
      this.onError(err as Error);
    }
  }

  /** The regular interval, or the early period while the member waits for partitions (module comment). */
  private nextDelay(assignment: readonly ShareTopicPartitions[] | undefined): number {
    if (assignment?.some((t) => t.partitions.length > 0)) this.awaiting = false;
    if (!this.awaiting) return this.intervalMs;
    const now = Date.now();
    this.awaitingSince ??= now;
    if (now - this.awaitingSince >= this.intervalMs) {
      // no partitions to be had (a topic that does not exist yet, say): the regular pace from here on
      this.awaiting = false;
      return this.intervalMs;
    }
    return Math.min(EARLY_HEARTBEAT_MS, this.intervalMs);
  }

  private onError(err: Error): void {
    const { logger } = this.opts;
    if (err instanceof KafkaError) {
      if (COORDINATOR_ERRORS.has(err.kafkaCode)) {
        this.refreshCoordinator = true;
      } else if (REJOIN_ERRORS.has(err.kafkaCode)) {
        logger.warn({ code: err.kafkaName }, 'member fenced or unknown; rejoining with the same member id');
        this.epoch = 0;
        this.awaitEarly();
        this.opts.onAssignment([]);
        this.schedule(0);
        return;
      } else if (!err.retriable) {
        this.running = false;
        this.opts.onFatal(err);
        return;
      }
    } else if (!isRetriable(err)) {
      this.running = false;
      this.opts.onFatal(err);
      return;
    } else {
      this.refreshCoordinator = true;
    }
    // a connection error's own message repeats the address and its cause (failure-reason.ts)
    const f = failureFields(err);
    const reason =
      err instanceof KafkaError ? err.kafkaName : f.broker === undefined ? f.err : `${f.err} (${f.broker})`;
    this.coordinatorWait.failed(reason, { ...f, retryInMs: this.backoffMs });
    this.schedule(this.backoffMs);
    this.backoffMs = Math.min(this.backoffMs * 2, this.opts.retryBackoffMaxMs ?? 5000);
  }
}

function isRetriable(err: Error): boolean {
  return (err as { retriable?: boolean }).retriable === true;
}
