/**
 * Small pieces of running a task in-process the way a pool thread does: building SinkRecords from
 * generated content, the offsets preCommit() receives, and a time limit on task calls so a hung
 * task fails the check instead of hanging the test.
 */
import { ConnectHeaders } from '../connect/headers.js';
import { SinkRecord, type TopicPartitionOffset } from '../connect/sink-record.js';
import type { RecordContent } from './arbitraries.js';

export interface RecordRef {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** `topic/partition/offset`: how `observe()` names records. */
  readonly id: string;
}

export type MapValue = (value: unknown, record: RecordRef) => unknown;
/**
 * Shapes the key handed to put(). The generated keys repeat and may be null; a sink that upserts by
 * record key needs one key per record to show what it wrote: `(_key, record) => record.id`.
 */
export type MapKey = (key: string | null, record: RecordRef) => unknown;

/** How checkSinkTask names a record: `topic/partition/offset`. */
export function recordId(r: { topic: string; partition: number; offset: number }): string {
  return `${r.topic}/${r.partition}/${r.offset}`;
}

/** A task call that never settled; ends the run instead of being classified as a put failure. */
export class TaskHungError extends Error {}

/**
 * The record as a task sees it, `index` being its place in the batch (what the errant record reporter
 * maps back to an acknowledgement). The value is cloned: a task that mutates it must not change what
 * a redelivery carries.
 */
export function toSinkRecord(
  content: RecordContent,
  at: { topic: string; partition: number; offset: number; deliveryCount: number },
  index: number,
  mapValue: MapValue | undefined,
  mapKey?: MapKey | undefined,
): SinkRecord {
  const { topic, partition, offset } = at;
  const value = structuredClone(content.value);
  const ref: RecordRef = { topic, partition, offset, id: recordId(at) };
  return new SinkRecord(
    {
      topic,
      partition,
      offset,
      timestamp: content.timestamp,
      timestampType: content.timestamp === null ? 'NoTimestampType' : 'CreateTime',
      key: mapKey ? mapKey(content.key, ref) : content.key,
      value: mapValue ? mapValue(value, ref) : value,
      headers: new ConnectHeaders(
        content.headers.map((h) => ({ key: h.key, value: h.value, schema: undefined })),
      ),
      deliveryCount: at.deliveryCount,
    },
    index,
  );
}

/** Connect's next offsets after a batch of one partition, as preCommit() receives them. */
export function nextOffsets(records: readonly SinkRecord[]): TopicPartitionOffset[] {
  const first = records[0];
  if (first === undefined) return [];
  let max = first.offset;
  for (const r of records) max = Math.max(max, r.offset);
  return [{ topic: first.topic, partition: first.partition, offset: max + 1 }];
}

/** Awaits a task call, or rejects with TaskHungError after `ms` of real time. */
export async function settleWithin<T>(result: T | Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TaskHungError(`${what} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(result), hung]);
  } finally {
    clearTimeout(timer);
  }
}
