/**
 * Requests of one worker-group member to its group coordinator, over the project's {@link KafkaCluster}:
 * FindCoordinator (cached until a coordinator error), JoinGroup and SyncGroup, Heartbeat, LeaveGroup.
 *
 * A broker answers one request per connection at a time, in order, and a JoinGroup is parked by the
 * coordinator until the round completes (up to the rebalance timeout): JoinGroup and SyncGroup therefore
 * go on a lane of their own (`'group-join'`), so that heartbeats on the default lane are never queued behind
 * them, as with the share consumer's long-polling ShareFetch.
 */
import type { KafkaCluster } from '../../kafka/cluster.js';
import { KafkaConnectionError, KafkaError, KafkaErrorCode } from '../../kafka/errors/kafka-errors.js';
import {
  Heartbeat,
  type HeartbeatRequest,
  type HeartbeatResponse,
} from '../../kafka/protocol/messages/heartbeat.js';
import {
  JoinGroup,
  type JoinGroupRequest,
  type JoinGroupResponse,
} from '../../kafka/protocol/messages/join-group.js';
import { LeaveGroup, type LeaveGroupResponse } from '../../kafka/protocol/messages/leave-group.js';
import {
  SyncGroup,
  type SyncGroupRequest,
  type SyncGroupResponse,
} from '../../kafka/protocol/messages/sync-group.js';

/** Kafka errors that mean "ask FindCoordinator again". */
export const COORDINATOR_ERRORS: ReadonlySet<number> = new Set([
  KafkaErrorCode.NOT_COORDINATOR,
  KafkaErrorCode.COORDINATOR_NOT_AVAILABLE,
  KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
]);

const JOIN_LANE = 'group-join';
/** Beyond the rebalance timeout, how long a parked JoinGroup may take before it counts as lost. */
const JOIN_MARGIN_MS = 5_000;

export class GroupCoordinatorClient {
  readonly #cluster: KafkaCluster;
  readonly #groupId: string;
  #node: number | undefined;

  constructor(cluster: KafkaCluster, groupId: string) {
    this.#cluster = cluster;
    this.#groupId = groupId;
  }

  /** The coordinator's node id, cached. */
  async coordinator(): Promise<number> {
    if (this.#node === undefined)
      this.#node = (await this.#cluster.findGroupCoordinator(this.#groupId)).nodeId;
    return this.#node;
  }

  /** Forget the coordinator (it moved or is unreachable); the next request finds it again. */
  forgetCoordinator(): void {
    this.#node = undefined;
  }

  /** Forgets the coordinator on a connection failure or a coordinator error code, then returns / rethrows. */
  async #call<T extends { errorCode: number }>(send: (node: number) => Promise<T>): Promise<T> {
    try {
      const res = await send(await this.coordinator());
      if (COORDINATOR_ERRORS.has(res.errorCode)) this.forgetCoordinator();
      return res;
    } catch (err) {
      if (err instanceof KafkaConnectionError || (err instanceof KafkaError && err.retriable))
        this.forgetCoordinator();
      throw err;
    }
  }

  join(request: JoinGroupRequest): Promise<JoinGroupResponse> {
    return this.#call(async (node) =>
      (await this.#cluster.connectionTo(node, JOIN_LANE)).call(JoinGroup, request, {
        timeoutMs: request.rebalanceTimeoutMs + JOIN_MARGIN_MS,
      }),
    );
  }

  sync(request: SyncGroupRequest, rebalanceTimeoutMs: number): Promise<SyncGroupResponse> {
    return this.#call(async (node) =>
      (await this.#cluster.connectionTo(node, JOIN_LANE)).call(SyncGroup, request, {
        timeoutMs: rebalanceTimeoutMs + JOIN_MARGIN_MS,
      }),
    );
  }

  heartbeat(request: HeartbeatRequest): Promise<HeartbeatResponse> {
    return this.#call(async (node) => (await this.#cluster.connectionTo(node)).call(Heartbeat, request));
  }

  leave(memberId: string, reason: string): Promise<LeaveGroupResponse> {
    return this.#call(async (node) =>
      (await this.#cluster.connectionTo(node)).call(LeaveGroup, {
        groupId: this.#groupId,
        members: [{ memberId, groupInstanceId: null, reason }],
      }),
    );
  }
}
