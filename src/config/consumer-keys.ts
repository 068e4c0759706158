/**
 * Misspelt consumer settings. A `consumer.override.*` key that is not a Kafka consumer setting is passed
 * on and ignored, as Connect does; but `consumer.override.group.protocl=share` then ran the connector in
 * classic mode with only a per-task "consumer settings classic mode does not use" line to tell. A key a
 * couple of edits from a consumer setting is reported with the likely one; a key far from all of them
 * (a client's own setting) is left alone.
 */
import { closestName } from './did-you-mean.js';
import type { ConsumerSetting } from './share-mode.js';

/** Kafka 4.x consumer and share consumer settings (ConsumerConfig, ShareConsumerConfig), security aside. */
const KAFKA_CONSUMER_KEYS: readonly string[] = [
  'allow.auto.create.topics',
  'auto.commit.interval.ms',
  'auto.offset.reset',
  'bootstrap.servers',
  'check.crcs',
  'client.dns.lookup',
  'client.id',
  'client.rack',
  'connections.max.idle.ms',
  'default.api.timeout.ms',
  'enable.auto.commit',
  'enable.metrics.push',
  'exclude.internal.topics',
  'fetch.max.bytes',
  'fetch.max.wait.ms',
  'fetch.min.bytes',
  'group.id',
  'group.instance.id',
  'group.protocol',
  'group.remote.assignor',
  'heartbeat.interval.ms',
  'interceptor.classes',
  'isolation.level',
  'key.deserializer',
  'max.partition.fetch.bytes',
  'max.poll.interval.ms',
  'max.poll.records',
  'metadata.max.age.ms',
  'metadata.recovery.rebootstrap.trigger.ms',
  'metadata.recovery.strategy',
  'metric.reporters',
  'metrics.num.samples',
  'metrics.recording.level',
  'metrics.sample.window.ms',
  'partition.assignment.strategy',
  'receive.buffer.bytes',
  'reconnect.backoff.max.ms',
  'reconnect.backoff.ms',
  'request.timeout.ms',
  'retry.backoff.max.ms',
  'retry.backoff.ms',
  'send.buffer.bytes',
  'session.timeout.ms',
  'share.acknowledgement.mode',
  'share.acquire.mode',
  'socket.connection.setup.timeout.max.ms',
  'socket.connection.setup.timeout.ms',
  'value.deserializer',
];
const KNOWN = new Set(KAFKA_CONSUMER_KEYS);

/** One warning per consumer setting that looks like a misspelt Kafka consumer setting. */
export function misspeltConsumerKeys(settings: ReadonlyMap<string, ConsumerSetting>): string[] {
  const warnings: string[] = [];
  for (const [name, { key }] of settings) {
    if (KNOWN.has(name)) continue;
    const likely = closestName(name, KAFKA_CONSUMER_KEYS, 2);
    if (likely === undefined) continue;
    const meant = `${key.slice(0, key.length - name.length)}${likely}`;
    const consequence =
      likely === 'group.protocol'
        ? ': the connector runs in the worker default mode, not the one asked for'
        : '';
    warnings.push(`${key}: not a Kafka consumer setting; ignored (did you mean ${meant}?)${consequence}`);
  }
  return warnings;
}
