/**
 * Scenario 11: what a rebalance costs. A 6-partition topic fed at a steady rate (half the slowest
 * side's drain rate; bench/scenarios/rebalance-timeline.ts), a sink with a fixed put latency (bench/rebalance-plugin/rebalance-sink.ts;
 * bench/java/SleepSinkConnector for Kafka Connect), and partitions moved while records flow:
 *
 * - standalone phase, four sides (sharesink classic, consumer, share; Kafka Connect standalone): the
 *   operator scales `tasks.max` 3 → 6 → 3 with PUT /connectors/{name}/config;
 * - distributed phase, three sharesink sides: two `sharesink distributed` workers run 6 tasks, a third
 *   worker is added, then the first is killed with SIGKILL.
 *
 * Every put is logged with its records; bench/rebalance-analysis.ts samples the logs every 100 ms.
 * Definitions and timings: bench/README.md, "Rebalance (scenario 11)".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, say, setGroupConfig, sleep } from '../common.js';
import { compileConnectPlugin } from '../connect-standalone.js';
import type { BenchContext } from '../context.js';
import {
  connectStandalone,
  putConfig,
  restWrite,
  sharesinkDistributedWorker,
  sharesinkStandalone,
  waitForTasks,
  waitForWorkerTasks,
  type Proc,
} from '../rebalance-procs.js';
import type { RebalanceResults, RebalanceSideName } from './rebalance-results.js';
import { createSideTopic, produceThrough, REBALANCE, rebalanceRate, rowFrom } from './rebalance-timeline.js';

function connectorConfig(o: {
  side: RebalanceSideName;
  name: string;
  topic: string;
  tasks: number;
  recordsDir: string;
}): Record<string, string> {
  const common = {
    name: o.name,
    topics: o.topic,
    'tasks.max': String(o.tasks),
    'sleep.ms': String(REBALANCE.sinkLatencyMs),
  };
  if (o.side === 'connect')
    return {
      ...common,
      'connector.class': 'sharesink.bench.SleepSinkConnector',
      'progress.dir': o.recordsDir,
      'records.log': 'true',
    };
  const protocol = o.side === 'share' ? 'share' : o.side === 'consumer' ? 'consumer' : 'classic';
  return {
    ...common,
    'connector.class': path.join(PLUGIN_DIR, 'rebalance-sink.ts'),
    'records.dir': o.recordsDir,
    'consumer.override.group.protocol': protocol,
    'consumer.override.max.poll.records': String(REBALANCE.maxPollRecords),
    'max.inflight.batches': '1',
    ...(protocol === 'share'
      ? { 'share.group.share.auto.offset.reset': 'earliest' }
      : { 'consumer.override.auto.offset.reset': 'earliest' }),
    // the consumer protocol's session timeout is the group's (set by groupSessionTimeout), not the client's
    ...(protocol === 'classic'
      ? { 'consumer.override.session.timeout.ms': String(REBALANCE.sessionTimeoutMs) }
      : {}),
  };
}

/**
 * The sink group's session timeout where the broker holds it: the group config
 * `share.session.timeout.ms` (share) or `consumer.session.timeout.ms` (consumer protocol), set before
 * the group exists. Classic groups take the client's `session.timeout.ms` (connectorConfig).
 */
async function groupSessionTimeout(ctx: BenchContext, side: RebalanceSideName, group: string) {
  if (side !== 'share' && side !== 'consumer') return;
  await setGroupConfig(ctx.brokers, group, {
    [`${side}.session.timeout.ms`]: String(REBALANCE.sessionTimeoutMs),
  });
}

/** The sink's directory: the distributed workers' `plugin.path` (a worker imports no module outside it). */
const PLUGIN_DIR = path.join(BENCH_DIR, 'rebalance-plugin');

const PROTOCOL_NOTE = /group\.protocol=consumer: read as classic[^"\n]*/;
export async function standaloneSide(ctx: BenchContext, side: RebalanceSideName, connectClasses?: string) {
  const started = Date.now();
  const topic = ctx.topicName(`rebalance-${side}`);
  await createSideTopic(ctx, topic);
  const dir = mkdtempSync(path.join(os.tmpdir(), `sharesink-rebalance-${side}-`));
  const recordsDir = path.join(dir, 'records');
  const name = `rebalance-${side}-${ctx.runId}`;
  const config = (tasks: number) => connectorConfig({ side, name, topic, tasks, recordsDir });
  let proc: Proc | undefined;
  let ok = false;
  try {
    proc =
      side === 'connect'
        ? await connectStandalone({
            dir,
            classesDir: connectClasses!,
            brokers: ctx.brokers,
            worker: {
              'consumer.max.poll.records': String(REBALANCE.maxPollRecords),
              'consumer.auto.offset.reset': 'earliest',
              'consumer.session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
            },
            connector: config(REBALANCE.tasks[0]),
          })
        : await sharesinkStandalone({ dir, brokers: ctx.brokers, connector: config(REBALANCE.tasks[0]) });
    const p = proc;
    await waitForTasks(p, name, REBALANCE.tasks[0]);
    await sleep(2000); // the group's join and first assignment
    const timeline = await produceThrough({
      ctx,
      topic,
      tailMs: REBALANCE.standalone.tailMs,
      recordsDir,
      act: async ({ at }, changes) => {
        changes.push({ label: `tasks ${REBALANCE.tasks[0]}→${REBALANCE.tasks[1]}`, atMs: Date.now() });
        await putConfig(p, name, config(REBALANCE.tasks[1]));
        await at(REBALANCE.standalone.secondChangeMs);
        changes.push({ label: `tasks ${REBALANCE.tasks[1]}→${REBALANCE.tasks[0]}`, atMs: Date.now() });
        await putConfig(p, name, config(REBALANCE.tasks[0]));
      },
    });
    await p.stop();
    const note = PROTOCOL_NOTE.exec(p.log())?.[0];
    const via =
      side === 'connect'
        ? 'Kafka Connect standalone 4.4 (ConnectStandalone), SleepSinkConnector, classic group'
        : `sharesink standalone (CLI), bench/rebalance-plugin/rebalance-sink.ts, consumer.override.group.protocol=${side}`;
    const row = rowFrom({
      side,
      phase: 'standalone',
      via,
      protocolNote: note,
      recordsDir,
      timeline,
      started,
    });
    ok = true;
    return row;
  } finally {
    await proc?.stop();
    if (ok) rmSync(dir, { recursive: true, force: true });
    else say(`[bench] rebalance ${side}: files kept in ${dir}`);
  }
}

/** One distributed side: workers A and B run 6 tasks; C is added; A is killed with SIGKILL. */
export async function distributedSide(ctx: BenchContext, side: Exclude<RebalanceSideName, 'connect'>) {
  const started = Date.now();
  const topic = ctx.topicName(`rebalance-dist-${side}`);
  await createSideTopic(ctx, topic);
  const dir = mkdtempSync(path.join(os.tmpdir(), `sharesink-rebalance-dist-${side}-`));
  const recordsDir = path.join(dir, 'records');
  const name = `rebalance-dist-${side}-${ctx.runId}`;
  const groupId = `bench-${ctx.runId}-rebalance-workers-${side}`;
  ctx.createdTopics.push(`${groupId}-configs`, `${groupId}-status`);
  const extra = {
    'session.timeout.ms': String(REBALANCE.sessionTimeoutMs),
    'heartbeat.interval.ms': '3000',
    // Connect's default (5 minutes) would hold a dead worker's tasks for the whole run
    'scheduled.rebalance.max.delay.ms': '0',
    'plugin.path': PLUGIN_DIR,
  };
  const workers: Proc[] = [];
  const worker = (n: string) =>
    sharesinkDistributedWorker({ dir, name: n, brokers: ctx.brokers, groupId, extra }).then((w) => {
      workers.push(w);
      return w;
    });
  let ok = false;
  try {
    const [a, b] = await Promise.all([worker('A'), worker('B')]);
    await groupSessionTimeout(ctx, side, `connect-${name}`);
    const tasks = REBALANCE.tasks[1];
    const config = connectorConfig({ side, name, topic, tasks, recordsDir });
    await restWrite(a, 'POST', '/connectors', { name, config });
    await waitForTasks(b, name, tasks);
    await sleep(2000);
    const timeline = await produceThrough({
      ctx,
      topic,
      tailMs: REBALANCE.distributed.tailMs,
      recordsDir,
      act: async ({ at, settle }, changes) => {
        changes.push({ label: 'worker C added', atMs: Date.now() });
        const c = await worker('C');
        await waitForWorkerTasks(b, name, new URL(c.url).host, REBALANCE.maxSettleMs);
        await settle();
        await at(REBALANCE.distributed.secondChangeMs);
        changes.push({ label: 'worker A killed (-9)', atMs: Date.now() });
        await a.kill9();
      },
    });
    const note = PROTOCOL_NOTE.exec(workers.map((w) => w.log()).join('\n'))?.[0];
    await Promise.all(workers.map((w) => w.stop()));
    const via = `sharesink distributed (CLI), 2 workers + 1 added − 1 killed, ${tasks} tasks, consumer.override.group.protocol=${side}`;
    const row = rowFrom({
      side,
      phase: 'distributed',
      via,
      protocolNote: note,
      recordsDir,
      timeline,
      started,
    });
    ok = true;
    return row;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    if (ok) rmSync(dir, { recursive: true, force: true });
    else say(`[bench] rebalance distributed ${side}: files kept in ${dir}`);
  }
}

/** Scenario 11 (`--only=11`; part of the default plan). Fills results.scenarios.rebalance. */
export async function runRebalance(ctx: BenchContext): Promise<void> {
  if (!ctx.wants(11)) return;
  const { rate, basis } = rebalanceRate();
  const out: RebalanceResults = { plan: { ...REBALANCE, rate }, rateBasis: basis, rows: [] };
  ctx.results.scenarios.rebalance = out;
  const connectClasses = await ctx.step('rebalance: compile the Kafka Connect sink', async () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'sharesink-bench-connect-classes-'));
    await compileConnectPlugin(d);
    return d;
  });
  const sides: RebalanceSideName[] = ['classic', 'consumer', 'share', 'connect'];
  for (const side of sides) {
    if (side === 'connect' && !connectClasses) continue;
    const row = await ctx.measured(`rebalance standalone: ${side} (tasks 3 → 6 → 3)`, () =>
      standaloneSide(ctx, side, connectClasses),
    );
    if (row) out.rows.push(row);
  }
  if (connectClasses) rmSync(connectClasses, { recursive: true, force: true });
  for (const side of ['classic', 'consumer', 'share'] as const) {
    const row = await ctx.measured(`rebalance distributed: ${side} (worker added, worker killed)`, () =>
      distributedSide(ctx, side),
    );
    if (row) out.rows.push(row);
  }
}
