// Issue 15's operations endpoints on two `sharesink distributed` workers (real CLI, real broker): the
// offsets of a connector stopped through A read and changed through B (a STOPPED connector runs on no
// worker, so they come from the config topic), Connect's refusal while it is not STOPPED, and each
// worker's /metrics and /admin/loggers covering its own tasks and loggers, and the live view's cluster panel;
// a connector created before its topic: its tasks fail, it does not, and a restart of the tasks heals it;
// a connector module of the user's own, under plugin.path, created over REST.
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/broker.js';
import { api, clusterSpec, startWorker, type DistributedWorkerRun } from './harness/distributed-workers.js';
import { createTopic, deleteTopics, produce, uniqueName } from './harness/kafka.js';
import { until } from './harness/wait.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'connectors');
const spec = clusterSpec('dist-ops', [`plugin.path=${FIXTURES}`]);
const topic = uniqueName('dist-ops-in');
const lateTopic = uniqueName('dist-ops-late');
const workers: DistributedWorkerRun[] = [];

interface Status {
  connector: { state: string };
  tasks: Array<{ id: number; state: string; worker_id: string }>;
}
interface Offsets {
  offsets: Array<{ partition: { kafka_partition: number }; offset: { kafka_offset: number } }>;
}

const STOP_FIRST =
  "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/ops/stop' endpoint";

const status = async (w: DistributedWorkerRun) =>
  (await api(w.url, 'GET', '/connectors/ops/status')).json as Status | undefined;
const running = (s: Status | undefined) =>
  s?.tasks.length === 2 && s.tasks.every((t) => t.state === 'RUNNING');
const patch = (offset: number) => ({
  offsets: [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: offset } }],
});

beforeAll(async () => {
  await createTopic(topic, { partitions: 2 });
  await produce(
    topic,
    Array.from({ length: 20 }, (_, i) => ({ value: `r-${i}`, partition: i % 2 })),
  );
  workers.push(...(await Promise.all(['A', 'B'].map((n) => startWorker(spec, n)))));
  // the second worker's join may still be rebalancing the group: a write then answers 409 (retry, as Connect's clients do)
  const create = () =>
    api(workers[0]!.url, 'POST', '/connectors', {
      name: 'ops',
      config: {
        'connector.class': 'NoopSink',
        topics: topic,
        'tasks.max': '2',
        'consumer.override.group.protocol': 'share',
        'share.group.share.auto.offset.reset': 'earliest',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      },
    });
  const created = await until('the connector created', create, (r) => r.status !== 409, 20_000);
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  await until('2 tasks RUNNING', () => status(workers[1]!), running, 30_000);
}, 60_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await deleteTopics([topic, lateTopic, spec.configTopic, spec.statusTopic]).catch(() => undefined);
});

describe('distributed mode: operations endpoints', () => {
  it('offsets: refused unless STOPPED; a connector stopped through A is read and altered through B, then resumes', async () => {
    const [A, B] = workers as [DistributedWorkerRun, DistributedWorkerRun];
    const refused = await api(B.url, 'PATCH', '/connectors/ops/offsets', patch(3));
    expect(refused).toEqual({ status: 400, json: { error_code: 400, message: STOP_FIRST } });
    expect((await api(A.url, 'DELETE', '/connectors/ops/offsets')).status).toBe(400);
    // GET is allowed while running; the broker shows a partition once the group has state for it, so
    // stop only once both partitions' records were taken (on a loaded machine the stop can come first)
    await until(
      'both partitions in GET offsets',
      async () => ((await api(B.url, 'GET', '/connectors/ops/offsets')).json as Offsets).offsets,
      (o) => o.length === 2,
      20_000,
    );

    expect((await api(A.url, 'PUT', '/connectors/ops/stop')).status).toBe(202);
    await until(
      'B sees ops STOPPED',
      () => status(B),
      (s) => s?.connector.state === 'STOPPED',
      10_000,
    );
    const read = await api(B.url, 'GET', '/connectors/ops/offsets');
    expect(read.status).toBe(200);
    expect((read.json as Offsets).offsets.map((o) => o.partition.kafka_partition).sort()).toEqual([0, 1]);

    // the stopped tasks' share consumers may take a moment to leave the group (the broker says so: 409)
    const altered = await until(
      'PATCH through B accepted',
      () => api(B.url, 'PATCH', '/connectors/ops/offsets', patch(3)),
      (r) => r.status !== 409,
      10_000,
    );
    expect(altered.status, JSON.stringify(altered.json)).toBe(200);
    expect((altered.json as { message: string }).message).toMatch(/altered successfully/);
    const after = (await api(A.url, 'GET', '/connectors/ops/offsets')).json as Offsets;
    expect(after.offsets.find((o) => o.partition.kafka_partition === 0)?.offset.kafka_offset).toBe(3);

    expect((await api(B.url, 'PUT', '/connectors/ops/resume')).status).toBe(202);
    await until('2 tasks RUNNING again', () => status(A), running, 15_000);
    expect((await api(B.url, 'PATCH', '/connectors/ops/offsets', patch(0))).status).toBe(400);
    expect((await api(A.url, 'GET', '/connectors/nope/offsets')).status).toBe(404);
  });

  it('/metrics of each worker covers its own tasks; /admin/loggers reaches the worker’s loggers', async () => {
    const [A, B] = workers as [DistributedWorkerRun, DistributedWorkerRun];
    // after the resume above the status topic may still hold the tasks' RUNNING from before the stop: wait for /metrics
    const runningIn = async (w: DistributedWorkerRun) => {
      const text = await (await fetch(`${w.url}/metrics`)).text();
      const re = /^sharesink_task_state\{connector="ops",task="(\d+)",state="RUNNING"\} 1$/gm;
      return [...text.matchAll(re)].map((m) => m[1]!);
    };
    const shown = await until(
      'each task RUNNING in the /metrics of one worker',
      async () => [await runningIn(A), await runningIn(B)],
      ([a, b]) => a!.length + b!.length === 2,
      15_000,
    );
    expect([...shown[0]!, ...shown[1]!].sort()).toEqual(['0', '1']);
    const s = await status(A);
    for (const [i, w] of [A, B].entries()) {
      const mine = s!.tasks.filter((t) => t.worker_id === new URL(w.url).host).map((t) => String(t.id));
      expect(shown[i]!.sort(), w.name).toEqual(mine.sort());
    }
    // the live view's cluster panel: both workers, this one marked
    const panel = await (await fetch(`${B.url}/machines/cluster`)).text();
    for (const w of [A, B]) expect(panel).toContain(new URL(w.url).host);
    expect(panel).toMatch(/2 member\(s\)/);
    expect(panel).toContain('this worker');
    const loggers = (await api(B.url, 'GET', '/admin/loggers')).json as Record<string, unknown>;
    // made by the worker before its REST server: listed only because the CLI registered the logger first
    expect(Object.keys(loggers)).toEqual(
      expect.arrayContaining(['worker', 'internal-topics', 'herder', 'rest']),
    );
    const set = await api(B.url, 'PUT', '/admin/loggers/herder', { level: 'DEBUG' });
    expect(set.status).toBe(200);
    expect(set.json).toEqual(['herder']);
  });

  it('a connector created before its topic: its tasks FAIL, the connector stays RUNNING, a restart of the failed tasks heals it', async () => {
    const [A, B] = workers as [DistributedWorkerRun, DistributedWorkerRun];
    const file = path.join(tmpdir(), `${lateTopic}.txt`);
    const lateStatus = async () =>
      (await api(A.url, 'GET', '/connectors/late/status')).json as
        (Status & { tasks: Array<{ trace?: string }> }) | undefined;
    const created = await until(
      'late created',
      () =>
        api(B.url, 'POST', '/connectors', {
          name: 'late',
          config: {
            'connector.class': 'FileStreamSink',
            file,
            topics: lateTopic,
            'tasks.max': '2',
            'consumer.override.group.protocol': 'share',
            'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
          },
        }),
      (r) => r.status !== 409,
      20_000,
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const failed = await until(
      'both tasks of late FAILED, the connector assigned',
      lateStatus,
      // the tasks' statuses can be read before the connector's own (UNASSIGNED until its worker writes it)
      (st) =>
        st?.tasks.length === 2 &&
        st.tasks.every((t) => t.state === 'FAILED') &&
        st.connector.state !== 'UNASSIGNED',
      30_000,
    );
    // one worker holds the connector and a task: before, its only task failing failed the connector too
    expect(failed!.connector.state).toBe('RUNNING');
    for (const t of failed!.tasks) expect(t.trace).toMatch(new RegExp(`topic ${lateTopic} does not exist`));

    await createTopic(lateTopic, { partitions: 2 });
    await produce(
      lateTopic,
      Array.from({ length: 10 }, (_, i) => ({ value: `late-${i}`, partition: i % 2 })),
    );
    const restart = await api(A.url, 'POST', '/connectors/late/restart?includeTasks=true&onlyFailed=true');
    expect(restart.status, JSON.stringify(restart.json)).toBe(202);
    await until(
      'late tasks RUNNING',
      lateStatus,
      (st) => st?.connector.state === 'RUNNING' && st.tasks.every((t) => t.state === 'RUNNING'),
      30_000,
    );
    const lines = await until(
      'the 10 records in the file',
      async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean),
      (l) => l.length >= 10,
      30_000,
    );
    expect(lines.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `late-${i}`).sort());
  });

  it('a connector module of your own: created over REST from under plugin.path; refused outside it, naming plugin.path', async () => {
    const [A, B] = workers as [DistributedWorkerRun, DistributedWorkerRun];
    const events = path.join(spec.dir, 'custom-events.jsonl');
    const config = (cls: string) => ({
      'connector.class': cls,
      topics: topic,
      'tasks.max': '2',
      'consumer.override.group.protocol': 'share',
      'share.group.share.auto.offset.reset': 'earliest',
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'events.file': events,
    });
    const outside = path.join(spec.dir, 'outside-sink.mjs');
    await writeFile(outside, 'export default {};\n');
    const refused = await api(A.url, 'POST', '/connectors', { name: 'outside', config: config(outside) });
    expect(refused.status).toBe(400);
    expect((refused.json as { message: string }).message).toContain(`plugin.path is ${FIXTURES}`);

    const created = await until(
      'custom created',
      () =>
        api(B.url, 'POST', '/connectors', { name: 'custom', config: config(path.join(FIXTURES, 'ok.ts')) }),
      (r) => r.status !== 409,
      20_000,
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const values = await until(
      'the 20 records put by the custom connector',
      async () =>
        (await readFile(events, 'utf8').catch(() => ''))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { event: string; records?: Array<{ value: unknown }> })
          .flatMap((e) => (e.event === 'put' ? (e.records ?? []).map((r) => String(r.value)) : [])),
      (v) => new Set(v).size >= 20,
      30_000,
    );
    expect([...new Set(values)].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r-${i}`).sort());
    // its config can be changed over REST too (the class is now the cluster's own)
    const updated = await api(A.url, 'PUT', '/connectors/custom/config', {
      ...config(path.join(FIXTURES, 'ok.ts')),
      'tasks.max': '1',
    });
    expect(updated.status, JSON.stringify(updated.json)).toBe(200);
  });
});
