/**
 * What a task did, counted per batch: the numbers behind `standalone --summary-file`, the demo's
 * progress line and the fault-suite reports.
 */
import type { BatchOutput } from '../machines/batch.js';
import type { PutResult } from '../pool/protocol.js';

export interface TaskCountersSnapshot {
  readonly batches: number;
  readonly recordsAcquired: number;
  /** Records delivered with a delivery count above 1 (released or expired before). */
  readonly redelivered: number;
  readonly accepted: number;
  readonly released: number;
  readonly rejected: number;
  readonly renewals: number;
  readonly locksExpired: number;
  readonly putsAborted: number;
  readonly puts: number;
  readonly putsFailed: number;
  readonly putMsTotal: number;
  readonly putMsMax: number;
  readonly ackFailures: number;
}

export class TaskCounters {
  batches = 0;
  recordsAcquired = 0;
  redelivered = 0;
  accepted = 0;
  released = 0;
  rejected = 0;
  renewals = 0;
  locksExpired = 0;
  putsAborted = 0;
  puts = 0;
  putsFailed = 0;
  putMsTotal = 0;
  putMsMax = 0;
  ackFailures = 0;

  onBatch(count: number, records: ReadonlyArray<{ deliveryCount?: number | undefined }>): void {
    this.batches++;
    this.recordsAcquired += count;
    for (const r of records) if ((r.deliveryCount ?? 1) > 1) this.redelivered++;
  }

  onPut(result: PutResult): void {
    this.puts++;
    if (result.kind === 'fatal' || result.kind === 'retriable') this.putsFailed++;
    this.putMsTotal += result.durationMs;
    if (result.durationMs > this.putMsMax) this.putMsMax = result.durationMs;
  }

  onOutcome(output: BatchOutput, recordCount: number): void {
    const d = output.disposition;
    if (output.ackError !== undefined) {
      this.ackFailures += recordCount;
      return;
    }
    switch (d.kind) {
      case 'accept':
        this.accepted += recordCount;
        break;
      case 'release':
        this.released += recordCount;
        break;
      case 'reject':
        this.rejected += recordCount;
        break;
      case 'partial':
        this.rejected += d.rejectedOffsets.length;
        this.accepted += recordCount - d.rejectedOffsets.length;
        break;
      case 'expired':
        break;
    }
  }

  snapshot(): TaskCountersSnapshot {
    return { ...this };
  }
}
