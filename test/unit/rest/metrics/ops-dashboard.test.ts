// docs/ops: every metric the Grafana dashboard, the KEDA ScaledObject and the Prometheus config name
// is one /metrics exposes. The names come from the exposition code itself (collectMetrics and
// formatPrometheus over a worker with a share and a classic connector, share lag read), never from a
// copied list, so a renamed series fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ClassicTaskCounters } from '../../../../src/actors/classic-records.js';
import { TaskCounters } from '../../../../src/actors/task-counters.js';
import { collectMetrics } from '../../../../src/rest/metrics/metrics.js';
import { formatPrometheus } from '../../../../src/rest/metrics/prometheus.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

const OPS = new URL('../../../../docs/ops/', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, OPS), 'utf8');

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos?: { h: number; w: number; x: number; y: number };
  datasource?: { uid: string };
  targets?: Array<{ expr: string; refId: string }>;
}

/** Sample names (`_bucket`, `_sum`, `_count` included) and family names of what /metrics writes for such a worker. */
function exposedNames(): Set<string> {
  const histograms = () => {
    // the histograms are written whether or not anything was counted; a batch and a put make them real
    const counters = new TaskCounters();
    counters.onBatch(2, [{ deliveryCount: 1 }, { deliveryCount: 2 }]);
    counters.onPut({ kind: 'ok', durationMs: 120 } as never, 2);
    return counters.histograms();
  };
  const share = new FakeConnector('orders', 2, 'share');
  const classic = new FakeConnector('audit', 1, 'classic');
  classic.counters = new ClassicTaskCounters().snapshot();
  for (const c of [share, classic]) {
    const base = c.taskMetrics.bind(c);
    c.taskMetrics = () => base().map((t) => ({ ...t, histograms: histograms() }));
  }
  const lag = new Map([
    [
      'orders',
      {
        errors: 0,
        reading: { at: Date.now(), partitions: [{ topic: 'orders', partition: 0, offset: 10, lag: 5 }] },
      },
    ],
  ]);
  const text = formatPrometheus(
    collectMetrics(
      fakeWorker([share, classic]),
      {
        memory: process.memoryUsage(),
        uptimeSeconds: 1,
        eventLoop: { p50Ms: 1, p99Ms: 2, maxMs: 3, meanMs: 1 },
      },
      lag as never,
    ),
  );
  const lines = text.split('\n');
  // sample names, and family names (a histogram's name without _bucket, as prose names it)
  return new Set([
    ...lines
      .filter((l) => l !== '' && !l.startsWith('#'))
      .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
    ...lines.filter((l) => l.startsWith('# TYPE ')).map((l) => l.split(' ')[2]!),
  ]);
}

/** Every `sharesink_…` name a text mentions. */
const namesIn = (text: string) => [...new Set(text.match(/\bsharesink_[a-z0-9_]+\b/g) ?? [])];

describe('docs/ops', () => {
  const exposed = exposedNames();
  const dashboard = JSON.parse(read('grafana-dashboard.json')) as {
    uid: string;
    panels: Panel[];
    templating: { list: Array<{ name: string; query: unknown }> };
  };
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  it('the exposition a dashboard is checked against has the share, classic and lag series', () => {
    for (const name of [
      'sharesink_share_partition_lag',
      'sharesink_put_batch_time_seconds_bucket',
      'sharesink_task_records_dead_lettered_total',
      'sharesink_offset_commit_failure_total',
      'sharesink_locks_batch_renewals_granted_total',
    ])
      expect(exposed, name).toContain(name);
  });

  it('the dashboard is a Grafana dashboard: unique panel ids, every panel a query on the datasource variable', () => {
    expect(dashboard.uid).toBe('sharesink-overview');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'connector']);
    expect(panels.length).toBeGreaterThanOrEqual(10);
    for (const p of panels) {
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.gridPos, p.title).toBeDefined();
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(namesIn(t.expr).length, `${p.title}: ${t.expr}`).toBeGreaterThan(0);
    }
  });

  it('shows lag, throughput, put latency, renewals, expiries and the dead-letter rate', () => {
    const exprs = panels.flatMap((p) => p.targets!.map((t) => t.expr)).join('\n');
    for (const name of [
      'sharesink_share_partition_lag',
      'sharesink_sink_record_read_total',
      'sharesink_put_batch_time_seconds_bucket',
      'sharesink_locks_batch_renewals_granted_total',
      'sharesink_locks_batches_lock_expired_total',
      'sharesink_task_records_dead_lettered_total',
    ])
      expect(namesIn(exprs)).toContain(name);
  });

  it.each([
    ['grafana-dashboard.json', () => read('grafana-dashboard.json')],
    ['keda-scaledobject.yaml', () => read('keda-scaledobject.yaml')],
    ['prometheus.yml', () => read('prometheus.yml')],
    ['README.md', () => read('README.md')],
  ])('every metric %s names is one /metrics exposes', (_file, text) => {
    const missing = namesIn(text()).filter((name) => !exposed.has(name));
    expect(missing).toEqual([]);
  });

  it('KEDA scales on the share lag, summed over partitions after the max over workers', () => {
    const query = /^\s*query:\s*(.+)$/m.exec(read('keda-scaledobject.yaml'))?.[1];
    expect(query).toBe(
      'sum(max by (topic, partition) (sharesink_share_partition_lag{connector="orders-to-file"}))',
    );
  });
});
