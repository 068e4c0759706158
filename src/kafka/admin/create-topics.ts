/**
 * CreateTopics through the project's wire layer, for topics sharesink manages itself (distributed mode's
 * config and status topics). Any broker takes the request (a KRaft broker forwards it to the controller).
 * Per-topic errors come back as data: TOPIC_ALREADY_EXISTS is the usual answer on every start but the first.
 *
 * @example
 * ```ts
 * const [r] = await createTopics(cluster, [
 *   { name: 'sharesink-configs', partitions: 1, replicationFactor: -1, configs: { 'cleanup.policy': 'compact' } },
 * ]);
 * if (r.errorCode !== 0 && r.errorCode !== KafkaErrorCode.TOPIC_ALREADY_EXISTS) throw r.error;
 * ```
 */
import type { KafkaCluster } from '../cluster.js';
import { KafkaError } from '../errors/kafka-errors.js';
import { CreateTopics, type CreatableTopicResult } from '../protocol/messages/create-topics.js';

export interface NewTopic {
  readonly name: string;
  /** -1: the broker's num.partitions. */
  readonly partitions: number;
  /** -1: the broker's default.replication.factor. */
  readonly replicationFactor: number;
  readonly configs?: Readonly<Record<string, string>>;
}

export interface CreateTopicResult extends CreatableTopicResult {
  /** The error for a non-zero `errorCode` (naming the topic and the broker's message), else undefined. */
  readonly error: KafkaError | undefined;
}

export async function createTopics(
  cluster: KafkaCluster,
  topics: readonly NewTopic[],
  options: { timeoutMs?: number; validateOnly?: boolean } = {},
): Promise<CreateTopicResult[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const conn = await cluster.anyConnection();
  const res = await conn.call(
    CreateTopics,
    {
      topics: topics.map((t) => ({
        name: t.name,
        numPartitions: t.partitions,
        replicationFactor: t.replicationFactor,
        assignments: [],
        configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
      })),
      timeoutMs,
      validateOnly: options.validateOnly ?? false,
    },
    { timeoutMs: timeoutMs + 5_000 },
  );
  return res.topics.map((t) => ({
    ...t,
    error:
      t.errorCode === 0
        ? undefined
        : new KafkaError(t.errorCode, {
            api: 'CreateTopics',
            subject: `topic ${t.name}`,
            brokerMessage: t.errorMessage,
          }),
  }));
}
