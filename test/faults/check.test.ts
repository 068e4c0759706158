// `sharesink check`'s real-broker mode on the real broker, kept short (the CI budget): one or two
// runs each, few records, explicit schedules where a fault must fire. FileStreamSink declared
// idempotent is caught duplicating a record after a kill between put and ACCEPT; a sink that
// acknowledges before it writes is caught losing records; PostgresSink insert.mode=idempotent passes
// a kill after put and a cut connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  checkConnector,
  formatRunSchedule,
  loadObserver,
  type RunSchedule,
} from '../../src/testing/index.js';
import { REPO_ROOT, testBrokers } from '../integration/harness/kafka.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-check-test-'));
const worker = {
  'bootstrap.servers': testBrokers(),
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'pool.threads': '1',
};
const share = { topics: 'replaced', 'consumer.override.group.protocol': 'share' };
const one = (schedule: RunSchedule['steps']): RunSchedule => ({
  partitions: 1,
  lockRenewal: 'auto',
  steps: schedule,
});
const tables: string[] = [];
const dead: string[] = [];

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (tables.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
  await client.end();
});

describe('sharesink check on the real broker', () => {
  it('FileStreamSink declared idempotent: a kill -9 between put and ACCEPT duplicates a record', async () => {
    const report = await checkConnector({
      worker,
      connector: {
        ...share,
        name: 'check-helper-file',
        'connector.class': 'FileStreamSink',
        file: path.join(dir, 'file.txt'),
      },
      idempotent: true,
      runs: 1,
      examples: [one([{ records: 2, fault: { kind: 'kill-after-put' } }])],
      // no shrinking beyond what 20 s allow: the example is minimal already
      timeLimitMs: 20_000,
      lockMs: 2000,
      cwd: REPO_ROOT,
    });
    expect(report.ok).toBe(false);
    expect(report.faults['kill-after-put']).toBeGreaterThanOrEqual(1);
    const failure = report.failure!;
    expect(failure.run.duplicated.length).toBeGreaterThan(0);
    expect(failure.run.lost).toEqual([]);
    expect(formatRunSchedule(failure.schedule)).toContain('kill -9 after put returned, before ACCEPT');
  });

  it('a sink that acknowledges before it writes is caught as lost (custom observer)', async () => {
    const sinkFile = path.join(dir, 'lossy.txt');
    const report = await checkConnector({
      worker,
      connector: {
        ...share,
        name: 'check-helper-lossy',
        'connector.class': './test/fixtures/connectors/check-lossy-sink.ts',
        'sink.file': sinkFile,
        'write.delay.ms': '60000',
      },
      observer: await loadObserver('./test/fixtures/connectors/check-lines-observer.ts', REPO_ROOT),
      runs: 1,
      examples: [one([{ records: 3, fault: { kind: 'none' } }])],
      faults: [],
      timeLimitMs: 15_000,
      cwd: REPO_ROOT,
    });
    expect(report.ok).toBe(false);
    expect(report.failure!.run.lost.length).toBe(3);
  });

  it('a record a fatal put failure sent to the share group DLQ is done, not lost (errors.tolerance=all)', async () => {
    const report = await checkConnector({
      worker,
      connector: {
        ...share,
        name: 'check-helper-dlq',
        'connector.class': 'FileStreamSink',
        file: path.join(dir, 'dlq.txt'),
        'errors.tolerance': 'all',
        'share.group.errors.deadletterqueue.topic.name': 'dlq.check-helper-dlq',
        'share.group.errors.deadletterqueue.copy.record.enable': 'true',
      },
      runs: 1,
      examples: [one([{ records: 3, fault: { kind: 'put-fatal' } }])],
      onRun: (p) => dead.push(...p.run.deadLettered),
      cwd: REPO_ROOT,
    });
    expect(report.faults['put-fatal']).toBe(1);
    expect(dead.length).toBeGreaterThan(0);
    expect(report.failure).toBeUndefined();
  });

  it('classic group: a kill -9 half-way through a put loses nothing (FileStreamSink, not idempotent)', async () => {
    const file = path.join(dir, 'classic.txt');
    const report = await checkConnector({
      worker,
      connector: {
        name: 'check-helper-classic',
        topics: 'replaced',
        'consumer.override.group.protocol': 'classic',
        'connector.class': 'FileStreamSink',
        file,
      },
      runs: 1,
      examples: [one([{ records: 4, fault: { kind: 'kill-mid-put' } }])],
      cwd: REPO_ROOT,
    });
    expect(report.failure).toBeUndefined();
    expect(report.faults['kill-mid-put']).toBe(1);
    expect(report.recordsChecked).toBe(4);
  });

  it('PostgresSink insert.mode=idempotent passes a kill after put and a cut connection', async () => {
    const report = await checkConnector({
      worker: {
        ...worker,
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
      },
      connector: {
        ...share,
        name: 'check-helper-pg',
        'connector.class': 'PostgresSink',
        'connection.url': PG_URL,
        'insert.mode': 'idempotent',
        'auto.create': 'true',
        'put.placement': 'event-loop',
      },
      idempotent: true,
      runs: 1,
      examples: [
        one([
          { records: 2, fault: { kind: 'kill-after-put' } },
          { records: 2, fault: { kind: 'connection-cut', ms: 300 } },
        ]),
      ],
      lockMs: 2000,
      onRun: (p) => tables.push(p.run.topic),
      cwd: REPO_ROOT,
    });
    expect(report.failure).toBeUndefined();
    expect(report.ok).toBe(true);
    expect(report.recordsChecked).toBe(4);
    expect(report.faults['kill-after-put']).toBe(1);
    expect(report.faults['connection-cut']).toBe(1);
  });
});
