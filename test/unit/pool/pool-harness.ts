/** Pools over the fixture connectors, tasks that report to a file of events, and records to put. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { pino } from 'pino';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { PutPool, type PoolTask, type PutPoolOptions } from '../../../src/pool/put-pool.js';

export const fixture = (name: string): URL =>
  new URL(`../../fixtures/connectors/${name}.ts`, import.meta.url);
const logger = pino({ level: 'silent' });
const STRINGS = convertersFromProps({
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'StringConverter',
});

/** Registers the hooks that give each test file a temp dir and close every pool after each test. */
export function usePools(): {
  pool: (name: string, threads?: number, options?: Partial<PutPoolOptions>) => PutPool;
  task: (extra?: Record<string, string>, overrides?: Partial<PoolTask>) => PoolTask & { events: string };
} {
  let dir = '';
  let taskSeq = 0;
  const pools: PutPool[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sharesink-pool-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });
  return {
    pool(name, threads = 1, options = {}) {
      const p = new PutPool({
        connectorModule: fixture(name),
        threads,
        logger,
        stopTimeoutMs: 5_000,
        ...options,
      });
      pools.push(p);
      return p;
    },
    task(extra = {}, overrides = {}) {
      const events = join(dir, `events-${++taskSeq}.jsonl`);
      return {
        id: `t${taskSeq}`,
        props: { 'events.file': events, ...extra },
        converters: STRINGS,
        events,
        ...overrides,
      };
    },
  };
}

export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function records(
  values: readonly (string | null)[],
  first = 0,
  extra: Partial<RawRecord> = {},
): RawRecord[] {
  return values.map((v, i) => ({
    topic: 'orders',
    partition: 2,
    offset: first + i,
    timestamp: 1_700_000_000_000 + i,
    timestampType: 'CreateTime',
    key: Buffer.from(`k${first + i}`),
    value: v === null ? null : Buffer.from(v),
    headers: [{ key: 'trace', value: Buffer.from(`h${i}`) }],
    ...extra,
  }));
}
