// Two edges of the distributed REST API on real `sharesink distributed` workers: a worker asked while it
// starts (its REST server listens before it has read the config topic) answers 409, never `[]` or
// "not found" for connectors the cluster has; and a STOPPED connector has no tasks in any view (its task
// configs are removed, as Connect's stop does), and gets them back on resume; a restart leaves it
// STOPPED. POST /connectors trims the request's name, as Connect does.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/broker.js';
import {
  api,
  clusterSpec,
  startWorker,
  workerFile,
  type DistributedWorkerRun,
} from './harness/distributed-workers.js';
import { createTopic, deleteTopics, kafkaClient, uniqueName } from './harness/kafka.js';
import { sleep, until } from './harness/wait.js';

const spec = clusterSpec('dist-edges');
const topic = uniqueName('dist-edges-in');
// its own name: a connector's consumer group is connect-<name>, and other files run beside this one
const name = uniqueName('edges');
const workers: DistributedWorkerRun[] = [];
const spawned: Array<{ kill: () => Promise<unknown> }> = [];
/** Worker B's URL once the first test has started it. */
let bUrl: string | undefined;

interface Status {
  connector: { state: string };
  tasks: Array<{ id: number; state: string }>;
}
const status = async (url: string) => (await api(url, 'GET', `/connectors/${name}/status`)).json as Status;
const running = (s: Status | undefined) =>
  s?.tasks.length === 2 && s.tasks.every((t) => t.state === 'RUNNING');

beforeAll(async () => {
  await createTopic(topic, { partitions: 2 });
  workers.push(await startWorker(spec, 'A'));
  const created = await until(
    'the connector created',
    () =>
      api(workers[0]!.url, 'POST', '/connectors', {
        name,
        config: { 'connector.class': 'NoopSink', topics: topic, 'tasks.max': '2' },
      }),
    (r) => r.status !== 409,
    20_000,
  );
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  await until('2 tasks RUNNING', () => status(workers[0]!.url), running, 20_000);
}, 60_000);

afterAll(async () => {
  await Promise.all([...workers.map((w) => w.stop()), ...spawned.map((s) => s.kill())]);
  await deleteTopics([topic, spec.configTopic, spec.statusTopic]).catch(() => undefined);
  const admin = kafkaClient().admin();
  await admin.connect();
  await admin.deleteGroups([`connect-${name}`]).catch(() => undefined);
  await admin.disconnect();
});

describe('distributed REST edges', () => {
  it('a worker that is starting answers 409 until it has read the config topic and joined, then lists the connector', async () => {
    // spawned here, not by startWorker: the requests must start as soon as the REST server listens
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/bin.ts', 'distributed', workerFile(spec, 'B')],
      { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise((r) => child.on('exit', r));
    spawned.push({
      kill: () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        return exited;
      },
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await until(
      'B: REST URL in the log',
      () => /"url":"(https?:[^"]+)"/.exec(stderr)?.[1],
      (u) => u !== undefined || child.exitCode !== null,
      30_000,
    );
    expect(url, stderr.slice(-3000)).toBeDefined();
    const seen: string[] = [];
    const deadline = Date.now() + 30_000;
    for (;;) {
      const list = await api(url!, 'GET', '/connectors');
      const one = await api(url!, 'GET', `/connectors/${name}`);
      seen.push(`${list.status} ${JSON.stringify(list.json)}`, `${one.status}`);
      if (list.status === 200 && one.status === 200) break;
      if (Date.now() > deadline) throw new Error(`B never answered: ${seen.slice(-4).join(' | ')}`);
      await sleep(20);
    }
    const answers = [...new Set(seen)];
    // the cluster has the connector: while B starts, "try again" is the only other true answer (sorted: B
    // can become ready between the two requests of one round, so the single GET may answer 200 first)
    expect(answers.filter((a) => !a.startsWith('409')).sort()).toEqual(['200', `200 ["${name}"]`]);
    expect(answers.some((a) => a.startsWith('409'))).toBe(true);
    bUrl = url;
  });

  it('POST /connectors trims the name as Connect does: the connector is the trimmed name, config.name included', async () => {
    const A = workers[0]!.url;
    const trimmed = uniqueName('edges-trim');
    const post = (body: unknown) =>
      until(
        'POST /connectors',
        () => api(A, 'POST', '/connectors', body),
        (r) => r.status !== 409 || JSON.stringify(r.json).includes('already exists'),
        20_000,
      );
    const config = { 'connector.class': 'NoopSink', topics: topic };
    const created = await post({ name: ` ${trimmed}\t`, config, initial_state: 'STOPPED' });
    expect(created, JSON.stringify(created.json)).toMatchObject({
      status: 201,
      json: { name: trimmed, config: { name: trimmed } },
    });
    expect((await api(A, 'GET', `/connectors/${trimmed}/config`)).json).toMatchObject({ name: trimmed });
    // the running connector's name with blanks around it is that connector: it exists
    expect(await post({ name: `  ${name} `, config })).toMatchObject({
      status: 409,
      json: { message: `Connector ${name} already exists` },
    });
    const deleted = await until(
      'DELETE',
      () => api(A, 'DELETE', `/connectors/${trimmed}`),
      (r) => r.status !== 409,
      20_000,
    );
    expect(deleted.status).toBe(204);
  });

  it('a STOPPED connector lists no tasks on any worker, a task restart is a 404; a resume brings the tasks back', async () => {
    const A = workers[0]!.url;
    const all = [A, ...(bUrl !== undefined ? [bUrl] : [])];
    // through B when it runs: a worker that is not the leader forwards the write
    const write = (path: string) =>
      until(
        path,
        () => api(all.at(-1)!, 'PUT', path),
        (r) => r.status !== 409,
        20_000,
      );
    expect((await write(`/connectors/${name}/stop`)).status).toBe(202);
    for (const url of all) {
      // the status and config topics are read apart: wait for both to say STOPPED
      const info = async () => (await api(url, 'GET', `/connectors/${name}`)).json as { tasks: unknown[] };
      await until(
        `${url}: STOPPED`,
        async () => [(await status(url)).connector.state, await info()] as const,
        ([state, i]) => state === 'STOPPED' && i.tasks.length === 0,
        15_000,
      );
      // Connect's answers for a stopped connector: no task configs, so no task to show or restart
      expect(await api(url, 'GET', `/connectors/${name}/tasks`)).toEqual({ status: 200, json: [] });
      expect((await status(url)).tasks).toEqual([]);
      expect((await api(url, 'GET', `/connectors/${name}/tasks/0/status`)).status).toBe(404);
      expect((await api(url, 'POST', `/connectors/${name}/tasks/0/restart`)).status).toBe(404);
    }
    // a restart leaves it STOPPED (as standalone): the answer shows nothing RESTARTING, nor does the status
    const stopped = { name, connector: { state: 'STOPPED' }, tasks: [], type: 'sink' };
    for (const query of ['includeTasks=true', 'includeTasks=true&onlyFailed=true']) {
      const restart = await until(
        query,
        () => api(all.at(-1)!, 'POST', `/connectors/${name}/restart?${query}`),
        (r) => r.status !== 409,
        20_000,
      );
      expect(restart, query).toMatchObject({ status: 202, json: stopped });
    }
    await sleep(1500);
    for (const url of all) expect(await status(url), url).toMatchObject(stopped);
    expect((await write(`/connectors/${name}/resume`)).status).toBe(202);
    for (const url of all) {
      await until(`${url}: 2 tasks RUNNING again`, () => status(url), running, 20_000);
      expect(((await api(url, 'GET', `/connectors/${name}/tasks`)).json as unknown[]).length).toBe(2);
    }
  });
});
