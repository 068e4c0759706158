// The consumer protocol (KIP-848, group.protocol=consumer) under kill -9: a worker killed in the middle
// of its puts and one started in its place. Its partitions come back once the broker's
// group.consumer.session.timeout.ms (10 s on the test broker) expires its members; records it wrote and
// had not committed are written again (at least once); none is lost.
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { consumerProtocolConnector, scenario, waitUntil } from './harness/workers.js';

const kill = scenario('consumer-kill9');

afterAll(async () => {
  for (const s of [kill]) {
    await s.cleanup();
    await deleteTopics([s.topic]).catch(() => undefined);
  }
});

describe('fault: the consumer protocol', () => {
  it('kill -9 mid-put, then a worker in its place: none lost', async () => {
    const s = kill;
    const RECORDS = 2000;
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 3 });
    await produceIds(s.topic, produced, { partitions: 3 });
    const connector = consumerProtocolConnector(s, {
      'tasks.max': 2,
      'put.latency.ms': 250,
      'consumer.override.max.poll.records': 50,
      'errors.deadletterqueue.topic.name': s.dlq,
    });
    const w1 = await s.startWorker('w1', connector);
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS * 0.3,
      30_000,
      () => `w1 wrote too little before the kill:\n${w1.logTail()}`,
    );
    await w1.kill9();
    const killedAt = Date.now();
    const atKill = readSink(s.sinkFile).distinct.size;
    const w2 = await s.startWorker('w2', connector);
    let recoveredMs = Number.NaN;
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS,
      45_000,
      () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS} after the restart:\n${w2.logTail()}`,
    )
      .then(() => (recoveredMs = Date.now() - killedAt))
      .catch(() => undefined); // counted and asserted below
    const summary = await w2.stop();
    const o = await fileSinkOutcome(s, {
      scenario: 'consumer protocol: kill -9 mid-put, then restart',
      workers: 2,
      produced,
      summaries: [summary],
      notes:
        `group.protocol=consumer; w1 (2 tasks, puts of 50 records taking 250 ms) killed with SIGKILL after ` +
        `${atKill} records; w2 in its place got the partitions once the broker expired w1's members ` +
        `(group.consumer.session.timeout.ms=10 s); every record in the sink ${(recoveredMs / 1000).toFixed(1)} s ` +
        'after the kill. Duplicates are records w1 wrote and had not committed.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.deadLettered).toEqual([]);
  }, 90_000);
});
