/**
 * What the REST API reads and controls of a worker. `Worker` satisfies it; unit tests hand in small
 * fakes, so routing and JSON shapes are tested without a broker.
 */
import type { ConnectState, RestartOptions, TaskMetrics } from '../actors/connector-runtime.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import type { TransitionCount } from '../observability/transition-count.js';

/** An actor as the live view reads it. */
export interface ActorLike {
  getSnapshot(): { value: unknown; status: string };
}

export interface RestConnector {
  readonly config: Pick<ConnectorConfig, 'name' | 'connectorClass' | 'topics' | 'groupProtocol' | 'raw'> &
    Partial<Pick<ConnectorConfig, 'written'>> &
    /** The offsets endpoints read these; a connector without them uses `connect-<name>` and PLAINTEXT. */
    Partial<Pick<ConnectorConfig, 'groupId' | 'security'>>;
  readonly state: ConnectState;
  readonly error: string | undefined;
  readonly taskConfigs: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly poolThreads: number;
  readonly lockCounters: Readonly<Record<string, number>> | undefined;
  /** Age of the oldest acquisition lock held now (share mode); `/metrics` shows 0 when absent. */
  readonly oldestLockAgeMs?: number;
  /** @internal the live view's feed (left out of the published types, as ConnectorRuntime's is) */
  readonly actors: { connector: ActorLike; tasks: readonly ActorLike[] };
  taskStates(): ReadonlyArray<{ id: number; state: ConnectState; trace: string | undefined }>;
  taskMetrics(): readonly TaskMetrics[];
  /** Resolves at once, or once a STOPPED connector is up again (paused / running). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Connect's STOPPED (KIP-875); resolves once the tasks and the instance have stopped. */
  halt(): Promise<void>;
  restart(options: RestartOptions): { connector: boolean; tasks: number[] };
  restartTask(id: number): Promise<void>;
  /**
   * KIP-558: the topics the tasks have handled records of since the start or the last reset. Optional,
   * so views made before it still fit: without it the connector shows none and a reset changes nothing.
   */
  activeTopics?(): readonly string[];
  resetActiveTopics?(): void;
}

export interface RestWorker {
  readonly config: Pick<WorkerConfig, 'bootstrapServers' | 'clientId'> & Partial<WorkerConfig>;
  readonly connectors: readonly RestConnector[];
  connector(name: string): RestConnector | undefined;
  /** @internal */
  readonly transitionCounter: { counts(): TransitionCount[] };
  /** @internal */
  readonly actorCensus: { counts(): Record<string, Record<string, number>> };
  readonly isStopping: boolean;
}
