/**
 * A CPU profile of sharesink at a steady rate (scenario 8's sharesink side, one row): the producer at
 * `rate` records/s into a fresh topic of `partitions`, a child (bench/child.ts) with the steady sink,
 * profiled on its main thread over the window, then summarized (bench/profile.ts).
 *
 *   tsx bench/steady-profile.ts [--rate=30000] [--partitions=1] [--tasks=partitions] [--brokers=127.0.0.1:29092] [--out=dir]
 *     [--noprof] [--node-flag=--single-threaded-gc ...] [--prop=share.member.scope=task ...]
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, createTopic, deleteTopics, round } from './common.js';
import { runChild } from './context.js';
import { formatProfile, summarizeProfiles } from './profile.js';
import { readHistograms, startProducer, stop } from './scenarios/steady.js';
import { STEADY_PLAN } from './scenarios/steady-results.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '30000' },
    partitions: { type: 'string', default: '1' },
    tasks: { type: 'string' },
    brokers: { type: 'string', default: '127.0.0.1:29092' },
    out: { type: 'string' },
    top: { type: 'string', default: '30' },
    noprof: { type: 'boolean', default: false },
    // e.g. --node-flag=--single-threaded-gc: V8/Node flags for the sharesink child only
    'node-flag': { type: 'string', multiple: true, default: [] },
    // e.g. --prop=share.member.scope=task: connector settings for the sharesink side
    prop: { type: 'string', multiple: true, default: [] },
  },
});
const partitions = Number(values.partitions);
// fewer tasks than partitions: what one consumer fetching for several partitions costs per record
const tasks = values.tasks === undefined ? partitions : Number(values.tasks);
const rate = Number(values.rate);
const topic = `steady-prof-${Date.now().toString(36)}`;
const dir = values.out ?? mkdtempSync(path.join(os.tmpdir(), 'sharesink-steady-prof-'));
mkdirSync(dir, { recursive: true });
const latencyDir = mkdtempSync(path.join(os.tmpdir(), 'sharesink-steady-lat-'));
await createTopic(values.brokers, topic, partitions);
const producer = startProducer(values.brokers, topic, rate, STEADY_PLAN);
try {
  const r = await runChild(
    {
      kind: 'worker',
      label: 'steady-profile',
      brokers: values.brokers,
      topic,
      topicRecords: Number.MAX_SAFE_INTEGER,
      mode: 'share',
      tasks,
      connectorClass: path.join(BENCH_DIR, 'steady-sink.ts'),
      connectorProps: {
        'latency.dir': latencyDir,
        'share.group.share.auto.offset.reset': 'latest',
        ...Object.fromEntries(
          values.prop.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]),
        ),
      },
      measure: { kind: 'window', warmupMs: STEADY_PLAN.warmupMs, windowMs: STEADY_PLAN.windowMs },
      timeoutMs: 90_000,
      profileDir: values.noprof ? undefined : dir,
    },
    values['node-flag'],
  );
  process.stdout.write(
    `threads (µs per record, user+sys): ${JSON.stringify(Object.fromEntries(Object.entries(r.threadCpuUs ?? {}).map(([k, v]) => [k, `${round(v.user / r.records, 2)}+${round(v.sys / r.records, 2)} (${v.threads})`])))}\n`,
  );
  const batches = r.windowCounters?.batches ?? 0;
  if (batches > 0)
    process.stdout.write(
      `wake-ups per batch: ${Object.entries(r.threadCpuUs ?? {})
        .map(([k, v]) => `${k} ${round(v.wakes / batches, 2)}`)
        .join(', ')}\n`,
    );
  const st = r.mainStalls;
  if (st)
    process.stdout.write(
      `main thread: ${st.gcCount} GCs, ${round(st.gcMsTotal)} ms in all, longest ${round(st.gcMsMax, 1)} ms, ${st.gcMajorCount} mark-compact (${round(st.gcMajorMs)} ms); event-loop delay p99 ${round(st.loopDelayP99Ms, 1)} ms, max ${round(st.loopDelayMaxMs, 1)} ms\n`,
    );
  const lat = r.windowEpochMs ? readHistograms(latencyDir, r.windowEpochMs) : undefined;
  process.stdout.write(`latency p50 ${lat?.p50} ms, p99 ${lat?.p99} ms (${lat?.samples} records)\n`);
  process.stdout.write(
    `records/s ${round(r.recordsPerSec)}, /proc CPU µs/record ${round(r.procCpuUsPerRecord ?? NaN, 2)} (profiler ${values.noprof ? 'off' : 'on'}), counters ${JSON.stringify(r.windowCounters)}\n`,
  );
  if (!values.noprof)
    process.stdout.write(`${formatProfile(summarizeProfiles(dir, Number(values.top)), 2)}\n${dir}\n`);
} finally {
  stop(producer);
  await deleteTopics(values.brokers, [topic]);
}
process.exit(0);
