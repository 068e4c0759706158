/**
 * Connect's `errors.log.enable`: one log line per failed record (never per good record), with its
 * coordinates and the error; `errors.log.include.messages` adds the key, value and headers.
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
const text = (b: Uint8Array | null) =>
  b === null ? null : Buffer.from(b.buffer, b.byteOffset, Math.min(b.byteLength, MAX_SHOWN)).toString('utf8');

/** Logs the records at `indexes` of a batch as failed, each with `reason(index)`. */
export function logFailedRecords(
  log: Logger,
  options: ErrorLogOptions | undefined,
  batchId: string,
  records: readonly LoggableRecord[],
  indexes: Iterable<number>,
  reason: (index: number) => string,
): void {
  if (!options?.enable) return;
  for (const i of indexes) {
    const r = records[i];
    if (!r) continue;
    const line: Record<string, unknown> = {
      batchId,
      topic: r.topic,
      partition: r.partition,
      offset: r.offset,
      error: reason(i),
    };
    if (options.includeMessages) {
      line.key = text(r.key);
      line.value = text(r.value);
      line.headers = r.headers.map((h) => ({ key: h.key, value: text(h.value) }));
    }
    log.warn(line, 'record failed');
  }
}
