// What share.retriable.action=release says, against the real broker: the put's error (held back after
// the first line of a cause) and the records released on their last delivery, which the broker archives.
// The sink fails its first puts with a RetriableError; the group allows 2 deliveries.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { REPO_ROOT, createTopic, deleteTopics, produce, testBrokers, uniqueTopic } from './harness/kafka.js';
import { until } from './harness/wait.js';

const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/connectors/recording.ts');
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-release-lines-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe('share.retriable.action=release', () => {
  it("logs the put's error and the records archived at the delivery limit, per batch with counts", async () => {
    const topic = uniqueTopic('valid-release');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    await produce(topic, ['1', '2', '3']);
    const logged: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => logged.push(JSON.parse(s)) });
    const worker = compileWorkerConfig({
      'bootstrap.servers': testBrokers(),
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'pool.threads': '1',
    });
    const config = compileConnectorConfig(
      {
        name: `${topic}-sink`,
        'connector.class': FIXTURE,
        'sink.file': path.join(dir, `${topic}.txt`),
        'fail.retriable.times': '1000',
        topics: topic,
        'consumer.override.group.protocol': 'share',
        'share.retriable.action': 'release',
        'share.group.share.delivery.count.limit': '2',
      },
      worker,
    );
    const w = new Worker({ worker, logger, connectors: [config] });
    await w.start();
    try {
      await until(
        'the records archived at the delivery limit',
        () => logged.filter((l) => typeof l.atDeliveryLimit === 'number'),
        (ls) => ls.reduce((n, l) => n + (l.atDeliveryLimit as number), 0) >= 3,
      );
    } finally {
      await w.stop();
    }
    const errors = logged.filter((l) => String(l.msg).startsWith('put failed with a RetriableError'));
    // two releases of the same cause within 30 s: the first line says it, the second is held back
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 40, error: 'downstream busy (put 1)' });
    const archived = logged.filter((l) => typeof l.atDeliveryLimit === 'number');
    expect(archived[0]).toMatchObject({ level: 40, deliveryLimit: 2 });
    expect(String(archived[0]!.msg)).toMatch(
      /^\d+ of \d+ records released on their last delivery \(share\.delivery\.count\.limit=2\): the broker archives them/,
    );
  });
});
