// A put that ignores its abort shares its pool thread with other puts (ADR 0007): one pool thread,
// four share tasks whose puts wait 400 ms each, and one record whose first put never returns and ignores
// context.abortSignal(). put.timeout.ms aborts it, the grace runs out, its thread is terminated, and
// every other put running on that thread comes back "thread lost": their batches are released and
// redelivered. Every record must arrive, none may be acknowledged twice (a second acknowledgement of a
// record would fail with INVALID_RECORD_STATE and count as recordsAckFailed), and the lost puts are
// counted.
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil } from './harness/workers.js';

const RECORDS = 400;
const s = scenario('aborted-put-thread');

afterAll(async () => {
  await s.cleanup();
  await deleteTopics([s.topic]).catch(() => undefined);
});

describe('fault: a put that ignores its abort, on a thread shared with other puts', () => {
  it('every record arrives, none is acknowledged twice, the puts lost with the thread are counted', async () => {
    const produced = ids(1, RECORDS);
    await createTopic(s.topic, { partitions: 2 });
    await produceIds(s.topic, produced, { partitions: 2 });
    const w = await s.startWorker(
      'w1',
      s.baseConnector({
        'tasks.max': 4,
        'put.latency.ms': 400,
        'hang.ids': '200',
        'put.timeout.ms': 3000,
        'consumer.override.max.poll.records': 20,
      }),
      { 'pool.threads': 1, 'pool.abort.grace.ms': 300 },
    );
    await waitUntil(
      () => readSink(s.sinkFile).distinct.size >= RECORDS,
      90_000,
      () => `only ${readSink(s.sinkFile).distinct.size}/${RECORDS} records arrived:\n${w.logTail()}`,
    ).catch(() => undefined); // counted and asserted below
    const summary = await w.stop();
    const o = await fileSinkOutcome(s, {
      scenario: 'Put ignores its abort on a shared thread',
      workers: 1,
      produced,
      summaries: [summary],
      notes:
        'one pool thread, 4 tasks, 400 ms puts; the first put holding id 200 hangs and ignores its ' +
        'abort signal: put.timeout.ms (3 s) aborts it, its thread is terminated after 300 ms of grace, ' +
        'and the puts that shared the thread are released with it and redelivered.',
    });
    recordResult(o.row);
    expect(o.lost).toEqual([]);
    const counters = summary.connectors[0]!.counters;
    expect(counters.putsLostWithThread).toBeGreaterThan(0);
    expect(o.totals.ackFailures).toBe(0);
    // each record accepted exactly once, whatever was redelivered
    expect(o.totals.accepted).toBe(RECORDS);
    expect(o.totals.putTimeouts).toBeGreaterThan(0);
  }, 180_000);
});
