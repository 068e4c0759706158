/**
 * The operator controls of Connect's REST API for one connector: pause / resume (stop fetching; batches
 * in flight finish), stop (Connect's STOPPED, KIP-875: tasks and instance gone, config kept; resume or
 * pause starts it again), restart of the connector instance, of every task or of one task. Each is an
 * event for the connector machine, whose effects do the work; what is left here is Connect's rules for
 * when a request applies and what its answer waits for.
 */
import type { Logger } from 'pino';
import type { ConnectorEvent, ConnectorSnapshot } from '../../machines/connector.js';
import type { LifecycleJobs } from './lifecycle-jobs.js';
import type { TaskSlots } from './task-slots.js';
import type { ConnectState, RestartOptions } from './types.js';

/** What the controls need of the connector runtime. */
export interface ControlledConnector {
  readonly name: string;
  readonly log: Logger;
  readonly slots: TaskSlots;
  readonly jobs: LifecycleJobs;
  connectState(): ConnectState;
  snapshot(): ConnectorSnapshot;
  /** Sends the machine an event; answers the job its effect started, if it started one. */
  act(event: ConnectorEvent): Promise<void> | undefined;
}

/** The operator's stop is under way or done. */
export function isHalted(s: ConnectorSnapshot): boolean {
  return s.matches('halted') || s.matches('halting');
}

/** The connector is on its way down (shutdown or operator stop): no task may start any more. */
export function isClosing(s: ConnectorSnapshot): boolean {
  return isHalted(s) || s.matches('stopping') || s.status !== 'active';
}

export class OperatorControls {
  constructor(private readonly c: ControlledConnector) {}

  /**
   * Stops fetching in every task; batches in flight finish and are acknowledged (share) or committed
   * (classic). Share-mode members stay in the group, so the records they would have fetched go to the
   * other members. Idempotent. A STOPPED connector is started with its tasks paused, as in Connect;
   * the promise resolves once it is up.
   */
  pause(): Promise<void> {
    if (isHalted(this.c.snapshot())) return this.startFromHalt('PAUSE');
    this.c.act({ type: 'PAUSE' });
    return Promise.resolve();
  }

  /** Fetches again; a STOPPED connector is started again (new instance, new tasks, new members). */
  resume(): Promise<void> {
    if (isHalted(this.c.snapshot())) return this.startFromHalt('RESUME');
    this.c.act({ type: 'RESUME' });
    return Promise.resolve();
  }

  /**
   * Connect's `PUT /connectors/{name}/stop` (KIP-875): the tasks stop as at shutdown (running puts
   * finish within the grace time, finished batches are acknowledged or committed, the rest released,
   * the groups left), then the pool and the connector instance; the config stays and `resume()` starts
   * it all again. Resolves once everything has stopped. Stopping a stopped connector changes nothing.
   */
  async halt(): Promise<void> {
    // a halt under way: its answer is this one's too
    if (this.c.snapshot().matches('halting')) await this.c.jobs.idle();
    // before the worker started, HALT goes straight to `halted` and starts no job
    await this.c.act({ type: 'HALT' });
  }

  /**
   * Connect's `POST /connectors/{name}/restart`: the connector instance (unless `onlyFailed` and it has
   * not failed) and, with `includeTasks`, every task or only the failed ones. Returns at once with the
   * instances it restarts; the restarts run in the background and are logged.
   */
  restart(options: RestartOptions = {}): { connector: boolean; tasks: number[] } {
    const onlyFailed = options.onlyFailed === true;
    // a STOPPED connector has no instance and no tasks to restart; it stays STOPPED, as in Connect,
    // where a restart keeps the target state
    if (isClosing(this.c.snapshot())) return { connector: false, tasks: [] };
    const connector = !onlyFailed || this.c.connectState() === 'FAILED';
    const tasks = options.includeTasks ? (onlyFailed ? this.c.slots.failedIds() : this.c.slots.ids()) : [];
    if (connector) {
      // a restart under way (or a start) is joined: the machine takes RESTART only when up or failed
      void this.c
        .act({ type: 'RESTART' })
        ?.catch((err: Error) => this.c.log.error({ err }, 'connector restart failed'));
    }
    for (const id of tasks) {
      void this.restartTask(id).catch((err: Error) =>
        this.c.log.error({ err, task: id }, 'task restart failed'),
      );
    }
    return { connector, tasks };
  }

  /**
   * Connect's `POST /connectors/{name}/tasks/{id}/restart`: stops the task (gracefully, as at shutdown),
   * drops its SinkTask instances in the pool so `start()` runs on fresh ones, and starts a new task with
   * the same config. Resolves once the new task is starting. A task restarted while the connector is
   * paused comes back paused.
   */
  restartTask(id: number): Promise<void> {
    if (!this.c.slots.has(id)) return Promise.reject(new RangeError(`${this.c.name} has no task ${id}`));
    // the operator stop under way stops this task anyway, and no new one may outlive it
    if (isHalted(this.c.snapshot())) return Promise.resolve();
    return this.c.slots.restart(id, () => !isClosing(this.c.snapshot()));
  }

  /**
   * Leaves the operator stop: a new connector instance, new tasks (paused if asked), new group members.
   * A stop still under way finishes first. A failed start is logged and shown as FAILED; the REST answer
   * stays 202, as in Connect.
   */
  private async startFromHalt(event: 'PAUSE' | 'RESUME'): Promise<void> {
    await this.c.jobs.idle();
    // the halt this waited for may have ended otherwise, or the worker is shutting down
    if (!this.c.snapshot().matches('halted')) return;
    this.c.log.info({ paused: event === 'PAUSE' }, 'starting the stopped connector again');
    try {
      await this.c.act({ type: event });
    } catch (err) {
      this.c.log.error({ err }, 'the stopped connector failed to start again');
    }
  }
}
