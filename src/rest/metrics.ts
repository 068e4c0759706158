/**
 * What `/metrics` exposes, read from the worker at scrape time: per-task counters (TaskCounters),
 * share consumer counters, lock supervision, pool and in-flight gauges, machine transitions, live
 * actors, and the process. Names are prefixed `sharesink_`; per-task series carry `connector` and
 * `task` labels. Reading is a walk over a few objects per task: nothing is counted per record here.
 */
import type { TaskCountersSnapshot } from '../actors/task-counters.js';
import type { ShareConsumerMetricsSnapshot } from '../kafka/share/share-consumer-metrics.js';
import type { EventLoopDelay } from './process-metrics.js';
import type { MetricFamily, MetricType, Sample } from './prometheus.js';
import type { RestWorker } from './worker-view.js';

export const CONNECT_STATES = ['UNASSIGNED', 'RUNNING', 'PAUSED', 'FAILED', 'RESTARTING', 'STOPPED'] as const;

/** TaskCounters fields as counters: metric name, help, field. */
const TASK_COUNTERS: ReadonlyArray<readonly [string, string, keyof TaskCountersSnapshot]> = [
  ['task_batches_total', 'Batches the task fetched (one per poll result or partition batch).', 'batches'],
  [
    'task_records_acquired_total',
    'Records the task fetched (share: acquired under a lock).',
    'recordsAcquired',
  ],
  ['task_records_redelivered_total', 'Records fetched with a delivery count above 1.', 'redelivered'],
  ['task_records_accepted_total', 'Records put and accepted (share) or committed (classic).', 'accepted'],
  ['task_records_released_total', 'Records released for redelivery.', 'released'],
  ['task_records_rejected_total', 'Records rejected (archived, or the dead-letter topic).', 'rejected'],
  ['task_lock_renewals_total', 'Acquisition lock renewals sent for the task’s batches.', 'renewals'],
  [
    'task_records_lock_expired_total',
    'Records whose acquisition lock expired before they were acknowledged.',
    'locksExpired',
  ],
  ['task_puts_total', 'put() calls, retries included.', 'puts'],
  ['task_puts_failed_total', 'put() calls that failed (retriable or fatal).', 'putsFailed'],
  ['task_puts_aborted_total', 'Puts aborted (lock lost, put.timeout.ms, shutdown).', 'putsAborted'],
  ['task_ack_failures_total', 'Records whose acknowledgement the broker refused.', 'ackFailures'],
];

const CONSUMER_COUNTERS: ReadonlyArray<readonly [string, string, keyof ShareConsumerMetricsSnapshot]> = [
  ['share_fetches_total', 'ShareFetch responses received.', 'fetches'],
  ['share_records_acquired_total', 'Records the share consumer acquired.', 'recordsAcquired'],
  ['share_records_accepted_total', 'Records acknowledged ACCEPT.', 'accepted'],
  ['share_records_released_total', 'Records acknowledged RELEASE.', 'released'],
  ['share_records_rejected_total', 'Records acknowledged REJECT.', 'rejected'],
  ['share_records_renewed_total', 'Record locks renewed (RENEW).', 'renewed'],
  ['share_gaps_total', 'Acquired offsets without a record (acknowledged as GAP).', 'gaps'],
  ['share_ack_errors_total', 'Records whose acknowledgement failed.', 'ackErrors'],
  ['share_session_resets_total', 'Share sessions found gone and started again.', 'sessionResets'],
];

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

export function collectMetrics(worker: RestWorker, proc: ProcessReadings): MetricFamily[] {
  const f = new Families();
  for (const c of worker.connectors) {
    const connector = c.config.name;
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
    for (const [key, value] of Object.entries(c.lockCounters ?? {}))
      f.add(`locks_${snake(key)}_total`, `Lock supervisor: ${key} (share mode, all tasks).`, 'counter', {
        labels: { connector },
        value,
      });
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
      for (const [name, help, field] of TASK_COUNTERS)
        f.add(name, help, 'counter', { labels, value: t.counters[field] });
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
      for (const [name, h, field] of CONSUMER_COUNTERS)
        f.add(name, h, 'counter', { labels, value: m[field] });
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
