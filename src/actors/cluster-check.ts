/**
 * The worker's look at the cluster before its connectors start (src/kafka/admin/preflight.ts does the
 * looking): a broker that cannot be reached within `bootstrap.timeout.ms`, a topic that does not
 * exist, share groups turned off, or a refused topic or group is one typed error from `start()`,
 * before any task connects, rather than a stream of client warnings from every task. The CLI runs it
 * itself, earlier (before the REST server starts), with `onWaiting` for the terminal.
 */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { checkKafkaCluster } from '../kafka/admin/preflight.js';
import { kafkajsSecurityOptions, type KafkaSecurity } from '../kafka/security/index.js';

/** `bootstrap.timeout.ms`'s default, for WorkerConfigs built by hand. */
export const DEFAULT_BOOTSTRAP_TIMEOUT_MS = 30_000;

export function checkClusterForConnectors(
  worker: WorkerConfig,
  connectors: readonly ConnectorConfig[],
  options: { logger: Logger; onWaiting?: ((message: string) => void) | undefined },
): Promise<void> {
  const security = checkSecurity(worker, connectors);
  return checkKafkaCluster({
    ...kafkajsSecurityOptions(security),
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-check`,
    timeoutMs: worker.bootstrapTimeoutMs ?? DEFAULT_BOOTSTRAP_TIMEOUT_MS,
    logger: options.logger,
    // the SASL user, the client certificate's subject, or User:ANONYMOUS (plaintext, TLS without a
    // client certificate), as a broker's default principal builder names them
    ...(security?.principal !== undefined || security === undefined
      ? { principal: security?.principal ?? 'User:ANONYMOUS' }
      : {}),
    ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
    targets: connectors.map((c) => ({
      name: `connector ${c.name}`,
      mode: c.groupProtocol,
      groupId: c.groupId,
      // a topics.regex subscription names no topic to check
      topics: c.topicsRegex ? [] : c.topics,
    })),
  });
}

/**
 * The check reads topics and groups as the connectors' consumers will: their security when they all
 * share it (no connector overrides it), else the worker's consumer settings.
 */
function checkSecurity(
  worker: WorkerConfig,
  connectors: readonly ConnectorConfig[],
): KafkaSecurity | undefined {
  const first = connectors[0]?.security?.consumer;
  return first !== undefined && connectors.every((c) => c.security?.consumer === first)
    ? first
    : worker.security?.consumer;
}
