/**
 * What a task did: the numbers behind `standalone --summary-file`, the progress line, `/metrics` and
 * the fault-suite reports.
 *
 * Each name says what it counts (`records…`, `batches`, `puts…`), so a record count and a batch count
 * never share a name. A new counter is a field here plus its line in {@link TASK_COUNTERS}: `/metrics`
 * derives its series from that table and a unit test holds docs/cli.md to it.
 */
import type { BatchOutput } from '../../../machines/batch.js';
import type { PutResult } from '../../../pool/protocol.js';

export interface TaskCountersSnapshot {
  readonly batches: number;
  readonly recordsAcquired: number;
  readonly recordsRedelivered: number;
  readonly recordsAccepted: number;
  readonly recordsReleased: number;
  readonly recordsRejected: number;
  readonly recordsLockExpired: number;
  readonly recordsAckFailed: number;
  readonly puts: number;
  readonly recordsPut: number;
  readonly putsFailed: number;
  readonly putsAborted: number;
  readonly putsLostWithThread: number;
  readonly putMsTotal: number;
  readonly putMsMax: number;
}

/** What each counter counts: the summary's documentation and the `/metrics` help text. */
export const TASK_COUNTERS = {
  batches: 'Batches the task fetched (share: one per ShareFetch response; classic: one per partition batch).',
  recordsAcquired: 'Records the task fetched (share: acquired under a lock).',
  recordsRedelivered: 'Records fetched with a delivery count above 1 (share mode only).',
  recordsAccepted: 'Records put and accepted (share) or committed (classic).',
  recordsReleased: 'Records released for redelivery (share) or left uncommitted for refetch (classic).',
  recordsRejected:
    'Records the put refused (fatal or errant): archived or dead-lettered (share), skipped or dead-lettered (classic).',
  recordsLockExpired: 'Records whose acquisition lock expired before they were acknowledged (share).',
  recordsAckFailed: 'Records whose acknowledgement (share) or offset commit (classic) failed.',
  puts: 'Puts the task ran, retries included; one put may carry several fetched batches (share mode, ADR 0007). A put whose records the transforms all dropped counts, though put() was not called.',
  recordsPut:
    'Records the task handed to its puts, retries included, counted as fetched (before the converters and transforms): records a transform dropped or that failed conversion count too. recordsPut / puts is the average put size.',
  putsFailed: 'put() calls that failed (retriable or fatal).',
  putsAborted: 'Puts aborted (lock lost, put.timeout.ms, shutdown).',
  putsLostWithThread:
    'Puts that ended because their pool thread was terminated for another put that ignored its abort, or crashed under several puts: their records are released (share) or retried (classic).',
  putMsTotal: 'Milliseconds spent in put() calls, conversion included.',
  putMsMax: 'The longest put() call, in milliseconds.',
} as const satisfies Record<keyof TaskCountersSnapshot, string>;

/** Upper bounds of the put-time histogram, in milliseconds (`/metrics` shows them in seconds). */
export const PUT_MS_BUCKETS = [
  5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000,
] as const;
/** Delivery counts with a bucket of their own; higher ones share the last (`+Inf`). */
export const DELIVERY_COUNT_BUCKETS = [1, 2, 3, 4, 5] as const;

/**
 * Histograms for `/metrics`, per bucket (not cumulative): `deliveryCounts[i]` records fetched with delivery
 * count `DELIVERY_COUNT_BUCKETS[i]` (the last slot: above 5); `putMs[i]` puts that took at most
 * `PUT_MS_BUCKETS[i]` ms and more than the bound before (the last slot: longer). Kept out of the
 * snapshot: the summary and the counters ledger add up plain numbers only.
 */
export interface TaskHistograms {
  readonly deliveryCounts: readonly number[];
  readonly putMs: readonly number[];
  /** Milliseconds of the puts in `putMs` (the snapshot's putMsTotal also counts earlier task instances). */
  readonly putMsSum: number;
}

export class TaskCounters implements TaskCountersSnapshot {
  batches = 0;
  recordsAcquired = 0;
  recordsRedelivered = 0;
  recordsAccepted = 0;
  recordsReleased = 0;
  recordsRejected = 0;
  recordsLockExpired = 0;
  recordsAckFailed = 0;
  puts = 0;
  recordsPut = 0;
  putsFailed = 0;
  putsAborted = 0;
  putsLostWithThread = 0;
  putMsTotal = 0;
  putMsMax = 0;
  readonly #deliveryCounts = new Array<number>(DELIVERY_COUNT_BUCKETS.length + 1).fill(0);
  readonly #putMs = new Array<number>(PUT_MS_BUCKETS.length + 1).fill(0);
  #putMsSum = 0;

  onBatch(count: number, records: ReadonlyArray<{ deliveryCount?: number | undefined }>): void {
    this.batches++;
    this.recordsAcquired += count;
    const last = DELIVERY_COUNT_BUCKETS.length;
    for (const r of records) {
      const d = r.deliveryCount ?? 1;
      if (d > 1) this.recordsRedelivered++;
      this.#deliveryCounts[d > last ? last : d - 1]!++;
    }
  }

  /**
   * One put that ended, of `recordCount` records as fetched. The converters and transforms run on the
   * put's side (a pool thread), whose result says which records failed but not how many the transforms
   * dropped: the count is of what the task handed over, as TASK_COUNTERS says.
   */
  /** @internal */
  onPut(result: PutResult, recordCount: number): void {
    this.puts++;
    this.recordsPut += recordCount;
    if (result.kind === 'fatal' || result.kind === 'retriable') this.putsFailed++;
    if (result.kind === 'aborted' && result.threadLost === true) this.putsLostWithThread++;
    this.putMsTotal += result.durationMs;
    if (result.durationMs > this.putMsMax) this.putMsMax = result.durationMs;
    let i = 0;
    while (i < PUT_MS_BUCKETS.length && result.durationMs > PUT_MS_BUCKETS[i]!) i++;
    this.#putMs[i]!++;
    this.#putMsSum += result.durationMs;
  }

  histograms(): TaskHistograms {
    return { deliveryCounts: [...this.#deliveryCounts], putMs: [...this.#putMs], putMsSum: this.#putMsSum };
  }

  /** @internal */
  onOutcome(output: BatchOutput, recordCount: number): void {
    const d = output.disposition;
    if (output.ackError !== undefined) {
      this.recordsAckFailed += recordCount;
      return;
    }
    switch (d.kind) {
      case 'accept':
        this.recordsAccepted += recordCount;
        break;
      case 'release':
        this.recordsReleased += recordCount;
        break;
      case 'reject':
        this.recordsRejected += recordCount;
        break;
      case 'partial':
        this.recordsRejected += d.rejectedIndexes.length;
        this.recordsAccepted += recordCount - d.rejectedIndexes.length;
        break;
      case 'expired':
        // counted by the runner when the lock ran out (recordsLockExpired), which is not an outcome of a put
        break;
    }
  }

  snapshot(): TaskCountersSnapshot {
    return { ...this };
  }
}
