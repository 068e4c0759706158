/**
 * One share-mode put as the task runner makes it: the records of one or more acquired batches, put on
 * the pool and retried in place while a RetriableError lasts (ADR 0004).
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { RawRecord } from '../connect/raw-record.js';
import type { ShareRecord } from '../kafka/share/share-consumer.js';
import type { PoolTask, PutPool } from '../pool/put-pool.js';
import type { PutResult } from '../pool/protocol.js';
import { RetryBackoff } from './errors/retry-backoff.js';
import type { TaskCounters } from './task-counters.js';

/** What a put needs from its task runner. */
export interface SharePutHost {
  readonly pool: PutPool;
  readonly poolTask: PoolTask;
  readonly counters: TaskCounters;
  readonly log: Logger;
  /** The supervisor's clock. */
  now(): number;
  /** False once the task stops: a retriable failure is then released, not retried. */
  isRunning(): boolean;
  /** The task's fetch backoff: new batches would fail alike, so the task fetches less often too. */
  readonly fetchBackoff: RetryBackoff;
  readonly retryDelayMaxMs?: number | undefined;
  readonly retryTimeoutMs?: number | undefined;
  readonly retriableAction?: 'retry' | 'release' | undefined;
}

/**
 * Puts the batches' records; a RetriableError is retried in place, after a backoff that doubles from
 * 100 ms up to `retryDelayMaxMs` (or the task's `context.timeout()`, when longer), while the batches
 * keep their locks (the supervisor renews them as for any long put). Releasing instead would spend one
 * of the group's `share.delivery.count.limit` deliveries per attempt, so a sink outage of a few seconds
 * would archive or dead-letter healthy records. The batches still go back to the broker when their
 * locks cannot be held: renewal unavailable, `put.timeout.ms` reached, or the task stopping; the
 * supervisor or stop() then aborts the signal, which ends a backoff at once.
 */
export async function putRetryingInPlace(
  host: SharePutHost,
  batches: readonly { readonly id: string; readonly records: readonly ShareRecord[] }[],
  signal: AbortSignal,
): Promise<PutResult> {
  const backoff = new RetryBackoff(100, host.retryDelayMaxMs ?? 60_000);
  const retryUntil =
    (host.retryTimeoutMs ?? 0) > 0 ? host.now() + host.retryTimeoutMs! : Number.POSITIVE_INFINITY;
  const raw = toRawRecords(batches); // once per put, however many attempts
  for (let failures = 0; ; failures++) {
    const result = await host.pool.put(host.poolTask, raw, { signal });
    host.counters.onPut(result, raw.length);
    if (result.kind !== 'retriable' || !host.isRunning() || signal.aborted) return result;
    // RELEASE instead: the batches go back to the broker and are redelivered with delivery count + 1
    if (host.retriableAction === 'release' || host.now() >= retryUntil) return result;
    const delayMs = backoff.failed(result.backoffMs);
    host.fetchBackoff.failed(result.backoffMs);
    host.log[failures === 0 ? 'info' : 'debug'](
      {
        batchId: batches[0]!.id,
        batches: batches.length,
        delayMs,
        attempt: failures + 1,
        err: result.message,
      },
      'put failed retriably; retrying in place, locks held',
    );
    const waitStart = performance.now();
    if (!(await sleepUnlessAborted(delayMs, signal))) {
      return {
        kind: 'aborted',
        reason: String(signal.reason ?? 'aborted'),
        durationMs: performance.now() - waitStart,
        convertMs: 0,
        converterFailures: [],
        threadId: -1,
        taskStarted: false,
      };
    }
  }
}

/** The records of the put's batches, in order: a batch's records start where the previous one's end. */
function toRawRecords(batches: readonly { readonly records: readonly ShareRecord[] }[]): RawRecord[] {
  let total = 0;
  for (const b of batches) total += b.records.length;
  const out = new Array<RawRecord>(total);
  let i = 0;
  for (const b of batches)
    for (const r of b.records)
      out[i++] = {
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        timestampType: r.timestampType,
        key: r.key,
        value: r.value,
        headers: r.headers,
        deliveryCount: r.deliveryCount,
      };
  return out;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
