// The consumer protocol (KIP-848, group.protocol=consumer) under faults: a worker killed with -9 in the
// middle of its puts and one started in its place (its partitions come back once the broker's
// group.consumer.session.timeout.ms, 10 s on the test broker, expires them; records it wrote and had
// not committed are written again: at least once), and a second worker joining under load (the broker
// moves partitions incrementally; the first worker commits what it put before giving a partition up,
// so nothing is written twice).
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil, type Scenario } from './harness/workers.js';

const kill = scenario('consumer-kill9');
const scale = scenario('consumer-scale');

afterAll(async () => {
  for (const s of [kill, scale]) {
    await s.cleanup();
    await deleteTopics([s.topic]).catch(() => undefined);
  }
});

function consumerConnector(s: Scenario, extra: Record<string, string | number>) {
  const base = s.baseConnector({ 'consumer.override.group.protocol': 'consumer', ...extra });
  delete base['share.group.share.auto.offset.reset'];
  return base;
}

describe('fault: the consumer protocol', () => {
  it('kill -9 mid-put, then a worker in its place: none lost', async () => {
    const s = kill;
    const RECORDS = 2000;
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 3 });
    await produceIds(s.topic, produced, { partitions: 3 });
    const connector = consumerConnector(s, {
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

  it('a second worker joins under load: partitions move incrementally, none lost, none twice', async () => {
    const s = scale;
    const RECORDS = 3000;
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 4 });
    await produceIds(s.topic, produced, { partitions: 4 });
    const connector = consumerConnector(s, {
      'tasks.max': 1,
      'put.latency.ms': 300,
      'consumer.override.max.poll.records': 50,
    });
    const w1 = await s.startWorker('w1', connector);
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS * 0.1,
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
        `group.protocol=consumer; w1 (1 task, puts of 50 records taking 300 ms) alone until ${atJoin} ` +
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
