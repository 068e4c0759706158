/**
 * Counters the runtime reads from a share consumer. Plain numbers updated per fetch and per
 * acknowledgement request, never per record.
 */
import type { AcknowledgeType } from './ack-batches.js';

export interface ShareConsumerMetricsSnapshot {
  readonly fetches: number;
  readonly recordsAcquired: number;
  readonly accepted: number;
  readonly released: number;
  readonly rejected: number;
  readonly renewed: number;
  readonly gaps: number;
  readonly ackErrors: number;
  readonly sessionResets: number;
  readonly fetchLatencyMsLast: number;
  readonly fetchLatencyMsMax: number;
  readonly fetchLatencyMsTotal: number;
}

export class ShareConsumerMetrics {
  fetches = 0;
  recordsAcquired = 0;
  accepted = 0;
  released = 0;
  rejected = 0;
  renewed = 0;
  gaps = 0;
  ackErrors = 0;
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
      this.ackErrors += count;
      return;
    }
    switch (type) {
      case 'accept':
        this.accepted += count;
        break;
      case 'release':
        this.released += count;
        break;
      case 'reject':
        this.rejected += count;
        break;
      case 'renew':
        this.renewed += count;
        break;
      case 'gap':
        this.gaps += count;
        break;
    }
  }

  snapshot(): ShareConsumerMetricsSnapshot {
    return { ...this };
  }
}
