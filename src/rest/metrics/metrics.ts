/**
 * What `/metrics` exposes, read from the worker at scrape time: per-task counters (TaskCounters),
 * share consumer counters, lock supervision, pool and in-flight gauges, machine transitions, live
 * actors, and the process. Names are prefixed `sharesink_`; per-task series carry `connector` and
 * `task` labels. Reading is a walk over a few objects per task: nothing is counted per record here.
 */
import { CLASSIC_TASK_COUNTERS, type ClassicTaskCountersSnapshot } from '../../actors/classic-records.js';
import { LOCK_COUNTERS } from '../../actors/lock-counters.js';
import { TASK_COUNTERS, type TaskCountersSnapshot } from '../../actors/task-counters.js';
import {
  SHARE_CONSUMER_COUNTERS,
  type ShareConsumerMetricsSnapshot,
} from '../../kafka/share/share-consumer-metrics.js';
import type { ConnectorLag } from '../../offsets/lag-poller.js';
import { addConnectorBacklog, addTaskBacklog } from './backlog-metrics.js';
import type { EventLoopDelay } from './process-metrics.js';
import type { MetricFamily, MetricType, Sample } from './prometheus.js';
import type { RestWorker } from '../worker-view.js';

export const CONNECT_STATES = ['UNASSIGNED', 'RUNNING', 'PAUSED', 'FAILED', 'RESTARTING', 'STOPPED'] as const;

/**
 * Counter fields become `sharesink_<prefix>_<field in snake case>_total`, with the field's own
 * description as help: a counter added to one of these tables shows up here under a name that says
 * what the summary calls it. The put-time and fetch-latency fields are a summary and gauges, below.
 */
const TASK_COUNTER_FIELDS = Object.entries(TASK_COUNTERS).filter(([k]) => !k.startsWith('putMs')) as Array<
  [keyof TaskCountersSnapshot, string]
>;
const CLASSIC_COUNTER_FIELDS = Object.entries(CLASSIC_TASK_COUNTERS) as Array<
  [keyof ClassicTaskCountersSnapshot, string]
>;
const CONSUMER_COUNTER_FIELDS = Object.entries(SHARE_CONSUMER_COUNTERS) as Array<
  [keyof ShareConsumerMetricsSnapshot, string]
>;

class Families {
  private readonly byName = new Map<string, { help: string; type: MetricType; samples: Sample[] }>();

  add(name: string, help: string, type: MetricType, sample: Sample): void {
    const full = `sharesink_${name}`;
    let f = this.byName.get(full);
    if (f === undefined) this.byName.set(full, (f = { help, type, samples: [] }));
    f.samples.push(sample);
  }

  list(): MetricFamily[] {
    return [...this.byName].map(([name, f]) => ({ name, ...f }));
  }
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export interface ProcessReadings {
  readonly memory: NodeJS.MemoryUsage;
  readonly uptimeSeconds: number;
  readonly eventLoop: EventLoopDelay;
}

export function collectMetrics(
  worker: RestWorker,
  proc: ProcessReadings,
  /** The share lag poller's last reading per connector name (share mode). */
  shareLag?: ReadonlyMap<string, ConnectorLag>,
): MetricFamily[] {
  const f = new Families();
  const add = f.add.bind(f);
  for (const c of worker.connectors) {
    const connector = c.config.name;
    addConnectorBacklog(
      add,
      connector,
      shareLag?.get(connector),
      c.oldestLockAgeMs,
      c.config.groupProtocol === 'share',
    );
    for (const s of CONNECT_STATES)
      f.add(
        'connector_state',
        'The connector’s state (1 for the current one), in Connect’s names.',
        'gauge',
        {
          labels: { connector, state: s },
          value: c.state === s ? 1 : 0,
        },
      );
    f.add('pool_threads', 'Worker threads of the connector’s put pool.', 'gauge', {
      labels: { connector },
      value: c.poolThreads,
    });
    for (const [key, value] of Object.entries(c.lockCounters ?? {})) {
      const help = LOCK_COUNTERS[key as keyof typeof LOCK_COUNTERS] ?? key;
      f.add(`locks_${snake(key)}_total`, `${help} (share mode, all tasks)`, 'counter', {
        labels: { connector },
        value,
      });
    }
    for (const t of c.taskMetrics()) {
      const labels = { connector, task: String(t.id) };
      for (const s of CONNECT_STATES)
        f.add('task_state', 'The task’s state (1 for the current one), in Connect’s names.', 'gauge', {
          labels: { ...labels, state: s },
          value: t.state === s ? 1 : 0,
        });
      f.add('task_batches_in_flight', 'Batches fetched and not yet acknowledged.', 'gauge', {
        labels,
        value: t.inFlight,
      });
      addTaskBacklog(add, labels, t);
      for (const [field, help] of TASK_COUNTER_FIELDS)
        f.add(`task_${snake(field)}_total`, help, 'counter', { labels, value: t.counters[field] });
      // a classic task's snapshot carries these too (ClassicTaskCounters)
      const classic = t.counters as Partial<ClassicTaskCountersSnapshot>;
      for (const [field, help] of CLASSIC_COUNTER_FIELDS)
        if (classic[field] !== undefined)
          f.add(`task_${snake(field)}_total`, help, 'counter', { labels, value: classic[field] });
      const help = 'Time put() calls took, converting included.';
      f.add('task_put_duration_seconds', help, 'summary', {
        labels,
        value: t.counters.putMsTotal / 1000,
        suffix: '_sum',
      });
      f.add('task_put_duration_seconds', help, 'summary', {
        labels,
        value: t.counters.puts,
        suffix: '_count',
      });
      f.add('task_put_duration_max_seconds', 'The longest put() so far.', 'gauge', {
        labels,
        value: t.counters.putMsMax / 1000,
      });
      const m = t.consumer;
      if (m === undefined) continue;
      for (const [field, h] of CONSUMER_COUNTER_FIELDS)
        f.add(`share_${snake(field)}_total`, h, 'counter', { labels, value: m[field] });
      const fh = 'ShareFetch round trips (share mode).';
      f.add('share_fetch_latency_seconds', fh, 'summary', {
        labels,
        value: m.fetchLatencyMsTotal / 1000,
        suffix: '_sum',
      });
      f.add('share_fetch_latency_seconds', fh, 'summary', { labels, value: m.fetches, suffix: '_count' });
    }
  }
  for (const t of worker.transitionCounter.counts())
    f.add('machine_transitions_total', 'State machine transitions by machine and (from, to).', 'counter', {
      labels: { machine: t.machine, from: t.from, to: t.to },
      value: t.count,
    });
  for (const [machine, byState] of Object.entries(worker.actorCensus.counts()))
    for (const [state, value] of Object.entries(byState))
      f.add(
        'machine_actors',
        'Live actors per machine and state (batch actors live as long as their batch).',
        'gauge',
        {
          labels: { machine, state },
          value,
        },
      );
  f.add('process_resident_memory_bytes', 'Resident set size.', 'gauge', { value: proc.memory.rss });
  f.add('process_heap_used_bytes', 'V8 heap in use.', 'gauge', { value: proc.memory.heapUsed });
  f.add('process_uptime_seconds', 'Seconds since the process started.', 'gauge', {
    value: proc.uptimeSeconds,
  });
  const lagHelp = 'Event-loop delay over the last minute (perf_hooks monitorEventLoopDelay).';
  const lag = proc.eventLoop;
  for (const [quantile, ms] of [
    ['0.5', lag.p50Ms],
    ['0.99', lag.p99Ms],
    ['1', lag.maxMs],
  ] as const)
    f.add('eventloop_delay_seconds', lagHelp, 'gauge', { labels: { quantile }, value: ms / 1000 });
  return f.list();
}
