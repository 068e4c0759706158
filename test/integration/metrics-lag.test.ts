// The lag and backlog series of /metrics on the real broker: share lag per partition read from the
// broker (DescribeShareGroupOffsets) after producing records a stopped connector does not consume,
// Connect's sink task metrics with the counts the connector really read and put, the histograms, and
// classic mode's offset-commit series.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics, produce, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { startLinesWorker } from './harness/rest.js';
import { lines, metric, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-metrics-lag-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

const values = (prefix: string, n: number, partition: number) =>
  Array.from({ length: n }, (_, i) => ({ value: `${prefix}-${i}`, partition }));

describe('/metrics lag and backlog', () => {
  it('share mode: lag per partition after producing records the stopped connector leaves, and the task series', async () => {
    const topic = uniqueTopic('metrics-lag');
    const group = uniqueGroup('metrics-lag');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'share.txt');
    const name = 'metrics-lag-share';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'share', tasks: 1, poolThreads: 1, logger },
      worker: { 'metrics.lag.poll.interval.ms': '1000' },
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    const scrape = async () => (await fetch(`${rest.url}/metrics`)).text();
    const lagOf = (text: string, partition: number) =>
      metric(text, 'sharesink_share_partition_lag', `partition="${partition}"`);
    try {
      await w.start();
      await produce(topic, [...values('a', 30, 0), ...values('b', 20, 1)]);
      await until(
        '50 lines',
        () => lines(file).length,
        (n) => n >= 50,
      );
      await until(
        'lag 0',
        scrape,
        (t) => t.includes('sharesink_share_partition_lag{') && lagOf(t, 0) + lagOf(t, 1) === 0,
      );

      // the task series, read while it runs
      const running = await scrape();
      expect(metric(running, 'sharesink_sink_record_read_total', `connector="${name}"`)).toBe(50);
      expect(
        metric(running, 'sharesink_sink_record_send_total', `connector="${name}"`),
      ).toBeGreaterThanOrEqual(50);
      expect(metric(running, 'sharesink_sink_record_active_count', `connector="${name}"`)).toBe(0);
      expect(metric(running, 'sharesink_task_record_delivery_count_count', `connector="${name}"`)).toBe(50);
      expect(running).toContain(
        `sharesink_task_record_delivery_count_bucket{connector="${name}",task="0",le="1"} 50`,
      );
      const puts = metric(running, 'sharesink_put_batch_time_seconds_count', `connector="${name}"`);
      expect(puts).toBeGreaterThan(0);
      expect(metric(running, 'sharesink_task_puts_total', `connector="${name}"`)).toBe(puts);
      expect(running).toMatch(
        new RegExp(`^sharesink_put_batch_max_time_seconds\\{connector="${name}",task="0"\\} \\S+$`, 'm'),
      );
      expect(metric(running, 'sharesink_locks_oldest_acquired_age_seconds', `connector="${name}"`)).toBe(0);

      // stopped (no members left): 40 more records wait in partition 0 and 15 in partition 1
      expect((await fetch(`${rest.url}/connectors/${name}/stop`, { method: 'PUT' })).status).toBe(202);
      await produce(topic, [...values('c', 40, 0), ...values('d', 15, 1)]);
      const text = await until(
        'lag 40 and 15',
        scrape,
        (t) => lagOf(t, 0) === 40 && lagOf(t, 1) === 15,
        30_000,
      );
      expect(text).toContain(
        `sharesink_share_partition_lag{connector="${name}",topic="${topic}",partition="0"} 40`,
      );
      const polledAt = metric(text, 'sharesink_share_lag_poll_timestamp_seconds', `connector="${name}"`);
      expect(Math.abs(polledAt - Date.now() / 1000)).toBeLessThan(30);
      expect(metric(text, 'sharesink_share_lag_poll_errors_total', `connector="${name}"`)).toBe(0);
      // resumed: the backlog drains and the lag falls back to 0
      expect((await fetch(`${rest.url}/connectors/${name}/resume`, { method: 'PUT' })).status).toBe(202);
      await until(
        '105 lines',
        () => lines(file).length,
        (n) => n >= 105,
      );
      await until('lag 0 again', scrape, (t) => lagOf(t, 0) + lagOf(t, 1) === 0, 30_000);
    } finally {
      await rest.close();
      await w.stop();
    }
  });

  it('classic mode: offset-commit series, consumer lag from committed and end offsets, no share lag', async () => {
    const topic = uniqueTopic('metrics-classic');
    const group = uniqueGroup('metrics-classic');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const file = path.join(dir, 'classic.txt');
    const name = 'metrics-classic';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'classic', tasks: 1, poolThreads: 1, logger },
      worker: { 'metrics.lag.poll.interval.ms': '1000' },
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    try {
      await w.start();
      await produce(topic, values('e', 20, 0));
      await until(
        '20 lines',
        () => lines(file).length,
        (n) => n >= 20,
      );
      const text = await until(
        'a commit',
        async () => (await fetch(`${rest.url}/metrics`)).text(),
        (t) => metric(t, 'sharesink_offset_commit_completion_total', `connector="${name}"`) > 0,
      );
      expect(metric(text, 'sharesink_offset_commit_failure_total', `connector="${name}"`)).toBe(0);
      expect(metric(text, 'sharesink_offset_commit_seq_no', `connector="${name}"`)).toBe(
        metric(text, 'sharesink_offset_commit_completion_total', `connector="${name}"`),
      );
      expect(metric(text, 'sharesink_sink_record_read_total', `connector="${name}"`)).toBe(20);
      expect(text).not.toContain('sharesink_share_partition_lag{');
      const lagged = await until(
        'consumer lag read',
        async () => (await fetch(`${rest.url}/metrics`)).text(),
        (t) =>
          metric(t, 'sharesink_consumer_partition_committed_offset', `connector="${name}"`) === 20 &&
          t.includes(
            `sharesink_consumer_partition_lag{connector="${name}",topic="${topic}",partition="0"} 0`,
          ),
      );
      expect(metric(lagged, 'sharesink_consumer_lag_poll_errors_total', `connector="${name}"`)).toBe(0);
      // stopped: what is produced now is lag
      expect((await fetch(`${rest.url}/connectors/${name}/stop`, { method: 'PUT' })).status).toBe(202);
      await produce(topic, values('f', 12, 0));
      await until(
        'consumer lag 12',
        async () => (await fetch(`${rest.url}/metrics`)).text(),
        (t) => metric(t, 'sharesink_consumer_partition_lag', `connector="${name}"`) === 12,
      );
      expect(text).not.toContain(`sharesink_locks_oldest_acquired_age_seconds{connector="${name}"}`);
    } finally {
      await rest.close();
      await w.stop();
    }
  });
});
