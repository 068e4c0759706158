/**
 * Connect's `errors.log.enable`: the failed records of a batch (never the good ones), one line per
 * error, not per record. A batch-wide error (a fatal put, a rejected batch) is one line naming the
 * records it covers; records that failed each for their own reason (a converter, the task's errant
 * record reporter) are grouped by error, each line listing its records compactly
 * (`orders-1@10-12,15`). `errors.log.include.messages` adds each record's key, value and headers.
 */
import type { Logger } from 'pino';

export interface ErrorLogOptions {
  readonly enable: boolean;
  readonly includeMessages: boolean;
}

interface LoggableRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: ReadonlyArray<{ readonly key: string; readonly value: Uint8Array | null }>;
}

const MAX_SHOWN = 1024;
/** Records whose key, value and headers one line carries at most (include.messages). */
const MAX_MESSAGES = 100;
const text = (b: Uint8Array | null) =>
  b === null ? null : Buffer.from(b.buffer, b.byteOffset, Math.min(b.byteLength, MAX_SHOWN)).toString('utf8');

/** Logs the records at `indexes` of a batch as failed, one line per distinct `reason(index)`. */
export function logFailedRecords(
  log: Logger,
  options: ErrorLogOptions | undefined,
  batchId: string,
  records: readonly LoggableRecord[],
  indexes: Iterable<number>,
  reason: (index: number) => string,
): void {
  if (!options?.enable) return;
  const byError = new Map<string, LoggableRecord[]>();
  for (const i of indexes) {
    const r = records[i];
    if (!r) continue;
    const error = reason(i);
    const list = byError.get(error);
    if (list === undefined) byError.set(error, [r]);
    else list.push(r);
  }
  for (const [error, failed] of byError) {
    const line: Record<string, unknown> = {
      batchId,
      records: failed.length,
      offsets: describeOffsets(failed),
      error,
    };
    if (options.includeMessages) {
      line.messages = failed.slice(0, MAX_MESSAGES).map((r) => ({
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        key: text(r.key),
        value: text(r.value),
        headers: r.headers.map((h) => ({ key: h.key, value: text(h.value) })),
      }));
      if (failed.length > MAX_MESSAGES) line.messagesLeftOut = failed.length - MAX_MESSAGES;
    }
    log.warn(line, failed.length === 1 ? 'record failed' : 'records failed');
  }
}

/** `orders-1@10-12,15 payments-0@3`: each partition's offsets, runs of consecutive ones as ranges. */
export function describeOffsets(
  records: readonly Pick<LoggableRecord, 'topic' | 'partition' | 'offset'>[],
): string {
  const byPartition = new Map<string, number[]>();
  for (const r of records) {
    const key = `${r.topic}-${r.partition}`;
    const list = byPartition.get(key);
    if (list === undefined) byPartition.set(key, [r.offset]);
    else list.push(r.offset);
  }
  const parts: string[] = [];
  for (const [partition, offsets] of byPartition) {
    const sorted = [...offsets].sort((a, b) => a - b);
    const runs: string[] = [];
    let start = sorted[0]!;
    let end = start;
    for (const o of sorted.slice(1)) {
      if (o === end + 1) end = o;
      else {
        runs.push(start === end ? `${start}` : `${start}-${end}`);
        start = end = o;
      }
    }
    runs.push(start === end ? `${start}` : `${start}-${end}`);
    parts.push(`${partition}@${runs.join(',')}`);
  }
  return parts.join(' ');
}
