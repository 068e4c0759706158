/**
 * One running connector, driven by its connector machine (`src/machines/connector.ts`): the machine
 * holds the lifecycle and its effects do the work (start the instance and the tasks, pause and resume
 * them, restart the instance, stop for shutdown, stop for an operator). What the work needs is split by
 * job under `connector/`: the instance and its pool (`instance.ts`), the task factory that picks share
 * or classic mode (`task-factory.ts`), the task slots (`task-slots.ts`), the counts that outlive
 * restarts (`counters-ledger.ts`), the REST controls (`operator-controls.ts`), the topics the tasks
 * have handled records of (`active-topics.ts`) and the queue the slow effects run on
 * (`lifecycle-jobs.ts`). ADR 0008 says why.
 */
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { createConnectorMachine, type ConnectorEvent, type ConnectorMachine } from '../machines/connector.js';
import type { TaskMachine } from '../machines/task.js';
import { ActiveTopics } from './connector/active-topics.js';
import { CountersLedger, sumCounters } from './connector/counters-ledger.js';
import { closeInstance, startInstance, type ConnectorInstance } from './connector/instance.js';
import { LifecycleJobs } from './connector/lifecycle-jobs.js';
import { isHalted, OperatorControls } from './connector/operator-controls.js';
import { taskFactory } from './connector/task-factory.js';
import { failureTrace, TaskSlots } from './connector/task-slots.js';
import type { ConnectState, ConnectorSummary, RestartOptions, TaskMetrics } from './connector/types.js';

export type {
  ConnectState,
  ConnectorSummary,
  RestartOptions,
  TaskMetrics,
  TaskRunner,
  TaskStatus,
} from './connector/types.js';

export interface ConnectorRuntimeOptions {
  /**
   * Distributed mode: the task ids this worker runs (the others run on other workers). Default: every
   * task `taskConfigs(tasks.max)` returns, as standalone runs them.
   */
  readonly taskIds?: readonly number[];
  /**
   * Distributed mode: hears each topic the first time this worker's tasks put records of it (after the
   * start or a reset read back), to record it in the status topic for every worker to answer from.
   */
  readonly onActiveTopic?: (topic: string, task: number) => void;
  /**
   * Hears each task that runs after a start or a restart: a failure recorded under its id (by
   * `onTaskFailed`) is over, so the worker's failure list and exit code no longer count it.
   */
  readonly onTaskRunning?: (connector: string, taskId: number) => void;
}

export class ConnectorRuntime {
  readonly config: ConnectorConfig;
  private readonly worker: WorkerConfig;
  private readonly log: Logger;
  private readonly inspect: ((event: InspectionEvent) => void) | undefined;
  private readonly actor: Actor<ConnectorMachine>;
  private readonly jobs = new LifecycleJobs();
  private readonly ledger = new CountersLedger();
  private readonly slots: TaskSlots;
  private readonly controls: OperatorControls;
  /** KIP-558's active topics; kept across restarts and stops, as Connect keeps them; off: undefined. */
  private readonly topics: ActiveTopics | undefined;
  /** The connector instance, pool and supervisor of the current start (kept after shutdown, for counts). */
  private instance: ConnectorInstance | undefined;
  /** The job the effect of the event being sent started (read right after `send`). */
  private started: Promise<void> | undefined;
  /** The shutdown's work, once STOP asked for it. */
  private stopping: Promise<void> | undefined;
  /** The worker's `start()` is sending START: the job it starts is not an operator's. */
  private workerStarting = false;
  private taskIds: readonly number[] | undefined;

  /** @internal made by the Worker */
  constructor(
    config: ConnectorConfig,
    worker: WorkerConfig,
    logger: Logger,
    onTaskFailed: (name: string, taskId: number, error: string, cause: Error | undefined) => void = () =>
      undefined,
    inspect?: (event: InspectionEvent) => void,
    options: ConnectorRuntimeOptions = {},
  ) {
    this.inspect = inspect;
    this.taskIds = options.taskIds;
    this.config = config;
    this.worker = worker;
    this.log = logger.child({ connector: config.name });
    this.topics =
      worker.topicTrackingEnable === false
        ? undefined
        : new ActiveTopics({
            listed: config.topicsRegex === undefined ? config.topics : undefined,
            onNew: options.onActiveTopic,
          });
    this.slots = new TaskSlots({
      connector: config.name,
      logger: this.log,
      inspect,
      ledger: this.ledger,
      paused: () => this.actor.getSnapshot().context.paused,
      onTaskFailed: (taskId, error, cause) => onTaskFailed(config.name, taskId, error, cause),
      onTaskRunning: (taskId) => options.onTaskRunning?.(config.name, taskId),
    });
    const machine = createConnectorMachine({
      startConnector: () => this.queue(() => this.startAll()),
      restartConnector: () => this.queue(() => this.restartInstance()),
      pauseConnector: () => {
        this.slots.pauseAll();
        this.log.info('connector paused');
      },
      resumeConnector: () => {
        this.slots.resumeAll();
        this.log.info('connector resumed');
      },
      stopConnector: () => (this.stopping = this.shutdown()),
      haltConnector: () => this.queue(() => this.haltAll()),
      reportFailure: ({ error }) => this.log.error({ error }, 'connector failed'),
    });
    this.actor = createActor(machine, { input: { name: config.name }, inspect });
    this.actor.start();
    this.controls = new OperatorControls({
      name: config.name,
      log: this.log,
      slots: this.slots,
      jobs: this.jobs,
      connectState: () => this.state,
      snapshot: () => this.actor.getSnapshot(),
      act: (event) => this.act(event),
    });
  }

  /** `connector.class` as written (Connect's `type` is always `sink` here). */
  get connectorClass(): string {
    return this.config.connectorClass;
  }

  /** Connect's state of the connector instance. */
  get state(): ConnectState {
    const s = this.actor.getSnapshot();
    if (s.matches('restarting')) return 'RESTARTING';
    if (s.matches({ up: 'paused' })) return 'PAUSED';
    if (s.matches('up')) return 'RUNNING';
    if (s.matches('failed')) return 'FAILED';
    // `halted` is the operator's stop; `stopped` / `stopping` the worker's shutdown: Connect names both
    // STOPPED. `halting` is UNASSIGNED like any instance on its way down.
    if (s.matches('halted') || s.matches('stopped') || s.matches('stopping')) return 'STOPPED';
    return 'UNASSIGNED';
  }

  /** The connector's error when its state is FAILED, led by its code when it is a SharesinkError. */
  get error(): string | undefined {
    return this.actor.getSnapshot().context.error;
  }

  /** The task configs `taskConfigs()` returned, by task id. */
  get taskConfigs(): ReadonlyArray<Readonly<Record<string, string>>> {
    return this.slots.configs;
  }

  /** @internal The connector machine's actor and the task machines' actors, for the live view. */
  get actors(): { connector: Actor<ConnectorMachine>; tasks: ReadonlyArray<Actor<TaskMachine>> } {
    return { connector: this.actor, tasks: this.slots.actors };
  }

  get poolThreads(): number {
    return this.instance?.pool.threads ?? 0;
  }

  /** Lock supervision counters (share mode), those of supervisors before an operator stop included. */
  get lockCounters(): Readonly<Record<string, number>> | undefined {
    return this.ledger.lockCounters(this.instance?.supervisor?.counters);
  }

  /** Age of the oldest acquisition lock the tasks hold now (share mode), 0 when none. */
  get oldestLockAgeMs(): number {
    const supervisor = this.instance?.supervisor;
    const at = supervisor?.oldestAcquiredAt();
    return supervisor === undefined || at === undefined ? 0 : Math.max(0, supervisor.now() - at);
  }

  /** The operator stopped the connector (Connect's STOPPED): no tasks, no instance, config kept. */
  get isHalted(): boolean {
    return isHalted(this.actor.getSnapshot());
  }

  /** The operator's target is PAUSED (Connect's target state). */
  get isPaused(): boolean {
    return this.actor.getSnapshot().context.paused;
  }

  get inFlight(): number {
    return this.slots.inFlight;
  }

  /** The topics the tasks have put records of since the start or the last reset, sorted (KIP-558). */
  activeTopics(): string[] {
    return this.topics?.topics() ?? [];
  }

  /** `PUT /connectors/{name}/topics/reset`: the next puts fill the set again. */
  resetActiveTopics(): void {
    this.topics?.reset();
  }

  /** Distributed mode: a reset read back from the status topic; the next put of `topic` reports it again. */
  forgetActiveTopic(topic: string): void {
    this.topics?.forget(topic);
  }

  taskMetrics(): TaskMetrics[] {
    return this.slots.metrics();
  }

  /** Connect's status of each task: state and, when FAILED, the error as the trace. */
  taskStates(): Array<{ id: number; state: ConnectState; trace: string | undefined }> {
    return this.slots.states();
  }

  pause(): Promise<void> {
    return this.controls.pause();
  }

  resume(): Promise<void> {
    return this.controls.resume();
  }

  halt(): Promise<void> {
    return this.controls.halt();
  }

  restart(options: RestartOptions = {}): { connector: boolean; tasks: number[] } {
    return this.controls.restart(options);
  }

  restartTask(id: number): Promise<void> {
    return this.controls.restartTask(id);
  }

  /**
   * Distributed mode: runs tasks `ids` from now on, starting the new ones and stopping the ones no
   * longer listed; the others go on untouched. False when the connector is not up (starting, failed,
   * stopped) or was not made with `taskIds`: the caller starts a runtime afresh instead.
   */
  async setTaskIds(ids: readonly number[]): Promise<boolean> {
    if (this.taskIds === undefined) return false;
    let done = false;
    await this.jobs.run(
      async () => {
        const instance = this.instance;
        if (!this.actor.getSnapshot().matches('up') || instance === undefined) return;
        const current = this.slots.ids();
        await this.slots.remove(current.filter((id) => !ids.includes(id)));
        await this.slots.add(
          ids.filter((id) => !current.includes(id)),
          instance.taskConfigs,
        );
        this.taskIds = [...ids];
        done = true;
      },
      { byOperator: true },
    );
    return done;
  }

  /** The worker's start: resolves once the tasks run, rejects with the reason the start failed. */
  start(): Promise<void> {
    // stopped over REST before the worker started: it stays STOPPED until resumed
    if (this.isHalted) {
      this.log.info('connector is stopped; not starting it (PUT .../resume starts it)');
      return Promise.resolve();
    }
    this.workerStarting = true;
    try {
      return this.act({ type: 'START' }) ?? Promise.resolve();
    } finally {
      this.workerStarting = false;
    }
  }

  /** Stops every task (graceful: puts finish, acks sent, the rest released), the pool and the connector. */
  async stop(): Promise<void> {
    // from created or halted nothing runs, and STOP ends the machine at once
    this.act({ type: 'STOP' });
    await this.stopping;
    this.log.info('connector stopped');
  }

  summary(): ConnectorSummary {
    const { tasks, counters } = this.slots.summaries();
    // tasks gone with an operator stop (and not back) still count
    const gone = this.ledger.goneTasks((id) => this.slots.has(id));
    const supervisor = this.instance?.supervisor;
    return {
      name: this.config.name,
      mode: this.config.groupProtocol,
      groupId: this.config.groupId,
      tasks,
      counters: sumCounters([...counters, ...gone]),
      locks: supervisor ? { ...supervisor.counters } : undefined,
    };
  }

  /** Sends the machine an event; answers the job its effect started, if it started one. */
  private act(event: ConnectorEvent): Promise<void> | undefined {
    this.started = undefined;
    this.actor.send(event);
    const job = this.started;
    this.started = undefined;
    return job;
  }

  /** Effects that take time run as jobs, one after another; `act()` hands the job to its caller. */
  private queue(step: () => Promise<void>): void {
    this.started = this.jobs.run(step, { byOperator: !this.workerStarting });
  }

  /** `startConnector`: the instance, then the tasks; gives up as soon as the machine left `starting`. */
  private async startAll(): Promise<void> {
    const wanted = () => this.actor.getSnapshot().matches('starting');
    try {
      // a RESTART of a failed connector: what the failed start left goes first, its counts kept; an
      // instance that cannot even stop must not keep the new one from starting
      await this.tearDown({ retire: true }).catch((err: Error) =>
        this.log.error({ err }, 'what the failed start left failed to stop'),
      );
      if (!wanted()) return;
      const instance = await startInstance(this.config, this.worker, this.log, wanted);
      if (instance === undefined) return;
      this.instance = instance;
      const factory = taskFactory({
        config: this.config,
        worker: this.worker,
        logger: this.log,
        pool: instance.pool,
        supervisor: instance.supervisor,
        deliveryLimit: instance.deliveryLimit,
        inspect: this.inspect,
        activeTopics: this.topics,
      });
      // threads that cannot boot or load the connector module fail the start with their reason; the
      // tasks join meanwhile and stop again then (their puts wait for the threads: none ran)
      const poolStarted = instance.pool.started().catch(async (err: unknown) => {
        await this.slots.stopAll();
        throw err;
      });
      await Promise.all([
        poolStarted,
        this.slots.start(factory, instance.pool, instance.taskConfigs, this.taskIds),
      ]);
    } catch (err) {
      this.actor.send({ type: 'START_FAILED', error: failureTrace(err) });
      throw err;
    }
    if (!wanted()) return;
    const c = this.config;
    this.log.info(
      { mode: c.groupProtocol, groupId: c.groupId, tasks: this.slots.size, topics: c.topics },
      'connector started',
    );
    this.actor.send({ type: 'STARTED' });
  }

  /** `restartConnector`: the instance stops and starts again; the tasks go on. */
  private async restartInstance(): Promise<void> {
    const connector = this.instance?.connector;
    this.log.info('restarting the connector instance');
    try {
      await connector?.stop();
      await connector?.start(this.config.raw);
    } catch (err) {
      this.actor.send({ type: 'START_FAILED', error: failureTrace(err) });
      throw err;
    }
    this.actor.send({ type: 'STARTED' });
  }

  /** `haltConnector` (Connect's STOPPED): tasks stop as at shutdown, then the pool and the instance. */
  private async haltAll(): Promise<void> {
    await this.slots.settleRestarts();
    this.log.info('stopping the connector on request; its config stays');
    try {
      await this.tearDown({ retire: true });
    } catch (err) {
      // the tasks are stopped; only the connector's own stop() threw, as shutdown would report
      this.log.error({ err }, 'the connector instance failed to stop');
    }
    this.actor.send({ type: 'HALTED' });
    this.log.info('connector stopped on request (PUT .../resume starts it again)');
  }

  /**
   * `stopConnector`: waits for operator steps and task restarts under way (nothing they start may
   * outlive the shutdown), but not for the worker's first start, whose next step sees the machine
   * `stopping` and gives up; then stops what runs. The instance stays, for the summary's lock counts.
   */
  private async shutdown(): Promise<void> {
    await this.jobs.operatorIdle();
    await this.slots.settleRestarts();
    await this.tearDown({ retire: false });
    if (this.actor.getSnapshot().status === 'active') this.actor.send({ type: 'STOPPED' });
  }

  /**
   * Stops the tasks, then the pool, the supervisor and the instance. With `retire`, the tasks and the
   * instance are forgotten and their counts kept in the ledger (an operator stop, a fresh start).
   */
  private async tearDown({ retire }: { retire: boolean }): Promise<void> {
    await this.slots.stopAll();
    const instance = this.instance;
    if (retire) {
      this.slots.retireAll();
      if (instance?.supervisor) this.ledger.retireLocks(instance.supervisor.counters);
      this.instance = undefined;
    }
    if (instance !== undefined) await closeInstance(instance);
  }
}
