/**
 * One running connector: its SinkConnector instance (main thread), its put pool, its lock supervisor,
 * and one task runner per task config. Share or classic mode is chosen here from the compiled config,
 * and nowhere else: everything from the batch actor rightwards is the same code.
 */
import { createActor, type Actor, type InspectionEvent } from 'xstate';
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import { loadConnectorModule } from '../connect/connector-module.js';
import type { SinkConnector } from '../connect/sink-connector.js';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { KafkaCluster } from '../kafka/cluster.js';
import { ShareConsumer } from '../kafka/share/share-consumer.js';
import { createTaskMachine, type TaskMachine } from '../machines/task.js';
import { PutPool } from '../pool/put-pool.js';
import { ShareTaskRunner } from './share-task-runner.js';
import { LockSupervisor } from './supervisor.js';
import type { TaskCountersSnapshot } from './task-counters.js';
import { createClassicRunner } from './classic-runner-factory.js';

/** What the connector runtime needs of a task runner, in either mode. */
export interface TaskRunner {
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly inFlight: number;
  readonly counters: { snapshot(): TaskCountersSnapshot };
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
  readonly runner: TaskRunner;
  readonly actor: Actor<TaskMachine>;
  stopped: Promise<void> | undefined;
}

export class ConnectorRuntime {
  readonly config: ConnectorConfig;
  private readonly worker: WorkerConfig;
  private readonly log: Logger;
  private connector: SinkConnector | undefined;
  private pool: PutPool | undefined;
  private supervisor: LockSupervisor | undefined;
  private tasks: TaskSlot[] = [];
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
  }

  async start(): Promise<void> {
    const c = this.config;
    for (const w of c.warnings) this.log.warn({ note: w }, 'configuration note');
    const module = await loadConnectorModule(c.connectorModule);
    const connector = new module.connector();
    connector.initialize({
      requestTaskReconfiguration: () =>
        this.log.warn('the connector asked for task reconfiguration; restart the worker to apply it'),
      raiseError: (err) => this.log.error({ err }, 'connector raised an error'),
    });
    const problems = connector.validate(c.raw);
    if (problems.size > 0) {
      throw new ConfigError(
        [...problems].flatMap(([key, list]) => list.map((p) => `${c.name}: ${key}: ${p}`)),
      );
    }
    await connector.start(c.raw);
    this.connector = connector;
    const taskConfigs = (await connector.taskConfigs(c.tasksMax)).slice(0, c.tasksMax);
    if (c.groupProtocol === 'share' && Object.keys(c.shareGroupConfigs).length > 0) {
      await this.applyShareGroupConfigs();
    }
    this.pool = new PutPool({
      connectorModule: c.connectorModule,
      threads: Math.max(1, this.worker.poolThreads),
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
    await Promise.all(
      this.tasks.map(async (t) => {
        if (t.actor.getSnapshot().status === 'active') t.actor.send({ type: 'STOP' });
        await t.stopped;
      }),
    );
    await this.pool?.close();
    this.supervisor?.close();
    await this.connector?.stop();
    this.log.info('connector stopped');
  }

  summary(): ConnectorSummary {
    const counters = sumCounters(this.tasks.map((t) => t.runner.counters.snapshot()));
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
    const runner = this.makeRunner(id, props, (err) => fail(err.message));
    const slot: TaskSlot = {
      id,
      runner,
      actor: undefined as unknown as Actor<TaskMachine>,
      stopped: undefined,
    };
    const stopOnce = () =>
      (slot.stopped ??= runner
        .stop()
        .catch((err: Error) => logger.error({ err, task: id }, 'task stop failed')));
    const machine = createTaskMachine({
      startTask: () => {
        runner.start().then(
          () => slot.actor.send({ type: 'STARTED' }),
          (err: Error) => {
            slot.actor.send({ type: 'START_FAILED', error: err.message });
            void stopOnce();
          },
        );
      },
      pauseTask: () => undefined,
      resumeTask: () => undefined,
      stopTask: () => {
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

  private makeRunner(id: number, props: Record<string, string>, onFailure: (e: Error) => void): TaskRunner {
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
    if (c.groupProtocol === 'classic') return createClassicRunner(c, this.worker, common);
    const consumer = new ShareConsumer({
      brokers: this.worker.bootstrapServers,
      groupId: c.groupId,
      clientId: `${this.worker.clientId}-${c.name}-${id}`,
      logger: this.log.child({ task: id }),
      maxRecords: numberOr(c.consumer['max.poll.records'], 500),
      fetchMaxWaitMs: numberOr(c.consumer['fetch.max.wait.ms'], 500),
    });
    return new ShareTaskRunner({
      ...common,
      consumer,
      supervisor: this.supervisor!,
      maxInFlightBatches: c.maxInFlightBatches,
      lockRenewal: c.lockRenewal,
      retriableAction: c.retriableAction,
      errorsLog: { enable: c.errors.logEnable, includeMessages: c.errors.logIncludeMessages },
      retryTimeoutMs: c.errors.retryTimeoutMs,
    });
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

function sumCounters(list: readonly TaskCountersSnapshot[]): TaskCountersSnapshot {
  const total: Record<string, number> = {};
  for (const c of list) {
    for (const [k, v] of Object.entries(c)) {
      total[k] = k === 'putMsMax' ? Math.max(total[k] ?? 0, v) : (total[k] ?? 0) + v;
    }
  }
  return total as unknown as TaskCountersSnapshot;
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
