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
import {
  createTransitionCounter,
  type TransitionCount,
  type TransitionCounter,
} from '../observability/transition-counter.js';
import { describeUnusedSettings } from '../config/connect-worker-keys.js';
import { reportConnectorNotes } from './connector-checks.js';
import { ConnectorRuntime, type ConnectorSummary } from './connector-runtime.js';

export interface WorkerOptions {
  readonly worker: WorkerConfig;
  readonly connectors: readonly ConnectorConfig[];
  readonly logger?: Logger;
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
  private readonly runtimes: ConnectorRuntime[];
  readonly startedAt = new Date();
  private stoppedAt: Date | undefined;
  private stopping: Promise<void> | undefined;
  private readonly failures: Array<{ connector: string; taskId: number; error: string }> = [];
  private readonly transitions = createTransitionCounter();
  private readonly census = createActorCensus();

  constructor(options: WorkerOptions) {
    // one hook feeds both: transition counts (summary, /metrics) and live actors per state (/machines)
    const inspect = createRuntimeInspector(this.transitions, this.census);
    this.config = options.worker;
    const logger = options.logger ?? defaultLogger(options.worker.logLevel);
    this.log = logger.child({ component: 'worker' });
    this.runtimes = options.connectors.map(
      (c) =>
        new ConnectorRuntime(
          c,
          options.worker,
          // not this.log: the runtime's pool and Kafka clients bind their own `component`
          logger,
          (connector, taskId, error) => this.failures.push({ connector, taskId, error }),
          inspect,
        ),
    );
  }

  /** Starts every connector; if one fails to start, the ones already started are stopped again. */
  async start(): Promise<void> {
    await this.reportSettings();
    const started: ConnectorRuntime[] = [];
    try {
      for (const r of this.runtimes) {
        await r.start();
        started.push(r);
      }
    } catch (err) {
      await Promise.all(started.map((r) => r.stop().catch(() => undefined)));
      throw err;
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

  /** Machine transitions counted so far (every actor the worker created). */
  get transitionCounter(): TransitionCounter {
    return this.transitions;
  }

  /** Live actors per machine and state (batch actors disappear when their batch ends). */
  get actorCensus(): ActorCensus {
    return this.census;
  }

  get isStopping(): boolean {
    return this.stopping !== undefined;
  }

  /** Task failures so far (errors.tolerance=none and a fatal error, or a task that could not start). */
  get taskFailures(): ReadonlyArray<{ connector: string; taskId: number; error: string }> {
    return this.failures;
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

/**
 * Stops a worker (standalone or distributed) on SIGTERM / SIGINT (a second signal exits at once).
 * Returns a function that removes the handlers. `onStopped` receives the exit code: 0, or 1 when a task
 * had failed. `beforeStop` runs first (standalone closes the REST server, so nothing restarts a task
 * while the worker drains); `afterStop` runs once the worker stopped (distributed closes REST last: the
 * others forward to it until it has left the group). Their failures are logged and hold nothing up.
 */
export function stopOnSignals(
  worker: { stop(): Promise<void>; readonly taskFailures: readonly unknown[] },
  onStopped: (code: number) => void,
  logger?: Logger,
  beforeStop?: () => Promise<void>,
  afterStop?: () => Promise<void>,
): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received++;
    if (received > 1) {
      logger?.warn({ signal }, 'second signal: exiting without waiting');
      onStopped(130);
      return;
    }
    logger?.info({ signal }, 'shutting down gracefully (send the signal again to exit at once)');
    const before = (beforeStop?.() ?? Promise.resolve()).catch((err: Error) =>
      logger?.warn({ err }, 'before-stop step failed'),
    );
    void before
      .then(() => worker.stop())
      .then(() => afterStop?.().catch((err: Error) => logger?.warn({ err }, 'after-stop step failed')))
      .then(
        () => onStopped(worker.taskFailures.length > 0 ? 1 : 0),
        (err: Error) => {
          logger?.error({ err }, 'shutdown failed');
          onStopped(1);
        },
      );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
