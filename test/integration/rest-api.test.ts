// The REST API against a Worker running a real connector on the real broker (share mode): every
// endpoint over HTTP, pause holding back puts, resume, a task failing and being restarted, /metrics
// moving, /health flipping, the live view's event stream, and a clean shutdown.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics, produce, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { startRestCli } from './harness/cli.js';
import { LINES_CONNECTOR, startLinesWorker } from './harness/rest.js';
import { lines, metric, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-rest-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe('REST API on a running worker (share mode)', () => {
  it('serves Connect’s endpoints, pauses, resumes, restarts a failed task, and shuts down cleanly', async () => {
    const topic = uniqueTopic('rest');
    topics.push(topic);
    await createTopic(topic, { partitions: 3 });
    const file = path.join(dir, 'lines.txt');
    const name = 'rest-probe';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group: uniqueGroup('rest'), mode: 'share', tasks: 2, poolThreads: 2, logger },
      worker: { listeners: 'http://127.0.0.1:0', 'task.shutdown.graceful.timeout.ms': '2000' },
      connector: { 'key.converter': 'org.apache.kafka.connect.storage.StringConverter' },
    });
    const url = (p: string) => `${rest.url}${p}`;
    const getJson = async (p: string) => {
      const res = await fetch(url(p));
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & unknown[] };
    };
    const status = async () =>
      (await getJson(`/connectors/${name}/status`)).body as unknown as {
        connector: { state: string };
        tasks: Array<{ id: number; state: string; trace?: string }>;
      };
    const taskStates = async () => (await status()).tasks.map((t) => t.state);
    const metrics = async () => (await fetch(url('/metrics'))).text();

    try {
      // /health says DOWN until the tasks run
      expect((await fetch(url('/health'))).status).toBe(503);
      await w.start();
      await produce(
        topic,
        Array.from({ length: 200 }, (_, i) => `r-${i}`),
      );
      await until(
        '200 lines',
        () => lines(file).length,
        (n) => n >= 200,
      );

      // read endpoints, Connect's shapes
      const root = await getJson('/');
      expect(root.body).toMatchObject({ version: expect.any(String), commit: expect.any(String) });
      await until(
        'kafka_cluster_id',
        async () => (await getJson('/')).body,
        (b) => typeof b['kafka_cluster_id'] === 'string',
        10_000,
      );
      expect((await getJson('/connectors')).body).toEqual([name]);
      expect((await getJson('/connectors?expand=status&expand=info')).body).toMatchObject({
        [name]: { status: { name, type: 'sink' }, info: { name, type: 'sink' } },
      });
      expect((await getJson(`/connectors/${name}`)).body).toMatchObject({
        name,
        type: 'sink',
        tasks: [
          { connector: name, task: 0 },
          { connector: name, task: 1 },
        ],
      });
      expect((await getJson(`/connectors/${name}/config`)).body).toMatchObject({
        topics: topic,
        'tasks.max': '2',
      });
      expect((await getJson(`/connectors/${name}/tasks`)).body).toHaveLength(2);
      const s = await status();
      expect(s.connector.state).toBe('RUNNING');
      expect(s.tasks).toEqual([
        { id: 0, state: 'RUNNING', worker_id: new URL(rest.url).host },
        { id: 1, state: 'RUNNING', worker_id: new URL(rest.url).host },
      ]);
      expect((await getJson(`/connectors/${name}/tasks/1/status`)).body).toMatchObject({
        id: 1,
        state: 'RUNNING',
      });
      const plugins = (await getJson('/connector-plugins')).body as Array<{ class: string }>;
      expect(plugins.map((p) => p.class)).toContain(LINES_CONNECTOR);
      expect((await fetch(url('/health'))).status).toBe(200);

      // /metrics counts what was put
      // accepted counts once the broker confirmed the acknowledgement, which can trail the put
      const before = await until(
        'accepted counts 200',
        metrics,
        (text) => metric(text, 'sharesink_task_records_accepted_total') >= 200,
      );
      expect(metric(before, 'sharesink_share_records_acquired_total')).toBeGreaterThanOrEqual(200);
      expect(metric(before, 'sharesink_task_puts_total')).toBeGreaterThan(0);
      expect(before).toMatch(
        /^sharesink_machine_transitions_total\{machine="batch",from="acquired",to="putting"\} [1-9]/m,
      );

      // the live view's stream delivers an update with the running tasks
      const abort = new AbortController();
      const sse = await fetch(url('/machines/events'), { signal: abort.signal });
      const reader = sse.body!.getReader();
      let text = '';
      while (!/data: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      const update = JSON.parse(/data: (.*)\n/.exec(text)![1]!) as {
        states: Record<string, Record<string, number>>;
      };
      expect(update.states['task']).toEqual({ running: 2 });
      expect(update.states['connector']).toEqual({ 'up.running': 1 });
      expect((await fetch(url('/machines'))).status).toBe(200);

      // pause: no new puts while paused, even with records waiting
      expect((await fetch(url(`/connectors/${name}/pause`), { method: 'PUT' })).status).toBe(202);
      await until('paused', taskStates, (st) => st.every((x) => x === 'PAUSED'));
      expect((await status()).connector.state).toBe('PAUSED');
      expect((await fetch(url('/health'))).status).toBe(200);
      // a poll already waiting when the pause came may still hand out one batch (it waits up to 1 s)
      await new Promise((r) => setTimeout(r, 2000));
      await until(
        'in-flight batches done',
        () => w.inFlight,
        (n) => n === 0,
      );
      const putsPaused = metric(await metrics(), 'sharesink_task_puts_total');
      const linesPaused = lines(file).length;
      await produce(
        topic,
        Array.from({ length: 100 }, (_, i) => `p-${i}`),
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(lines(file).length).toBe(linesPaused);
      expect(metric(await metrics(), 'sharesink_task_puts_total')).toBe(putsPaused);

      // resume: the waiting records are put
      expect((await fetch(url(`/connectors/${name}/resume`), { method: 'PUT' })).status).toBe(202);
      await until('running', taskStates, (st) => st.every((x) => x === 'RUNNING'));
      await until(
        '300 lines',
        () => lines(file).length,
        (n) => n >= 300,
      );

      // counted once the broker confirmed the acknowledgement, which can trail the put
      const acceptedBeforeRestarts = await until(
        'accepted counts 300',
        async () => metric(await metrics(), 'sharesink_task_records_accepted_total'),
        (n) => n >= 300,
      );

      // a poison record fails one task; /health flips to 503 and says which
      await produce(topic, ['poison']);
      const failed = await until('a failed task', status, (st) => st.tasks.some((t) => t.state === 'FAILED'));
      const failedTask = failed.tasks.find((t) => t.state === 'FAILED')!;
      expect(failedTask.trace).toMatch(/poison/);
      const health = await fetch(url('/health'));
      expect(health.status).toBe(503);
      expect(((await health.json()) as { unhealthy: string[] }).unhealthy).toEqual([
        `${name}/${failedTask.id}`,
      ]);

      // restart only the failed tasks (KIP-745): 202 with the failed one RESTARTING, then it runs again
      const restart = await fetch(url(`/connectors/${name}/restart?includeTasks=true&onlyFailed=true`), {
        method: 'POST',
      });
      expect(restart.status).toBe(202);
      const restartBody = (await restart.json()) as {
        connector: { state: string };
        tasks: Array<{ id: number; state: string }>;
      };
      expect(restartBody.connector.state).toBe('RUNNING');
      expect(restartBody.tasks.find((t) => t.id === failedTask.id)?.state).toBe('RESTARTING');
      expect(restartBody.tasks.find((t) => t.id !== failedTask.id)?.state).toBe('RUNNING');
      await until('all running again', taskStates, (st) => st.every((x) => x === 'RUNNING'));
      expect((await fetch(url('/health'))).status).toBe(200);

      // one task restarted by hand (204), then records still flow
      expect((await fetch(url(`/connectors/${name}/tasks/0/restart`), { method: 'POST' })).status).toBe(204);
      await until('task 0 running', taskStates, (st) => st[0] === 'RUNNING');
      await produce(
        topic,
        Array.from({ length: 50 }, (_, i) => `a-${i}`),
      );
      await until(
        '350 lines',
        () => lines(file).length,
        (n) => n >= 350,
      );
      expect(new Set(lines(file)).size).toBeGreaterThanOrEqual(350);
      // counters keep what the replaced task instances counted: the summary still accounts for every record
      const accepted = await until(
        'accepted counts 350',
        async () => metric(await metrics(), 'sharesink_task_records_accepted_total'),
        (n) => n >= 350,
      );
      expect(accepted).toBeGreaterThanOrEqual(acceptedBeforeRestarts + 50);
      expect(w.summary().connectors[0]!.counters.recordsRejected).toBe(1);
      expect(lines(file)).not.toContain('poison');

      // a connector created over REST runs beside the files' one until it is deleted (Connect's standalone)
      const extra = `${name}-extra`;
      const created = await fetch(url('/connectors'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: extra,
          config: {
            'connector.class': 'NoopSink',
            topics: topic,
            'consumer.override.group.id': uniqueGroup('rest-extra'),
            // the topic's records are not JSON: the worker's JsonConverter would fail the task
            'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
            'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
          },
        }),
      });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ name: extra, tasks: [{ connector: extra, task: 0 }] });
      await until(
        'the created connector runs',
        async () =>
          (
            (await (await fetch(url(`/connectors/${extra}/status`))).json()) as {
              tasks: Array<{ state: string }>;
            }
          ).tasks[0]?.state,
        (state) => state === 'RUNNING',
      );
      const del = await fetch(url(`/connectors/${extra}`), { method: 'DELETE' });
      expect(del.status).toBe(204);
      expect((await fetch(url(`/connectors/${extra}`))).status).toBe(404);
      expect(w.connectors.map((c) => c.config.name)).toEqual([name]);
    } finally {
      await rest.close();
      await w.stop();
    }
    expect(w.inFlight).toBe(0);
    expect(w.summary().connectors[0]!.tasks.map((t) => t.state)).toEqual(['stopped', 'stopped']);
  });

  it('pauses and resumes a classic-mode connector (kafkajs pause): no puts while paused', async () => {
    const topic = uniqueTopic('rest-classic');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'classic-lines.txt');
    const name = 'rest-classic';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group: uniqueGroup('rest-classic'), mode: 'classic', tasks: 1, poolThreads: 1 },
      logger,
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    const state = async () =>
      (
        (await (await fetch(`${rest.url}/connectors/${name}/status`)).json()) as {
          tasks: Array<{ state: string }>;
        }
      ).tasks[0]!.state;
    try {
      await w.start();
      await produce(
        topic,
        Array.from({ length: 50 }, (_, i) => `c-${i}`),
      );
      await until(
        '50 lines',
        () => lines(file).length,
        (n) => n >= 50,
      );
      expect((await fetch(`${rest.url}/connectors/${name}/pause`, { method: 'PUT' })).status).toBe(202);
      await until('paused', state, (s) => s === 'PAUSED');
      await new Promise((r) => setTimeout(r, 1000));
      await until(
        'in-flight batches done',
        () => w.inFlight,
        (n) => n === 0,
      );
      const linesPaused = lines(file).length;
      await produce(
        topic,
        Array.from({ length: 50 }, (_, i) => `d-${i}`),
      );
      await new Promise((r) => setTimeout(r, 3000));
      expect(lines(file).length).toBe(linesPaused);
      expect((await fetch(`${rest.url}/connectors/${name}/resume`, { method: 'PUT' })).status).toBe(202);
      await until(
        '100 lines',
        () => lines(file).length,
        (n) => n >= 100,
      );
      expect(await state()).toBe('RUNNING');
    } finally {
      await rest.close();
      await w.stop();
    }
  });

  it('sharesink standalone serves the API when listeners is set and closes it on SIGTERM before draining', async () => {
    const topic = uniqueTopic('rest-cli');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const { child, stderr: logs, exited, url } = await startRestCli(dir, 'rest-cli', topic);
    try {
      const health = await until(
        'health 200',
        async () => (await fetch(`${url}/health`)).status,
        (code) => code === 200,
      );
      expect(health).toBe(200);
      child.kill('SIGTERM');
      expect(await exited, logs()).toBe(0);
      const lines = logs().split('\n');
      const restStopped = lines.findIndex((l) => l.includes('REST server stopped'));
      const connectorStopped = lines.findIndex((l) => l.includes('connector stopped'));
      expect(restStopped).toBeGreaterThanOrEqual(0);
      expect(restStopped).toBeLessThan(connectorStopped);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
