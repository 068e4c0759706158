/**
 * Connect's JSON shape for a sink connector's offsets (KIP-875), read and written by
 * `GET/PATCH /connectors/{name}/offsets`:
 *
 * ```json
 * { "offsets": [ { "partition": { "kafka_topic": "orders", "kafka_partition": 0 },
 *                  "offset": { "kafka_offset": 42 } } ] }
 * ```
 *
 * Share mode adds `lag` to each `offset` object (records from the start offset to the end of the
 * partition not yet delivered to completion, DescribeShareGroupOffsets v1); Connect clients ignore keys
 * they do not know. Parse errors carry Connect's own messages (SinkUtils.parseSinkConnectorOffsets).
 */
import { OffsetsRequestError } from './errors.js';

export const KAFKA_TOPIC_KEY = 'kafka_topic';
export const KAFKA_PARTITION_KEY = 'kafka_partition';
export const KAFKA_OFFSET_KEY = 'kafka_offset';

/** One partition's position: the committed offset (classic) or the share-partition start offset (share). */
export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** Share mode: DescribeShareGroupOffsets' lag; undefined in classic mode or when the broker cannot tell. */
  readonly lag?: number | undefined;
}

/** A requested change: an offset to set, or null to reset the partition. */
export interface OffsetChange {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number | null;
}

export interface ConnectOffsetsBody {
  offsets: Array<{
    partition: { kafka_topic: string; kafka_partition: number };
    offset: { kafka_offset: number; lag?: number };
  }>;
}

export function toConnectOffsets(list: readonly PartitionOffset[]): ConnectOffsetsBody {
  const sorted = [...list].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
  return {
    offsets: sorted.map((p) => ({
      partition: { [KAFKA_TOPIC_KEY]: p.topic, [KAFKA_PARTITION_KEY]: p.partition } as {
        kafka_topic: string;
        kafka_partition: number;
      },
      offset: p.lag === undefined ? { kafka_offset: p.offset } : { kafka_offset: p.offset, lag: p.lag },
    })),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Connect parses numbers given as numbers or as strings of digits. */
function integer(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** The body of `PATCH /connectors/{name}/offsets`, checked as Connect checks it. */
export function parseOffsetChanges(body: unknown): OffsetChange[] {
  const offsets = isObject(body) ? body['offsets'] : undefined;
  if (!Array.isArray(offsets) || offsets.length === 0)
    throw new OffsetsRequestError('Partitions / offsets need to be provided for an alter offsets request');
  return offsets.map((entry: unknown) => {
    const partition = isObject(entry) ? entry['partition'] : undefined;
    if (!isObject(partition))
      throw new OffsetsRequestError('The partition for a sink connector offset cannot be null or missing');
    if (!(KAFKA_TOPIC_KEY in partition) || !(KAFKA_PARTITION_KEY in partition))
      throw new OffsetsRequestError(
        `The partition for a sink connector offset must contain the keys '${KAFKA_TOPIC_KEY}' and '${KAFKA_PARTITION_KEY}'`,
      );
    const topic = partition[KAFKA_TOPIC_KEY];
    if (typeof topic !== 'string' || topic === '')
      throw new OffsetsRequestError('Kafka topic names must be valid strings and may not be null');
    const rawPartition = partition[KAFKA_PARTITION_KEY];
    if (rawPartition === null || rawPartition === undefined)
      throw new OffsetsRequestError('Kafka partitions must be valid numbers and may not be null');
    const p = integer(rawPartition);
    if (p === undefined || p < 0)
      throw new OffsetsRequestError(
        `Failed to parse the following Kafka partition value in the provided offsets: '${String(rawPartition)}'. Partition values for sink connectors need to be integers.`,
      );
    const offset = (entry as Record<string, unknown>)['offset'];
    if (offset === null || offset === undefined) return { topic, partition: p, offset: null };
    if (!isObject(offset) || !(KAFKA_OFFSET_KEY in offset))
      throw new OffsetsRequestError(
        `The offset for a sink connector should either be null or contain the key '${KAFKA_OFFSET_KEY}'`,
      );
    const rawOffset = offset[KAFKA_OFFSET_KEY];
    const o = integer(rawOffset);
    if (o === undefined || o < 0)
      throw new OffsetsRequestError(
        `Failed to parse the following Kafka offset value in the provided offsets: '${String(rawOffset)}'. Offset values for sink connectors need to be integers.`,
      );
    return { topic, partition: p, offset: o };
  });
}
