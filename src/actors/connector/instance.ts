/**
 * What one start of a connector owns besides its tasks: the SinkConnector instance (main thread), its
 * task configs, the put pool and, in share mode, the lock supervisor. Built in one step, so a start
 * that is abandoned or fails leaves nothing half-made behind.
 */
import type { Logger } from 'pino';
import { loadConnectorModule } from '../../connect/connector-module.js';
import type { SinkConnector } from '../../connect/sink-connector.js';
import { TransformChain } from '../../connect/transforms/chain.js';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import { ConfigError } from '../../errors.js';
import { KafkaCluster } from '../../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { EventLoopPuts } from '../../pool/event-loop-puts.js';
import { PutPool } from '../../pool/put-pool.js';
import type { PutRunner } from '../../pool/put-runner.js';
import { connectorOwnProblems, connectorProblems } from '../connector-checks.js';
import { applyShareStartPosition } from '../share-start-position.js';
import { LockSupervisor } from '../task/share/supervisor.js';
import type { DeliveryLimit } from '../errors/release-lines.js';
import { readDeliveryLimit } from './delivery-limit.js';

export interface ConnectorInstance {
  readonly connector: SinkConnector;
  /** What `taskConfigs(tasks.max)` returned, at most tasks.max of them. */
  readonly taskConfigs: ReadonlyArray<Record<string, string>>;
  readonly pool: PutRunner;
  readonly supervisor: LockSupervisor | undefined;
  /** Share mode: the group's delivery limit, when it could be read. */
  readonly deliveryLimit?: DeliveryLimit | undefined;
}

/**
 * Starts the connector instance and what its tasks need. `wanted()` is asked after every step that
 * waits: once it says no (the worker or an operator stopped the connector meanwhile), what was started
 * is stopped again and the answer is undefined.
 */
export async function startInstance(
  c: ConnectorConfig,
  worker: WorkerConfig,
  log: Logger,
  wanted: () => boolean,
): Promise<ConnectorInstance | undefined> {
  for (const w of c.warnings) log.warn({ note: w }, 'configuration note');
  const module = await loadConnectorModule(c.connectorModule);
  const connector = new module.connector();
  connector.initialize({
    requestTaskReconfiguration: () =>
      log.warn('the connector asked for task reconfiguration; restart the worker to apply it'),
    raiseError: (err) => log.error({ err }, 'connector raised an error'),
  });
  const problems = connectorOwnProblems(connector, c);
  if (problems.length > 0) throw new ConfigError(connectorProblems(c.name, problems));
  // custom transform modules are imported and configured once here, so a bad one fails the start
  // instead of every task (built-ins were already checked when the config was compiled)
  (await TransformChain.load(c.transforms)).close();
  if (!wanted()) return undefined;
  await connector.start(c.raw);
  // the threads boot (import the runtime and the connector) while the steps below talk to the broker
  const pool: PutRunner =
    c.putPlacement === 'event-loop'
      ? new EventLoopPuts({
          connectorModule: c.connectorModule,
          abortGraceMs: worker.poolAbortGraceMs,
          logger: log,
        })
      : new PutPool({
          connectorModule: c.connectorModule,
          threads: Math.max(1, worker.poolThreads),
          putsPerThread: worker.poolPutsPerThread,
          oneThreadPerTask: connector.oneThreadPerTask?.(c.raw) === true,
          abortGraceMs: worker.poolAbortGraceMs,
          logger: log,
        });
  try {
    const taskConfigs = (await connector.taskConfigs(c.tasksMax)).slice(0, c.tasksMax);
    if (c.groupProtocol === 'share' && Object.keys(c.shareGroupConfigs).length > 0) {
      await applyShareGroupConfigs(c, worker, log);
    }
    if (c.groupProtocol === 'share') await applyShareStartPosition(c, worker, log);
    const deliveryLimit = c.groupProtocol === 'share' ? await readDeliveryLimit(c, worker, log) : undefined;
    // not awaited here: the threads keep booting while the tasks join and fetch, and the runtime fails
    // the connector from pool.started() (a put waits for the threads, so no batch reaches a bad pool)
    if (!wanted()) {
      await pool.close();
      await connector.stop();
      return undefined;
    }
    const supervisor =
      c.groupProtocol === 'share'
        ? new LockSupervisor({ logger: log, putTimeoutMs: c.putTimeoutMs, renewFraction: c.renewFraction })
        : undefined;
    return { connector, taskConfigs, pool, supervisor, deliveryLimit };
  } catch (err) {
    // the instance started; a later step failed: stop it so the failed start leaves nothing running
    await pool.close().catch((e: unknown) => log.error({ err: e }, 'the put pool failed to close'));
    try {
      await connector.stop();
    } catch (e) {
      log.error({ err: e }, 'the connector instance failed to stop');
    }
    throw err;
  }
}

/** Stops what `startInstance` built, after the tasks have stopped. */
export async function closeInstance(instance: ConnectorInstance): Promise<void> {
  await instance.pool.close();
  instance.supervisor?.close();
  await instance.connector.stop();
}

async function applyShareGroupConfigs(c: ConnectorConfig, worker: WorkerConfig, log: Logger): Promise<void> {
  const cluster = new KafkaCluster({
    ...kafkajsSecurityOptions(c.security?.admin),
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-admin`,
    logger: log,
  });
  try {
    await cluster.alterGroupConfigs(c.groupId, c.shareGroupConfigs);
    log.info({ groupId: c.groupId, configs: c.shareGroupConfigs }, 'share group configured');
  } finally {
    await cluster.close();
  }
}
