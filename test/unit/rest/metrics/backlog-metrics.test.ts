import { describe, expect, it } from 'vitest';
import { TaskCounters } from '../../../../src/actors/task-counters.js';
import { collectMetrics } from '../../../../src/rest/metrics/metrics.js';
import { formatPrometheus } from '../../../../src/rest/metrics/prometheus.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

const proc = {
  memory: process.memoryUsage(),
  uptimeSeconds: 1,
  eventLoop: { p50Ms: 1, p99Ms: 2, maxMs: 3, meanMs: 1 },
};

describe('TaskCounters histograms', () => {
  it('counts delivery counts per bucket (above 5 in the last) and put times per bound', () => {
    const c = new TaskCounters();
    c.onBatch(5, [
      {},
      { deliveryCount: 1 },
      { deliveryCount: 2 },
      { deliveryCount: 5 },
      { deliveryCount: 9 },
    ]);
    c.onPut({ kind: 'ok', durationMs: 3 } as never, 5);
    c.onPut({ kind: 'ok', durationMs: 70_000 } as never, 5);
    const h = c.histograms();
    expect(h.deliveryCounts).toEqual([2, 1, 0, 0, 1, 1]);
    expect(h.putMs[0]).toBe(1);
    expect(h.putMs.at(-1)).toBe(1);
    expect(h.putMsSum).toBe(70_003);
    expect(c.recordsRedelivered).toBe(3);
    // kept out of the snapshot the summary and the ledger add up
    expect(Object.keys(c.snapshot())).not.toContain('deliveryCounts');
  });
});

describe('/metrics lag and backlog series', () => {
  it('shows share lag per partition, the active count, Connect names, histograms and the oldest lock age', () => {
    const share = new FakeConnector('s', 1, 'share');
    share.counters = {
      ...share.counters,
      recordsAcquired: 100,
      recordsAccepted: 60,
      recordsReleased: 10,
      recordsPut: 90,
      putMsMax: 1500,
    };
    Object.assign(share, { oldestLockAgeMs: 2500 });
    const counters = new TaskCounters();
    counters.onBatch(3, [{ deliveryCount: 1 }, { deliveryCount: 2 }, { deliveryCount: 2 }]);
    counters.onPut({ kind: 'ok', durationMs: 40 } as never, 3);
    const taskMetrics = share.taskMetrics.bind(share);
    share.taskMetrics = () => taskMetrics().map((t) => ({ ...t, histograms: counters.histograms() }));
    const classic = new FakeConnector('c', 1, 'classic');
    classic.counters = { ...classic.counters, ...{ commits: 7, commitFailures: 1 } };
    const lag = new Map([
      [
        's',
        {
          errors: 2,
          reading: {
            at: 1_700_000_000_000,
            partitions: [
              { topic: 'orders', partition: 0, offset: 40, lag: 17 },
              { topic: 'orders', partition: 1, offset: 5, lag: undefined },
            ],
          },
        },
      ],
    ]);
    lag.set('c', {
      errors: 0,
      reading: {
        at: 1_700_000_000_000,
        partitions: [{ topic: 'orders', partition: 0, offset: 90, lag: 10 }],
      },
    });
    const text = formatPrometheus(collectMetrics(fakeWorker([share, classic]), proc, lag));
    const has = (line: string) => expect(text.split('\n')).toContain(line);
    has('sharesink_share_partition_lag{connector="s",topic="orders",partition="0"} 17');
    expect(text).not.toContain('sharesink_share_partition_lag{connector="s",topic="orders",partition="1"}');
    has('sharesink_share_partition_start_offset{connector="s",topic="orders",partition="1"} 5');
    has('sharesink_share_lag_poll_timestamp_seconds{connector="s"} 1700000000');
    has('sharesink_share_lag_poll_errors_total{connector="s"} 2');
    has('# TYPE sharesink_share_partition_lag gauge');
    has('sharesink_locks_oldest_acquired_age_seconds{connector="s"} 2.5');
    expect(text).not.toContain('sharesink_locks_oldest_acquired_age_seconds{connector="c"}');
    has('sharesink_sink_record_read_total{connector="s",task="0"} 100');
    has('sharesink_sink_record_send_total{connector="s",task="0"} 90');
    has('sharesink_sink_record_active_count{connector="s",task="0"} 30');
    has('sharesink_put_batch_max_time_seconds{connector="s",task="0"} 1.5');
    has('# TYPE sharesink_task_record_delivery_count histogram');
    has('sharesink_task_record_delivery_count_bucket{connector="s",task="0",le="1"} 1');
    has('sharesink_task_record_delivery_count_bucket{connector="s",task="0",le="2"} 3');
    has('sharesink_task_record_delivery_count_bucket{connector="s",task="0",le="+Inf"} 3');
    has('sharesink_task_record_delivery_count_sum{connector="s",task="0"} 5');
    has('sharesink_task_record_delivery_count_count{connector="s",task="0"} 3');
    has('sharesink_put_batch_time_seconds_bucket{connector="s",task="0",le="0.025"} 0');
    has('sharesink_put_batch_time_seconds_bucket{connector="s",task="0",le="0.05"} 1');
    has('sharesink_put_batch_time_seconds_sum{connector="s",task="0"} 0.04');
    has('sharesink_offset_commit_completion_total{connector="c",task="0"} 7');
    has('sharesink_offset_commit_failure_total{connector="c",task="0"} 1');
    has('sharesink_offset_commit_seq_no{connector="c",task="0"} 8');
    expect(text).not.toContain('sharesink_offset_commit_completion_total{connector="s"');
    has('sharesink_consumer_partition_lag{connector="c",topic="orders",partition="0"} 10');
    has('sharesink_consumer_partition_committed_offset{connector="c",topic="orders",partition="0"} 90');
    has('sharesink_consumer_lag_poll_errors_total{connector="c"} 0');
    expect(text).not.toContain('sharesink_share_partition_lag{connector="c"');
  });
});
