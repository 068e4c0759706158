/**
 * The writes to the config topic, made by the leader only (other workers forward REST writes to it),
 * one at a time: that is what serialises conflicting writes from several workers. Each write is read
 * back before it answers, so the answer and the next read on the leader see it.
 */
import type { Logger } from 'pino';
import { RestError, notFound } from '../../rest/server/errors.js';
import {
  keyOf,
  valueOf,
  type ConfigRecord,
  type RestartRequest,
  type TargetState,
} from './config-records.js';
import type { DistributedHerder } from './herder.js';
import { needsTaskConfigs } from './config-state.js';
import { connectorStatusKey } from './status-store.js';
import { unresolvedTaskConfig, type TaskConfigsOf } from './task-configs.js';

export const conflict = (message: string): RestError =>
  new RestError('SHARESINK_REST_CONFLICT', 409, message);

export class LeaderWrites {
  readonly #h: DistributedHerder;
  readonly #taskConfigsOf: TaskConfigsOf;
  readonly #log: Logger;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(herder: DistributedHerder, taskConfigsOf: TaskConfigsOf, logger: Logger) {
    this.#h = herder;
    this.#taskConfigsOf = taskConfigsOf;
    this.#log = logger.child({ component: 'herder' });
    herder.onStaleTasks = (name) =>
      this.#serial(async () => {
        // a write queued before this one may have done it already
        const c = this.#h.state.connector(name);
        if (c !== undefined && needsTaskConfigs(c)) await this.#commitTasks(name);
      });
  }

  /**
   * Creates (`create`: 409 when it exists) or replaces a connector config; answers whether it was new.
   * `initial` (KIP-980, a new connector only) is written before the config, as Connect does, so no worker
   * starts a connector created PAUSED or STOPPED (a STOPPED one gets no task configs).
   */
  putConnector(
    name: string,
    config: Record<string, string>,
    create: boolean,
    initial: TargetState = 'STARTED',
  ): Promise<{ created: boolean }> {
    return this.#serial(async () => {
      this.#mustLead();
      const exists = this.#h.state.connector(name) !== undefined;
      if (create && exists) throw conflict(`Connector ${name} already exists`);
      // a connector of this name deleted before may have left an active topic behind: a task still
      // finishing its puts can write one after the deletion's removals (KIP-558 records, status topic)
      if (!exists) await this.#h.statusStore.removeTopics(name);
      if (!exists && initial !== 'STARTED') await this.#write({ kind: 'target-state', name, state: initial });
      await this.#write({ kind: 'connector', name, config });
      // the task configs are computed from the config just written: read it back first
      await this.#h.configLog.readToEnd(this.#h.distributed.workerSyncTimeoutMs);
      await this.#commitTasks(name);
      this.#log.info({ connector: name, created: !exists }, 'connector config written');
      return { created: !exists };
    });
  }

  deleteConnector(name: string): Promise<void> {
    return this.#serial(async () => {
      this.#mustLead();
      const c = this.#h.state.connector(name);
      if (c === undefined) throw notFound(`Connector ${name} not found`);
      await this.#write({ kind: 'connector', name, config: null });
      await this.#write({ kind: 'target-state', name, state: null });
      await this.#write({ kind: 'commit', name, tasks: null });
      for (let i = 0; i < c.tasks.length; i++)
        await this.#write({ kind: 'task', name, task: i, config: null });
      await this.#h.statusStore.remove(name, c.tasks.length);
      this.#log.info({ connector: name }, 'connector deleted');
    });
  }

  /**
   * Writes a target state. As Connect's, a STOPPED connector has no task configs: a stop writes an empty
   * list, a resume or pause of it computes them again (`taskConfigs()` of its config as it is now, which
   * may have changed while it was stopped). The order keeps every connector that may run with its tasks:
   * STOPPED before the empty list, the new task configs before the state that runs them; a leader that
   * dies in between leaves a STOPPED connector with tasks, which reads show as none and the next leader
   * empties (configSnapshot).
   */
  setTargetState(name: string, state: TargetState): Promise<void> {
    return this.#serial(async () => {
      this.#mustLead();
      const c = this.#h.state.connector(name);
      if (c === undefined) throw notFound(`Connector ${name} not found`);
      if (state === 'STOPPED') {
        await this.#write({ kind: 'target-state', name, state });
        if (c.tasks.length > 0 || c.tasksStale) await this.#commitTasks(name, true);
        return;
      }
      if (c.targetState === 'STOPPED') await this.#commitTasks(name, false);
      await this.#write({ kind: 'target-state', name, state });
    });
  }

  /** Writes a restart request; false when the connector is STOPPED (nothing to restart, nothing written). */
  requestRestart(name: string, request: RestartRequest): Promise<boolean> {
    return this.#serial(async () => {
      this.#mustLead();
      const c = this.#h.state.connector(name);
      if (c === undefined) throw notFound(`Connector ${name} not found`);
      const tasks = c.targetState === 'STOPPED' ? 0 : c.tasks.length;
      if (request.task !== undefined && request.task >= tasks)
        throw notFound(`Task ${name}-${request.task} not found`);
      // stopped since the REST route looked: it stays STOPPED, there is nothing to restart
      if (c.targetState === 'STOPPED') return false;
      await this.#write({ kind: 'restart', name, request });
      return true;
    });
  }

  /**
   * Runs `job` (an offsets change on the broker) while the connector's target state is STOPPED, in turn
   * with the config writes: a resume written meanwhile waits for it, so the tasks never start on
   * offsets half changed. `refuse` makes the error for a connector that is not STOPPED.
   */
  whileStopped<T>(name: string, refuse: (name: string) => Error, job: () => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      this.#mustLead();
      const c = this.#h.state.connector(name);
      if (c === undefined) throw notFound(`Connector ${name} not found`);
      if (c.targetState !== 'STOPPED') throw refuse(name);
      return job();
    });
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#lock.then(async () => {
      const result = await step();
      await this.#h.configLog.readToEnd(this.#h.distributed.workerSyncTimeoutMs);
      return result;
    });
    this.#lock = next.catch(() => undefined);
    return next;
  }

  #mustLead(): void {
    if (!this.#h.isLeader)
      throw conflict('Cannot complete request because of a conflicting operation (e.g. worker rebalance)');
  }

  async #write(record: ConfigRecord): Promise<void> {
    await this.#h.configLog.write(keyOf(record), valueOf(record));
  }

  /**
   * `taskConfigs(tasks.max)` of the connector's current config, written and committed; none while it is
   * `stopped` (its target state, unless a resume asks for the tasks before it writes the new state).
   */
  async #commitTasks(name: string, stopped?: boolean): Promise<void> {
    const c = this.#h.state.connector(name);
    if (c === undefined) return;
    let tasks: Array<Record<string, string>> = [];
    if (!(stopped ?? c.targetState === 'STOPPED'))
      try {
        const config = this.#h.compile(c.config);
        tasks = (await this.#taskConfigsOf(config, this.#log)).map((t) => unresolvedTaskConfig(t, config));
      } catch (err) {
        const trace = (err as Error).message;
        this.#log.error({ connector: name, err: trace }, 'the connector gave no task configs');
        await this.#h.statusStore
          .put(connectorStatusKey(name), {
            state: 'FAILED',
            trace,
            workerId: this.#h.workerId,
            generation: 0,
          })
          .catch(() => undefined);
      }
    for (let i = 0; i < tasks.length; i++)
      await this.#write({ kind: 'task', name, task: i, config: tasks[i]! });
    for (let i = tasks.length; i < c.tasks.length; i++)
      await this.#write({ kind: 'task', name, task: i, config: null });
    await this.#write({ kind: 'commit', name, tasks: tasks.length });
  }
}
