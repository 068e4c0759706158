/** The production {@link ShareTransport}: a {@link KafkaCluster} with version negotiation per broker. */
import type { Logger } from 'pino';
import { KafkaCluster, type KafkaClusterOptions } from '../cluster.js';
import { ShareAcknowledge } from '../protocol/messages/share-acknowledge.js';
import { ShareFetch } from '../protocol/messages/share-fetch.js';
import { ShareGroupHeartbeat } from '../protocol/messages/share-group-heartbeat.js';
import { ApiKey } from '../protocol/api.js';
import { decodeRecordBatches } from '../records/record-batches.js';
import type { DecodedBatch, ShareTransport, TopicMetadata } from './transport.js';

export type ClusterTransportOptions = Omit<KafkaClusterOptions, 'logger' | 'openConnection'> & {
  readonly logger: Logger;
};

/** Extra time a long-polling ShareFetch may take beyond its MaxWaitMs before it counts as timed out. */
const LONG_POLL_MARGIN_MS = 10_000;

export function createClusterTransport(options: ClusterTransportOptions): ShareTransport {
  const cluster = new KafkaCluster(options);
  const coordinators = new Map<string, number>();
  return {
    async metadata(topicNames) {
      const found = await cluster.refreshMetadata(topicNames);
      const byName = new Map(found.map((t) => [t.name, t]));
      return topicNames.map((name): TopicMetadata => {
        const t = byName.get(name);
        if (!t) return { name, topicId: '', errorCode: 3, partitions: [] };
        return {
          name,
          topicId: t.topicId,
          errorCode: 0,
          partitions: t.partitions.map((p) => ({ partition: p.partition, leaderId: p.leaderId })),
        };
      });
    },
    async groupCoordinator(groupId, refresh = false) {
      const cached = coordinators.get(groupId);
      if (cached !== undefined && !refresh) return cached;
      const node = await cluster.findGroupCoordinator(groupId);
      coordinators.set(groupId, node.nodeId);
      return node.nodeId;
    },
    async heartbeat(nodeId, request) {
      return (await cluster.connectionTo(nodeId)).call(ShareGroupHeartbeat, request);
    },
    async shareFetch(nodeId, request) {
      // a long-polling fetch holds its connection: the broker answers one request per connection at a time
      const conn = await cluster.connectionTo(nodeId, 'fetch');
      return conn.call(ShareFetch, request, { timeoutMs: request.maxWaitMs + LONG_POLL_MARGIN_MS });
    },
    async shareAcknowledge(nodeId, request) {
      return (await cluster.connectionTo(nodeId)).call(ShareAcknowledge, request);
    },
    async supportsRenew(nodeId) {
      const range = (await cluster.connectionTo(nodeId)).versions(ApiKey.ShareAcknowledge);
      return range !== undefined && range.max >= 2;
    },
    async decodeRecords(records, topic, partition): Promise<DecodedBatch[]> {
      return (await decodeRecordBatches(records, { topic, partition })).batches;
    },
    close() {
      return cluster.close();
    },
  };
}
