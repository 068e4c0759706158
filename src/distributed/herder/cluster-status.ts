/**
 * Connect's JSON shapes of a connector in distributed mode, read from this worker's copy of the config
 * and status topics, so every worker answers alike for the whole cluster.
 */
import { printableConfig, printableTaskConfig } from '../../config/printable.js';
import type { ConnectorInfo, ConnectorStateInfo, TaskInfo } from '../../herder/herder.js';
import type { ConnectorEntry } from './config-state.js';
import type { InstanceStatus, StatusStore } from './status-store.js';

/**
 * The connector's task configs as Connect shows them: none while STOPPED. The stop writes an empty list;
 * this also covers the records in between and a config topic written by a version that kept them.
 */
export function tasksOf(c: ConnectorEntry): ConnectorEntry['tasks'] {
  return c.targetState === 'STOPPED' ? [] : c.tasks;
}

export function info(c: ConnectorEntry): ConnectorInfo {
  return {
    name: c.name,
    config: printableConfig({ raw: c.config }),
    tasks: tasksOf(c).map((_, task) => ({ connector: c.name, task })),
    type: 'sink' as const,
  };
}

export function taskInfos(c: ConnectorEntry): TaskInfo[] {
  return tasksOf(c).map((config, task) => ({
    id: { connector: c.name, task },
    config: printableTaskConfig(config, { raw: c.config }),
  }));
}

export function stateInfo(s: InstanceStatus | undefined) {
  if (s === undefined) return { state: 'UNASSIGNED', worker_id: '' };
  return { state: s.state, worker_id: s.workerId, ...(s.trace !== undefined ? { trace: s.trace } : {}) };
}

export function status(store: StatusStore, c: ConnectorEntry): ConnectorStateInfo {
  const byTask = store.tasks(c.name);
  const tasks = [];
  for (let id = 0; id < tasksOf(c).length; id++) {
    const s = byTask.get(id);
    if (s !== undefined) tasks.push({ id, ...stateInfo(s) });
  }
  return { name: c.name, connector: stateInfo(store.connector(c.name)), tasks, type: 'sink' as const };
}

/**
 * KIP-745's answer to a restart: the status as it was, with what the request restarts shown as
 * RESTARTING (the connector unless only failed ones were asked and it had not failed; its tasks when
 * asked, the same way). The workers that run them write their new states once they are up.
 */
export function restartingStatus(
  before: ConnectorStateInfo,
  o: { includeTasks: boolean; onlyFailed: boolean },
): ConnectorStateInfo {
  const restarts = (state: string) => !o.onlyFailed || state === 'FAILED';
  const mark = <T extends { state: string }>(info: T, yes: boolean): T =>
    yes ? { ...info, state: 'RESTARTING' } : info;
  return {
    ...before,
    connector: mark(before.connector, restarts(before.connector.state)),
    tasks: before.tasks.map((t) => mark(t, o.includeTasks && restarts(t.state))),
  };
}
