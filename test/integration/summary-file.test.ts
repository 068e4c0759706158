// The summary file of issue 12, item 7, as a user gets it: `sharesink standalone --summary-file` with a
// put slower than the lock. The renewals show once per batch and once per record, each under a name
// that says which, and every field is one docs/cli.md describes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLASSIC_TASK_COUNTERS } from '../../src/actors/task/classic/records.js';
import { LOCK_COUNTERS } from '../../src/actors/task/share/lock-counters.js';
import { TASK_COUNTERS } from '../../src/actors/task/core/task-counters.js';
import { startCli } from './harness/cli.js';
import {
  createTopic,
  deleteTopics,
  produce,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';

const RECORDING = new URL('../fixtures/connectors/recording.ts', import.meta.url).href;
const RECORDS = 30;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-summary-'));
const topics: string[] = [];

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

interface Summary {
  connectors: Array<{ counters: Record<string, number>; locks: Record<string, number> | undefined }>;
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('the summary file', () => {
  it('a put slower than the lock: renewals in batches and in records, every field documented', async () => {
    const topic = uniqueTopic('summary');
    topics.push(topic);
    await createTopic(topic);
    await produce(
      topic,
      Array.from({ length: RECORDS }, (_, i) => String(i)),
    );
    const sinkFile = path.join(dir, 'sink.txt');
    const workerFile = path.join(dir, 'worker.properties');
    const connectorFile = path.join(dir, 'connector.properties');
    const summaryFile = path.join(dir, 'summary.json');
    writeFileSync(workerFile, [`bootstrap.servers=${testBrokers()}`, 'pool.threads=1'].join('\n'));
    writeFileSync(
      connectorFile,
      [
        'name=slow-put',
        `connector.class=${RECORDING}`,
        `topics=${topic}`,
        'tasks.max=1',
        `sink.file=${sinkFile}`,
        'put.latency.ms=5000',
        'value.converter=org.apache.kafka.connect.storage.StringConverter',
        'consumer.override.group.protocol=share',
        `consumer.override.group.id=${uniqueGroup('summary')}`,
        'share.group.share.auto.offset.reset=earliest',
        'share.group.share.record.lock.duration.ms=3000',
      ].join('\n'),
    );
    const { child, exited, stderr } = startCli([
      'standalone',
      workerFile,
      connectorFile,
      '--summary-file',
      summaryFile,
    ]);
    const deadline = Date.now() + 60_000;
    while (lines(sinkFile).length < RECORDS && Date.now() < deadline && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 250));
    child.kill('SIGTERM');
    expect(await exited, stderr()).toBe(0);

    const [c] = (JSON.parse(readFileSync(summaryFile, 'utf8')) as Summary).connectors;
    expect(c!.counters.recordsAccepted).toBe(RECORDS);
    expect(c!.counters.recordsRedelivered).toBe(0);
    const locks = c!.locks!;
    expect(locks.batchesLockExpired).toBe(0);
    expect(locks.batchRenewalsGranted).toBeGreaterThan(0);
    // each renewal covered every record of its batch: at least one record per renewal
    expect(locks.recordsRenewed).toBeGreaterThanOrEqual(locks.batchRenewalsGranted!);
    expect(locks.batchRenewalsRequested).toBe(locks.batchRenewalsGranted);
    // no field the docs do not describe (the task's never-counted `renewals` is gone)
    const documented = { ...TASK_COUNTERS, ...CLASSIC_TASK_COUNTERS };
    expect(Object.keys(c!.counters).filter((k) => !(k in documented))).toEqual([]);
    expect(Object.keys(locks).filter((k) => !(k in LOCK_COUNTERS))).toEqual([]);
  });
});
