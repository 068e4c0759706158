/**
 * `sharesink distributed worker.properties`: one worker of a cluster coordinated through Kafka. The
 * connectors live in the config topic and are managed through the REST API of any worker (docs/distributed.md).
 * SIGTERM / SIGINT: the tasks stop gracefully, the worker leaves the group (the others take its tasks
 * at once), the REST server closes; a second signal exits at once (130).
 */
import { STOPPING_LINE } from './status-line.js';
import type { Logger } from 'pino';
import {
  compileDistributedConfig,
  DISTRIBUTED_KEYS,
  type DistributedConfig,
} from '../config/distributed-def.js';
import { loadWorkerConfig } from '../config/index.js';
import { validateWorkerConfig } from '../config/compile-worker.js';
import { describeUnusedSettings } from '../config/connect-worker-keys.js';
import type { WorkerConfig } from '../config/types.js';
import { createWorkerGroupMember } from '../distributed/group/index.js';
import { kafkajsSecurityOptions } from '../kafka/security/index.js';
import {
  advertisedUrl,
  DistributedWorker,
  type MemberFactory,
} from '../distributed/herder/distributed-worker.js';
import { stopOnSignals } from '../actors/stop-on-signals.js';
import { ConfigError } from '../errors.js';
import { notice } from '../logger.js';
import { logLevelsFor } from '../observability/log-levels.js';
import { distributedRestOptions } from '../rest/distributed.js';
import { startRestServer, type RestServer } from '../rest/server/server.js';
import { checkClusterForConnectors } from '../actors/cluster-check.js';
import { chooseLogLevel, createCliLogger, type LogFormat } from './cli-logger.js';

export interface DistributedOptions {
  logLevel?: string;
  logFormat?: LogFormat;
}

/** The worker file's settings, standalone's and the distributed keys, every problem of both listed at once. */
export async function compileDistributedFile(
  workerFile: string,
): Promise<{ worker: WorkerConfig; distributed: DistributedConfig }> {
  const check = validateWorkerConfig(await loadWorkerConfig(workerFile));
  const problems = [...check.problems];
  let distributed: DistributedConfig | undefined;
  try {
    // the distributed keys read the resolved values, as every other setting does
    distributed = compileDistributedConfig({
      raw: check.config?.raw ?? (await loadWorkerConfig(workerFile)),
      listeners: check.config?.listeners ?? [],
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problemLines());
  }
  if (problems.length > 0 || check.config === undefined || distributed === undefined)
    throw new ConfigError(problems.map((p) => `${workerFile}: ${p}`));
  return { worker: check.config, distributed };
}

/** The production group member (src/distributed/group) for a worker's settings. */
export function groupMemberFor(
  worker: WorkerConfig,
  d: DistributedConfig,
  logger: Logger,
  onFatal: (error: Error) => void,
): MemberFactory {
  return (hooks, identity) =>
    createWorkerGroupMember(
      {
        groupId: d.groupId,
        sessionTimeoutMs: d.sessionTimeoutMs,
        rebalanceTimeoutMs: d.rebalanceTimeoutMs,
        heartbeatIntervalMs: d.heartbeatIntervalMs,
        scheduledRebalanceMaxDelayMs: d.scheduledRebalanceMaxDelayMs,
        kafka: {
          ...kafkajsSecurityOptions(worker.security?.admin),
          brokers: worker.bootstrapServers,
          clientId: `${worker.clientId}-worker-${identity.workerId}`,
        },
        logger,
        onFatal,
      },
      hooks,
    );
}

export async function runDistributed(workerFile: string, opts: DistributedOptions): Promise<void> {
  const interactive = process.stderr.isTTY === true;
  const { worker, distributed } = await compileDistributedFile(workerFile);
  const logger = createCliLogger({
    level: chooseLogLevel(opts.logLevel, worker.logLevel, interactive),
    format: opts.logFormat ?? 'auto',
    stderr: process.stderr,
  });
  // before any child logger is made (the worker's, the herder's, the tasks'): PUT /admin/loggers/<name> then reaches them all
  logLevelsFor(logger);
  reportSettings(worker, logger);
  if (distributed.protocol === 'eager')
    logger.warn(
      'connect.protocol=eager has no effect: sharesink workers always rebalance incrementally (only the tasks that move stop; docs/adr/0010-distributed-mode.md)',
    );
  await checkClusterForConnectors(worker, [], {
    logger,
    onWaiting: interactive ? (message) => process.stderr.write(`sharesink: ${message}\n`) : undefined,
  });
  // a signal during start-up stops the worker; the REST server, once there, closes after it
  const started: { rest?: RestServer } = {};
  const exit = (code: number) => process.exit(code);
  const onFatal = (err: Error) => {
    logger.fatal({ err }, 'the worker cannot stay in its group; stopping');
    void w
      .stop()
      .then(() => started.rest?.close())
      .finally(() => exit(1));
  };
  const w = new DistributedWorker({
    worker,
    distributed,
    member: groupMemberFor(worker, distributed, logger, onFatal),
    logger,
  });
  // leaving the group and stopping the tasks takes seconds: say so on a terminal, or it looks hung
  const sayStopping = interactive
    ? async () => {
        process.stderr.write(STOPPING_LINE);
      }
    : undefined;
  stopOnSignals(w, {
    onStopped: exit,
    logger,
    beforeStop: sayStopping,
    afterStop: async () => started.rest?.close(),
  });
  const rest = await startRestServer(w, { ...distributedRestOptions(w), logger });
  started.rest = rest;
  const identity = advertisedUrl(worker, distributed, { port: Number(new URL(rest.url).port) });
  try {
    await w.start({ workerId: identity.workerId, restUrl: identity.url });
  } catch (err) {
    await w.stop().catch(() => undefined);
    await rest.close();
    throw err;
  }
  if (interactive)
    process.stderr.write(
      `sharesink: worker ${identity.workerId} of cluster ${distributed.groupId}; REST API on ${rest.url}; Ctrl-C stops gracefully\n`,
    );
}

/** Connect settings with no effect, less the distributed keys this command reads. */
function reportSettings(worker: WorkerConfig, logger: Logger): void {
  const unused = (worker.unused ?? []).filter(
    (u) => !DISTRIBUTED_KEYS.has(u.key) || u.key === 'offset.storage.topic',
  );
  if (unused.length > 0)
    notice(
      logger,
      { settings: unused.map((u) => u.key) },
      `Kafka Connect settings with no effect in sharesink: ${describeUnusedSettings(unused)}`,
    );
  for (const w of worker.warnings ?? []) logger.warn(w);
}
