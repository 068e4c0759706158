/**
 * The internal topics a distributed worker needs: created when missing (compacted; the config topic
 * with exactly one partition, so its records have one order), refused when an existing one would break
 * the cluster (not compacted: old configs would be deleted by retention; several config partitions: no
 * total order of writes).
 */
import type { Admin } from 'kafkajs';
import type { Logger } from 'pino';
import type { DistributedConfig } from '../../config/distributed-def.js';
import { SharesinkError } from '../../errors.js';

/** kafkajs's ConfigResourceTypes.TOPIC (the enum is not a named export Node's ESM loader sees). */
const TOPIC_RESOURCE = 2;

export class InternalTopicError extends SharesinkError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      'SHARESINK_DISTRIBUTED_TOPIC_UNSUITABLE',
      `An internal topic of the worker cluster cannot be used:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.problems = problems;
  }
}

interface Wanted {
  readonly key: string;
  readonly topic: string;
  readonly partitions: number;
  readonly replicationFactor: number;
  /** The config topic: exactly one partition. */
  readonly single: boolean;
}

export function wantedTopics(d: DistributedConfig): Wanted[] {
  return [
    {
      key: 'config.storage.topic',
      topic: d.configTopic,
      partitions: 1,
      replicationFactor: d.configReplicationFactor,
      single: true,
    },
    {
      key: 'status.storage.topic',
      topic: d.statusTopic,
      partitions: d.statusPartitions,
      replicationFactor: d.statusReplicationFactor,
      single: false,
    },
  ];
}

/** Errors of a topic that exists but whose metadata has not reached the broker that answered yet. */
const SETTLING = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/** kafkajs puts the broker's error type on the error, or on the one a retrier wrapped. */
function settling(err: unknown): boolean {
  const e = err as { type?: unknown; originalError?: { type?: unknown }; cause?: { type?: unknown } };
  return [e.type, e.originalError?.type, e.cause?.type].some((t) => SETTLING.has(String(t)));
}

/**
 * Runs `read` again while it fails because a topic just created (by this worker or by another one
 * starting at the same moment) is not known everywhere yet, for up to `timeoutMs`. Three workers
 * started together once saw UNKNOWN_TOPIC_OR_PARTITION reading a topic another had just created.
 */
export async function whileTopicsSettle<T>(
  read: () => Promise<T>,
  { timeoutMs = 15_000, firstDelayMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = firstDelayMs; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await read();
    } catch (err) {
      if (!settling(err) || Date.now() + delay > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** Creates what is missing and checks what exists; throws InternalTopicError listing every problem. */
export async function ensureInternalTopics(admin: Admin, d: DistributedConfig, log: Logger): Promise<void> {
  const wanted = wantedTopics(d);
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((w) => !existing.has(w.topic));
  if (missing.length > 0) {
    try {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((w) => ({
          topic: w.topic,
          numPartitions: w.partitions,
          replicationFactor: w.replicationFactor,
          configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
        })),
      });
    } catch (err) {
      // kafkajs gathers one error per topic; another worker creating it at the same moment is fine
      const errors = (err as { errors?: Array<{ topic?: string; message: string }> }).errors ?? [];
      const why = (topic: string) => errors.find((e) => e.topic === topic)?.message ?? (err as Error).message;
      const failed = missing.filter((w) => !/already exists/i.test(why(w.topic)));
      if (failed.length > 0) {
        throw new InternalTopicError(
          failed.map(
            (w) =>
              `${w.key}: topic ${w.topic} could not be created (${why(w.topic)}); check ${w.key.replace('topic', 'replication.factor')} against the number of brokers (-1 takes the broker default), or create it yourself: compacted${w.single ? ', one partition' : ''}`,
          ),
        );
      }
    }
    for (const w of missing) log.info({ topic: w.topic, partitions: w.partitions }, `created ${w.key}`);
  }
  // a topic another worker created a moment ago may not be known to every broker yet
  const metadata = await whileTopicsSettle(() =>
    admin.fetchTopicMetadata({ topics: wanted.map((w) => w.topic) }),
  );
  const configs = await whileTopicsSettle(() =>
    admin.describeConfigs({
      includeSynonyms: false,
      resources: wanted.map((w) => ({
        type: TOPIC_RESOURCE,
        name: w.topic,
        configNames: ['cleanup.policy'],
      })),
    }),
  );
  const problems: string[] = [];
  for (const w of wanted) {
    const partitions = metadata.topics.find((t) => t.name === w.topic)?.partitions.length ?? 0;
    if (w.single && partitions !== 1)
      problems.push(
        `${w.key}: topic ${w.topic} has ${partitions} partitions; the config topic needs exactly one (the order of config changes). Use another topic name, or recreate it with one partition`,
      );
    const policy = configs.resources
      .find((r) => r.resourceName === w.topic)
      ?.configEntries.find((e) => e.configName === 'cleanup.policy')?.configValue;
    if (policy === undefined || !policy.split(',').includes('compact'))
      problems.push(
        `${w.key}: topic ${w.topic} has cleanup.policy=${policy ?? '(unknown)'}; it needs cleanup.policy=compact (retention would delete configs and states). Run kafka-configs --alter --entity-type topics --entity-name ${w.topic} --add-config cleanup.policy=compact, or use another topic`,
      );
  }
  if (problems.length > 0) throw new InternalTopicError(problems);
}
