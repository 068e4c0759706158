/** What the herder passes the worker-group member: the group settings (Connect's keys) and the connection. */
import type { Logger } from 'pino';
import type { KafkaClusterOptions } from '../../kafka/cluster.js';

export interface WorkerGroupOptions {
  /** `group.id`: the worker cluster. */
  readonly groupId: string;
  /** `session.timeout.ms` (Connect default 10 000): the coordinator expels a member silent for this long. */
  readonly sessionTimeoutMs: number;
  /** `rebalance.timeout.ms` (Connect default 60 000): how long a round waits for every member to rejoin. */
  readonly rebalanceTimeoutMs: number;
  /** `heartbeat.interval.ms` (Connect default 3 000). */
  readonly heartbeatIntervalMs: number;
  /** `scheduled.rebalance.max.delay.ms` (Connect default 300 000): how long a departed worker's work waits. */
  readonly scheduledRebalanceMaxDelayMs: number;
  /** Bootstrap servers, client id, TLS / SASL and timeouts, as {@link KafkaCluster} takes them. */
  readonly kafka: Omit<KafkaClusterOptions, 'logger'>;
  readonly logger?: Logger;
  /** A failure no retry mends (authorization, a group id used by another kind of group, a session timeout
   * the broker refuses). The member has stopped; the worker should exit. */
  readonly onFatal?: (error: Error) => void;
  /** Backoff after a failed round; doubles up to `retryBackoffMaxMs`. Defaults 200 / 5 000. */
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
  /** Defaults to `Date.now`. */
  readonly now?: () => number;
  /** Tests only: while this returns true no heartbeat is sent (a hung worker). */
  readonly suspendHeartbeats?: () => boolean;
}
