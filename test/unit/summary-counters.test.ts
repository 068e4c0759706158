// The counters behind `standalone --summary-file` and `/metrics`: each moves when what its name says
// happens, each is described once (the tables the summary docs and /metrics help come from), and
// docs/cli.md and docs/rest-api.md list every one of them. How the runner and the supervisor drive
// them through every batch path is in runtime-model.test.ts and supervisor.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLASSIC_TASK_COUNTERS, ClassicTaskCounters } from '../../src/actors/classic-records.js';
import { LOCK_COUNTERS } from '../../src/actors/lock-counters.js';
import { LockSupervisor } from '../../src/actors/supervisor.js';
import { TASK_COUNTERS, TaskCounters } from '../../src/actors/task-counters.js';
import {
  SHARE_CONSUMER_COUNTERS,
  ShareConsumerMetrics,
} from '../../src/kafka/share/share-consumer-metrics.js';
import type { BatchOutput, Disposition } from '../../src/machines/batch.js';
import type { PutOutcome, PutResult } from '../../src/pool/protocol.js';
import { collectMetrics } from '../../src/rest/metrics/metrics.js';
import { pino } from 'pino';
import { fakeWorker, FakeConnector, ZERO_COUNTERS } from './rest/fake-worker.js';

const put = (outcome: PutOutcome, durationMs: number): PutResult => ({
  ...outcome,
  durationMs,
  convertMs: 0,
  converterFailures: [],
  threadId: 1,
  taskStarted: false,
});
const ended = (disposition: Disposition, ackError?: string): BatchOutput => ({
  batchId: 'b',
  disposition,
  acked: ackError === undefined,
  ackError,
});
const sortedKeys = (o: object) => Object.keys(o).sort();

describe('TaskCounters', () => {
  it('onBatch: one batch, its records, and those delivered before', () => {
    const c = new TaskCounters();
    c.onBatch(3, [{ deliveryCount: 1 }, { deliveryCount: 2 }, { deliveryCount: 5 }]);
    c.onBatch(2, [{}, {}]); // classic records carry no delivery count
    expect(c.snapshot()).toMatchObject({ batches: 2, recordsAcquired: 5, recordsRedelivered: 2 });
  });

  it('onPut: every put, the failed ones, their total and longest time', () => {
    const c = new TaskCounters();
    c.onPut(put({ kind: 'ok' }, 40), 10);
    c.onPut(put({ kind: 'retriable', message: 'busy' }, 10), 10);
    c.onPut(put({ kind: 'fatal', message: 'no' }, 70), 10);
    c.onPut(put({ kind: 'perRecord', rejected: [] }, 5), 10);
    c.onPut(put({ kind: 'aborted', reason: 'stop' }, 1), 10);
    c.onPut(put({ kind: 'aborted', reason: 'thread gone', threadLost: true }, 2), 7);
    expect(c.snapshot()).toMatchObject({
      puts: 6,
      recordsPut: 57,
      putsFailed: 2,
      putsLostWithThread: 1,
      putMsTotal: 128,
      putMsMax: 70,
    });
  });

  it('onOutcome: each record by how its batch ended, in records, whatever the batch count', () => {
    const c = new TaskCounters();
    c.onOutcome(ended({ kind: 'accept' }), 10);
    c.onOutcome(ended({ kind: 'release', reason: 'shutdown' }), 4);
    c.onOutcome(ended({ kind: 'reject', reason: 'fatal' }), 3);
    c.onOutcome(ended({ kind: 'partial', rejectedOffsets: [0, 2] }), 5);
    c.onOutcome(ended({ kind: 'accept' }, 'INVALID_RECORD_STATE'), 6);
    c.onOutcome(ended({ kind: 'expired' }), 7); // counted when the lock ran out, not here
    expect(c.snapshot()).toMatchObject({
      recordsAccepted: 13,
      recordsReleased: 4,
      recordsRejected: 5,
      recordsAckFailed: 6,
      recordsLockExpired: 0,
    });
  });

  it('its snapshot is exactly the fields TASK_COUNTERS describes; a classic one adds the classic table', () => {
    expect(sortedKeys(new TaskCounters().snapshot())).toEqual(sortedKeys(TASK_COUNTERS));
    expect(sortedKeys(new ClassicTaskCounters().snapshot())).toEqual(
      sortedKeys({ ...TASK_COUNTERS, ...CLASSIC_TASK_COUNTERS }),
    );
    expect(sortedKeys(ZERO_COUNTERS)).toEqual(sortedKeys(TASK_COUNTERS));
  });
});

describe('LockSupervisor counters', () => {
  it('are exactly the fields LOCK_COUNTERS describes, from zero', () => {
    const s = new LockSupervisor({ logger: pino({ level: 'silent' }) });
    expect(sortedKeys(s.counters)).toEqual(sortedKeys(LOCK_COUNTERS));
    expect(Object.values(s.counters).every((v) => v === 0)).toBe(true);
  });
});

describe('ShareConsumerMetrics', () => {
  it('counts fetches, and records per acknowledgement type the broker confirmed', () => {
    const m = new ShareConsumerMetrics();
    m.onFetch(12, 30);
    m.onFetch(4, 20);
    m.onAck('accept', 25, false);
    m.onAck('release', 5, false);
    m.onAck('reject', 2, false);
    m.onAck('renew', 30, false);
    m.onAck('renew', 30, false);
    m.onAck('gap', 3, false);
    m.onAck('accept', 8, true);
    m.sessionResets++;
    expect(m.snapshot()).toMatchObject({
      fetches: 2,
      recordsAcquired: 50,
      recordsAccepted: 25,
      recordsReleased: 5,
      recordsRejected: 2,
      recordsRenewed: 60,
      gapOffsets: 3,
      recordsAckFailed: 8,
      sessionResets: 1,
      fetchLatencyMsLast: 4,
      fetchLatencyMsMax: 12,
      fetchLatencyMsTotal: 16,
    });
    const latency = ['fetchLatencyMsLast', 'fetchLatencyMsMax', 'fetchLatencyMsTotal'];
    expect(sortedKeys(m.snapshot()).filter((k) => !latency.includes(k))).toEqual(
      sortedKeys(SHARE_CONSUMER_COUNTERS),
    );
  });
});

describe('the docs', () => {
  const cli = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const rest = readFileSync(new URL('../../docs/rest-api.md', import.meta.url), 'utf8');

  it('docs/cli.md says what every summary field counts', () => {
    const fields = [
      ...Object.keys(TASK_COUNTERS),
      ...Object.keys(CLASSIC_TASK_COUNTERS),
      ...Object.keys(LOCK_COUNTERS),
    ];
    const missing = fields.filter((f) => !new RegExp(`^\\| \`${f}\` \\|`, 'm').test(cli));
    expect(missing).toEqual([]);
  });

  it('docs/rest-api.md names every series /metrics serves', () => {
    const share = new FakeConnector('orders', 1, 'share');
    const classic = new FakeConnector('audit', 1, 'classic');
    classic.counters = { ...ZERO_COUNTERS, ...new ClassicTaskCounters().snapshot() };
    const families = collectMetrics(fakeWorker([share, classic]), {
      memory: process.memoryUsage(),
      uptimeSeconds: 1,
      eventLoop: { p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 },
    });
    const names = families.map((f) => f.name);
    // the classic-only series come from the classic task alone
    const deadLettered = families.find((f) => f.name === 'sharesink_task_records_dead_lettered_total');
    expect(deadLettered?.samples.map((s) => s.labels?.connector)).toEqual(['audit']);
    const missing = names.filter((n) => !rest.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });
});
