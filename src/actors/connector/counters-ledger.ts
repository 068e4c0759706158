/**
 * The counts of task instances and lock supervisors that are gone: replaced by a task restart, or
 * stopped by an operator stop. A new runner or supervisor starts from zero, so without this the
 * summary and /metrics would lose every record counted before a restart.
 */
import type { ShareConsumerMetricsSnapshot } from '../../kafka/share/share-consumer-metrics.js';
import type { TaskCountersSnapshot } from '../task/core/task-counters.js';

interface Retired {
  counters: TaskCountersSnapshot;
  consumer: ShareConsumerMetricsSnapshot | undefined;
}

export class CountersLedger {
  private readonly tasks = new Map<number, Retired>();
  private locks: Record<string, number> | undefined;

  /** Keeps a stopped task instance's counts under its task id. */
  retireTask(
    id: number,
    counters: TaskCountersSnapshot,
    consumer: ShareConsumerMetricsSnapshot | undefined,
  ): void {
    const before = this.tasks.get(id);
    this.tasks.set(id, {
      counters: before ? sumCounters([before.counters, counters]) : counters,
      consumer:
        before?.consumer && consumer
          ? sumCounters([before.consumer, consumer])
          : (consumer ?? before?.consumer),
    });
  }

  /** Keeps a closed supervisor's lock counters. */
  retireLocks(counters: Readonly<Record<string, number>>): void {
    this.locks = this.locks ? sumCounters([this.locks, { ...counters }]) : { ...counters };
  }

  /** A task's counters, its earlier instances included. */
  taskCounters(id: number, now: TaskCountersSnapshot): TaskCountersSnapshot {
    const before = this.tasks.get(id)?.counters;
    return before ? sumCounters([before, now]) : now;
  }

  /**
   * A task's share consumer counters, its earlier instances included (undefined in classic mode, where
   * there is no share consumer now).
   */
  consumerCounters(
    id: number,
    now: ShareConsumerMetricsSnapshot | undefined,
  ): ShareConsumerMetricsSnapshot | undefined {
    const before = this.tasks.get(id)?.consumer;
    return now && before ? sumCounters([before, now]) : now;
  }

  /** Lock counters of closed supervisors and, when there is one, the current one. */
  lockCounters(
    now: Readonly<Record<string, number>> | undefined,
  ): Readonly<Record<string, number>> | undefined {
    if (now === undefined) return this.locks && { ...this.locks };
    return this.locks ? sumCounters([this.locks, { ...now }]) : { ...now };
  }

  /** Counters of tasks that are gone and not back (an operator stop), so the summary still counts them. */
  goneTasks(present: (id: number) => boolean): TaskCountersSnapshot[] {
    return [...this.tasks].filter(([id]) => !present(id)).map(([, r]) => r.counters);
  }
}

/** Adds counter snapshots up; `…Max` fields take the largest, `…Last` the latest. */
export function sumCounters<T extends object>(list: readonly T[]): T {
  const total: Record<string, number> = {};
  for (const c of list) {
    for (const [k, v] of Object.entries(c) as Array<[string, number]>) {
      if (k.endsWith('Max')) total[k] = Math.max(total[k] ?? 0, v);
      else if (k.endsWith('Last')) total[k] = v;
      else total[k] = (total[k] ?? 0) + v;
    }
  }
  return total as T;
}
