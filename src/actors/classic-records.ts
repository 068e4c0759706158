/**
 * kafkajs batches → the RawRecords the pool takes, and the counters a classic task adds to the common ones.
 */
import type { Batch, IHeaders } from 'kafkajs';
import type { RawHeader, RawRecord } from '../connect/raw-record.js';
import { messageTimestampType } from '../kafka/classic-consumer.js';
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
  /** Records written to errors.deadletterqueue.topic.name. */
  readonly deadLettered: number;
  /** Records skipped under errors.tolerance=all (dead-lettered or not). */
  readonly skipped: number;
  /** Puts repeated after a RetriableError. */
  readonly retries: number;
  readonly commits: number;
  readonly commitFailures: number;
}

export class ClassicTaskCounters extends TaskCounters {
  deadLettered = 0;
  skipped = 0;
  retries = 0;
  commits = 0;
  commitFailures = 0;

  override snapshot(): ClassicTaskCountersSnapshot {
    return { ...this };
  }
}
