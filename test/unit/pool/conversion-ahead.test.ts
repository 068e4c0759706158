import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import { SinkTask, type SinkRecord } from '../../../src/connect/index.js';
import { TaskHost } from '../../../src/pool/task-host.js';
import type { PutRequest } from '../../../src/pool/protocol.js';
import { encodeWireBatch } from '../../../src/pool/wire-batch.js';
import { PassThroughConnector } from '../../fixtures/connectors/shared.js';

const log = ((globalThis as { __convertLog?: string[] }).__convertLog ??= []);
const CONVERTER = pathToFileURL(
  new URL('../../fixtures/converters/logged.ts', import.meta.url).pathname,
).href;
/** Each put waits for its gate: the next puts' batches arrive meanwhile, as under a backlog. */
const gates: Array<() => void> = [];

class GatedTask extends SinkTask {
  version(): string {
    return 'test';
  }
  start(): void {}
  async put(records: readonly SinkRecord[]): Promise<void> {
    log.push(`put ${String(records[0]?.value)}`);
    await new Promise<void>((resolve) => gates.push(resolve));
  }
  stop(): void {}
}
const batch = (name: string): RawRecord[] =>
  [0, 1].map((i) => ({
    topic: 't',
    partition: 0,
    offset: i,
    timestamp: 0,
    timestampType: 'CreateTime',
    key: null,
    value: Buffer.from(`${name}#${i}`),
    headers: [],
    deliveryCount: 1,
  }));

let putId = 0;
const request = (name: string, configKey = 'k1'): PutRequest => ({
  putId: ++putId,
  taskId: 'task-0',
  configKey,
  props: {},
  converters: {
    key: { className: 'org.apache.kafka.connect.converters.ByteArrayConverter', props: {} },
    value: { className: CONVERTER, props: {} },
    header: { className: 'org.apache.kafka.connect.storage.SimpleHeaderConverter', props: {} },
  },
  assignment: { version: 0, partitions: [] },
  batch: encodeWireBatch(batch(name)),
});

const settle = () => new Promise((r) => setTimeout(r, 20));
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !done(); i++) await settle();
}
async function openGates(until: () => boolean): Promise<void> {
  while (!until()) {
    await settle();
    gates.splice(0).forEach((open) => open());
  }
}

describe('a pool thread converts the next puts while the running put waits', () => {
  it('converts queued batches ahead, in order, and puts them in order; a new config converts in its turn', async () => {
    log.length = 0;
    const host = new TaskHost(() => Promise.resolve({ connector: PassThroughConnector, task: GatedTask }));
    const results = [host.put(request('a'))];
    await until(() => log.includes('put a#0')); // a's put is running: its instance exists
    results.push(host.put(request('b')), host.put(request('c')));
    await until(() => log.length >= 4);
    // b and c converted while a's put waits; neither is put yet
    expect(log).toEqual(['convert a#0', 'put a#0', 'convert b#0', 'convert c#0']);
    // a changed config makes a new instance: those records convert with its converters, in their turn
    results.push(host.put(request('d', 'k2')));
    await settle();
    expect(log).toEqual(['convert a#0', 'put a#0', 'convert b#0', 'convert c#0']);
    await openGates(() => log.length >= 7 && gates.length === 0);
    const outcomes = await Promise.all(results);
    expect(outcomes.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(log).toEqual([
      'convert a#0',
      'put a#0',
      'convert b#0',
      'convert c#0',
      'put b#0',
      'put c#0',
      'convert d#0',
      'put d#0',
    ]);
    expect(outcomes[1]!.convertMs).toBeGreaterThan(0);
    await host.stop('task-0');
  });
});
