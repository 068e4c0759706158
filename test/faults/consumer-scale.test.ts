// The consumer protocol (KIP-848, group.protocol=consumer) when a second worker joins under load: the
// broker moves partitions incrementally; the first worker commits what it put before giving a partition
// up, so nothing is written twice.
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { consumerProtocolConnector, scenario, waitUntil } from './harness/workers.js';

const scale = scenario('consumer-scale');

afterAll(async () => {
  for (const s of [scale]) {
    await s.cleanup();
    await deleteTopics([s.topic]).catch(() => undefined);
  }
});

describe('fault: the consumer protocol', () => {
  it('a second worker joins under load: partitions move incrementally, none lost, none twice', async () => {
    const s = scale;
    const RECORDS = 2000;
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 4 });
    await produceIds(s.topic, produced, { partitions: 4 });
    const connector = consumerProtocolConnector(s, {
      'tasks.max': 1,
      'put.latency.ms': 1000,
      'consumer.override.max.poll.records': 25,
    });
    const w1 = await s.startWorker('w1', connector);
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS * 0.05,
      30_000,
      () => `w1 wrote too little before the scale-out:\n${w1.logTail()}`,
    );
    const atJoin = readSink(s.sinkFile).distinct.size;
    const w2 = await s.startWorker('w2', connector);
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS,
      45_000,
      () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS}:\n${w1.logTail()}\n${w2.logTail()}`,
    ).catch(() => undefined); // counted and asserted below
    const summaries = await Promise.all([w1.stop(), w2.stop()]);
    const o = await fileSinkOutcome(s, {
      scenario: 'consumer protocol: a worker joins under load',
      workers: 2,
      produced,
      summaries,
      notes:
        `group.protocol=consumer; w1 (1 task, puts of 25 records taking 1 s, 4 partitions at once) alone until ${atJoin} ` +
        'records, then w2 joined: the broker revoked partitions from w1, which committed what it put ' +
        'before giving each up, and assigned them to w2.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.sink.writes - o.sink.distinct.size, 'records written twice without a failure').toBe(0);
    expect(summaries[1]!.connectors[0]!.counters.recordsAccepted, 'w2 took partitions over').toBeGreaterThan(
      0,
    );
  }, 90_000);
});
