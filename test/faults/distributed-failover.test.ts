// Distributed mode under a kill -9: three `sharesink distributed` workers run one PostgresSink
// connector; one worker is killed mid-stream. Its tasks move to the two left once the broker expels
// it (session.timeout.ms), and every record still reaches the table: share mode (idempotent rows, so
// a redelivery is a no-op) and classic mode (at-least-once, offsets committed by the task that owns
// the partition).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  clusterSpec,
  startWorker,
  type DistributedWorkerRun,
} from '../integration/harness/distributed-workers.js';
import { createTopic, deleteTopics, uniqueName } from '../integration/harness/kafka.js';
import { until } from '../integration/harness/wait.js';
import { ids, produceIds } from './harness/records.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HALF = 1500;
let db: pg.Client;
const cleanup: Array<() => Promise<unknown>> = [];

interface Status {
  tasks: Array<{ id: number; state: string; worker_id: string }>;
}

beforeAll(async () => {
  db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
});

afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  await db?.end();
});

async function scenario(mode: 'share' | 'classic', tasksMax: number) {
  const spec = clusterSpec(`dist-fo-${mode}`);
  const topic = uniqueName(`dist-fo-${mode}`);
  const table = uniqueName(`dist_fo_${mode}`).replace(/-/g, '_');
  // the consumer / share group is connect-<name>: a name of its own per run
  const name = uniqueName(`pg-${mode}`);
  await createTopic(topic, { partitions: 3 });
  const workers = await Promise.all(['A', 'B', 'C'].map((n) => startWorker(spec, n)));
  cleanup.push(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await db.query(`DROP TABLE IF EXISTS "${table}"`);
    await deleteTopics([topic, spec.configTopic, spec.statusTopic]);
  });
  const config = {
    'connector.class': 'PostgresSink',
    topics: topic,
    'tasks.max': String(tasksMax),
    'consumer.override.group.protocol': mode,
    ...(mode === 'share'
      ? {
          'share.group.share.auto.offset.reset': 'earliest',
          'share.group.share.record.lock.duration.ms': '5000',
        }
      : {
          'consumer.override.auto.offset.reset': 'earliest',
          // the killed worker's consumer leaves the connector's group after this, not Java's 45 s
          'consumer.override.session.timeout.ms': '6000',
          'consumer.override.heartbeat.interval.ms': '1000',
        }),
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'connection.url': PG_URL,
    table,
    'insert.mode': 'idempotent',
    'auto.create': 'true',
  };
  const [A] = workers as [DistributedWorkerRun];
  const created = await api(A.url, 'POST', '/connectors', { name, config });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const status = async (w: DistributedWorkerRun) =>
    (await api(w.url, 'GET', `/connectors/${name}/status`)).json as Status;
  await until(
    `${tasksMax} tasks RUNNING`,
    () => status(A),
    (s) => s.tasks?.length === tasksMax && s.tasks.every((t) => t.state === 'RUNNING'),
    60_000,
  );
  const count = async () =>
    (
      await db
        .query<{ n: number; d: number }>(
          `SELECT count(*)::int AS n, count(DISTINCT key)::int AS d FROM "${table}"`,
        )
        .catch(() => ({ rows: [{ n: 0, d: 0 }] }))
    ).rows[0]!;
  return { spec, topic, workers, status, count };
}

// two clusters of their own, side by side: half the wall time
describe.concurrent('fault: a distributed worker killed with -9', () => {
  it('share mode: its tasks move to the other two within the session timeout; every record arrives once', async () => {
    const { topic, workers, status, count } = await scenario('share', 6);
    const [A, B, C] = workers as [DistributedWorkerRun, DistributedWorkerRun, DistributedWorkerRun];
    await produceIds(topic, ids(1, HALF), { partitions: 3 });
    await until('some records written', count, (c) => c.d > 0, 30_000);
    const killed = new URL(C.url).host;
    await C.kill9();
    const killedAt = Date.now();
    await produceIds(topic, ids(HALF + 1, HALF), { partitions: 3 });
    const moved = await until(
      'the killed worker’s tasks RUNNING elsewhere',
      () => status(A),
      (s) => s.tasks?.length === 6 && s.tasks.every((t) => t.state === 'RUNNING' && t.worker_id !== killed),
      30_000,
    );
    const movedMs = Date.now() - killedAt;
    console.log(`distributed failover (share): tasks RUNNING elsewhere ${movedMs} ms after the kill`);
    expect(new Set(moved.tasks.map((t) => t.worker_id))).toEqual(
      new Set([A.url, B.url].map((u) => new URL(u).host)),
    );
    // session.timeout.ms=6000 in the worker files, plus a rebalance and the tasks' start
    expect(movedMs).toBeLessThan(20_000);
    const c = await until('every record in the table', count, (x) => x.d >= 2 * HALF, 60_000);
    expect(c, 'idempotent rows: redeliveries change nothing').toEqual({ n: 2 * HALF, d: 2 * HALF });
  });

  it('classic mode: the moved tasks rejoin the consumer group; at-least-once holds', async () => {
    const { topic, workers, status, count } = await scenario('classic', 3);
    const [A, B] = workers as [DistributedWorkerRun, DistributedWorkerRun, DistributedWorkerRun];
    await produceIds(topic, ids(1, HALF), { partitions: 3 });
    await until('some records written', count, (c) => c.d > 0, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${A.stderr().slice(-4000)}`);
    });
    const victim = workers[2]!;
    const killed = new URL(victim.url).host;
    await victim.kill9();
    await produceIds(topic, ids(HALF + 1, HALF), { partitions: 3 });
    await until(
      'every task RUNNING on A or B',
      () => status(A),
      (s) => s.tasks?.length === 3 && s.tasks.every((t) => t.state === 'RUNNING' && t.worker_id !== killed),
      40_000,
    );
    const c = await until('every record in the table', count, (x) => x.d >= 2 * HALF, 60_000);
    expect(c.d).toBe(2 * HALF);
    expect(c.n).toBe(2 * HALF); // idempotent rows: a re-read after the move is a no-op
    expect(B.child.exitCode).toBeNull();
  });
});
