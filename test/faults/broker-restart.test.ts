// The broker stops (controlled shutdown) and starts again in the middle of the stream. This is the
// shared test broker: the scenario restarts it and, whatever happens, leaves it running.
import { afterAll, describe, expect, it } from 'vitest';
import { runKafkaScript } from '../integration/harness/broker.js';
import { createTopic, deleteTopics, kafkaVersion, testBrokers } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, sleep, totals, waitUntil } from './harness/workers.js';

const RECORDS = 2000;
const LOCK_MS = 5000;
const s = scenario('broker-restart');

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

afterAll(async () => {
  await s.cleanup();
  await ensureBrokerRunning();
  await deleteTopics([s.topic]).catch(() => undefined);
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

    const stopAt = Date.now();
    const atStop = await (async () => {
      try {
        await script('stop.sh');
        const written = readSink(s.sinkFile).distinct.size;
        await sleep(1000);
        return written;
      } finally {
        // the shared broker is never left stopped, whatever failed above
        await script('start.sh');
        await script('status.sh');
      }
    })();
    const downMs = Date.now() - stopAt;
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
});
