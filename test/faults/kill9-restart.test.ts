// kill -9 of a worker process in the middle of its puts, then a new process in its place. The killed
// member acknowledges nothing more; the records it held come back when their locks expire (4 s) and
// the new worker writes them.
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil } from './harness/workers.js';

const RECORDS = 2000;
const LOCK_MS = 4000;
const s = scenario('kill9-restart');

afterAll(async () => {
  await s.cleanup();
  await deleteTopics([s.topic]).catch(() => undefined);
});

describe('fault: kill -9 and restart', () => {
  it('records held by the killed worker come back after the lock; none lost', async () => {
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 3 });
    await produceIds(s.topic, produced, { partitions: 3 });
    const connector = s.baseConnector({
      'tasks.max': 2,
      'put.latency.ms': 250,
      'consumer.override.max.poll.records': 50,
      'share.group.share.record.lock.duration.ms': LOCK_MS,
      'share.group.errors.deadletterqueue.topic.name': s.dlq,
      'share.group.errors.deadletterqueue.copy.record.enable': 'true',
    });

    const w1 = await s.startWorker('w1', connector);
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS * 0.3,
      60_000,
      () => `w1 wrote too little before the kill:\n${w1.logTail()}`,
    );
    await w1.kill9();
    const killedAt = Date.now();
    const atKill = readSink(s.sinkFile).distinct.size;

    const w2 = await s.startWorker('w2', connector);
    const w2StartMs = Date.now() - killedAt;
    let recoveredMs = Number.NaN;
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS,
      60_000,
      () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS} after the restart:\n${w2.logTail()}`,
    )
      .then(() => (recoveredMs = Date.now() - killedAt))
      .catch(() => undefined); // counted and asserted below
    const summary = await w2.stop();
    const o = await fileSinkOutcome(s, {
      scenario: 'kill -9 mid-put, then restart',
      workers: 2,
      produced,
      summaries: [summary],
      notes:
        `w1 (2 tasks, puts of 50 records taking 250 ms) killed with SIGKILL after ${atKill} records; ` +
        `w2 started in its place (its connector ran ${(w2StartMs / 1000).toFixed(1)} s after the kill); ` +
        `lock ${LOCK_MS / 1000} s; every record in the sink ${(recoveredMs / 1000).toFixed(1)} s after ` +
        'the kill. Redeliveries are the records w1 held, counted by w2; duplicates are records w1 wrote ' +
        'but had not acknowledged.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.totals.redelivered, 'the killed worker held records that came back').toBeGreaterThan(0);
    expect(o.deadLettered).toEqual([]);
  });
});
