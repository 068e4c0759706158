// Three worker processes in one share group; one is killed with -9 while the records flow. The two
// left take over what it held once the locks expire, with no rebalance and no restart.
import { afterAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil } from './harness/workers.js';

const RECORDS = 3000;
const LOCK_MS = 4000;
const s = scenario('three-workers-one-killed');

afterAll(async () => {
  await s.cleanup();
  await deleteTopics([s.topic]).catch(() => undefined);
});

describe('fault: three workers, one killed', () => {
  it('the other two take over the killed worker’s records; all arrive', async () => {
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 3 });
    const names = ['w1', 'w2', 'w3'] as const;
    const files = Object.fromEntries(names.map((n) => [n, path.join(s.dir, `sink-${n}.txt`)]));
    const all = Object.values(files);
    const workers = await Promise.all(
      names.map((n) =>
        s.startWorker(
          n,
          s.baseConnector({
            'sink.file': files[n]!,
            'put.latency.ms': 300,
            'consumer.override.max.poll.records': 50,
            'share.group.share.record.lock.duration.ms': LOCK_MS,
            'share.group.errors.deadletterqueue.topic.name': s.dlq,
            'share.group.errors.deadletterqueue.copy.record.enable': 'true',
          }),
        ),
      ),
    );
    const [w1, w2, w3] = workers as [(typeof workers)[0], (typeof workers)[0], (typeof workers)[0]];
    await produceIds(s.topic, produced, { partitions: 3 });
    await waitUntil(
      () => readSink(...all).distinct.size >= RECORDS * 0.3 && readSink(files.w2!).writes > 0,
      60_000,
      () => `too little written before the kill:\n${w2.logTail()}`,
    );
    await w2.kill9();
    const killedAt = Date.now();
    const byKilled = readSink(files.w2!).distinct.size;
    let recoveredMs = Number.NaN;
    await waitUntil(
      () => readSink(...all).distinct.size >= RECORDS,
      60_000,
      () => `only ${readSink(...all).distinct.size}/${RECORDS} after the kill:\n${w1.logTail()}`,
    )
      .then(() => (recoveredMs = Date.now() - killedAt))
      .catch(() => undefined); // counted and asserted below
    const summaries = await Promise.all([w1.stop(), w3.stop()]);
    const share = names.map((n) => `${n} ${readSink(files[n]!).distinct.size}`).join(', ');
    const o = await fileSinkOutcome(s, {
      scenario: 'Three workers, one killed (-9)',
      workers: 3,
      produced,
      summaries,
      sinkFiles: all,
      notes:
        `three processes in one share group (puts of 50 records taking 300 ms); w2 killed after writing ` +
        `${byKilled}; records written per worker: ${share}; lock ${LOCK_MS / 1000} s; every record in ` +
        `the sink ${(recoveredMs / 1000).toFixed(1)} s after the kill. Redeliveries (counted by w1 and w3) ` +
        'are the records w2 held.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.totals.redelivered, 'w1 and w3 took over what w2 held').toBeGreaterThan(0);
    expect(readSink(files.w1!).writes + readSink(files.w3!).writes).toBeGreaterThan(0);
    expect(o.deadLettered).toEqual([]);
  });
});
