// The broker stops (controlled shutdown) and starts again in the middle of the stream, under a share
// group and under a consumer-protocol group (KIP-848). The scenario restarts the test broker and, whatever
// happens, leaves it running: with other work on the shared broker, give this project a broker of its
// own (KAFKA_PORT=9692 npx vitest run --project faults-broker starts one there).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runKafkaScript } from '../integration/harness/broker.js';
import { createTopic, deleteTopics, kafkaVersion, testBrokers } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import {
  consumerProtocolConnector,
  scenario,
  sleep,
  totals,
  waitUntil,
  type Scenario,
} from './harness/workers.js';
import { freePort, taskStates } from './harness/rest.js';

const RECORDS = 2000;
const LOCK_MS = 5000;
const s = scenario('broker-restart');
// made when its test starts: a scenario's wall time counts from its creation
let consumer: Scenario | undefined;

function brokerEnv(): Record<string, string> {
  const [host, port] = testBrokers().split(':');
  if (testBrokers().includes(',') || host !== '127.0.0.1' || port === undefined)
    throw new Error(
      `the broker-restart scenario needs the one local broker on 127.0.0.1, not ${testBrokers()}`,
    );
  return { KAFKA_PORT: port, KAFKA_VERSION: kafkaVersion() };
}

async function script(name: 'stop.sh' | 'start.sh' | 'status.sh'): Promise<string> {
  const r = await runKafkaScript(name, brokerEnv());
  if (r.code !== 0) throw new Error(`scripts/kafka/${name} exited ${r.code}:\n${r.output}`);
  return r.output;
}

/** Fails unless the test broker is the one scripts/kafka/start.sh runs (so stop.sh/start.sh restart it). */
async function assertOurBroker(): Promise<void> {
  const status = await script('status.sh');
  if (!/running: pid \d+/.test(status))
    throw new Error(
      `the broker at ${testBrokers()} was not started by scripts/kafka/start.sh, so this scenario cannot ` +
        `restart it:\n${status}`,
    );
}

/** Starts the broker unless status.sh says it runs; throws if it cannot be brought back. */
async function ensureBrokerRunning(): Promise<void> {
  const status = await runKafkaScript('status.sh', brokerEnv());
  if (status.code === 0 && status.output.includes('listening: yes')) return;
  await script('start.sh');
  await script('status.sh');
}

/** stop.sh, 1 s down, start.sh; whatever fails, the broker is running again afterwards. */
async function restartBroker(sinkFile: string): Promise<{ stopAt: number; atStop: number; downMs: number }> {
  const stopAt = Date.now();
  const atStop = await (async () => {
    try {
      await script('stop.sh');
      const written = readSink(sinkFile).distinct.size;
      await sleep(1000);
      return written;
    } finally {
      // the broker is never left stopped, whatever failed above
      await script('start.sh');
      await script('status.sh');
    }
  })();
  return { stopAt, atStop, downMs: Date.now() - stopAt };
}

afterAll(async () => {
  await s.cleanup();
  await consumer?.cleanup();
  await ensureBrokerRunning();
  await deleteTopics([s.topic, ...(consumer ? [consumer.topic] : [])]).catch(() => undefined);
});

describe('fault: broker restart', () => {
  it('consumers recover after the broker restarts mid-stream; every record arrives', async () => {
    await assertOurBroker(); // fail before anything runs when the broker is not ours to restart
    const first = ids(1, RECORDS / 2);
    const second = ids(RECORDS / 2 + 1, RECORDS / 2);
    const produced = [...first, ...second];
    await createTopic(s.topic, { partitions: 3 });
    await produceIds(s.topic, first, { partitions: 3 });
    const w = await s.startWorker(
      'w1',
      s.baseConnector({
        'tasks.max': 2,
        'put.latency.ms': 200,
        'consumer.override.max.poll.records': 50,
        'share.group.share.record.lock.duration.ms': LOCK_MS,
        'share.group.errors.deadletterqueue.topic.name': s.dlq,
        'share.group.errors.deadletterqueue.copy.record.enable': 'true',
      }),
    );
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= first.length * 0.3,
      60_000,
      () => `too little written before the restart:\n${w.logTail()}`,
    );

    const { stopAt, atStop, downMs } = await restartBroker(s.sinkFile);
    await produceIds(s.topic, second, { partitions: 3 });
    let recoveredMs = Number.NaN;
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS,
      90_000,
      () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS} after the restart:\n${w.logTail()}`,
    )
      .then(() => (recoveredMs = Date.now() - stopAt))
      .catch(() => undefined); // counted and asserted below
    const summary = await w.stop();
    const ackFailures = totals([summary]).ackFailures;
    const written = readSink(s.sinkFile);
    const o = await fileSinkOutcome(s, {
      scenario: 'Broker restart mid-stream',
      workers: 1,
      produced,
      summaries: [summary],
      notes:
        `stop.sh after ${atStop} of the first ${first.length} records, start.sh 1 s later ` +
        `(broker unavailable ${(downMs / 1000).toFixed(1)} s); ${second.length} more produced after ` +
        `the restart; every record in the sink ${(recoveredMs / 1000).toFixed(1)} s after the stop. ` +
        `The acknowledgements of ${ackFailures} written records failed with the share sessions ` +
        `(SHARE_SESSION_RESET); the broker delivered them again, and ` +
        `${written.writes - written.distinct.size - written.redeliveredWrites} of the duplicate writes ` +
        'carried delivery count 1: the restart forgot the delivery attempt.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.deadLettered).toEqual([]);
    expect(summary.connectors[0]?.tasks.map((t) => t.state)).not.toContain('failed');
  });

  it('consumer protocol: the members come back after the restart; none lost, the tasks RUNNING', async () => {
    await assertOurBroker();
    // slow puts (3 partitions × 20 records/s) so the broker goes away with most of `first` still to put
    const first = ids(1, 1000);
    const second = ids(1001, 300);
    const c = (consumer = scenario('broker-restart-consumer'));
    await createTopic(c.topic, { partitions: 3 });
    await produceIds(c.topic, first, { partitions: 3 });
    const port = await freePort();
    const connector = consumerProtocolConnector(c, {
      'tasks.max': 2,
      'put.latency.ms': 500,
      'consumer.override.max.poll.records': 10,
      // one producer batch (~33 records) per fetch: a commit every 2 s per partition, some while the broker is away
      'consumer.override.max.partition.fetch.bytes': 1024,
    });
    const w = await c.startWorker('w1', connector, { listeners: `http://127.0.0.1:${port}` });
    await waitUntil(
      () => readSink(c.sinkFile).distinct.size >= first.length * 0.15,
      60_000,
      () => `too little written before the restart:\n${w.logTail()}`,
    );
    const { stopAt, atStop, downMs } = await restartBroker(c.sinkFile);
    // what was written by the time the broker answered again: only these may be read again
    const beforeBack = new Set(readSink(c.sinkFile).distinct);
    await produceIds(c.topic, second, { partitions: 3 });
    let recoveredMs = Number.NaN;
    await waitUntil(
      () => readSink(c.sinkFile).distinct.size >= first.length + second.length,
      60_000,
      () => `only ${readSink(c.sinkFile).distinct.size} after the restart:\n${w.logTail()}`,
    )
      .then(() => (recoveredMs = Date.now() - stopAt))
      .catch(() => undefined); // counted and asserted below
    const states = await taskStates(port, String(connector.name));
    const sink = readSink(c.sinkFile);
    const summary = await w.stop();
    const o = await fileSinkOutcome(c, {
      scenario: 'Broker restart mid-stream, consumer protocol',
      workers: 1,
      produced: [...first, ...second],
      summaries: [summary],
      notes:
        `group.protocol=consumer, 2 tasks, 3 partitions, puts of 10 records taking 500 ms, a commit every ~33 records; stop.sh after ` +
        `${atStop} of the first ${first.length} records, start.sh 1 s later (broker unavailable ` +
        `${(downMs / 1000).toFixed(1)} s); ${second.length} more produced after the restart; every record ` +
        `in the sink ${(recoveredMs / 1000).toFixed(1)} s after the stop, tasks ${states.join(', ')} without ` +
        `a restart; ${sink.writes - sink.distinct.size} written twice (at most the records put and not ` +
        'committed when the broker went away).',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(atStop, 'the broker went away under load').toBeLessThan(first.length);
    expect(states, 'tasks RUNNING without a restart').toEqual(['RUNNING', 'RUNNING']);
    const twice = writtenTwice(c.sinkFile).filter((id) => !beforeBack.has(id));
    expect(twice, 'written twice though first written after the broker was back').toEqual([]);
  });
});

/** Ids the sink holds more than once. */
function writtenTwice(sinkFile: string): string[] {
  const seen = new Map<string, number>();
  for (const line of readFileSync(sinkFile, 'utf8').split('\n'))
    if (line !== '') seen.set(line.split('\t')[0]!, (seen.get(line.split('\t')[0]!) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}
