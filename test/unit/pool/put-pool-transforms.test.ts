/** The transform chain in the worker thread: after the converters, before put(), acks by batch index. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { PutPool, type PoolTask } from '../../../src/pool/put-pool.js';
import { readEvents } from '../../fixtures/connectors/shared.js';

const logger = pino({ level: 'silent' });
const worker = compileWorkerConfig({
  'bootstrap.servers': 'localhost:9092',
  'key.converter': 'StringConverter',
  'value.converter': 'JsonConverter',
  'value.converter.schemas.enable': 'false',
});

let dir: string;
const pools: PutPool[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sharesink-smt-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

let seq = 0;
function task(transforms: Record<string, string>): PoolTask & { events: string } {
  const events = join(dir, `events-${++seq}.jsonl`);
  const config = compileConnectorConfig(
    { name: 'smt', 'connector.class': 'noop', topics: 'orders', ...transforms },
    worker,
  );
  return {
    id: `t${seq}`,
    props: { 'events.file': events },
    converters: config.converters,
    transforms: config.transforms,
    events,
  };
}

function pool(): PutPool {
  const p = new PutPool({
    connectorModule: new URL('../../fixtures/connectors/ok.ts', import.meta.url),
    threads: 1,
    logger,
    stopTimeoutMs: 5_000,
  });
  pools.push(p);
  return p;
}

const records = (values: (string | null)[]): RawRecord[] =>
  values.map((v, i) => ({
    topic: 'orders',
    partition: 2,
    offset: 10 + i,
    timestamp: 1_700_000_000_000 + i,
    timestampType: 'CreateTime',
    key: Buffer.from(`k${i}`),
    value: v === null ? null : Buffer.from(v),
    headers: [],
  }));

describe('transforms in the worker thread', () => {
  it('puts transformed records, leaves dropped ones out with no failure, reports a throwing one as errant', async () => {
    const t = task({
      transforms: 'drop,route,cast,mask',
      'transforms.drop.type': 'Filter',
      'transforms.drop.predicate': 'tomb',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': 'orders',
      'transforms.route.replacement': 'orders-masked',
      'transforms.cast.type': 'Cast$Value',
      'transforms.cast.spec': 'n:int32',
      'transforms.mask.type': 'MaskField$Value',
      'transforms.mask.fields': 'card',
      predicates: 'tomb',
      'predicates.tomb.type': 'RecordIsTombstone',
    });
    const result = await pool().put(
      t,
      records(['{"n":"1","card":"4111"}', null, '{"n":"x","card":"4222"}', '{"n":3,"card":"4333"}']),
    );
    expect(result.kind).toBe('ok');
    expect(result.converterFailures).toEqual([
      {
        index: 2,
        code: 'SHARESINK_TRANSFORM_FAILED',
        part: 'transform',
        converter: 'Cast$Value',
        message: expect.stringMatching(/^transform cast \(Cast\$Value\) failed on orders-2@12: /) as unknown,
      },
    ]);
    const events = readEvents(t.events);
    const put = events.find((e) => e.event === 'put')!;
    expect(
      (put['records'] as { topic: string; offset: number; value: unknown }[]).map((r) => [
        r.topic,
        r.offset,
        r.value,
      ]),
    ).toEqual([
      ['orders-masked', 10, { n: 1, card: '' }],
      ['orders-masked', 13, { n: 3, card: '' }],
    ]);
    // preCommit sees the offsets that were read, under the original topic
    expect(events.find((e) => e.event === 'flush')!['offsets']).toEqual([
      { topic: 'orders', partition: 2, offset: 14 },
    ]);
  });

  it('a batch the chain drops entirely is ok without a put', async () => {
    const t = task({ transforms: 'all', 'transforms.all.type': 'Filter' });
    const result = await pool().put(t, records(['{"a":1}', '{"a":2}']));
    expect(result).toMatchObject({ kind: 'ok', converterFailures: [] });
    expect(readEvents(t.events).map((e) => e.event)).toEqual(['start']);
  });

  it('a custom transform module that cannot be loaded fails the task start', async () => {
    const t = task({ transforms: 'x', 'transforms.x.type': './test/fixtures/transforms/not-a-transform.ts' });
    const result = await pool().put(t, records(['{"a":1}']));
    expect(result).toMatchObject({
      kind: 'fatal',
      code: 'SHARESINK_TRANSFORM_MODULE_INVALID',
      taskStarted: true,
    });
  });
});
