/**
 * An alternating drain A/B between two checkouts of sharesink (a `git worktree` of the old commit, say):
 * one topic is filled once, then each side drains it with NoopSink (scenario 2's settings, a new share
 * group per run), A and B in turn; per run the time from start() to the first record put, the CPU per
 * record and the steady rate are printed, then each side's medians.
 *
 *   tsx bench/drain-ab.ts --a=/tmp/base --b=. [--rounds=4] [--records=2000000] [--size=100]
 *     [--partitions=1] [--tasks=1] [--brokers=127.0.0.1:29092] [--a-prop=k=v ...] [--b-prop=k=v ...]
 *     [--mode=share|classic|consumer] [--profile=<dir>] [--a-tsx]
 *
 * `--a-prop` / `--b-prop` add connector settings to one side: `--a=. --b=. --b-prop=put.placement=event-loop`
 * compares a setting on one checkout; `--a-tsx` runs side A from its sources under tsx (how the bench ran
 * before bench/built-child.ts), B as built. `--mode` drains in classic mode or on the consumer protocol (a new
 * group per run, read from the earliest offset); `--profile` writes each run's main-thread CPU profile
 * (steady part) under `<dir>/<label>/` for bench/profile.ts.
 *
 * The other checkout needs its dependencies (`ln -s "$PWD/node_modules" /tmp/base/` will do).
 * Long drains (2,000,000 records) show the per-record cost; scenario 5's 500,000-record drains last
 * ~3 s, and V8's optimizing compiler still runs on its helper threads for much of that (ADR 0011).
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTopic, deleteTopics, ensureBroker, round, say } from './common.js';
import { runChild } from './context.js';
import type { ChildResult, WorkerRunSpec } from './child-protocol.js';
import { producerPerformance } from './java-tools.js';
import { FILL_PROPS } from './plan.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '4' },
    records: { type: 'string', default: '2000000' },
    size: { type: 'string', default: '100' },
    partitions: { type: 'string', default: '1' },
    tasks: { type: 'string', default: '1' },
    brokers: { type: 'string', default: '127.0.0.1:29092' },
    mode: { type: 'string', default: 'share' },
    profile: { type: 'string' },
    'a-tsx': { type: 'boolean', default: false },
    'a-prop': { type: 'string', multiple: true, default: [] },
    'b-prop': { type: 'string', multiple: true, default: [] },
  },
});
if (!values.a || !values.b) throw new Error('--a=<checkout> and --b=<checkout> are required');
const sides = { A: path.resolve(values.a), B: path.resolve(values.b) };
const records = Number(values.records);
const recordSize = Number(values.size);
const partitions = Number(values.partitions);
const brokers = values.brokers;
if (!['share', 'classic', 'consumer'].includes(values.mode))
  throw new Error(`--mode=${values.mode}: share, classic or consumer`);
const mode = values.mode as WorkerRunSpec['mode'];
const propsOf = (given: string[]): Record<string, string> =>
  Object.fromEntries(given.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const sideProps = { A: propsOf(values['a-prop']), B: propsOf(values['b-prop']) };

function drain(
  dir: string,
  label: string,
  topic: string,
  props: Record<string, string>,
  tsx: boolean,
): Promise<ChildResult> {
  const spec: WorkerRunSpec = {
    kind: 'worker',
    label,
    brokers,
    topic,
    topicRecords: records,
    mode,
    tasks: Number(values.tasks),
    poolThreads: os.availableParallelism(),
    connectorClass: 'NoopSink',
    connectorProps: { 'consumer.override.max.poll.records': '500', ...props },
    measure: { kind: 'drain', records },
    timeoutMs: 600_000,
    ...(values.profile === undefined ? {} : { profileDir: path.resolve(values.profile, label) }),
  };
  if (spec.profileDir !== undefined) mkdirSync(spec.profileDir, { recursive: true });
  // each side's own child, so each side runs its own src/
  return runChild(spec, [], path.join(dir, 'bench'), tsx ? { typescript: true } : {});
}

await ensureBroker(brokers);
const topic = `drain-ab-${Date.now().toString(36)}`;
await createTopic(brokers, topic, partitions);
try {
  say(`[drain-ab] fill ${topic}: ${records} × ${recordSize} B, ${partitions} partition(s)`);
  await producerPerformance({ brokers, topic, records, recordSize, props: FILL_PROPS });
  const seen: Record<'A' | 'B', number[]> = { A: [], B: [] };
  const firstMs: Record<'A' | 'B', number[]> = { A: [], B: [] };
  const steady: Record<'A' | 'B', number[]> = { A: [], B: [] };
  for (let i = 0; i < Number(values.rounds); i++) {
    for (const side of ['A', 'B'] as const) {
      const r = await drain(
        sides[side],
        `drain-ab-${side}${i}`,
        topic,
        sideProps[side],
        side === 'A' && values['a-tsx'],
      );
      seen[side].push(round(r.cpuUsPerRecord, 2));
      firstMs[side].push(round(r.firstRecordMs ?? NaN));
      steady[side].push(round(r.steadyRecordsPerSec ?? 0));
      say(
        `${side}${i}: first record ${round(r.firstRecordMs ?? NaN)} ms after start, ` +
          `${round(r.cpuUsPerRecord, 2)} µs/record, steady ${round(r.steadyRecordsPerSec ?? 0)}/s, ` +
          `${round(r.avgRecordsPerPut ?? 0)} records/put`,
      );
    }
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
  const named = (side: 'A' | 'B') =>
    `${sides[side]}${Object.keys(sideProps[side]).length > 0 ? ` ${JSON.stringify(sideProps[side])}` : ''}`;
  for (const side of ['A', 'B'] as const) {
    say(`${side} ${named(side)}:`);
    say(`  first record (ms from start): ${firstMs[side].join(' / ')} (median ${median(firstMs[side])})`);
    say(`  CPU µs/record: ${seen[side].join(' / ')} (median ${median(seen[side])})`);
    say(`  steady records/s: ${steady[side].join(' / ')} (median ${median(steady[side])})`);
  }
} finally {
  await deleteTopics(brokers, [topic]);
}
