/**
 * KafkaSink's observer: the records of its target topic (`topic` with `${topic}` as the run's topic),
 * from the beginning to the end offsets at observation time, each value as text. The cluster is the
 * sink's own: its `bootstrap.servers` and `producer.override.*` security, or the source cluster's when
 * it writes back there, as the task resolves them.
 */
import pino from 'pino';
import { SharesinkError } from '../../../errors.js';
import { createClassicKafka } from '../../../kafka/kafkajs/classic-consumer.js';
import { kafkajsSecurityOptions } from '../../../kafka/security/index.js';
import { kafkaSinkSettings } from '../../../sinks/kafka/config.js';
import { readTopic } from '../topic-reader.js';
import type { ObservedRun } from './types.js';

export async function kafkaObserver(run: ObservedRun): Promise<string[]> {
  const s = kafkaSinkSettings(run.connector);
  const topic = s.topic.replaceAll('${topic}', run.topic);
  const kafka = createClassicKafka({
    ...kafkajsSecurityOptions(s.security),
    brokers: s.brokers,
    clientId: 'sharesink-check-observer',
    // failures reach the kit as errors; kafkajs's own lines would only interleave with the report
    logger: pino({ level: 'silent' }),
  });
  const { messages, complete } = await readTopic(kafka, topic, `sharesink-check-observe-${run.topic}`);
  // a partial read would report records as lost that are only unread
  if (!complete)
    throw new SharesinkError(
      'SHARESINK_CHECK_RUN_FAILED',
      `sharesink check: could not read ${topic} up to its end offsets within 15 s (KafkaSink observer)`,
    );
  return messages.map((m) => m.value?.toString() ?? '');
}
