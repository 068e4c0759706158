/**
 * The share consumer's own CPU at a steady rate, without the runtime: a producer at `rate` records/s
 * into a fresh topic, one ShareConsumer per partition polling and acknowledging ACCEPT at once (the
 * acks ride on the next ShareFetch), whole-process CPU over a window from /proc/self/stat.
 *
 *   tsx bench/consumer-cost.ts [--rate=10000] [--partitions=1] [--brokers=127.0.0.1:29092]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ShareConsumer } from '../src/kafka/share/share-consumer.js';
import { createTopic, deleteTopics, round, setGroupConfig, sleep } from './common.js';
import { startProducer, stop } from './scenarios/steady.js';
import { STEADY_PLAN } from './scenarios/steady-results.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '10000' },
    partitions: { type: 'string', default: '1' },
    brokers: { type: 'string', default: '127.0.0.1:29092' },
    'min-bytes': { type: 'string', default: '1' },
    'max-wait': { type: 'string', default: '500' },
  },
});
const partitions = Number(values.partitions);
const topic = `consumer-cost-${Date.now().toString(36)}`;
const group = `${topic}-g`;
const cpu = () => {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
await createTopic(values.brokers, topic, partitions);
await setGroupConfig(values.brokers, group, { 'share.auto.offset.reset': 'latest' });
const producer = startProducer(values.brokers, topic, Number(values.rate), STEADY_PLAN);
let done = 0;
let polls = 0;
let running = true;
const consumers = Array.from(
  { length: partitions },
  (_, i) =>
    new ShareConsumer({
      brokers: [values.brokers],
      groupId: group,
      clientId: `cc-${i}`,
      logger: pino({ level: 'warn' }),
      fetchMinBytes: Number(values['min-bytes']),
      fetchMaxWaitMs: Number(values['max-wait']),
    }),
);
const loops = consumers.map(async (c) => {
  await c.subscribe([topic]);
  while (running) {
    const records = await c.poll({ maxWaitMs: 1000 });
    polls++;
    if (records.length === 0) continue;
    void c.acknowledge(records, 'accept');
    done += records.length;
  }
});
while (done === 0) await sleep(20);
await sleep(STEADY_PLAN.warmupMs);
const c0 = cpu();
const d0 = done;
const p0 = polls;
const t0 = performance.now();
await sleep(STEADY_PLAN.windowMs);
const c1 = cpu();
const records = done - d0;
const secs = (performance.now() - t0) / 1000;
process.stdout.write(
  `bare ShareConsumer × ${partitions} (fetch.min.bytes ${values['min-bytes']}, fetch.max.wait.ms ${values['max-wait']}): ${round(records / secs)} records/s, ${polls - p0} polls, ` +
    `${round(records / (polls - p0))} records/poll, CPU ${round((c1 - c0) / records, 2)} µs/record (${round((c1 - c0) / 1000 / secs)} ms/s)\n`,
);
running = false;
stop(producer);
await Promise.all(consumers.map((c) => c.close()));
await Promise.allSettled(loops);
await deleteTopics(values.brokers, [topic]);
process.exit(0);
