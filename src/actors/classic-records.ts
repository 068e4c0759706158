/**
 * kafkajs batches → the RawRecords the pool takes, and the counters a classic task adds to the common ones.
 */
import type { Batch, IHeaders } from 'kafkajs';
import type { RawHeader, RawRecord } from '../connect/raw-record.js';
import type { BatchOutput } from '../machines/batch.js';
import { messageTimestampType } from '../kafka/kafkajs/classic-consumer.js';
import { TaskCounters, type TaskCountersSnapshot } from './task-counters.js';

const EMPTY_HEADERS: readonly RawHeader[] = Object.freeze([]);

/** One plain loop over the batch; buffers are shared with kafkajs, not copied. */
export function classicRawRecords(batch: Batch): RawRecord[] {
  const { topic, partition, messages } = batch;
  const out = new Array<RawRecord>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const ts = Number(m.timestamp);
    out[i] = {
      topic,
      partition,
      offset: Number(m.offset),
      timestamp: Number.isFinite(ts) && ts >= 0 ? ts : null,
      timestampType: messageTimestampType(m),
      key: m.key ?? null,
      value: m.value ?? null,
      headers: m.headers === undefined ? EMPTY_HEADERS : rawHeaders(m.headers),
    };
  }
  return out;
}

// kafkajs folds repeated header keys into arrays; Connect sees them as separate headers again.
function rawHeaders(headers: IHeaders): readonly RawHeader[] {
  const out: RawHeader[] = [];
  for (const key in headers) {
    const v = headers[key];
    if (Array.isArray(v)) for (const one of v) out.push({ key, value: bytes(one) });
    else out.push({ key, value: bytes(v) });
  }
  return out.length === 0 ? EMPTY_HEADERS : out;
}

function bytes(v: Buffer | string | null | undefined): Uint8Array | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? Buffer.from(v) : v;
}

export interface ClassicTaskCountersSnapshot extends TaskCountersSnapshot {
  readonly recordsDeadLettered: number;
  readonly recordsSkipped: number;
  readonly putsRetried: number;
  readonly commits: number;
  readonly commitFailures: number;
}

/** The counters only classic mode has, as {@link TASK_COUNTERS} describes the common ones. */
export const CLASSIC_TASK_COUNTERS = {
  recordsDeadLettered: 'Records written to errors.deadletterqueue.topic.name (classic).',
  recordsSkipped: 'Records skipped under errors.tolerance=all, dead-lettered or not (classic).',
  putsRetried: 'Puts repeated after a RetriableError (classic).',
  commits: 'Offset commits after a batch (classic).',
  commitFailures: 'Offset commits that failed; the records are fetched again (classic).',
} as const satisfies Record<Exclude<keyof ClassicTaskCountersSnapshot, keyof TaskCountersSnapshot>, string>;

/**
 * The `ackError` of a batch the runner did not commit on purpose: a refused put under
 * errors.tolerance=none, a dead-letter write that failed or that a stop gave up on. Its records are read
 * again (after a restart, or by the partition's next owner): nothing was rejected, and no commit failed.
 */
export const LEFT_UNCOMMITTED = 'LEFT_UNCOMMITTED';

export class ClassicTaskCounters extends TaskCounters implements ClassicTaskCountersSnapshot {
  recordsDeadLettered = 0;
  recordsSkipped = 0;
  putsRetried = 0;
  commits = 0;
  commitFailures = 0;

  /** A batch left uncommitted is counted as share mode counts a batch given back: released. */
  override onOutcome(output: BatchOutput, recordCount: number): void {
    if (output.ackError === LEFT_UNCOMMITTED) this.recordsReleased += recordCount;
    else super.onOutcome(output, recordCount);
  }

  override snapshot(): ClassicTaskCountersSnapshot {
    return { ...this };
  }
}
