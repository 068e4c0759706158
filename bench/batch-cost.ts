/**
 * The runtime's own cost per acquired batch, without Kafka: a ShareTaskRunner fed by a consumer that
 * hands out `batches` batches of `records` records (one per poll, each after a setImmediate, as at a
 * steady rate where every ShareFetch answer is a batch of its own), put through a real PutPool
 * (NoopSink) or a pool that answers at once (`--fake-pool`), with the worker's inspection hooks
 * (transition counter and actor census) attached unless `--no-inspect`. Prints main-thread and
 * whole-process CPU µs per batch (/proc/self/task).
 *
 *   tsx bench/batch-cost.ts [--batches=5000] [--records=100] [--fake-pool] [--inspect=runtime|xstate] [--no-inspect]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import type { InspectionEvent } from 'xstate';
import { ShareTaskRunner } from '../src/actors/task/share/share-task-runner.js';
import { LockSupervisor } from '../src/actors/task/share/supervisor.js';
import type { PartitionAckResult, ShareConsumer, ShareRecord } from '../src/kafka/share/share-consumer.js';
import { createActorCensus } from '../src/observability/actor-census.js';
import { createTransitionCounter } from '../src/observability/transition-counter.js';
import { createRuntimeInspector } from '../src/observability/runtime-inspector.js';
import { PutPool } from '../src/pool/put-pool.js';
import type { PutResult } from '../src/pool/protocol.js';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '5000' },
    records: { type: 'string', default: '100' },
    'fake-pool': { type: 'boolean', default: false },
    'no-inspect': { type: 'boolean', default: false },
    inspect: { type: 'string', default: 'runtime' },
  },
});
const BYTES = 'org.apache.kafka.connect.converters.ByteArrayConverter';
const BATCHES = Number(values.batches);
const RECORDS = Number(values.records);
const logger = pino({ level: 'warn' });
const value = Buffer.alloc(200, 1);

class FakeConsumer {
  readonly acquisitionLockTimeoutMs = 30_000;
  polls = 0;
  acked = 0;
  async subscribe(): Promise<void> {}
  async renewSupported(): Promise<boolean> {
    return true;
  }
  poll(): Promise<ShareRecord[]> {
    const n = this.polls++;
    if (n >= BATCHES) return new Promise((resolve) => setTimeout(() => resolve([]), 20));
    return new Promise((resolve) =>
      setImmediate(() =>
        resolve(
          Array.from({ length: RECORDS }, (_, i) => ({
            topic: 't',
            partition: 0,
            offset: n * RECORDS + i,
            timestamp: Date.now(),
            timestampType: 'CreateTime' as const,
            key: null,
            value,
            headers: [],
            deliveryCount: 1,
          })),
        ),
      ),
    );
  }
  acknowledge(records: readonly ShareRecord[], type: string): Promise<PartitionAckResult[]> {
    this.acked += records.length;
    const offsets = records.map((r) => r.offset);
    return new Promise((resolve) =>
      setImmediate(() =>
        resolve([{ topic: 't', partition: 0, type, offsets, error: null } as PartitionAckResult]),
      ),
    );
  }
  async close(): Promise<void> {}
}

const fakePool = {
  put: (): Promise<PutResult> =>
    Promise.resolve({
      kind: 'ok',
      durationMs: 0,
      convertMs: 0,
      converterFailures: [],
      threadId: 1,
      taskStarted: false,
    }),
  started: () => Promise.resolve(),
  close: () => Promise.resolve(),
};

function threadCpuUs(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}
function processCpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

const pool = values['fake-pool']
  ? fakePool
  : new PutPool({
      connectorModule: new URL('../src/sinks/noop/index.ts', import.meta.url),
      threads: 2,
      logger,
    });
await pool.started();
const counter = createTransitionCounter();
const census = createActorCensus();
// `runtime`: the worker's hook (batch actors counted from their snapshots); `xstate`: the same counts
// from XState inspection events for every actor, as before ADR 0011's addendum
const inspectMode = values['no-inspect'] ? 'off' : values.inspect;
const inspect =
  inspectMode === 'off'
    ? undefined
    : inspectMode === 'xstate'
      ? (e: InspectionEvent) => {
          counter.inspect(e);
          census.inspect(e);
        }
      : createRuntimeInspector(counter, census);
const consumer = new FakeConsumer();
const supervisor = new LockSupervisor({ logger });
const runner = new ShareTaskRunner({
  connector: 'c',
  taskId: 0,
  topics: ['t'],
  poolTask: {
    id: 'c-0',
    props: { 'connector.class': 'NoopSink' },
    converters: {
      key: { className: BYTES, props: {} },
      value: { className: BYTES, props: {} },
      header: { className: 'org.apache.kafka.connect.storage.SimpleHeaderConverter', props: {} },
    },
  },
  logger,
  consumer: consumer as unknown as ShareConsumer,
  pool: pool as unknown as PutPool,
  supervisor,
  inspect,
});
// warm-up: the first 10% of the batches
const warm = Math.floor(BATCHES / 10);
await runner.start();
while (consumer.acked < warm * RECORDS) await new Promise((r) => setTimeout(r, 5));
const m0 = threadCpuUs(process.pid);
const p0 = processCpuUs();
const t0 = performance.now();
const a0 = consumer.acked;
while (consumer.acked < BATCHES * RECORDS) await new Promise((r) => setTimeout(r, 5));
const batches = (consumer.acked - a0) / RECORDS;
const m1 = threadCpuUs(process.pid);
const p1 = processCpuUs();
const wall = performance.now() - t0;
await runner.stop();
await pool.close();
process.stdout.write(
  `${values['fake-pool'] ? 'fake pool' : 'PutPool(NoopSink, 2 threads)'}, inspect ${inspectMode}, ${RECORDS} records/batch: ` +
    `${batches} batches in ${Math.round(wall)} ms; main thread ${((m1 - m0) / batches).toFixed(1)} µs/batch, ` +
    `process ${((p1 - p0) / batches).toFixed(1)} µs/batch (${((p1 - p0) / batches / RECORDS).toFixed(2)} µs/record)\n`,
);
process.exit(0);
