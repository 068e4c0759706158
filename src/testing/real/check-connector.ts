/**
 * `checkConnector`: the real-broker mode of the kit. Runs a connector in the real runtime (a
 * `sharesink standalone` worker process with the kit's hook), against the real broker, one run after
 * another under generated fault schedules, and checks each run's sink against what Kafka says was
 * done. fast-check generates and shrinks the schedules; a failure is reported as the smallest schedule
 * that still fails, with the records lost or duplicated and the seed and path that replay it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import pino, { type Logger } from 'pino';
import { compileConnectorConfig } from '../../config/compile-connector.js';
import { compileWorkerConfig } from '../../config/compile-worker.js';
import type { WorkerConfig } from '../../config/types.js';
import { SharesinkError } from '../../errors.js';
import { KitUsageError } from '../usage.js';
import { restartBroker } from './broker-restart.js';
import { CheckCluster, valueShape } from './cluster-io.js';
import { startHttpRecorder, type HttpRecorder } from './http-recorder.js';
import { isHttpSink, observerFor, type SinkObserver } from './observers.js';
import { pointAtRecorder, recorderObserver } from './observers/http.js';
import { generatedSchedules, runInPool } from './parallel.js';
import { runFailed, runOnce, type RunResult, type RunSetup } from './run.js';
import { REAL_FAULT_KINDS, runScheduleArb, type RealFaultKind, type RunSchedule } from './schedule.js';

// sources run under tsx in tests, as .js once built
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const HOOKED_CONNECTOR = new URL(`./hooked-connector${EXT}`, import.meta.url).href;

export interface CheckConnectorOptions {
  /** Worker properties, as in a worker.properties file (bootstrap.servers, converters, …). */
  readonly worker: Readonly<Record<string, string>>;
  /** Connector properties; `topics` and the group are replaced by fresh ones for each run. */
  readonly connector: Readonly<Record<string, string>>;
  /** The connector claims a redelivered record is written once: a record written twice fails the check. */
  readonly idempotent?: boolean;
  /** Generated runs. Default 20. */
  readonly runs?: number;
  /** Stops starting new runs (and shrinking) after this long; the runs done so far are the result. */
  readonly timeLimitMs?: number;
  /** Replays a reported failure: its seed and path. */
  readonly seed?: number;
  readonly path?: string;
  /** Reads the sink; default: the built-in observer of the connector class (file, PostgreSQL, JDBC, Kafka). */
  readonly observer?: SinkObserver;
  /**
   * HttpSink only: the kit starts a recording HTTP server, points the connector's `http.url` at it
   * (path kept) and observes what it received; without it an HttpSink needs `observer`.
   */
  readonly recordHttp?: boolean;
  /**
   * A shell command that restarts the broker (stops it, starts it, returns once started), run in `cwd`:
   * enables the `broker-restart` fault. A restart reaches every run at once, so the runs go one at a time.
   */
  readonly brokerRestartCommand?: string;
  /** Fault kinds to inject. Default: all that apply to the connector's group protocol. */
  readonly faults?: readonly RealFaultKind[];
  /**
   * Runs at once (each has its own topic, group, worker process, relays and control files). Default 2.
   * Shrinking always runs one run at a time.
   */
  readonly parallel?: number;
  /** Share groups: the record lock of each run's group, ms. Default 2000. */
  readonly lockMs?: number;
  /** Most records per step (default 8), steps per run (default 4), partitions of a run's topic (default 2). */
  readonly maxRecordsPerStep?: number;
  readonly maxSteps?: number;
  readonly maxPartitions?: number;
  /** Schedules run before the generated ones (they count in `runs`), e.g. a reported failure's. */
  readonly examples?: readonly RunSchedule[];
  /** Where relative connector.class and observer paths resolve. Default process.cwd(). */
  readonly cwd?: string;
  /** Where runs keep their worker logs and properties. Default: a new temporary directory. */
  readonly dir?: string;
  /** Keep each run's topic (default: deleted after the run). */
  readonly keepTopics?: boolean;
  readonly logger?: Logger;
  /** Called after every run (shrinking runs included). */
  readonly onRun?: (progress: CheckProgress) => void;
  /** Called once the settings are checked and the broker answered, before the first run. */
  readonly onStart?: (plan: CheckPlan) => void;
}

/** What a check is about to do. */
export interface CheckPlan {
  readonly faultKinds: readonly RealFaultKind[];
  /** Runs side by side: 1 whenever broker restarts are among the faults, whatever `parallel` asked. */
  readonly parallel: number;
}

export interface CheckProgress {
  readonly phase: 'run' | 'shrink';
  readonly run: RunResult;
  readonly runs: number;
  readonly shrinks: number;
  readonly faults: Readonly<Partial<Record<RealFaultKind, number>>>;
  readonly elapsedMs: number;
}

export interface CheckConnectorFailure {
  /** The shrunk schedule that fails. */
  readonly schedule: RunSchedule;
  readonly run: RunResult;
  /** fast-check's seed and counter-example path: pass both back to replay it. */
  readonly seed: number;
  readonly path: string | undefined;
}

export interface CheckConnectorReport {
  readonly ok: boolean;
  /** Generated runs done (shrinking runs not counted). */
  readonly runs: number;
  readonly shrinks: number;
  /** Faults that fired, per kind, over every run. */
  readonly faults: Readonly<Record<RealFaultKind, number>>;
  /** Fault kinds that were asked for. */
  readonly faultKinds: readonly RealFaultKind[];
  readonly recordsChecked: number;
  readonly elapsedMs: number;
  readonly seed: number;
  /** The time limit ended the check before `runs` runs. */
  readonly interrupted: boolean;
  /** Runs that went side by side: 1 whenever broker restarts are among the faults, whatever `parallel` asked. */
  readonly parallel: number;
  readonly dir: string;
  readonly failure?: CheckConnectorFailure;
}

const key = (s: RunSchedule): string => JSON.stringify(s);

/**
 * Runs at once by default: a run spends most of its time waiting (a worker process starting, a lock
 * expiring after a kill), so 2 overlapping runs nearly halve a check even on a 2-core machine; more
 * adds worker start-ups competing for the same cores (see docs/testing-kit.md).
 */
export const DEFAULT_PARALLEL = 2;
/** A share group's record lock in a run: what a killed worker's records wait before redelivery. */
export const DEFAULT_LOCK_MS = 2000;

export async function checkConnector(options: CheckConnectorOptions): Promise<CheckConnectorReport> {
  const started = Date.now();
  const cwd = options.cwd ?? process.cwd();
  const logger = options.logger ?? pino({ level: 'warn' });
  const workerConfig = compileWorkerConfig(options.worker);
  const innerClass = options.connector['connector.class'];
  if (innerClass === undefined)
    throw new KitUsageError('sharesink check: the connector has no connector.class');
  if (options.recordHttp === true && !isHttpSink(innerClass))
    throw new KitUsageError(
      `sharesink check: --record-http is for HttpSink, not connector.class ${innerClass}`,
    );
  const recorder = options.recordHttp === true ? await startRecorder(options.connector) : undefined;
  try {
    return await check(options, recorder, started, cwd, logger, workerConfig, innerClass);
  } finally {
    await recorder?.close();
  }
}

function startRecorder(connector: Readonly<Record<string, string>>): Promise<HttpRecorder> {
  const header = connector['http.idempotency.header'];
  return startHttpRecorder(header === undefined ? {} : { idempotencyHeader: header });
}

async function check(
  options: CheckConnectorOptions,
  recorder: HttpRecorder | undefined,
  started: number,
  cwd: string,
  logger: Logger,
  workerConfig: WorkerConfig,
  innerClass: string,
): Promise<CheckConnectorReport> {
  const connector =
    recorder === undefined ? options.connector : pointAtRecorder(options.connector, recorder.url);
  const compiled = compileConnectorConfig(connector, workerConfig, { cwd });
  const observer = observerFor(
    innerClass,
    options.observer ?? (recorder === undefined ? undefined : recorderObserver(recorder)),
  );
  const share = compiled.groupProtocol === 'share';
  const restartCommand = options.brokerRestartCommand?.trim() ?? '';
  const applicable = REAL_FAULT_KINDS.filter(
    (k) => (share || k !== 'lock-expiry') && (restartCommand !== '' || k !== 'broker-restart'),
  );
  const faultKinds = options.faults ?? applicable;
  const refused = faultKinds.filter((k) => !applicable.includes(k));
  if (refused.includes('broker-restart') && restartCommand === '')
    throw new KitUsageError(
      'sharesink check: broker-restart needs --broker-restart-command, the command that restarts your broker (e.g. "docker restart kafka")',
    );
  if (refused.length > 0)
    throw new KitUsageError(
      `sharesink check: ${refused.join(', ')} does not apply to ${compiled.groupProtocol} groups`,
    );
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), 'sharesink-check-'));
  const nonce = `check-${compiled.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40)}-${randomBytes(3).toString('hex')}`;

  const cluster = new CheckCluster(workerConfig, logger);
  const faults = Object.fromEntries(REAL_FAULT_KINDS.map((k) => [k, 0])) as Record<RealFaultKind, number>;
  const results = new Map<string, RunResult>();
  let runs = 0;
  let shrinks = 0;
  let recordsChecked = 0;
  let failedOnce = false;
  let broken: unknown;
  let interrupted = false;
  const deadline = options.timeLimitMs === undefined ? undefined : started + options.timeLimitMs;
  try {
    await cluster.connect().catch((cause: unknown) => {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new SharesinkError(
        'SHARESINK_CHECK_RUN_FAILED',
        `sharesink check: cannot reach the broker at ${workerConfig.bootstrapServers.join(',')} (bootstrap.servers of the worker config): ${why}`,
        { cause },
      );
    });
    const brokers = await cluster.brokers();
    const lockMs = options.lockMs ?? DEFAULT_LOCK_MS;
    const setup: RunSetup = {
      dir,
      cwd,
      worker: options.worker,
      connector,
      compiled,
      hookedClass: HOOKED_CONNECTOR,
      cluster,
      brokers,
      observer,
      idempotent: options.idempotent ?? false,
      shape: valueShape(options.worker, connector),
      nonce,
      lockMs,
      fireTimeoutMs: 15_000,
      drainTimeoutMs: 30_000 + 3 * lockMs,
      startTimeoutMs: 60_000,
      keepTopics: options.keepTopics ?? false,
      ...(faultKinds.includes('broker-restart')
        ? {
            restartBroker: () =>
              restartBroker({ command: restartCommand, cwd, probe: () => cluster.brokers() }),
          }
        : {}),
    };
    const arb = runScheduleArb({
      faults: faultKinds,
      maxRecordsPerStep: options.maxRecordsPerStep,
      maxSteps: options.maxSteps,
      maxPartitions: options.maxPartitions,
    });
    let index = 0;
    // fast-check's own time limit races a run it would then leave running: the limit is checked here,
    // before a run; past it every remaining run (and shrinking run) passes without running
    const pastDeadline = (): boolean => {
      if (deadline === undefined || Date.now() <= deadline) return false;
      interrupted = true;
      return true;
    };
    const execute = async (schedule: RunSchedule, phase: 'run' | 'shrink'): Promise<RunResult> => {
      const run = await runOnce(setup, ++index, schedule);
      if (phase === 'run') runs++;
      else shrinks++;
      recordsChecked += run.records;
      for (const [k, n] of Object.entries(run.fired)) faults[k as RealFaultKind] += n;
      results.set(key(schedule), run);
      options.onRun?.({ phase, run, runs, shrinks, faults, elapsedMs: Date.now() - started });
      return run;
    };
    const numRuns = options.runs ?? 20;
    // a broker restart would hit the runs beside it, as faults they did not draw
    const parallel = faultKinds.includes('broker-restart') ? 1 : (options.parallel ?? DEFAULT_PARALLEL);
    options.onStart?.({ faultKinds, parallel });
    const examples = (options.examples ?? []).map((e) => [e] as [RunSchedule]);
    const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x100000000)) | 0;
    // a path replays one counter-example and its shrinking: nothing to run side by side
    if (options.path === undefined) {
      const schedules = await generatedSchedules(arb, { numRuns, seed, examples });
      let failed = false;
      await runInPool(
        schedules,
        parallel,
        () => !failed && !pastDeadline(),
        async (schedule) => {
          if (runFailed(await execute(schedule, 'run'))) failed = true;
        },
      ).catch((err: unknown) => {
        broken = err; // not the connector's failure: ends the check, never shrunk
      });
      if (broken !== undefined) throw broken;
    }
    const property = fc.asyncProperty(arb, async (schedule) => {
      if (broken !== undefined) return true; // the check is over: see below
      // run already (side by side, or an earlier shrinking step): its verdict, not a second run
      let run = results.get(key(schedule));
      if (run === undefined) {
        if (pastDeadline()) return true;
        try {
          run = await execute(schedule, failedOnce ? 'shrink' : 'run');
        } catch (err) {
          broken = err; // not the connector's failure: ends the check, never shrunk
          return true;
        }
      }
      const failed = runFailed(run);
      if (failed) failedOnce = true;
      return !failed;
    });
    const details = await fc.check(property, {
      numRuns,
      examples,
      seed,
      ...(options.path !== undefined ? { path: options.path } : {}),
    });
    if (broken !== undefined) throw broken;
    const counterexample = details.counterexample?.[0];
    const run = counterexample === undefined ? undefined : results.get(key(counterexample));
    return {
      ok: !details.failed,
      runs,
      shrinks,
      faults,
      faultKinds,
      recordsChecked,
      elapsedMs: Date.now() - started,
      seed: details.seed,
      interrupted,
      parallel,
      dir,
      ...(counterexample !== undefined && run !== undefined
        ? {
            failure: {
              schedule: counterexample,
              run,
              seed: details.seed,
              path: details.counterexamplePath ?? undefined,
            },
          }
        : {}),
    };
  } finally {
    await cluster.close();
  }
}
