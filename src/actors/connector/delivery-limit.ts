/**
 * The share group's delivery limit and dead-letter topic, for the line a task writes when records leave
 * on their last delivery (errors/release-lines.ts): from the connector's `share.group.*` settings when
 * it sets them, else read from the group (the broker's defaults included) once per connector start.
 */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import { KafkaCluster } from '../../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import type { DeliveryLimit } from '../errors/release-lines.js';

const LIMIT = 'share.delivery.count.limit';
const DLQ = 'errors.deadletterqueue.topic.name';

/** Undefined when the group cannot be asked: the line is then left out, nothing else changes. */
export async function readDeliveryLimit(
  c: ConnectorConfig,
  worker: WorkerConfig,
  log: Logger,
): Promise<DeliveryLimit | undefined> {
  const set = c.shareGroupConfigs[LIMIT];
  const dlq = c.shareGroupConfigs[DLQ];
  if (set !== undefined) return { count: Number(set), deadLetterTopic: dlq || undefined };
  const cluster = new KafkaCluster({
    ...kafkajsSecurityOptions(c.security?.admin),
    brokers: worker.bootstrapServers,
    clientId: `${worker.clientId}-admin`,
    logger: log.child({}, { level: 'error' }),
    retry: { maxAttempts: 2 },
  });
  try {
    const configs = await cluster.describeGroupConfigs(c.groupId, [LIMIT, DLQ]);
    const count = Number(configs.get(LIMIT));
    if (!Number.isInteger(count) || count < 1) return undefined;
    return { count, deadLetterTopic: (dlq ?? configs.get(DLQ)) || undefined };
  } catch (err) {
    log.debug({ err, groupId: c.groupId }, `could not read ${LIMIT} of the share group`);
    return undefined;
  } finally {
    await cluster.close();
  }
}
