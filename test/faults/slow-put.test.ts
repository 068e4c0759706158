// A put slower than the record lock (lock 5 s, put 8 s): with renewal the supervisor keeps the locks
// and nothing is redelivered; with `share.lock.renewal=off` it releases the batch before the broker
// would take it back, and the records arrive on their next delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil, type Scenario } from './harness/workers.js';

const LOCK_MS = 5000;
const PUT_MS = 8000;
const RECORDS = 200;
let current: Scenario | undefined;

afterEach(async () => {
  await current?.cleanup();
  if (current) await deleteTopics([current.topic]).catch(() => undefined);
});

async function slowPut(id: string, renewal: 'auto' | 'off') {
  const s = (current = scenario(id));
  await createTopic(s.topic, { partitions: 1 });
  const produced = ids(1, RECORDS);
  await produceIds(s.topic, produced);
  const w = await s.startWorker(
    'w1',
    s.baseConnector({
      'put.latency.ms': PUT_MS,
      // without renewal a put that always outlives the lock can never succeed (see the doc)
      ...(renewal === 'off' ? { 'latency.first.delivery.only': 'true' } : {}),
      'share.lock.renewal': renewal,
      'consumer.override.max.poll.records': 100,
      'share.group.share.record.lock.duration.ms': LOCK_MS,
      'share.group.errors.deadletterqueue.topic.name': s.dlq,
      'share.group.errors.deadletterqueue.copy.record.enable': 'true',
    }),
  );
  await waitUntil(
    () => readSink(s.sinkFile).distinct.size >= RECORDS,
    60_000,
    () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS} records arrived:\n${w.logTail()}`,
  ).catch(() => undefined); // counted and asserted below
  const summary = await w.stop();
  return { s, produced, summary };
}

describe('fault: put slower than the lock', () => {
  it('lock 5 s, put 8 s, renewal on: no redelivery', async () => {
    const { s, produced, summary } = await slowPut('slow-put-renewal', 'auto');
    const o = await fileSinkOutcome(s, {
      scenario: 'Put 8 s > lock 5 s, renewal on',
      workers: 1,
      produced,
      summaries: [summary],
      notes:
        'every put sleeps 8 s under a 5 s lock; the supervisor renews each batch at half the lock ' +
        '(RENEW acknowledgements), so no lock expires and nothing is delivered twice.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.totals.redelivered, 'redeliveries').toBe(0);
    expect(o.sink.redeliveredWrites).toBe(0);
    expect(o.row.duplicates).toBe(0);
    expect(o.totals.renewed).toBeGreaterThan(0);
    expect(o.totals.expired).toBe(0);
    expect(o.totals.releasedEarly).toBe(0);
  });

  it('lock 5 s, put 8 s, renewal off: released early, nothing lost', async () => {
    const { s, produced, summary } = await slowPut('slow-put-no-renewal', 'off');
    const o = await fileSinkOutcome(s, {
      scenario: 'Put 8 s > lock 5 s, `share.lock.renewal=off`',
      workers: 1,
      produced,
      summaries: [summary],
      notes:
        'the first delivery of every batch sleeps 8 s under a 5 s lock; with renewal off the ' +
        'supervisor aborts the put at 80 % of the lock and RELEASEs the batch (an early release) ' +
        'rather than let the lock expire; the second delivery is fast.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(o.totals.releasedEarly).toBeGreaterThan(0);
    expect(o.totals.renewed).toBe(0);
    expect(o.totals.expired).toBe(0);
    expect(o.totals.redelivered).toBeGreaterThanOrEqual(RECORDS);
    expect(o.deadLettered).toEqual([]);
  });
});
