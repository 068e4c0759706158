/**
 * The herder: what manages a worker's connectors, as Connect's `Herder` interface. Standalone
 * (`StandaloneHerder`, over a `Worker`) and distributed (`ClusterHerder`, over the config and status
 * topics) implement it; the REST API is written once over it. Failures are `HerderError`s with a kind
 * (not-found, conflict, not-leader, …); a distributed write on a worker that does not lead throws
 * `NotLeaderError`, and the REST layer forwards the request to the leader.
 */
import type { HealthReport } from '../actors/health.js';
import type { TargetState } from '../actors/worker.js';
import type { WorkerConfig } from '../config/types.js';
import type { ConnectorInfo, ConnectorStateInfo, TaskInfo, TaskStateInfo } from './connect-shapes.js';

export type { ConnectorInfo, ConnectorStateInfo, TaskInfo, TaskStateInfo } from './connect-shapes.js';

/** Connect's target states: what the operator asks a connector to be (KIP-875's STOPPED included). */
export type { TargetState } from '../actors/worker.js';

/** KIP-745: which instances a restart request restarts. */
export interface RestartRequest {
  readonly includeTasks: boolean;
  readonly onlyFailed: boolean;
}

/** `GET /health`: the worker's own instances, and in distributed mode its view of the cluster. */
export interface WorkerHealth extends HealthReport {
  /** Distributed mode: this worker's id and the cluster as its group member sees it. */
  readonly workerId?: string;
  readonly cluster?: unknown;
}

export interface Herder {
  /** The worker's settings (plugin path, topic tracking, the offsets calls' security). */
  readonly config:
    WorkerConfig | (Pick<WorkerConfig, 'bootstrapServers' | 'clientId'> & Partial<WorkerConfig>);

  /** The connector names, in the order the worker has them. */
  connectors(): string[];
  connectorInfo(name: string): ConnectorInfo;
  /** The config as written, secrets masked. */
  connectorConfig(name: string): Record<string, string>;
  connectorStatus(name: string): ConnectorStateInfo;
  taskConfigs(name: string): TaskInfo[];
  taskStatus(name: string, task: number): TaskStateInfo | undefined;
  /** The connector classes the worker's connectors name (validation may name them without a module path). */
  connectorClasses(): string[];

  /**
   * Creates (`create`: a conflict when it exists) or replaces a connector's config, validated by the
   * caller. `initialState` (KIP-980) applies to a new connector only.
   */
  putConnectorConfig(
    name: string,
    config: Record<string, string>,
    o: { create: boolean; initialState?: TargetState },
  ): Promise<{ created: boolean; info: ConnectorInfo }>;
  deleteConnector(name: string): Promise<void>;
  /** Pause, resume (STARTED) or stop; resolves once the change is made (standalone) or written (distributed). */
  setTargetState(name: string, state: TargetState): Promise<void>;
  /**
   * Restarts what `request` names; answers the status with what it restarts shown as RESTARTING
   * (KIP-745's 202 answer), or the status unchanged when nothing was restarted (a STOPPED connector).
   */
  restartConnector(name: string, request: RestartRequest): Promise<ConnectorStateInfo>;
  restartTask(name: string, task: number): Promise<void>;

  /** KIP-875: the connector's group offsets in Connect's JSON shape. */
  offsets(name: string): Promise<unknown>;
  /** Alter (`body`: Connect's `{offsets: [...]}`) or, with no body, reset; only while STOPPED. */
  alterOffsets(name: string, body: unknown): Promise<unknown>;
  resetOffsets(name: string): Promise<unknown>;

  /** KIP-558: the topics the connector's tasks have handled records of since the last reset. */
  activeTopics(name: string): string[];
  resetActiveTopics(name: string): Promise<void>;

  health(): WorkerHealth;
}
