/**
 * Reads a topic from its beginning up to its end offsets at the time of the call, with a throwaway
 * consumer group (deleted afterwards): a dead-letter topic, or the output topic of a KafkaSink under
 * `sharesink check`.
 */
import type { Kafka, KafkaMessage } from 'kafkajs';

export interface TopicRead {
  readonly messages: KafkaMessage[];
  /** Every partition was read up to its end offset; false when the time ran out first. */
  readonly complete: boolean;
}

export async function readTopic(
  kafka: Kafka,
  topic: string,
  groupId: string,
  timeoutMs = 15_000,
): Promise<TopicRead> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // no topic: nothing was written to it
    const ends = await admin.fetchTopicOffsets(topic).catch(() => []);
    const left = new Map<number, number>();
    for (const e of ends) if (Number(e.high) > Number(e.low)) left.set(e.partition, Number(e.high));
    const messages: KafkaMessage[] = [];
    if (left.size === 0) return { messages, complete: true };
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    try {
      const complete = await new Promise<boolean>((resolve, reject) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        consumer
          .subscribe({ topic, fromBeginning: true })
          .then(() =>
            consumer.run({
              eachMessage: async ({ partition, message }) => {
                const end = left.get(partition);
                if (end === undefined || Number(message.offset) >= end) return;
                messages.push(message);
                if (Number(message.offset) + 1 >= end) left.delete(partition);
                if (left.size === 0) {
                  clearTimeout(timer);
                  resolve(true);
                }
              },
            }),
          )
          .catch((err: unknown) => {
            clearTimeout(timer);
            reject(err as Error);
          });
      });
      return { messages, complete };
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await admin.deleteGroups([groupId]).catch(() => undefined);
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
