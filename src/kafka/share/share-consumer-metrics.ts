/**
 * Counters the runtime reads from a share consumer. Plain numbers updated per fetch and per
 * acknowledgement request, never per record. Names say their unit (`records…`, `gapOffsets`, `fetches`);
 * a new counter is a field here plus its line in {@link SHARE_CONSUMER_COUNTERS}, which `/metrics` reads.
 */
import type { AcknowledgeType } from './ack-batches.js';

export interface ShareConsumerMetricsSnapshot {
  readonly fetches: number;
  readonly recordsAcquired: number;
  readonly recordsAccepted: number;
  readonly recordsReleased: number;
  readonly recordsRejected: number;
  readonly recordsRenewed: number;
  readonly gapOffsets: number;
  readonly recordsAckFailed: number;
  readonly sessionResets: number;
  readonly fetchLatencyMsLast: number;
  readonly fetchLatencyMsMax: number;
  readonly fetchLatencyMsTotal: number;
}

/** The counters among them, with what each counts (the latency fields are a summary and gauges). */
export const SHARE_CONSUMER_COUNTERS = {
  fetches: 'ShareFetch responses received.',
  recordsAcquired: 'Records the share consumer acquired.',
  recordsAccepted: 'Records acknowledged ACCEPT (the broker confirmed).',
  recordsReleased: 'Records acknowledged RELEASE (the broker confirmed).',
  recordsRejected: 'Records acknowledged REJECT (the broker confirmed).',
  recordsRenewed: 'Record locks renewed (RENEW, the broker confirmed); a record renewed twice counts twice.',
  gapOffsets: 'Acquired offsets without a record (acknowledged as GAP).',
  recordsAckFailed: 'Records whose acknowledgement failed.',
  sessionResets: 'Share sessions found gone and started again.',
} as const satisfies Partial<Record<keyof ShareConsumerMetricsSnapshot, string>>;

export class ShareConsumerMetrics implements ShareConsumerMetricsSnapshot {
  fetches = 0;
  recordsAcquired = 0;
  recordsAccepted = 0;
  recordsReleased = 0;
  recordsRejected = 0;
  recordsRenewed = 0;
  gapOffsets = 0;
  recordsAckFailed = 0;
  sessionResets = 0;
  fetchLatencyMsLast = 0;
  fetchLatencyMsMax = 0;
  fetchLatencyMsTotal = 0;

  onFetch(latencyMs: number, records: number): void {
    this.fetches++;
    this.recordsAcquired += records;
    this.fetchLatencyMsLast = latencyMs;
    this.fetchLatencyMsTotal += latencyMs;
    if (latencyMs > this.fetchLatencyMsMax) this.fetchLatencyMsMax = latencyMs;
  }

  onAck(type: AcknowledgeType | 'gap', count: number, failed: boolean): void {
    if (failed) {
      this.recordsAckFailed += count;
      return;
    }
    switch (type) {
      case 'accept':
        this.recordsAccepted += count;
        break;
      case 'release':
        this.recordsReleased += count;
        break;
      case 'reject':
        this.recordsRejected += count;
        break;
      case 'renew':
        this.recordsRenewed += count;
        break;
      case 'gap':
        this.gapOffsets += count;
        break;
    }
  }

  snapshot(): ShareConsumerMetricsSnapshot {
    return { ...this };
  }
}
