/**
 * What the share consumer needs from the wire, and nothing more. The production implementation sits on
 * {@link KafkaCluster} (see `cluster-transport.ts`); keeping the consumer behind this port lets its session,
 * membership and acknowledgement logic be tested without sockets.
 */
import type {
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
} from '../protocol/messages/share-acknowledge.js';
import type { ShareFetchRequest, ShareFetchResponse } from '../protocol/messages/share-fetch.js';
import type { KafkaRecord } from '../records/record-batches.js';
import type {
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
} from '../protocol/messages/share-group-heartbeat.js';

export interface TopicMetadata {
  readonly name: string;
  readonly topicId: string;
  /** Kafka error code for this topic (0 = ok, 3 = unknown topic, 29 = not authorized). */
  readonly errorCode: number;
  readonly partitions: ReadonlyArray<{ readonly partition: number; readonly leaderId: number }>;
}

/**
 * A decoded record (records.ts): already the `ShareRecord` it becomes, except that its delivery
 * count is set from the acquired ranges once the fetch is read (acquired-records.ts).
 */
export type DecodedRecord = KafkaRecord;

export interface DecodedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly isControl: boolean;
  /** 0 CreateTime, 1 LogAppendTime (the batch attributes' bit; it holds for every record of the batch). */
  readonly timestampType: 0 | 1;
  readonly records: readonly DecodedRecord[];
}

export interface ShareTransport {
  /** Metadata (with topic ids) for these topic names; refreshes the transport's view of leaders. */
  metadata(topicNames: readonly string[]): Promise<TopicMetadata[]>;
  /** The node id of the group's coordinator; `refresh` forgets a cached answer. */
  groupCoordinator(groupId: string, refresh?: boolean): Promise<number>;
  heartbeat(nodeId: number, request: ShareGroupHeartbeatRequest): Promise<ShareGroupHeartbeatResponse>;
  /** Sends ShareFetch at the highest version both sides speak (v2 when the broker has it). */
  shareFetch(nodeId: number, request: ShareFetchRequest): Promise<ShareFetchResponse>;
  shareAcknowledge(nodeId: number, request: ShareAcknowledgeRequest): Promise<ShareAcknowledgeResponse>;
  /** True when the node speaks ShareAcknowledge v2 (RENEW, Kafka ≥ 4.2). */
  supportsRenew(nodeId: number): Promise<boolean>;
  /** Every complete RecordBatch in a partition's `Records` bytes, its records naming `topic` and `partition`. */
  decodeRecords(records: Buffer, topic: string, partition: number): Promise<DecodedBatch[]>;
  close(): Promise<void>;
}
