import type { ShareTransport } from '../../../../src/kafka/share/transport.js';

/** The topic id the fakes of a one-partition cluster use. */
export const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';

type Metadata = Awaited<ReturnType<ShareTransport['metadata']>>;
type Heartbeat = Awaited<ReturnType<ShareTransport['heartbeat']>>;

/** Metadata of topics with one partition each, led by `leaderId`. */
export function onePartitionMetadata(names: readonly string[], leaderId = 1): Metadata {
  return names.map((name) => ({
    name,
    topicId: TOPIC_ID,
    errorCode: 0,
    partitions: [{ partition: 0, leaderId }],
  }));
}

/** A heartbeat answer assigning partition 0 of {@link TOPIC_ID}, the next one a minute away. */
export function assignedHeartbeat(): Heartbeat {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    errorMessage: null,
    memberId: null,
    memberEpoch: 1,
    heartbeatIntervalMs: 60_000,
    assignment: { topicPartitions: [{ topicId: TOPIC_ID, partitions: [0] }] },
  };
}
