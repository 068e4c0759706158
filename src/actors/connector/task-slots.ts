/**
 * The tasks of one connector: one slot per task config, each a task runner driven by its own task
 * machine (`createTaskMachine`), whose effects start, pause, resume and stop the runner. A slot is
 * replaced by a task restart; the counts of the instance it replaces go to the counters ledger.
 */
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import { SharesinkError, isSharesinkError } from '../../errors.js';
import { createTaskMachine, type TaskMachine } from '../../machines/task.js';
import type { PutRunner } from '../../pool/put-runner.js';
import type { TaskCountersSnapshot } from '../task/core/task-counters.js';
import type { CountersLedger } from './counters-ledger.js';
import type { TaskShareConsumer } from './share-member.js';
import type { TaskFactory } from './task-factory.js';
import type { ConnectState, TaskMetrics, TaskRunner, TaskStatus } from './types.js';

interface TaskSlot {
  readonly id: number;
  readonly props: Record<string, string>;
  readonly runner: TaskRunner;
  readonly actor: Actor<TaskMachine>;
  readonly consumer: TaskShareConsumer | undefined;
  /** The runner's stop, once asked: every way out of the task stops the runner once. */
  stopped: Promise<void> | undefined;
  /** An operator restart is under way: the status says RESTARTING until the new task runs. */
  restarting: boolean;
  /** What failed the task (its start or its run), typed: the machine keeps its message only. */
  failure: Error | undefined;
}

export interface TaskSlotsOptions {
  readonly connector: string;
  readonly logger: Logger;
  readonly inspect: ((event: InspectionEvent) => void) | undefined;
  readonly ledger: CountersLedger;
  /** The operator's target (the connector machine's `paused`): tasks made while it is set stay paused. */
  readonly paused: () => boolean;
  readonly onTaskFailed: (taskId: number, error: string, cause: Error | undefined) => void;
  /** A task (re)started and runs: whatever failed under its id before no longer stands. */
  readonly onTaskRunning?: (taskId: number) => void;
}

export class TaskSlots {
  private slots: TaskSlot[] = [];
  private factory: TaskFactory | undefined;
  private pool: PutRunner | undefined;
  /** Task restarts under way, by task id: a second request joins the first; stopping waits for them. */
  private readonly restarts = new Map<number, Promise<void>>();

  constructor(private readonly o: TaskSlotsOptions) {}

  get size(): number {
    return this.slots.length;
  }

  get configs(): ReadonlyArray<Readonly<Record<string, string>>> {
    return this.slots.map((t) => t.props);
  }

  get actors(): ReadonlyArray<Actor<TaskMachine>> {
    return this.slots.map((t) => t.actor);
  }

  get inFlight(): number {
    return this.slots.reduce((n, t) => n + t.runner.inFlight, 0);
  }

  /**
   * Makes one task per config and starts them all; resolves once none is starting any more. Throws when
   * every task failed to start (a connector with no working task did not start). `only` (distributed
   * mode) keeps the tasks whose ids it lists: the others run on other workers. There this worker's tasks
   * failing is not the connector failing: they show FAILED, each with its trace, and a restart of the
   * tasks starts them again, as in Connect, where the connector stays RUNNING.
   */
  async start(
    factory: TaskFactory,
    pool: PutRunner,
    configs: ReadonlyArray<Record<string, string>>,
    only?: readonly number[],
  ): Promise<void> {
    this.factory = factory;
    this.pool = pool;
    this.slots = configs
      .map((props, id) => ({ props, id }))
      .filter(({ id }) => only === undefined || only.includes(id))
      .map(({ props, id }) => this.make(id, props));
    for (const t of this.slots) t.actor.start();
    for (const t of this.slots) t.actor.send({ type: 'ASSIGN' });
    await Promise.all(this.slots.map((t) => leftStarting(t.actor)));
    const failed = this.slots.filter((t) => t.actor.getSnapshot().value === 'failed');
    if (only === undefined && failed.length === this.slots.length && failed.length > 0)
      throw everyTaskFailed(this.o.connector, failed[0]!);
  }

  /** Distributed mode: starts tasks `ids` (their configs by id) beside the running ones. */
  async add(ids: readonly number[], configs: ReadonlyArray<Record<string, string>>): Promise<void> {
    if (this.factory === undefined) throw new Error(`${this.o.connector}: no tasks were started`);
    const fresh = ids
      .filter((id) => !this.has(id) && configs[id] !== undefined)
      .map((id) => this.make(id, configs[id]!));
    this.slots = [...this.slots, ...fresh].sort((a, b) => a.id - b.id);
    for (const t of fresh) t.actor.start();
    for (const t of fresh) t.actor.send({ type: 'ASSIGN' });
    await Promise.all(fresh.map((t) => leftStarting(t.actor)));
  }

  /** Distributed mode: stops tasks `ids` as at shutdown and forgets them, their counts kept. */
  async remove(ids: readonly number[]): Promise<void> {
    const gone = this.slots.filter((t) => ids.includes(t.id));
    await Promise.all(gone.map((t) => stopSlot(t)));
    for (const t of gone) {
      await this.pool?.stopTask(`${this.o.connector}-${t.id}`);
      this.retire(t);
    }
    this.slots = this.slots.filter((t) => !gone.includes(t));
  }

  pauseAll(): void {
    for (const t of this.slots) pauseSlot(t);
  }

  resumeAll(): void {
    for (const t of this.slots) {
      t.consumer?.gate.resume();
      t.actor.send({ type: 'RESUME' });
    }
  }

  /**
   * Stops every task as at shutdown: fetching stops, running puts get the grace time, finished batches
   * are acknowledged or committed, the rest released. The slots stay, so their counts still count.
   */
  async stopAll(): Promise<void> {
    await Promise.all(this.slots.map((t) => stopSlot(t)));
  }

  /** Forgets the (stopped) tasks, their counts kept in the ledger: an operator stop. */
  retireAll(): void {
    for (const t of this.slots) this.retire(t);
    this.slots = [];
    this.factory = undefined;
    this.pool = undefined;
  }

  /** Waits for task restarts under way (their failures are logged where they are started). */
  async settleRestarts(): Promise<void> {
    await Promise.all([...this.restarts.values()].map((p) => p.catch(() => undefined)));
  }

  has(id: number): boolean {
    return this.slots.some((t) => t.id === id);
  }

  /**
   * Stops the task (gracefully, as at shutdown), drops its SinkTask instances in the pool so `start()`
   * runs on fresh ones, and starts a new task with the same config, unless `mayReplace()` says the
   * connector is on its way down by then. A second request joins the first.
   */
  restart(id: number, mayReplace: () => boolean): Promise<void> {
    let pending = this.restarts.get(id);
    if (pending === undefined) {
      pending = this.replace(id, mayReplace).finally(() => this.restarts.delete(id));
      this.restarts.set(id, pending);
    }
    return pending;
  }

  private async replace(id: number, mayReplace: () => boolean): Promise<void> {
    const old = this.slots.find((t) => t.id === id)!;
    old.restarting = true;
    this.o.logger.info({ task: id }, 'restarting task');
    try {
      await stopSlot(old);
      await this.pool?.stopTask(`${this.o.connector}-${id}`);
      // the connector began stopping meanwhile: the old task is stopped, and no new one may outlive the
      // stop. It stays in the list, so its counts are counted there, once.
      if (!mayReplace() || this.factory === undefined) return;
      this.retire(old);
      const fresh = this.make(id, old.props);
      fresh.restarting = true;
      this.slots[this.slots.indexOf(old)] = fresh;
      fresh.actor.start();
      fresh.actor.send({ type: 'ASSIGN' });
      void leftStarting(fresh.actor).then(() => (fresh.restarting = false));
    } finally {
      old.restarting = false;
    }
  }

  /** Connect's status of each task: state and, when FAILED, the error (with its code) as the trace. */
  states(): Array<{ id: number; state: ConnectState; trace: string | undefined }> {
    return this.slots.map((t) => {
      const state = connectStateOf(t);
      if (state !== 'FAILED') return { id: t.id, state, trace: undefined };
      const trace = t.failure === undefined ? t.actor.getSnapshot().context.error : failureTrace(t.failure);
      return { id: t.id, state, trace };
    });
  }

  /** Failed tasks, as Connect's `onlyFailed` restart picks them. */
  failedIds(): number[] {
    return this.slots.filter((t) => connectStateOf(t) === 'FAILED').map((t) => t.id);
  }

  ids(): number[] {
    return this.slots.map((t) => t.id);
  }

  metrics(): TaskMetrics[] {
    return this.slots.map((t) => ({
      id: t.id,
      state: connectStateOf(t),
      counters: this.countersOf(t),
      inFlight: t.runner.inFlight,
      consumer: this.o.ledger.consumerCounters(t.id, t.consumer?.metrics.snapshot()),
      histograms: t.runner.counters.histograms?.(),
    }));
  }

  /** Each task's counters (earlier instances included) and its task machine state, for the summary. */
  summaries(): { tasks: TaskStatus[]; counters: TaskCountersSnapshot[] } {
    return {
      tasks: this.slots.map((t) => {
        const s = t.actor.getSnapshot();
        return { id: t.id, state: String(s.value), error: s.context.error };
      }),
      counters: this.slots.map((t) => this.countersOf(t)),
    };
  }

  private countersOf(t: TaskSlot): TaskCountersSnapshot {
    return this.o.ledger.taskCounters(t.id, t.runner.counters.snapshot());
  }

  private retire(t: TaskSlot): void {
    this.o.ledger.retireTask(t.id, t.runner.counters.snapshot(), t.consumer?.metrics.snapshot());
  }

  private make(id: number, props: Record<string, string>): TaskSlot {
    const { logger, paused } = this.o;
    let fail: (error: Error) => void = () => undefined;
    const { runner, consumer } = this.factory!(id, props, (err) => fail(err));
    if (paused()) consumer?.gate.pause();
    const slot: TaskSlot = {
      id,
      props,
      runner,
      consumer,
      actor: undefined as unknown as Actor<TaskMachine>,
      stopped: undefined,
      restarting: false,
      failure: undefined,
    };
    const stopOnce = () =>
      (slot.stopped ??= runner
        .stop()
        .catch((err: Error) => logger.error({ err, task: id }, 'task stop failed')));
    const machine = createTaskMachine({
      startTask: () => {
        // classic mode: paused before the group join, so a task created paused fetches nothing at all
        if (paused()) runner.pause?.();
        runner.start().then(
          () => {
            slot.actor.send({ type: 'STARTED' });
            if (String(slot.actor.getSnapshot().value) === 'running') this.o.onTaskRunning?.(id);
            if (paused()) pauseSlot(slot);
          },
          (err: Error) => {
            slot.failure ??= err;
            slot.actor.send({ type: 'START_FAILED', error: err.message });
            void stopOnce();
          },
        );
      },
      pauseTask: () => {
        consumer?.gate.pause();
        runner.pause?.();
      },
      resumeTask: () => {
        consumer?.gate.resume();
        runner.resume?.();
      },
      stopTask: () => {
        consumer?.gate.release();
        void stopOnce().then(() => slot.actor.send({ type: 'STOPPED' }));
      },
      reportFailure: ({ error }) => {
        logger.error({ task: id, error }, 'task failed');
        this.o.onTaskFailed(id, error, slot.failure);
      },
    });
    const actor = createActor(machine, {
      input: { connector: this.o.connector, taskId: id },
      inspect: this.o.inspect,
    });
    actor.subscribe({ error: (err) => logger.error({ err, task: id }, 'task actor error') });
    (slot as { actor: Actor<TaskMachine> }).actor = actor;
    fail = (error) => {
      if (actor.getSnapshot().status === 'active') {
        slot.failure ??= error;
        actor.send({ type: 'FAIL', error: error.message });
      }
      void stopOnce();
    };
    return slot;
  }
}

/**
 * A failure as the REST status's trace shows it: sharesink's own errors lead with their code, as
 * Connect's traces lead with the exception's class, so a status can be matched on it.
 */
export function failureTrace(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return isSharesinkError(err) ? `${err.code}: ${message}` : message;
}

/**
 * The connector's start failed because every task did: the first task's error is the cause, and its
 * code the code when it is one of sharesink's (`SHARESINK_UNKNOWN_TOPIC`, …), which `Worker.start()`
 * passes on as is; any other error is `SHARESINK_CONNECTOR_START_FAILED`, as the worker would wrap it.
 */
function everyTaskFailed(connector: string, first: TaskSlot): SharesinkError {
  const cause = first.failure;
  const message = `${connector}: every task failed to start: ${first.actor.getSnapshot().context.error}`;
  const code = isSharesinkError(cause) ? cause.code : 'SHARESINK_CONNECTOR_START_FAILED';
  return new SharesinkError(code, message, { cause });
}

function pauseSlot(t: TaskSlot): void {
  // the gate holds back fetches even while the task is still starting; the actor follows once running
  t.consumer?.gate.pause();
  t.actor.send({ type: 'PAUSE' });
}

async function stopSlot(t: TaskSlot): Promise<void> {
  t.consumer?.gate.release();
  if (t.actor.getSnapshot().status === 'active') t.actor.send({ type: 'STOP' });
  // every way out of running / paused / starting stops the runner once, through `stopped`
  await (t.stopped ?? Promise.resolve());
}

/** Task machine state → Connect's name. */
function connectStateOf(slot: TaskSlot): ConnectState {
  if (slot.restarting) return 'RESTARTING';
  switch (String(slot.actor.getSnapshot().value)) {
    case 'running':
      return 'RUNNING';
    case 'paused':
      return 'PAUSED';
    case 'failed':
      return 'FAILED';
    default:
      // unassigned, starting, stopping, stopped: Connect shows a task that is not running as UNASSIGNED
      return 'UNASSIGNED';
  }
}

/** Resolves once the task is neither unassigned nor starting. */
function leftStarting(actor: Actor<TaskMachine>): Promise<void> {
  const done = (state: string) => state !== 'starting' && state !== 'unassigned';
  return new Promise((resolve) => {
    if (done(String(actor.getSnapshot().value))) return resolve();
    const sub = actor.subscribe((s) => {
      if (done(String(s.value))) {
        sub.unsubscribe();
        resolve();
      }
    });
  });
}
