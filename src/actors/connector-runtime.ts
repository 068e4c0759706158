/**
 * One running connector: its SinkConnector instance (main thread), its put pool, its lock supervisor,
 * and one task runner per task config. Share or classic mode is chosen here from the compiled config,
 * and nowhere else: everything from the batch actor rightwards is the same code.
 *
 * The operator controls of Connect's REST API live here too: pause / resume (stop fetching; batches in
 * flight finish), stop (Connect's STOPPED, KIP-875: tasks and instance gone, config kept, resume starts
 * it again), restart of the connector instance, of every task or of one task. A connector actor
 * (the connector machine, with no automatic restarts: Connect's behaviour) and one task actor per task
 * carry the states the REST status reports.
 */
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import { loadConnectorModule } from '../connect/connector-module.js';
import { TransformChain } from '../connect/transforms/chain.js';
import { connectorOwnProblems } from './connector-checks.js';
import type { SinkConnector } from '../connect/sink-connector.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { KafkaCluster } from '../kafka/cluster.js';
import type { ShareConsumerMetricsSnapshot } from '../kafka/share/share-consumer-metrics.js';
import { createConnectorMachine, type ConnectorMachine } from '../machines/connector.js';
import { createTaskMachine, type TaskMachine } from '../machines/task.js';
import { PutPool } from '../pool/put-pool.js';
import { ShareTaskRunner } from './share-task-runner.js';
import { LockSupervisor } from './supervisor.js';
import type { TaskCountersSnapshot } from './task-counters.js';
import { createClassicRunner } from './classic-runner-factory.js';
import { GatedShareConsumer } from './fetch-gate.js';
import { applyShareStartPosition } from './share-start-position.js';

/** What the connector runtime needs of a task runner, in either mode. */
export interface TaskRunner {
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly inFlight: number;
  readonly counters: { snapshot(): TaskCountersSnapshot };
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
  readonly mode: 'share' | 'classic';
  readonly groupId: string;
  readonly tasks: readonly TaskStatus[];
  readonly counters: TaskCountersSnapshot;
  /** Lock supervision (share mode): renewals, early releases, expiries, put timeouts. */
  readonly locks: Readonly<Record<string, number>> | undefined;
}

interface TaskSlot {
  readonly id: number;
  readonly props: Record<string, string>;
  readonly runner: TaskRunner;
  readonly actor: Actor<TaskMachine>;
  /** Share mode: the consumer, for its gate and its metrics. */
  readonly consumer: GatedShareConsumer | undefined;
  stopped: Promise<void> | undefined;
  /** An operator restart is under way: the status says RESTARTING until the new task runs. */
  restarting: boolean;
}

/** Task machine state → Connect's name. */
function taskConnectState(slot: TaskSlot): ConnectState {
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

export class ConnectorRuntime {
  readonly config: ConnectorConfig;
  private readonly worker: WorkerConfig;
  private readonly log: Logger;
  private connector: SinkConnector | undefined;
  private pool: PutPool | undefined;
  private supervisor: LockSupervisor | undefined;
  private tasks: TaskSlot[] = [];
  private paused = false;
  private stopping = false;
  /**
   * Operator stop and the starts that leave it (resume / pause of a STOPPED connector) run one after
   * another, after the worker's first start.
   */
  private lifecycle: Promise<void> = Promise.resolve();
  /**
   * The last operator step queued: shutdown waits for it, but not for the first start alone, which
   * shutdown stops under way as before.
   */
  private operatorSteps: Promise<void> = Promise.resolve();
  /** Lock supervision counters of supervisors closed by an operator stop, so /metrics keeps counting. */
  private retiredLocks: Record<string, number> | undefined;
  /** Task restarts under way, by task id: a second request joins the first, stop() waits for them. */
  private readonly restarts = new Map<number, Promise<void>>();
  /**
   * Counters of task instances replaced by a restart, by task id, so the summary and /metrics keep
   * counting every record across restarts (a new runner starts from zero).
   */
  private readonly retired = new Map<
    number,
    { counters: TaskCountersSnapshot; consumer: ShareConsumerMetricsSnapshot | undefined }
  >();
  /** A restart of the connector instance under way (stop() waits for it too). */
  private connectorRestart: Promise<void> | undefined;
  private readonly connectorActor: Actor<ConnectorMachine>;
  private readonly onTaskFailed: (name: string, taskId: number, error: string) => void;
  private readonly inspect: ((event: InspectionEvent) => void) | undefined;

  constructor(
    config: ConnectorConfig,
    worker: WorkerConfig,
    logger: Logger,
    onTaskFailed: (name: string, taskId: number, error: string) => void = () => undefined,
    inspect?: (event: InspectionEvent) => void,
  ) {
    this.inspect = inspect;
    this.config = config;
    this.worker = worker;
    this.log = logger.child({ connector: config.name });
    this.onTaskFailed = onTaskFailed;
    // The runtime does the work itself and reports to the actor; the actor holds the state. No
    // automatic restarts (maxRestarts 0), as in Connect: a failed task waits for an operator restart.
    const noop = () => undefined;
    const machine = createConnectorMachine({
      startConnector: noop,
      pauseConnector: noop,
      resumeConnector: noop,
      stopConnector: noop,
      haltConnector: noop,
      scheduleRestart: noop,
      scheduleTaskRestart: noop,
      taskGaveUp: noop,
      reportFailure: ({ error }) => this.log.error({ error }, 'connector failed'),
    });
    this.connectorActor = createActor(machine, {
      input: { name: config.name, policy: { maxRestarts: 0 } },
      inspect,
    });
    this.connectorActor.start();
  }

  /** `connector.class` as written (Connect's `type` is always `sink` here). */
  get connectorClass(): string {
    return this.config.connectorClass;
  }

  /** Connect's state of the connector instance. */
  get state(): ConnectState {
    if (this.connectorRestart !== undefined) return 'RESTARTING';
    const s = this.connectorActor.getSnapshot();
    if (s.matches({ up: 'paused' })) return 'PAUSED';
    if (s.matches('up')) return 'RUNNING';
    if (s.matches('failed')) return 'FAILED';
    if (s.matches('restarting')) return 'RESTARTING';
    // `halted` is the operator's stop; `stopped` / `stopping` the worker's shutdown: Connect names both
    // STOPPED. `halting` is UNASSIGNED like any instance on its way down.
    if (s.matches('halted') || s.matches('stopped') || s.matches('stopping')) return 'STOPPED';
    return 'UNASSIGNED';
  }

  /** The connector's error, when its state is FAILED. */
  get error(): string | undefined {
    return this.connectorActor.getSnapshot().context.error;
  }

  /** The task configs `taskConfigs()` returned, by task id. */
  get taskConfigs(): ReadonlyArray<Readonly<Record<string, string>>> {
    return this.tasks.map((t) => t.props);
  }

  /** The connector machine's actor and the task machines' actors, for the live view. */
  get actors(): { connector: Actor<ConnectorMachine>; tasks: ReadonlyArray<Actor<TaskMachine>> } {
    return { connector: this.connectorActor, tasks: this.tasks.map((t) => t.actor) };
  }

  get poolThreads(): number {
    return this.pool?.threads ?? 0;
  }

  /** Lock supervision counters (share mode), those of supervisors before an operator stop included. */
  get lockCounters(): Readonly<Record<string, number>> | undefined {
    const now = this.supervisor ? { ...this.supervisor.counters } : undefined;
    if (now === undefined) return this.retiredLocks && { ...this.retiredLocks };
    return this.retiredLocks ? sumCounters([this.retiredLocks, now]) : now;
  }

  /** The operator stopped the connector (Connect's STOPPED): no tasks, no instance, config kept. */
  get isHalted(): boolean {
    const s = this.connectorActor.getSnapshot();
    return s.matches('halted') || s.matches('halting');
  }

  taskMetrics(): TaskMetrics[] {
    return this.tasks.map((t) => {
      const before = this.retired.get(t.id);
      const consumer = t.consumer?.metrics.snapshot();
      return {
        id: t.id,
        state: taskConnectState(t),
        counters: this.countersOf(t),
        inFlight: t.runner.inFlight,
        consumer: consumer && before?.consumer ? sumCounters([before.consumer, consumer]) : consumer,
      };
    });
  }

  /** The task's counters, its instances before restarts included. */
  private countersOf(t: TaskSlot): TaskCountersSnapshot {
    const now = t.runner.counters.snapshot();
    const before = this.retired.get(t.id)?.counters;
    return before ? sumCounters([before, now]) : now;
  }

  /** Connect's status of each task: state and, when FAILED, the error as the trace. */
  taskStates(): Array<{ id: number; state: ConnectState; trace: string | undefined }> {
    return this.tasks.map((t) => {
      const state = taskConnectState(t);
      return { id: t.id, state, trace: state === 'FAILED' ? t.actor.getSnapshot().context.error : undefined };
    });
  }

  /**
   * Stops fetching in every task; batches in flight finish and are acknowledged (share) or committed
   * (classic). Share-mode members stay in the group, so the records they would have fetched go to the
   * other members. Idempotent. A STOPPED connector is started with its tasks paused, as in Connect;
   * the promise resolves once it is up.
   */
  pause(): Promise<void> {
    if (this.isHalted) return this.serially(() => this.startFromHalt(true));
    if (!this.paused) {
      this.paused = true;
      this.connectorActor.send({ type: 'PAUSE' });
      for (const t of this.tasks) this.pauseSlot(t);
      this.log.info('connector paused');
    }
    return Promise.resolve();
  }

  /** Fetches again; a STOPPED connector is started again (new instance, new tasks, new members). */
  resume(): Promise<void> {
    if (this.isHalted) return this.serially(() => this.startFromHalt(false));
    if (this.paused) {
      this.paused = false;
      this.connectorActor.send({ type: 'RESUME' });
      for (const t of this.tasks) {
        t.consumer?.gate.resume();
        t.actor.send({ type: 'RESUME' });
      }
      this.log.info('connector resumed');
    }
    return Promise.resolve();
  }

  /**
   * Connect's `PUT /connectors/{name}/stop` (KIP-875): the tasks stop as at shutdown (running puts
   * finish within the grace time, finished batches are acknowledged or committed, the rest released,
   * the groups left), then the pool and the connector instance; the config stays and `resume()` starts
   * it all again. Resolves once everything has stopped. Stopping a stopped connector changes nothing.
   */
  halt(): Promise<void> {
    return this.serially(async () => {
      if (this.stopping || this.connectorActor.getSnapshot().matches('halted')) return;
      await this.settleRestarts();
      this.connectorActor.send({ type: 'HALT' });
      // before the worker started there is nothing to stop: the machine went straight to `halted`
      if (!this.connectorActor.getSnapshot().matches('halting')) return;
      this.log.info('stopping the connector on request; its config stays');
      try {
        await this.stopInstances();
      } catch (err) {
        // the tasks are stopped; only the connector's own stop() threw, as shutdown would report
        this.log.error({ err }, 'the connector instance failed to stop');
      }
      for (const t of this.tasks) this.retire(t);
      const locks = this.supervisor?.counters;
      if (locks !== undefined)
        this.retiredLocks = this.retiredLocks ? sumCounters([this.retiredLocks, { ...locks }]) : { ...locks };
      this.tasks = [];
      this.pool = undefined;
      this.supervisor = undefined;
      this.connector = undefined;
      this.paused = false;
      this.connectorActor.send({ type: 'HALTED' });
      this.log.info('connector stopped on request (PUT .../resume starts it again)');
    });
  }

  /** Leaves the operator stop: a new connector instance, new tasks (paused if asked), new group members. */
  private async startFromHalt(paused: boolean): Promise<void> {
    const s = this.connectorActor.getSnapshot();
    // the halt this waited for may have ended otherwise, or the worker is shutting down
    if (this.stopping || !s.matches('halted')) return;
    this.paused = paused;
    this.connectorActor.send({ type: paused ? 'PAUSE' : 'RESUME' });
    this.log.info({ paused }, 'starting the stopped connector again');
    try {
      await this.startInstances();
    } catch (err) {
      // the REST answer stays 202, as in Connect; the status shows FAILED with the error as the trace
      this.log.error({ err }, 'the stopped connector failed to start again');
      this.connectorActor.send({ type: 'START_FAILED', error: (err as Error).message });
      return;
    }
    this.connectorActor.send({ type: 'STARTED' });
  }

  /** Runs operator lifecycle steps one at a time, each after the previous one (and the first start). */
  private serially(step: () => Promise<void>): Promise<void> {
    const run = this.lifecycle.then(step);
    this.lifecycle = this.operatorSteps = run.catch(() => undefined);
    return run;
  }

  private async settleRestarts(): Promise<void> {
    await Promise.all(
      [...this.restarts.values(), this.connectorRestart].map((p) => p?.catch(() => undefined)),
    );
  }

  /** Keeps a stopped task instance's counts, so the summary and /metrics still account for its records. */
  private retire(old: TaskSlot): void {
    const before = this.retired.get(old.id);
    const counters = old.runner.counters.snapshot();
    const consumer = old.consumer?.metrics.snapshot();
    this.retired.set(old.id, {
      counters: before ? sumCounters([before.counters, counters]) : counters,
      consumer:
        before?.consumer && consumer
          ? sumCounters([before.consumer, consumer])
          : (consumer ?? before?.consumer),
    });
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /**
   * Connect's `POST /connectors/{name}/restart`: the connector instance (unless `onlyFailed` and it has
   * not failed) and, with `includeTasks`, every task or only the failed ones. Returns at once with the
   * instances marked RESTARTING; the restarts run in the background and are logged.
   */
  restart(options: RestartOptions = {}): { connector: boolean; tasks: number[] } {
    const onlyFailed = options.onlyFailed === true;
    // a STOPPED connector has no instance and no tasks to restart; it stays STOPPED, as in Connect,
    // where a restart keeps the target state
    if (this.stopping || this.isHalted) return { connector: false, tasks: [] };
    const connector = !onlyFailed || this.state === 'FAILED';
    const tasks = options.includeTasks
      ? this.tasks.filter((t) => !onlyFailed || taskConnectState(t) === 'FAILED').map((t) => t.id)
      : [];
    if (connector) {
      this.connectorRestart ??= this.restartConnectorInstance()
        .catch((err: Error) => this.log.error({ err }, 'connector restart failed'))
        .finally(() => (this.connectorRestart = undefined));
    }
    for (const id of tasks) {
      void this.restartTask(id).catch((err: Error) =>
        this.log.error({ err, task: id }, 'task restart failed'),
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
    if (this.tasks[id] === undefined)
      return Promise.reject(new RangeError(`${this.config.name} has no task ${id}`));
    // the operator stop under way stops this task anyway, and no new one may outlive it
    if (this.isHalted) return Promise.resolve();
    let pending = this.restarts.get(id);
    if (pending === undefined) {
      pending = this.replaceTask(id).finally(() => this.restarts.delete(id));
      this.restarts.set(id, pending);
    }
    return pending;
  }

  private async replaceTask(id: number): Promise<void> {
    const old = this.tasks[id]!;
    old.restarting = true;
    this.log.info({ task: id }, 'restarting task');
    try {
      old.consumer?.gate.release();
      if (old.actor.getSnapshot().status === 'active') old.actor.send({ type: 'STOP' });
      // every way out of running / paused / starting stops the runner once, through `stopped`
      await (old.stopped ?? Promise.resolve());
      await this.pool?.stopTask(`${this.config.name}-${id}`);
      // the worker began stopping meanwhile: the old task is stopped, and no new one may outlive stop().
      // It stays in the list, so its counts are counted there, once.
      if (this.stopping || this.isHalted) return;
      this.retire(old);
      const fresh = this.makeTask(id, old.props);
      fresh.restarting = true;
      this.tasks[id] = fresh;
      fresh.actor.start();
      fresh.actor.send({ type: 'ASSIGN' });
      void waitFor(fresh.actor, (s) => s !== 'starting' && s !== 'unassigned').then(
        () => (fresh.restarting = false),
      );
    } finally {
      old.restarting = false;
    }
  }

  private async restartConnectorInstance(): Promise<void> {
    const connector = this.connector;
    if (connector === undefined) return;
    this.log.info('restarting the connector instance');
    const failed = this.connectorActor.getSnapshot().matches('failed');
    if (failed) this.connectorActor.send({ type: 'RESTART' });
    try {
      await connector.stop();
      await connector.start(this.config.raw);
    } catch (err) {
      if (failed) this.connectorActor.send({ type: 'START_FAILED', error: (err as Error).message });
      throw err;
    }
    if (failed) this.connectorActor.send({ type: 'STARTED' });
  }

  private pauseSlot(t: TaskSlot): void {
    // the gate holds back fetches even while the task is still starting; the actor follows once running
    t.consumer?.gate.pause();
    t.actor.send({ type: 'PAUSE' });
  }

  start(): Promise<void> {
    const started = this.lifecycle.then(async () => {
      // stopped over REST before the worker started: it stays STOPPED until resumed
      if (this.isHalted) {
        this.log.info('connector is stopped; not starting it (PUT .../resume starts it)');
        return;
      }
      this.connectorActor.send({ type: 'START' });
      try {
        await this.startInstances();
      } catch (err) {
        this.connectorActor.send({ type: 'START_FAILED', error: (err as Error).message });
        throw err;
      }
      this.connectorActor.send({ type: 'STARTED' });
    });
    this.lifecycle = started.catch(() => undefined);
    return started;
  }

  private async startInstances(): Promise<void> {
    const c = this.config;
    for (const w of c.warnings) this.log.warn({ note: w }, 'configuration note');
    const module = await loadConnectorModule(c.connectorModule);
    const connector = new module.connector();
    connector.initialize({
      requestTaskReconfiguration: () =>
        this.log.warn('the connector asked for task reconfiguration; restart the worker to apply it'),
      raiseError: (err) => this.log.error({ err }, 'connector raised an error'),
    });
    const problems = connectorOwnProblems(connector, c);
    if (problems.length > 0) throw new ConfigError(problems);
    // custom transform modules are imported and configured once here, so a bad one fails the start
    // instead of every task (built-ins were already checked when the config was compiled)
    (await TransformChain.load(c.transforms)).close();
    await connector.start(c.raw);
    this.connector = connector;
    const taskConfigs = (await connector.taskConfigs(c.tasksMax)).slice(0, c.tasksMax);
    if (c.groupProtocol === 'share' && Object.keys(c.shareGroupConfigs).length > 0) {
      await this.applyShareGroupConfigs();
    }
    if (c.groupProtocol === 'share') await applyShareStartPosition(c, this.worker, this.log);
    this.pool = new PutPool({
      connectorModule: c.connectorModule,
      threads: Math.max(1, this.worker.poolThreads),
      putsPerThread: this.worker.poolPutsPerThread,
      abortGraceMs: this.worker.poolAbortGraceMs,
      logger: this.log,
    });
    if (c.groupProtocol === 'share') {
      this.supervisor = new LockSupervisor({
        logger: this.log,
        putTimeoutMs: c.putTimeoutMs,
        renewFraction: c.renewFraction,
      });
    }
    this.tasks = taskConfigs.map((props, id) => this.makeTask(id, props));
    for (const t of this.tasks) t.actor.start();
    for (const t of this.tasks) t.actor.send({ type: 'ASSIGN' });
    await Promise.all(this.tasks.map((t) => waitFor(t.actor, (s) => s !== 'starting' && s !== 'unassigned')));
    const failed = this.tasks.filter((t) => t.actor.getSnapshot().value === 'failed');
    if (failed.length === this.tasks.length && failed.length > 0) {
      throw new Error(
        `${c.name}: every task failed to start: ${failed[0]!.actor.getSnapshot().context.error}`,
      );
    }
    this.log.info(
      { mode: c.groupProtocol, groupId: c.groupId, tasks: this.tasks.length, topics: c.topics },
      'connector started',
    );
  }

  /** Stops every task (graceful: puts finish, acks sent, the rest released), the pool and the connector. */
  async stop(): Promise<void> {
    this.stopping = true;
    // an operator stop or start under way finishes first, so nothing it starts outlives this
    await this.operatorSteps;
    await this.settleRestarts();
    this.connectorActor.send({ type: 'STOP' });
    await this.stopInstances();
    // from created, halted, restarting or failed, STOP already ended the machine: nothing to answer
    if (this.connectorActor.getSnapshot().status === 'active') this.connectorActor.send({ type: 'STOPPED' });
    this.log.info('connector stopped');
  }

  private async stopInstances(): Promise<void> {
    await Promise.all(
      this.tasks.map(async (t) => {
        t.consumer?.gate.release();
        if (t.actor.getSnapshot().status === 'active') t.actor.send({ type: 'STOP' });
        await t.stopped;
      }),
    );
    await this.pool?.close();
    this.supervisor?.close();
    await this.connector?.stop();
  }

  summary(): ConnectorSummary {
    // tasks gone with an operator stop (and not back) still count
    const gone = [...this.retired].filter(([id]) => this.tasks[id] === undefined).map(([, r]) => r.counters);
    const counters = sumCounters([...this.tasks.map((t) => this.countersOf(t)), ...gone]);
    return {
      name: this.config.name,
      mode: this.config.groupProtocol,
      groupId: this.config.groupId,
      tasks: this.tasks.map((t) => {
        const s = t.actor.getSnapshot();
        return { id: t.id, state: String(s.value), error: s.context.error };
      }),
      counters,
      locks: this.supervisor ? { ...this.supervisor.counters } : undefined,
    };
  }

  get inFlight(): number {
    return this.tasks.reduce((n, t) => n + t.runner.inFlight, 0);
  }

  private makeTask(id: number, props: Record<string, string>): TaskSlot {
    const c = this.config;
    const logger = this.log;
    let fail: (error: string) => void = () => undefined;
    const { runner, consumer } = this.makeRunner(id, props, (err) => fail(err.message));
    if (this.paused) consumer?.gate.pause();
    const slot: TaskSlot = {
      id,
      props,
      runner,
      consumer,
      actor: undefined as unknown as Actor<TaskMachine>,
      stopped: undefined,
      restarting: false,
    };
    const stopOnce = () =>
      (slot.stopped ??= runner
        .stop()
        .catch((err: Error) => logger.error({ err, task: id }, 'task stop failed')));
    const machine = createTaskMachine({
      startTask: () => {
        // classic mode: paused before the group join, so a task created paused fetches nothing at all
        if (this.paused) runner.pause?.();
        runner.start().then(
          () => {
            slot.actor.send({ type: 'STARTED' });
            if (this.paused) this.pauseSlot(slot);
          },
          (err: Error) => {
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
        this.onTaskFailed(c.name, id, error);
      },
    });
    const actor = createActor(machine, { input: { connector: c.name, taskId: id }, inspect: this.inspect });
    actor.subscribe({ error: (err) => logger.error({ err, task: id }, 'task actor error') });
    (slot as { actor: Actor<TaskMachine> }).actor = actor;
    fail = (error) => {
      if (actor.getSnapshot().status === 'active') actor.send({ type: 'FAIL', error });
      void stopOnce();
    };
    return slot;
  }

  private makeRunner(
    id: number,
    props: Record<string, string>,
    onFailure: (e: Error) => void,
  ): { runner: TaskRunner; consumer: GatedShareConsumer | undefined } {
    const c = this.config;
    const poolTask = { id: `${c.name}-${id}`, props, converters: c.converters, transforms: c.transforms };
    const common = {
      connector: c.name,
      taskId: id,
      topics: c.topics,
      pool: this.pool!,
      poolTask,
      logger: this.log,
      errorsTolerance: c.errors.tolerance,
      retryDelayMaxMs: c.errors.retryDelayMaxMs,
      shutdownGraceMs: this.worker.shutdownGraceMs,
      onFailure,
      inspect: this.inspect,
    };
    if (c.groupProtocol === 'classic')
      return { runner: createClassicRunner(c, this.worker, common), consumer: undefined };
    const consumer = new GatedShareConsumer({
      brokers: this.worker.bootstrapServers,
      groupId: c.groupId,
      clientId: `${this.worker.clientId}-${c.name}-${id}`,
      logger: this.log.child({ task: id }),
      maxRecords: numberOr(c.consumer['max.poll.records'], 500),
      fetchMaxWaitMs: numberOr(c.consumer['fetch.max.wait.ms'], 500),
    });
    const runner = new ShareTaskRunner({
      ...common,
      consumer,
      supervisor: this.supervisor!,
      maxInFlightBatches: c.maxInFlightBatches,
      maxPollRecords: numberOr(c.consumer['max.poll.records'], 500),
      lockRenewal: c.lockRenewal,
      retriableAction: c.retriableAction,
      errorsLog: { enable: c.errors.logEnable, includeMessages: c.errors.logIncludeMessages },
      retryTimeoutMs: c.errors.retryTimeoutMs,
    });
    return { runner, consumer };
  }

  private async applyShareGroupConfigs(): Promise<void> {
    const cluster = new KafkaCluster({
      brokers: this.worker.bootstrapServers,
      clientId: `${this.worker.clientId}-admin`,
      logger: this.log,
    });
    try {
      await cluster.alterGroupConfigs(this.config.groupId, this.config.shareGroupConfigs);
      this.log.info(
        { groupId: this.config.groupId, configs: this.config.shareGroupConfigs },
        'share group configured',
      );
    } finally {
      await cluster.close();
    }
  }
}

function numberOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** Adds counter snapshots up; `…Max` fields take the largest, `…Last` the latest. */
function sumCounters<T extends object>(list: readonly T[]): T {
  const total: Record<string, number> = {};
  for (const c of list) {
    for (const [k, v] of Object.entries(c) as Array<[string, number]>) {
      if (k.endsWith('Max')) total[k] = Math.max(total[k] ?? 0, v);
      else if (k.endsWith('Last')) total[k] = v;
      else total[k] = (total[k] ?? 0) + v;
    }
  }
  return total as T;
}

function waitFor(actor: Actor<TaskMachine>, done: (state: string) => boolean): Promise<void> {
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
