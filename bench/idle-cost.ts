/**
 * What a worker costs while nothing arrives: one share connector (NoopSink) on an empty topic, the
 * process's own CPU over a window after start-up. A connector spends most of its life waiting, and a
 * timer that wakes the process for nothing shows here first: kafkajs 2.2.4's request queue did that
 * 1000 times a second per connection (src/kafka/kafkajs/request-queue.ts).
 *
 *   tsx bench/idle-cost.ts [--tasks=6] [--partitions=6] [--scope=connector|task] [--window-s=20]
 *     [--brokers=127.0.0.1:29092]
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Worker } from '../src/actors/worker.js';
import { compileConnectorConfig, compileWorkerConfig } from '../src/config/index.js';
import { createTopic, deleteTopics, round } from './common.js';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '6' },
    partitions: { type: 'string', default: '6' },
    scope: { type: 'string', default: 'connector' },
    'window-s': { type: 'string', default: '20' },
    brokers: { type: 'string', default: '127.0.0.1:29092' },
  },
});
const topic = `idle-${Date.now().toString(36)}`;
await createTopic(values.brokers, topic, Number(values.partitions));
const worker = compileWorkerConfig({ 'bootstrap.servers': values.brokers });
const w = new Worker({
  worker,
  logger: pino({ level: 'warn' }),
  connectors: [
    compileConnectorConfig(
      {
        name: topic,
        'connector.class': 'NoopSink',
        topics: topic,
        'tasks.max': values.tasks,
        'consumer.override.group.protocol': 'share',
        'share.member.scope': values.scope,
      },
      worker,
    ),
  ],
});
try {
  await w.start();
  // past the joins and the first long polls
  await sleep(10_000);
  const windowMs = Number(values['window-s']) * 1000;
  const from = process.cpuUsage();
  await sleep(windowMs);
  const used = process.cpuUsage(from);
  const msPerS = (used.user + used.system) / 1000 / (windowMs / 1000);
  process.stdout.write(
    `idle: ${values.tasks} tasks (share.member.scope=${values.scope}), ${round(msPerS, 1)} ms of CPU per second (${round(msPerS / 10, 2)} % of a core)\n`,
  );
} finally {
  await w.stop();
  await deleteTopics(values.brokers, [topic]);
}
process.exit(0);
