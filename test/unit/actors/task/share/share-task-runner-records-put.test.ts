/**
 * What `recordsPut` counts, through a real put with a transform that drops records: the records the task
 * handed to its puts, as fetched, dropped ones included (the transforms run on the put's side, which
 * reports no count of what they dropped). docs/cli.md said "records passed to put() calls", which a
 * dropped record never is; the summary's documentation (TASK_COUNTERS, /metrics help) said the same.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TASK_COUNTERS } from '../../../../../src/actors/task/core/task-counters.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../../../../src/config/index.js';
import { convertersFromProps } from '../../../../../src/connect/converters/registry.js';
import type { ShareRecord } from '../../../../../src/kafka/share/share-consumer.js';
import { EventLoopPuts } from '../../../../../src/pool/event-loop-puts.js';
import { readEvents } from '../../../../fixtures/connectors/shared.js';
import { BacklogConsumer, runnerOver } from './share-task-runner-fakes.js';

/** Two batches of 10 records; every odd offset a tombstone. */
class HalfTombstones extends BacklogConsumer {
  constructor() {
    super(2);
  }
  override async poll(): Promise<ShareRecord[]> {
    const records = await super.poll();
    return records.map((r) => ({ ...r, value: r.offset % 2 === 0 ? Buffer.from(`v${r.offset}`) : null }));
  }
}

describe('recordsPut', () => {
  it('counts the records handed to the puts, those a transform dropped included', async () => {
    const worker = compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9' });
    const { transforms } = compileConnectorConfig(
      {
        name: 'c',
        'connector.class': 'NoopSink',
        topics: 't',
        transforms: 'dropTombstones',
        'transforms.dropTombstones.type': 'org.apache.kafka.connect.transforms.Filter',
        'transforms.dropTombstones.predicate': 'isTombstone',
        predicates: 'isTombstone',
        'predicates.isTombstone.type': 'org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
      },
      worker,
    );
    const pool = new EventLoopPuts({
      connectorModule: new URL('../../../../fixtures/connectors/ok.ts', import.meta.url),
      logger: pino({ level: 'silent' }),
    });
    const consumer = new HalfTombstones();
    const converters = convertersFromProps({ 'value.converter': 'StringConverter' });
    const dir = mkdtempSync(join(tmpdir(), 'sharesink-records-put-'));
    const events = join(dir, 'events.jsonl');
    const runner = runnerOver(consumer, pool as never, {
      poolTask: { id: 'c-0', props: { 'events.file': events }, converters, transforms },
    });
    await runner.start();
    while (consumer.acks.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await runner.stop();
    await pool.close();
    const put = readEvents(events).filter((e) => e.event === 'put');
    rmSync(dir, { recursive: true, force: true });

    // the task's put() got the 10 records the transform kept
    expect(put.flatMap((e) => e['records'] as unknown[])).toHaveLength(10);
    const c = runner.counters.snapshot();
    // the dropped tombstones are done: accepted with the rest, and counted among the records put
    expect(c.recordsAccepted).toBe(20);
    expect(c.recordsPut).toBe(20);

    // and that is what the summary's documentation says, in the code and in docs/cli.md
    expect(TASK_COUNTERS.recordsPut).toMatch(/before the converters and transforms/);
    const cli = readFileSync(new URL('../../../../../docs/cli.md', import.meta.url), 'utf8');
    const row = cli.split('\n').find((l) => l.startsWith('| `recordsPut` |'));
    expect(row).toMatch(/before the converters and transforms/);
    expect(row).not.toMatch(/records passed to `put\(\)`/);
  });
});
