/**
 * The puts running on one task instance in a pool thread: where a reported record belongs, how many
 * puts the instance takes at once, and the offsets a finished batch hands to preCommit().
 */
import { BATCH_INDEX, type SinkRecord, type TopicPartitionOffset } from '../connect/sink-record.js';
import type { SinkTask } from '../connect/sink-task.js';
import type { RecordRejection } from './protocol.js';

export interface RunningPut {
  readonly putId: number;
  readonly abort: AbortController;
  /** What put() was given (set when it is called): a reported record is looked up here. */
  current: readonly SinkRecord[];
  /** Rejections of this batch; undefined once the put is over, so late reports are dropped. */
  rejections: Map<number, Omit<RecordRejection, 'index'>> | undefined;
  /** `context.timeout()` while this put ran: how long before its batch is retried. */
  backoffMs: number | undefined;
}

/** At most this many puts at once on one instance, whatever it asks. */
export const MAX_PUTS_AT_ONCE = 8;

/**
 * The offsets after a batch, per partition: what `preCommit` receives (Connect's next-offset convention).
 * Records of one partition come in runs, so a key is looked up only where the partition changes: a
 * string key per record was a fifth of a pool thread's time in a 100 B drain.
 */
export function nextOffsets(
  records: readonly { topic: string; partition: number; offset: number }[],
): TopicPartitionOffset[] {
  const byTopic = new Map<string, Map<number, { topic: string; partition: number; offset: number }>>();
  let run: { topic: string; partition: number; offset: number } | undefined;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    if (run === undefined || run.partition !== r.partition || run.topic !== r.topic) {
      let parts = byTopic.get(r.topic);
      if (!parts) byTopic.set(r.topic, (parts = new Map()));
      run = parts.get(r.partition);
      if (!run)
        parts.set(r.partition, (run = { topic: r.topic, partition: r.partition, offset: r.offset + 1 }));
    }
    if (run.offset <= r.offset) run.offset = r.offset + 1;
  }
  const out: TopicPartitionOffset[] = [];
  for (const parts of byTopic.values()) for (const tpo of parts.values()) out.push(tpo);
  return out;
}

/** What the started instance asks for, within 1 and {@link MAX_PUTS_AT_ONCE}; 1 when it cannot say. */
export function putsAtOnce(instance: SinkTask): number {
  let asked: unknown;
  try {
    asked = instance.putsAtOnce?.();
  } catch {
    return 1;
  }
  return typeof asked === 'number' && Number.isInteger(asked)
    ? Math.min(MAX_PUTS_AT_ONCE, Math.max(1, asked))
    : 1;
}

/**
 * The running put a reported record belongs to, and the record's index in its batch (what the
 * rejection names). `oneAtOnce`: the instance runs one put at a time, so a report is that put's, as
 * it always was. With several, the put whose batch holds this record: the same object, or, for a copy
 * a transform or the task made, one with its topic, partition and offset.
 */
export function putOf(
  puts: ReadonlyMap<number, RunningPut>,
  record: SinkRecord,
  oneAtOnce: boolean,
): [RunningPut, number] | undefined {
  const index = record[BATCH_INDEX];
  if (oneAtOnce) {
    for (const put of puts.values()) {
      const at = index ?? findIndex(put.current, record);
      return at === undefined ? undefined : [put, at];
    }
    return undefined;
  }
  for (const put of puts.values()) {
    if (index === undefined) {
      const found = findIndex(put.current, record);
      if (found !== undefined) return [put, found];
      continue;
    }
    const at = withIndex(put.current, index);
    if (
      at !== undefined &&
      (at === record ||
        (at.offset === record.offset && at.partition === record.partition && at.topic === record.topic))
    )
      return [put, index];
  }
  return undefined;
}

/**
 * The record whose batch index is `index`: `records` keep their batch's order, minus those a
 * converter failed on or a transform dropped, so a binary search finds it.
 */
function withIndex(records: readonly SinkRecord[], index: number): SinkRecord | undefined {
  let lo = 0;
  let hi = records.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = records[mid]!;
    const i = at[BATCH_INDEX] ?? mid;
    if (i === index) return at;
    if (i < index) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

/** For records a task built itself (another copy of sharesink): match by coordinates. */
function findIndex(records: readonly SinkRecord[], record: SinkRecord): number | undefined {
  const found = records.find(
    (r) => r.topic === record.topic && r.partition === record.partition && r.offset === record.offset,
  );
  return found?.[BATCH_INDEX];
}
