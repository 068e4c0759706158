/**
 * What the standalone herder reads and controls of a worker and its connectors. `Worker` and its
 * `ConnectorRuntime`s satisfy it; unit tests hand in small fakes. The runtime changes (create, replace,
 * delete) are optional: a worker view without them refuses those requests.
 */
import type { ConnectState, RestartOptions } from '../actors/connector-runtime.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import type { TargetState } from '../actors/worker.js';

export interface HerdedConnector {
  readonly config: Pick<ConnectorConfig, 'name' | 'connectorClass' | 'topics' | 'groupProtocol' | 'raw'> &
    Partial<Pick<ConnectorConfig, 'written'>> &
    /** The offsets endpoints read these; a connector without them uses `connect-<name>` and PLAINTEXT. */
    Partial<Pick<ConnectorConfig, 'groupId' | 'security'>>;
  readonly state: ConnectState;
  readonly error: string | undefined;
  readonly taskConfigs: ReadonlyArray<Readonly<Record<string, string>>>;
  taskStates(): ReadonlyArray<{ id: number; state: ConnectState; trace: string | undefined }>;
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

export interface HerdedWorker {
  readonly config: Pick<WorkerConfig, 'bootstrapServers' | 'clientId'> & Partial<WorkerConfig>;
  readonly connectors: readonly HerdedConnector[];
  connector(name: string): HerdedConnector | undefined;
  readonly isStopping: boolean;
  /** Runs a new connector (started at once when the worker runs); rejects with why it cannot. */
  addConnector?(config: ConnectorConfig, initialState?: TargetState): Promise<unknown>;
  /** Stops the connector and runs it again with `config`, in the same place of the list. */
  replaceConnector?(config: ConnectorConfig): Promise<unknown>;
  /** Stops the connector and forgets it. */
  removeConnector?(name: string): Promise<void>;
}
