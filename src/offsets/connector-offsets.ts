/**
 * `GET/PATCH/DELETE /connectors/{name}/offsets` (KIP-875) behind the REST routes: opens a short-lived
 * client for the connector's group (share: our wire layer; classic: kafkajs's admin) with the
 * connector's admin security, does one job, closes it. Whether the connector is STOPPED is the caller's
 * check; the broker's own refusal (a group with members) is turned into {@link GroupNotEmptyError}.
 */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../config/types.js';
import { createClassicKafka } from '../kafka/kafkajs/classic-consumer.js';
import { KafkaCluster } from '../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../kafka/security/index.js';
import {
  alterClassicOffsets,
  deleteClassicGroup,
  readClassicOffsets,
  type OffsetsAdmin,
} from './classic-offsets.js';
import { parseOffsetChanges, toConnectOffsets, type ConnectOffsetsBody } from './connect-shape.js';
import {
  alterShareOffsets,
  deleteShareOffsets,
  describeShareOffsets,
  type OffsetsCluster,
} from './share-offsets.js';

/** What the offsets calls read of a connector: its mode, group and the admin client's security. */
export type OffsetsConnectorConfig = Pick<ConnectorConfig, 'name' | 'groupProtocol' | 'groupId'> &
  Partial<Pick<ConnectorConfig, 'security'>>;

export type OffsetsWorkerConfig = Pick<WorkerConfig, 'bootstrapServers' | 'clientId'> &
  Partial<Pick<WorkerConfig, 'security'>>;

/** Connect's answers (Worker.modifySinkConnectorOffsets): a sink connector here keeps no offsets of its own. */
export const ALTERED_MESSAGE =
  'The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.';
export const RESET_MESSAGE =
  'The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.';

export class ConnectorOffsetsService {
  constructor(
    private readonly worker: OffsetsWorkerConfig,
    private readonly logger: Logger,
  ) {}

  async read(c: OffsetsConnectorConfig): Promise<ConnectOffsetsBody> {
    if (c.groupProtocol === 'share')
      return toConnectOffsets(await this.withCluster(c, (k) => describeShareOffsets(k, c.groupId)));
    return toConnectOffsets(await this.withAdmin(c, (a) => readClassicOffsets(a, c.groupId)));
  }

  /** PATCH: the body in Connect's shape; resolves with Connect's message. */
  async alter(c: OffsetsConnectorConfig, body: unknown): Promise<{ message: string }> {
    const changes = parseOffsetChanges(body);
    if (c.groupProtocol === 'share')
      await this.withCluster(c, (k) => alterShareOffsets(k, c.groupId, changes));
    else
      await this.withAdmin(c, (a) =>
        this.withClusterLazily(c, (k) => alterClassicOffsets(a, k, c.groupId, changes)),
      );
    this.logger.info(
      { connector: c.name, groupId: c.groupId, partitions: changes.length },
      'connector offsets altered',
    );
    return { message: ALTERED_MESSAGE };
  }

  /** DELETE: share — the group's state for each of its topics; classic — the consumer group. */
  async reset(c: OffsetsConnectorConfig): Promise<{ message: string }> {
    if (c.groupProtocol === 'share') await this.withCluster(c, (k) => deleteShareOffsets(k, c.groupId));
    else await this.withAdmin(c, (a) => deleteClassicGroup(a, c.groupId));
    this.logger.info({ connector: c.name, groupId: c.groupId }, 'connector offsets reset');
    return { message: RESET_MESSAGE };
  }

  private async withCluster<T>(
    c: OffsetsConnectorConfig,
    job: (k: OffsetsCluster) => Promise<T>,
  ): Promise<T> {
    const cluster = this.cluster(c);
    try {
      await cluster.connect();
      return await job(cluster);
    } finally {
      await cluster.close().catch(() => undefined);
    }
  }

  /** `job` gets a function that opens the cluster on first use; closed afterwards if it was opened. */
  private async withClusterLazily<T>(
    c: OffsetsConnectorConfig,
    job: (cluster: () => Promise<OffsetsCluster>) => Promise<T>,
  ): Promise<T> {
    let opened: KafkaCluster | undefined;
    try {
      return await job(async () => {
        opened ??= this.cluster(c);
        await opened.connect();
        return opened;
      });
    } finally {
      await opened?.close().catch(() => undefined);
    }
  }

  private cluster(c: OffsetsConnectorConfig): KafkaCluster {
    return new KafkaCluster({
      ...kafkajsSecurityOptions(c.security?.admin ?? this.worker.security?.admin),
      brokers: this.worker.bootstrapServers,
      clientId: `${this.worker.clientId}-offsets`,
      logger: this.logger,
    });
  }

  private async withAdmin<T>(c: OffsetsConnectorConfig, job: (a: OffsetsAdmin) => Promise<T>): Promise<T> {
    const kafka = createClassicKafka({
      ...kafkajsSecurityOptions(c.security?.admin ?? this.worker.security?.admin),
      brokers: this.worker.bootstrapServers,
      clientId: `${this.worker.clientId}-offsets`,
      logger: this.logger,
    });
    const admin = kafka.admin();
    try {
      await admin.connect();
      return await job(admin);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}
