/**
 * The lag and backlog series of `/metrics` (docs/rest-api.md, "Lag, backlog, and Connect's sink task
 * metrics"): lag per partition (share: the broker's; classic: end - committed) from the {@link LagPoller}'s last reading, what each task
 * holds now, the delivery-count and put-time histograms, the oldest lock's age, and Connect's sink task
 * metrics under Prometheus names. Everything is read from counters the runtime keeps anyway.
 */
import type { ClassicTaskCountersSnapshot } from '../../actors/classic-records.js';
import { DELIVERY_COUNT_BUCKETS, PUT_MS_BUCKETS, type TaskHistograms } from '../../actors/task-counters.js';
import type { TaskMetrics } from '../../actors/connector/types.js';
import type { ConnectorLag } from '../../offsets/lag-poller.js';
import type { MetricType, Sample } from './prometheus.js';

/** What these series add to: `Families.add` of metrics.ts (name without the `sharesink_` prefix). */
export type AddSample = (name: string, help: string, type: MetricType, sample: Sample) => void;

/** Records read and not yet finished: acquired minus every final outcome (never below 0). */
export function recordsActive(t: TaskMetrics): number {
  const c = t.counters;
  const done =
    c.recordsAccepted + c.recordsReleased + c.recordsRejected + c.recordsLockExpired + c.recordsAckFailed;
  return Math.max(0, c.recordsAcquired - done);
}

/** Cumulative `_bucket` samples, then `_sum` and `_count`, of per-bucket counts. */
function histogram(
  add: AddSample,
  name: string,
  help: string,
  labels: Readonly<Record<string, string>>,
  bounds: readonly number[],
  perBucket: readonly number[],
  sum: number,
): void {
  let cumulative = 0;
  for (let i = 0; i <= bounds.length; i++) {
    cumulative += perBucket[i] ?? 0;
    const le = i < bounds.length ? String(bounds[i]) : '+Inf';
    add(name, help, 'histogram', { labels: { ...labels, le }, value: cumulative, suffix: '_bucket' });
  }
  add(name, help, 'histogram', { labels, value: sum, suffix: '_sum' });
  add(name, help, 'histogram', { labels, value: cumulative, suffix: '_count' });
}

function histograms(add: AddSample, labels: Readonly<Record<string, string>>, h: TaskHistograms): void {
  const deliveries = h.deliveryCounts.reduce((s, n, i) => s + n * (DELIVERY_COUNT_BUCKETS[i] ?? 6), 0);
  histogram(
    add,
    'task_record_delivery_count',
    'Delivery count of each record fetched for a put (share: 1 = first delivery; classic: always 1). _sum counts deliveries above 5 as 6. Starts over when the task restarts.',
    labels,
    DELIVERY_COUNT_BUCKETS,
    h.deliveryCounts,
    deliveries,
  );
}

/** Per-task series: Connect's sink task metrics, the active count and the histograms. */
export function addTaskBacklog(
  add: AddSample,
  labels: Readonly<Record<string, string>>,
  t: TaskMetrics,
): void {
  const c = t.counters;
  add('sink_record_read_total', 'Records read from Kafka (Connect: sink-record-read-total).', 'counter', {
    labels,
    value: c.recordsAcquired,
  });
  add(
    'sink_record_send_total',
    "Records handed to puts, retries included, before converters and transforms (Connect's sink-record-send-total counts after transforms).",
    'counter',
    { labels, value: c.recordsPut },
  );
  add(
    'sink_record_active_count',
    'Records read and not yet acknowledged (share) or committed (classic) (Connect: sink-record-active-count).',
    'gauge',
    { labels, value: recordsActive(t) },
  );
  add(
    'put_batch_max_time_seconds',
    'The longest put() since the task started (Connect: put-batch-max-time-ms).',
    'gauge',
    { labels, value: c.putMsMax / 1000 },
  );
  if (t.histograms !== undefined) {
    histograms(add, labels, t.histograms);
    histogram(
      add,
      'put_batch_time_seconds',
      'Time of each put() call, conversion included (Connect: put-batch-avg-time-ms = rate(_sum) / rate(_count)). Starts over when the task restarts.',
      labels,
      PUT_MS_BUCKETS.map((ms) => ms / 1000),
      t.histograms.putMs,
      t.histograms.putMsSum / 1000,
    );
  }
  const classic = c as Partial<ClassicTaskCountersSnapshot>;
  if (classic.commits !== undefined && classic.commitFailures !== undefined) {
    add(
      'offset_commit_completion_total',
      'Offset commits that succeeded (classic; Connect: offset-commit-completion-total).',
      'counter',
      { labels, value: classic.commits },
    );
    add(
      'offset_commit_failure_total',
      'Offset commits that failed (classic; Connect: offset-commit-failure-percentage = failures / all).',
      'counter',
      { labels, value: classic.commitFailures },
    );
    add(
      'offset_commit_seq_no',
      'Offset commits attempted (classic; Connect: offset-commit-seq-no).',
      'gauge',
      {
        labels,
        value: classic.commits + classic.commitFailures,
      },
    );
  }
}

/** Per-connector series: the last lag reading and (share mode) the oldest lock's age. */
export function addConnectorBacklog(
  add: AddSample,
  connector: string,
  lag: ConnectorLag | undefined,
  oldestLockAgeMs: number | undefined,
  share: boolean,
): void {
  if (share)
    add(
      'locks_oldest_acquired_age_seconds',
      'Age of the oldest acquisition lock the connector’s tasks hold now (share mode; 0 when none).',
      'gauge',
      { labels: { connector }, value: (oldestLockAgeMs ?? 0) / 1000 },
    );
  if (lag === undefined) return;
  // the same reading under the mode's own names: share lag is the broker's, classic lag is end - committed
  const prefix = share ? 'share' : 'consumer';
  add(
    `${prefix}_lag_poll_errors_total`,
    share
      ? 'Share lag readings (DescribeShareGroupOffsets) that failed; the previous reading stays.'
      : 'Consumer lag readings (committed and end offsets) that failed; the previous reading stays.',
    'counter',
    { labels: { connector }, value: lag.errors },
  );
  const r = lag.reading;
  if (r === undefined) return;
  add(`${prefix}_lag_poll_timestamp_seconds`, 'Unix time of the lag reading shown.', 'gauge', {
    labels: { connector },
    value: r.at / 1000,
  });
  for (const p of r.partitions) {
    const labels = { connector, topic: p.topic, partition: String(p.partition) };
    if (p.lag !== undefined)
      add(
        `${prefix}_partition_lag`,
        share
          ? 'Records from the share-partition start offset to the end not yet delivered to completion (DescribeShareGroupOffsets v1, KIP-1226).'
          : 'Records from the committed offset to the end of the partition (classic mode).',
        'gauge',
        { labels, value: p.lag },
      );
    if (share)
      add(
        'share_partition_start_offset',
        'The share-partition start offset (SPSO); the broker persists it lazily.',
        'gauge',
        { labels, value: p.offset },
      );
    else
      add(
        'consumer_partition_committed_offset',
        'The consumer group’s committed offset (classic mode).',
        'gauge',
        {
          labels,
          value: p.offset,
        },
      );
  }
}
