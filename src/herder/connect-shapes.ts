/**
 * The JSON bodies of Connect's REST API, built from a connector's state. Field names and nesting are
 * Connect's (ConnectorInfo, ConnectorStateInfo, TaskInfo), so scripts written for Connect parse them.
 */
import { printableConfig, printableTaskConfig } from '../config/printable.js';
import type { HerdedConnector as RestConnector } from './standalone-worker.js';

export interface TaskId {
  connector: string;
  task: number;
}

export interface ConnectorInfo {
  name: string;
  config: Record<string, string>;
  tasks: TaskId[];
  type: 'sink';
}

export interface StateInfo {
  state: string;
  worker_id: string;
  trace?: string | undefined;
}

export interface TaskStateInfo extends StateInfo {
  id: number;
}

export interface ConnectorStateInfo {
  name: string;
  connector: StateInfo;
  tasks: TaskStateInfo[];
  type: 'sink';
}

export interface TaskInfo {
  id: TaskId;
  config: Record<string, string>;
}

export function connectorInfo(c: RestConnector): ConnectorInfo {
  return {
    name: c.config.name,
    config: printableConfig(c.config),
    tasks: c.taskConfigs.map((_, task) => ({ connector: c.config.name, task })),
    type: 'sink',
  };
}

/**
 * `restarting` marks instances a restart request has just scheduled, as Connect's 202 answer to
 * `restart?includeTasks=true` does, even if their state has not changed yet.
 */
export function connectorStatus(
  c: RestConnector,
  workerId: string,
  restarting: { connector: boolean; tasks: readonly number[] } = { connector: false, tasks: [] },
): ConnectorStateInfo {
  const connector: StateInfo = {
    state: restarting.connector ? 'RESTARTING' : c.state,
    worker_id: workerId,
  };
  if (c.state === 'FAILED' && c.error !== undefined) connector.trace = c.error;
  return {
    name: c.config.name,
    connector,
    tasks: c.taskStates().map((t) => {
      const state = restarting.tasks.includes(t.id) ? 'RESTARTING' : t.state;
      const info: TaskStateInfo = { id: t.id, state, worker_id: workerId };
      if (t.trace !== undefined && state === 'FAILED') info.trace = t.trace;
      return info;
    }),
    type: 'sink',
  };
}

export function taskStatus(c: RestConnector, id: number, workerId: string): TaskStateInfo | undefined {
  const t = c.taskStates().find((s) => s.id === id);
  if (t === undefined) return undefined;
  const info: TaskStateInfo = { id, state: t.state, worker_id: workerId };
  if (t.trace !== undefined) info.trace = t.trace;
  return info;
}

/** `GET /connectors/{name}/tasks`: each task's id and the config `taskConfigs()` gave it. */
export function taskInfos(c: RestConnector): TaskInfo[] {
  return c.taskConfigs.map((config, task) => ({
    id: { connector: c.config.name, task },
    config: printableTaskConfig(config, c.config),
  }));
}
