// Three `sharesink distributed` worker processes on the real broker and PostgreSQL: one connector
// managed through the REST API of any worker, its tasks spread over the workers, its records written
// once each, its config changed, refused, fought over, read back by a restarted worker, and deleted.
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { KafkaTopicLog } from '../../src/distributed/herder/topic-log.js';
import { createClassicKafka } from '../../src/kafka/kafkajs/classic-consumer.js';
import { ids, produceIds } from '../faults/harness/records.js';
import { api, clusterSpec, startWorker, type DistributedWorkerRun } from './harness/distributed-workers.js';
import { createTopic, deleteTopics, testBrokers, uniqueName } from './harness/kafka.js';
import { until } from './harness/wait.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SECRET = `pw-${Math.random().toString(36).slice(2)}`;
const RECORDS = 2000;
const spec = clusterSpec('dist', [], { SHARESINK_DIST_PG_PASSWORD: SECRET });
const topic = uniqueName('dist-in');
const table = uniqueName('dist_rows').replace(/-/g, '_');
const workers: DistributedWorkerRun[] = [];
let db: pg.Client;

interface Status {
  connector: { state: string; worker_id: string };
  tasks: Array<{ id: number; state: string; worker_id: string }>;
}

const connector = (tasksMax: number) => ({
  'connector.class': 'PostgresSink',
  topics: topic,
  'tasks.max': String(tasksMax),
  'consumer.override.group.protocol': 'share',
  'share.group.share.auto.offset.reset': 'earliest',
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'connection.host': '127.0.0.1',
  'connection.port': '5432',
  'connection.user': 'postgres',
  'connection.database': new URL(PG_URL).pathname.slice(1),
  'connection.password': '${env:SHARESINK_DIST_PG_PASSWORD}',
  table,
  'insert.mode': 'idempotent',
  'auto.create': 'true',
});

async function status(w: DistributedWorkerRun): Promise<Status | undefined> {
  const r = await api(w.url, 'GET', '/connectors/pg/status');
  return r.status === 200 ? (r.json as Status) : undefined;
}

const running = (s: Status | undefined, n: number) =>
  s !== undefined && s.tasks.length === n && s.tasks.every((t) => t.state === 'RUNNING');

async function configTopicText(): Promise<string> {
  const logger = pino({ level: 'silent' });
  const log = new KafkaTopicLog({
    kafka: createClassicKafka({ brokers: [testBrokers()], logger }),
    topic: spec.configTopic,
    readerGroupPrefix: 'dist-test-reader',
    logger,
  });
  const lines: string[] = [];
  await log.start((records) => lines.push(...records.map((r) => `${r.key}=${r.value}`)));
  await log.close();
  return lines.join('\n');
}

beforeAll(async () => {
  db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  await createTopic(topic, { partitions: 3 });
  workers.push(...(await Promise.all(['A', 'B', 'C'].map((n) => startWorker(spec, n)))));
}, 120_000);

// a failure here is often a timing one across three processes: their own logs are what tells
beforeEach(() => {
  onTestFailed(() => {
    for (const w of workers)
      console.log(`--- worker ${w.name}, last log lines:\n${w.stderr().split('\n').slice(-80).join('\n')}`);
  });
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await db?.query(`DROP TABLE IF EXISTS "${table}"`).catch(() => undefined);
  await db?.end();
  await deleteTopics([topic, spec.configTopic, spec.statusTopic]).catch(() => undefined);
});

describe('distributed mode: three workers, one cluster', () => {
  it('a connector created through A runs 2 of its 6 tasks on each worker; C shows all 6; every record lands once', async () => {
    const [A, , C] = workers as [DistributedWorkerRun, DistributedWorkerRun, DistributedWorkerRun];
    const created = await api(A.url, 'POST', '/connectors', { name: 'pg', config: connector(6) });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect((created.json as { name: string }).name).toBe('pg');
    const s = await until(
      '6 tasks RUNNING in C’s status',
      () => status(C),
      (x) => running(x, 6),
      60_000,
    );
    const perWorker = new Map<string, number>();
    for (const t of s!.tasks) perWorker.set(t.worker_id, (perWorker.get(t.worker_id) ?? 0) + 1);
    expect([...perWorker.values()]).toEqual([2, 2, 2]);
    expect(new Set(perWorker.keys())).toEqual(new Set(workers.map((w) => new URL(w.url).host)));

    await produceIds(topic, ids(1, RECORDS), { partitions: 3 });
    const count = async () =>
      (
        await db
          .query<{ n: number; d: number }>(
            `SELECT count(*)::int AS n, count(DISTINCT key)::int AS d FROM "${table}"`,
          )
          .catch(() => ({ rows: [{ n: 0, d: 0 }] }))
      ).rows[0]!;
    const c = await until('every record in the table', count, (x) => x.d >= RECORDS, 60_000);
    expect(c).toEqual({ n: RECORDS, d: RECORDS });
  });

  it('a config that fails validation is refused with every problem (400) and never reaches the topic', async () => {
    const B = workers[1]!;
    const bad = await api(B.url, 'POST', '/connectors', {
      name: 'broken',
      config: { ...connector(0), 'insert.mode': 'sometimes', topics: '' },
    });
    expect(bad.status).toBe(400);
    const message = (bad.json as { message: string }).message;
    expect(message).toMatch(/tasks\.max/);
    expect(message).toMatch(/insert\.mode/);
    expect(message).toMatch(/topics/);
    for (const w of workers) expect((await api(w.url, 'GET', '/connectors')).json).toEqual(['pg']);
    const text = await configTopicText();
    expect(text).not.toContain('broken');
    // the password is stored as its reference only, resolved on the workers that run the tasks
    expect(text).toContain('${env:SHARESINK_DIST_PG_PASSWORD}');
    expect(text).not.toContain(SECRET);
  });

  it('conflicting writes through B and C end in one config on every worker; an update converges', async () => {
    const [A, B, C] = workers as [DistributedWorkerRun, DistributedWorkerRun, DistributedWorkerRun];
    const answers = await Promise.all([
      api(B.url, 'PUT', '/connectors/pg/config', connector(2)),
      api(C.url, 'PUT', '/connectors/pg/config', connector(4)),
    ]);
    // a write that meets a rebalance is answered 409, as Connect does; the other one wins
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const configs = await until(
      'one config on every worker',
      () =>
        Promise.all(
          workers.map(async (w) => JSON.stringify((await api(w.url, 'GET', '/connectors/pg/config')).json)),
        ),
      (x) => new Set(x).size === 1,
      30_000,
    );
    const tasksMax = Number((JSON.parse(configs[0]!) as Record<string, string>)['tasks.max']);
    expect([2, 4, 6]).toContain(tasksMax);
    await until(
      'tasks as the config says',
      () => status(A),
      (x) => running(x, tasksMax),
      60_000,
    );

    const update = await until(
      'the update through B accepted',
      () => api(B.url, 'PUT', '/connectors/pg/config', connector(3)),
      (r) => r.status !== 409,
      30_000,
    );
    expect(update.status).toBe(200);
    for (const w of workers) {
      await until(
        `${w.name}: 3 tasks`,
        () => status(w),
        (x) => running(x, 3),
        60_000,
      );
      const tasks = (await api(w.url, 'GET', '/connectors/pg/tasks')).json as unknown[];
      expect(tasks).toHaveLength(3);
    }
  });

  it('pause, stop and resume through any worker act on every worker', async () => {
    const [A, B, C] = workers as [DistributedWorkerRun, DistributedWorkerRun, DistributedWorkerRun];
    const write = (w: DistributedWorkerRun, method: string, p: string) =>
      until(
        `${method} ${p}`,
        () => api(w.url, method, p),
        (r) => r.status !== 409,
        30_000,
      );
    expect((await write(A, 'PUT', '/connectors/pg/pause')).status).toBe(202);
    await until(
      'every task PAUSED',
      () => status(C),
      (s) => s?.tasks.length === 3 && s.tasks.every((t) => t.state === 'PAUSED'),
      30_000,
    );
    expect((await write(B, 'PUT', '/connectors/pg/stop')).status).toBe(202);
    await until(
      'STOPPED, no tasks',
      () => status(A),
      (s) => s?.connector.state === 'STOPPED' && s.tasks.length === 0,
      30_000,
    );
    for (const w of workers)
      await until(
        `${w.name}: nothing running`,
        async () => (await api(w.url, 'GET', '/health')).json as { connectors: unknown[] },
        (h) => h.connectors.length === 0,
        30_000,
      );
    expect((await write(C, 'PUT', '/connectors/pg/resume')).status).toBe(202);
    await until(
      '3 tasks RUNNING again',
      () => status(B),
      (x) => running(x, 3),
      60_000,
    );
  });

  it('a restarted worker converges from the topics; DELETE through C stops the tasks everywhere', async () => {
    const C = workers[2]!;
    expect(await C.stop()).toBe(0);
    const fresh = await startWorker(spec, 'C2');
    workers[2] = fresh;
    const seen = (await api(fresh.url, 'GET', '/connectors?expand=info&expand=status')).json as Record<
      string,
      { info: { config: Record<string, string> }; status: Status }
    >;
    expect(Object.keys(seen)).toEqual(['pg']);
    expect(seen['pg']!.info.config['tasks.max']).toBe('3');
    await until(
      '3 tasks again',
      () => status(fresh),
      (x) => running(x, 3),
      60_000,
    );

    const deleted = await until(
      'DELETE through C accepted',
      () => api(fresh.url, 'DELETE', '/connectors/pg'),
      (r) => r.status !== 409,
      30_000,
    );
    expect(deleted.status).toBe(204);
    for (const w of workers) {
      await until(
        `${w.name}: no connector`,
        async () => (await api(w.url, 'GET', '/connectors')).json,
        (x) => JSON.stringify(x) === '[]',
        30_000,
      );
      await until(
        `${w.name}: no task running`,
        async () => (await api(w.url, 'GET', '/health')).json as { connectors: unknown[] },
        (h) => h.connectors.length === 0,
        30_000,
      );
      expect((await api(w.url, 'GET', '/connectors/pg/status')).status).toBe(404);
    }
  });
});
