/**
 * What the REST API reads of a worker beyond what its herder answers: the metrics and the live view of
 * the machines. `Worker` satisfies it; unit tests hand in small fakes, so routing and JSON shapes are
 * tested without a broker.
 */
import type { TaskMetrics } from '../actors/connector-runtime.js';
import type { HerdedConnector, HerdedWorker } from '../herder/standalone-worker.js';
import type { TransitionCount } from '../observability/transition-count.js';

/** An actor as the live view reads it. */
export interface ActorLike {
  getSnapshot(): { value: unknown; status: string };
}

export interface RestConnector extends HerdedConnector {
  readonly poolThreads: number;
  readonly lockCounters: Readonly<Record<string, number>> | undefined;
  /** Age of the oldest acquisition lock held now (share mode); `/metrics` shows 0 when absent. */
  readonly oldestLockAgeMs?: number;
  /** @internal the live view's feed (left out of the published types, as ConnectorRuntime's is) */
  readonly actors: { connector: ActorLike; tasks: readonly ActorLike[] };
  taskMetrics(): readonly TaskMetrics[];
}

export interface RestWorker extends HerdedWorker {
  readonly connectors: readonly RestConnector[];
  connector(name: string): RestConnector | undefined;
  /** @internal */
  readonly transitionCounter: { counts(): TransitionCount[] };
  /** @internal */
  readonly actorCensus: { counts(): Record<string, Record<string, number>> };
}
