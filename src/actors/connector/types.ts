/** The shapes a connector runtime shows: to the worker, to REST and /metrics, and of a task runner. */
import type { ShareConsumerMetricsSnapshot } from '../../kafka/share/share-consumer-metrics.js';
import type { TaskCountersSnapshot, TaskHistograms } from '../task/core/task-counters.js';

/** What the connector runtime needs of a task runner, in either mode. */
export interface TaskRunner {
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly inFlight: number;
  readonly counters: { snapshot(): TaskCountersSnapshot; histograms?(): TaskHistograms };
  /** Stop / resume fetching (classic mode; share mode pauses through the consumer's FetchGate). */
  pause?(): void;
  resume?(): void;
}

/** Connect's names for connector and task states, as the REST status shows them. */
export type ConnectState = 'UNASSIGNED' | 'RUNNING' | 'PAUSED' | 'FAILED' | 'RESTARTING' | 'STOPPED';

/** What `/metrics` reads of one task. */
export interface TaskMetrics {
  readonly id: number;
  readonly state: ConnectState;
  readonly counters: TaskCountersSnapshot;
  readonly inFlight: number;
  /** Share mode: the task's share consumer counters. */
  readonly consumer: ShareConsumerMetricsSnapshot | undefined;
  /** Delivery counts and put times of the current task instance (they start over on a task restart). */
  readonly histograms?: TaskHistograms | undefined;
}

/** Which instances `restart()` restarts (Connect's `includeTasks` / `onlyFailed`, KIP-745). */
export interface RestartOptions {
  readonly includeTasks?: boolean;
  readonly onlyFailed?: boolean;
}

export interface TaskStatus {
  readonly id: number;
  readonly state: string;
  readonly error: string | undefined;
}

export interface ConnectorSummary {
  readonly name: string;
  readonly mode: 'share' | 'classic' | 'consumer';
  readonly groupId: string;
  readonly tasks: readonly TaskStatus[];
  readonly counters: TaskCountersSnapshot;
  /** Lock supervision (share mode): renewals, early releases, expiries, put timeouts. */
  readonly locks: Readonly<Record<string, number>> | undefined;
}
