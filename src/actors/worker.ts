/**
 * The process-level root: runs connectors, reports their state, and shuts down gracefully.
 *
 * Shutdown order matters for delivery: stop fetching, let running puts finish within the grace time,
 * acknowledge what finished, release what did not (so other members take it at once), leave the groups,
 * then stop the pools and connectors.
 */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { defaultLogger, notice } from '../logger.js';
import { createActorCensus, type ActorCensus } from '../observability/actor-census.js';
import { createRuntimeInspector } from '../observability/runtime-inspector.js';
import { createTransitionCounter, type TransitionCounter } from '../observability/transition-counter.js';
import type { TransitionCount } from '../observability/transition-count.js';
import { describeUnusedSettings } from '../config/connect-worker-keys.js';
import { ConfigError, SharesinkError, isSharesinkError, type SharesinkErrorCode } from '../errors.js';
import { healthReport, type HealthReport } from './health.js';
import { checkClusterForConnectors } from './cluster-check.js';
import { checkConnectorCode, connectorProblems, reportConnectorNotes } from './connector-checks.js';
import { ConnectorRuntime, type ConnectorSummary } from './connector-runtime.js';

export interface WorkerOptions {
  readonly worker: WorkerConfig;
  /** The connectors to run; their names must be unique. */
  readonly connectors: readonly ConnectorConfig[];
  /** Where the worker logs (pino). Default: JSON lines on stderr at `log.level` (SHARESINK_LOG_LEVEL wins). */
  readonly logger?: Logger;
  /**
   * Look at the cluster once in `start()`, before any connector starts: an unreachable
   * `bootstrap.servers` (after `bootstrap.timeout.ms`), a missing topic, share groups turned off or a
   * refused topic or group rejects `start()` with its typed error. Default true.
   */
  readonly checkCluster?: boolean;
  /** Told of each task that fails for good, when it fails (what {@link Worker.taskFailures} lists). */
  readonly onTaskFailed?: (failure: TaskFailure) => void;
  /**
   * Told of each failed task that runs again after a successful restart (REST, `restartTask(id)`,
   * or a restart of its connector); its failure has left {@link Worker.taskFailures} by then.
   */
  readonly onTaskRecovered?: (task: { readonly connector: string; readonly taskId: number }) => void;
}

/** Connect's target state of a connector added at runtime (KIP-980's `initial_state`). */
export type TargetState = 'STARTED' | 'PAUSED' | 'STOPPED';

/** A task that stopped for good: `errors.tolerance=none` and a fatal error, or a task that could not start. */
export interface TaskFailure {
  readonly connector: string;
  readonly taskId: number;
  /** What the task's trace says: the failure's message. */
  readonly error: string;
  /** The failure's code when it is a SharesinkError (mostly `SHARESINK_TASK_FAILED`), else `SHARESINK_TASK_FAILED`. */
  readonly code: SharesinkErrorCode;
  /** The error the task failed with, when there is one (a TaskFailedError's own `cause` is the put's error). */
  readonly cause: Error | undefined;
}

export interface WorkerSummary {
  readonly startedAt: string;
  readonly stoppedAt: string | undefined;
  readonly connectors: readonly ConnectorSummary[];
  /** Machine transitions by (machine, from, to), counted by the inspection hook. */
  readonly transitions: readonly TransitionCount[];
}

export class Worker {
  /** The compiled worker settings (the REST API's validate endpoint compiles connector configs against them). */
  readonly config: WorkerConfig;
  private readonly log: Logger;
  /** The embedder's logger, for what binds its own `component` (the cluster check). */
  private readonly rootLog: Logger;
  private readonly runtimes: ConnectorRuntime[];
  private readonly runtimeFor: (config: ConnectorConfig) => ConnectorRuntime;
  readonly startedAt = new Date();
  private stoppedAt: Date | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly checkCluster: boolean;
  private readonly failures: TaskFailure[] = [];
  private readonly transitions = createTransitionCounter();
  private readonly census = createActorCensus();

  /** @throws ConfigError when two connectors share a name. */
  constructor(options: WorkerOptions) {
    const names = options.connectors.map((c) => c.name);
    const twice = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
    if (twice.length > 0)
      throw new ConfigError(
        twice.map((n) => `name: two connectors are named ${JSON.stringify(n)}; names must be unique`),
      );
    this.checkCluster = options.checkCluster ?? true;
    // one hook feeds both: transition counts (summary, /metrics) and live actors per state (/machines)
    const inspect = createRuntimeInspector(this.transitions, this.census);
    this.config = options.worker;
    const logger = options.logger ?? defaultLogger(options.worker.logLevel);
    this.rootLog = logger;
    this.log = logger.child({ component: 'worker' });
    this.runtimeFor = (c) =>
      new ConnectorRuntime(
        c,
        options.worker,
        // not this.log: the runtime's pool and Kafka clients bind their own `component`
        logger,
        (connector, taskId, error, cause) =>
          this.taskFailed(
            {
              connector,
              taskId,
              error,
              code: isSharesinkError(cause) ? cause.code : 'SHARESINK_TASK_FAILED',
              cause,
            },
            options.onTaskFailed,
          ),
        inspect,
        {
          onTaskRunning: (connector, taskId) => this.taskRunning(connector, taskId, options.onTaskRecovered),
        },
      );
    this.runtimes = options.connectors.map(this.runtimeFor);
  }

  /**
   * Runs one more connector (Connect's standalone `POST /connectors`; kept in memory only). Its code
   * checks its settings first (a ConfigError lists every problem); it starts at once when the worker
   * runs, else with the worker. `STOPPED` keeps it stopped, `PAUSED` pauses it once started.
   */
  async addConnector(
    config: ConnectorConfig,
    initialState: TargetState = 'STARTED',
  ): Promise<ConnectorRuntime> {
    this.mustRun();
    if (this.connector(config.name) !== undefined)
      throw new ConfigError([`name: a connector named ${JSON.stringify(config.name)} runs already`]);
    await this.checkNew(config);
    const runtime = this.runtimeFor(config);
    this.runtimes.push(runtime);
    await this.launch(runtime, initialState);
    return runtime;
  }

  /**
   * Stops a connector and runs it again with `config` in the same place (Connect's standalone
   * `PUT /connectors/{name}/config`); a paused or stopped connector stays so.
   */
  async replaceConnector(config: ConnectorConfig): Promise<ConnectorRuntime> {
    this.mustRun();
    const old = this.runtimes.findIndex((r) => r.config.name === config.name);
    if (old < 0) return this.addConnector(config);
    await this.checkNew(config);
    const previous = this.runtimes[old]!;
    const state: TargetState = previous.isHalted ? 'STOPPED' : previous.isPaused ? 'PAUSED' : 'STARTED';
    await previous.stop();
    const runtime = this.runtimeFor(config);
    this.runtimes[old] = runtime;
    await this.launch(runtime, state);
    return runtime;
  }

  /** Stops a connector and forgets it (Connect's standalone `DELETE /connectors/{name}`). */
  async removeConnector(name: string): Promise<void> {
    const i = this.runtimes.findIndex((r) => r.config.name === name);
    if (i < 0) return;
    const [runtime] = this.runtimes.splice(i, 1);
    await runtime!.stop();
  }

  private mustRun(): void {
    if (this.stopping !== undefined)
      throw new SharesinkError(
        'SHARESINK_WORKER_STOPPED',
        'The worker is stopping; connectors cannot be changed now',
      );
  }

  /** What start() checks of every connector, for one added at runtime. */
  private async checkNew(config: ConnectorConfig): Promise<void> {
    const problems = connectorProblems(config.name, await checkConnectorCode(config));
    if (problems.length > 0) throw new ConfigError(problems);
    if (this.checkCluster) await checkClusterForConnectors(this.config, [config], { logger: this.rootLog });
    await reportConnectorNotes(this.log, config);
  }

  /**
   * Starts a runtime added while the worker runs. A start that fails leaves the connector FAILED, its
   * status saying why, as Connect's: the request that added it succeeded.
   */
  private async launch(runtime: ConnectorRuntime, state: TargetState): Promise<void> {
    if (state === 'STOPPED') await runtime.halt();
    if (this.starting === undefined) return;
    try {
      await runtime.start();
      if (state === 'PAUSED') await runtime.pause();
    } catch (err) {
      this.log.error({ connector: runtime.config.name, err }, 'the connector failed to start');
    }
  }

  /**
   * Starts every connector, once (a second call answers the first call's promise). Before anything
   * connects, every connector's code checks its settings (one ConfigError lists every problem) and,
   * unless `checkCluster: false`, the cluster is looked at once. If a connector fails to start, the ones
   * already started are stopped again. Every rejection is a SharesinkError: ConfigError, the cluster
   * check's (`SHARESINK_KAFKA_UNREACHABLE`, `SHARESINK_UNKNOWN_TOPIC`, …), a connector's own, or
   * `SHARESINK_CONNECTOR_START_FAILED` with the failure as `cause`; `SHARESINK_WORKER_STOPPED` after stop().
   */
  start(): Promise<void> {
    if (this.stopping !== undefined)
      return Promise.reject(
        new SharesinkError(
          'SHARESINK_WORKER_STOPPED',
          'start() after stop(): a Worker runs once; make a new Worker to run the connectors again',
        ),
      );
    this.starting ??= keepingAlive(this.startOnce());
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    // a connector stopped over REST before the start stays stopped: nothing of it is checked
    const starting = this.runtimes.filter((r) => !r.isHalted);
    const problems = (
      await Promise.all(
        starting.map(async (r) => connectorProblems(r.config.name, await checkConnectorCode(r.config))),
      )
    ).flat();
    if (problems.length > 0) throw new ConfigError(problems);
    if (this.checkCluster && starting.length > 0)
      await checkClusterForConnectors(
        this.config,
        starting.map((r) => r.config),
        { logger: this.rootLog },
      );
    // stop() while the checks ran: nothing starts
    if (this.stopping !== undefined) return;
    await this.reportSettings();
    const started: ConnectorRuntime[] = [];
    for (const r of this.runtimes) {
      try {
        await r.start();
        started.push(r);
      } catch (err) {
        await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
        throw startFailure(r.config.name, err);
      }
    }
  }

  private taskFailed(failure: TaskFailure, listener: WorkerOptions['onTaskFailed']): void {
    this.failures.push(failure);
    try {
      listener?.(failure);
    } catch (err) {
      this.log.error({ err }, 'the onTaskFailed listener threw');
    }
  }

  /** A task runs (again): a failure of the same task no longer counts. */
  private taskRunning(connector: string, taskId: number, listener: WorkerOptions['onTaskRecovered']): void {
    const before = this.failures.length;
    clearFailures(this.failures, connector, taskId);
    if (this.failures.length === before) return;
    this.log.info({ connector, task: taskId }, 'task restarted and running; its failure is cleared');
    try {
      listener?.({ connector, taskId });
    } catch (err) {
      this.log.error({ err }, 'the onTaskRecovered listener threw');
    }
  }

  /**
   * Says once what in the files has no effect: Connect settings sharesink does not use (one info line,
   * with why), unknown worker settings, and connector settings that look like typos of known ones.
   */
  private async reportSettings(): Promise<void> {
    const unused = this.config.unused ?? [];
    if (unused.length > 0)
      notice(
        this.log,
        { settings: unused.map((u) => u.key) },
        `Kafka Connect settings with no effect in sharesink: ${describeUnusedSettings(unused)}`,
      );
    for (const w of this.config.warnings ?? []) this.log.warn(w);
    for (const r of this.runtimes) await reportConnectorNotes(this.log, r.config);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.log.info('stopping: no new fetches; running puts may finish');
      await Promise.all(this.runtimes.map((r) => r.stop()));
      this.stoppedAt = new Date();
    })();
    return this.stopping;
  }

  /** The connectors this worker runs, in the order of their config files. */
  get connectors(): readonly ConnectorRuntime[] {
    return this.runtimes;
  }

  connector(name: string): ConnectorRuntime | undefined {
    return this.runtimes.find((r) => r.config.name === name);
  }

  /** @internal Machine transitions counted so far (every actor the worker created). */
  get transitionCounter(): TransitionCounter {
    return this.transitions;
  }

  /** @internal Live actors per machine and state (batch actors disappear when their batch ends). */
  get actorCensus(): ActorCensus {
    return this.census;
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /**
   * Failures of tasks that are still failed (errors.tolerance=none and a fatal error, or a task that
   * could not start); a task that runs again after a restart leaves the list.
   */
  get taskFailures(): readonly TaskFailure[] {
    return this.failures;
  }

  /**
   * What `GET /health` answers: `UP` when every connector and task is RUNNING, PAUSED or STOPPED by an
   * operator, else `DOWN` with each instance that is not (`unhealthy`); always `DOWN` while stopping.
   */
  health(): HealthReport {
    return healthReport(this).body;
  }

  get inFlight(): number {
    return this.runtimes.reduce((n, r) => n + r.inFlight, 0);
  }

  summary(): WorkerSummary {
    return {
      startedAt: this.startedAt.toISOString(),
      stoppedAt: this.stoppedAt?.toISOString(),
      connectors: this.runtimes.map((r) => r.summary()),
      transitions: this.transitions.counts(),
    };
  }
}

/** Removes, in place, the failures recorded for `connector`'s task `taskId`. */
export function clearFailures(
  failures: Array<{ readonly connector: string; readonly taskId: number }>,
  connector: string,
  taskId: number,
): void {
  for (let i = failures.length - 1; i >= 0; i--)
    if (failures[i]!.connector === connector && failures[i]!.taskId === taskId) failures.splice(i, 1);
}

/**
 * Holds the event loop open until `work` settles. The start waits on things that do not: pool threads
 * booting (their channels are unref'd), a connector's own start(); a service whose only pending work
 * is `await worker.start()` would otherwise end mid-start, exit code 0 or 13, without a word.
 */
function keepingAlive(work: Promise<void>): Promise<void> {
  const handle = setInterval(() => undefined, 60_000);
  return work.finally(() => clearInterval(handle));
}

/** A start failure as a SharesinkError naming the connector; sharesink's own errors pass unchanged. */
function startFailure(connector: string, err: unknown): SharesinkError {
  if (isSharesinkError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new SharesinkError(
    'SHARESINK_CONNECTOR_START_FAILED',
    message.startsWith(`${connector}: `) ? message : `${connector}: ${message}`,
    { cause: err },
  );
}
