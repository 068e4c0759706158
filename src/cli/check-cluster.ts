/** The start-up look at the cluster for the connectors about to run (see src/kafka/preflight.ts). */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { checkKafkaCluster } from '../kafka/preflight.js';

/** `bootstrap.timeout.ms`'s default, for WorkerConfigs built by hand. */
export const DEFAULT_BOOTSTRAP_TIMEOUT_MS = 30_000;

export function checkClusterFor(
  worker: WorkerConfig,
  connectors: readonly ConnectorConfig[],
  options: { logger: Logger; onWaiting?: ((message: string) => void) | undefined },
): Promise<void> {
  return checkKafkaCluster({
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-check`,
    timeoutMs: worker.bootstrapTimeoutMs ?? DEFAULT_BOOTSTRAP_TIMEOUT_MS,
    logger: options.logger,
    // the worker's clients connect in plaintext without SASL, which a broker's default principal
    // builder names User:ANONYMOUS
    principal: 'User:ANONYMOUS',
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
