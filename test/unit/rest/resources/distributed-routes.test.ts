import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { compileWorkerConfig } from '../../../../src/config/compile-worker.js';
import { ConfigState } from '../../../../src/distributed/herder/config-state.js';
import type { DistributedWorker } from '../../../../src/distributed/herder/distributed-worker.js';
import { addDistributedRoutes } from '../../../../src/rest/distributed-routes.js';
import { Router, type RestResponse } from '../../../../src/rest/server/router.js';
import { callRoute } from '../route-request.js';
import { capturingLogger } from '../../cli/capturing-logger.js';

const worker = compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9092' });

function fakeWorker(o: { leader: boolean; leaderUrl?: string; started?: boolean }) {
  const state = new ConfigState();
  state.apply({ kind: 'connector', name: 'pg', config: { 'connector.class': 'NoopSink', topics: 't' } }, 0n);
  state.apply({ kind: 'commit', name: 'pg', tasks: 1 }, 1n);
  const written: string[] = [];
  const w = {
    started: o.started ?? true,
    config: worker,
    logger: pino({ level: 'silent' }),
    herder: {
      state,
      isLeader: o.leader,
      leaderUrl: o.leaderUrl,
      restUrl: 'http://127.0.0.1:1',
      workerId: '127.0.0.1:1',
    },
    writes: {
      setTargetState: (name: string, s: string) => (written.push(`${name}:${s}`), Promise.resolve()),
      putConnector: (name: string, config: Record<string, string>, _create: boolean, initial?: string) => {
        written.push(`put:${name}${initial === undefined || initial === 'STARTED' ? '' : `:${initial}`}`);
        state.apply({ kind: 'connector', name, config }, BigInt(written.length));
        return Promise.resolve({ created: true });
      },
    },
  };
  return { w: w as unknown as DistributedWorker, written };
}

function call(
  router: Router,
  method: string,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<RestResponse> {
  return callRoute(router, method, path, { body, headers });
}

let server: Server | undefined;
afterEach(() => server?.close());

/** A stand-in leader that records what it was sent. */
async function leader(): Promise<{
  url: string;
  seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }>;
}> {
  const seen: Array<{ method: string; url: string; headers: Record<string, unknown>; body: string }> = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      res.writeHead(202);
      res.end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('distributed REST routes', () => {
  it('the leader writes itself', async () => {
    const { w, written } = fakeWorker({ leader: true });
    const router = new Router();
    addDistributedRoutes(router, w);
    expect(await call(router, 'PUT', '/connectors/pg/pause')).toEqual({ status: 202 });
    expect(written).toEqual(['pg:PAUSED']);
  });

  it("another worker forwards the write to the leader's URL, with the caller's credentials, and relays the answer", async () => {
    const l = await leader();
    const { w, written } = fakeWorker({ leader: false, leaderUrl: l.url });
    const router = new Router();
    addDistributedRoutes(router, w);
    const answer = await call(router, 'PUT', '/connectors/pg/resume', {}, { authorization: 'Bearer t0ken' });
    expect(answer).toEqual({ status: 202 });
    expect(written).toEqual([]);
    expect(l.seen).toHaveLength(1);
    expect(l.seen[0]).toMatchObject({ method: 'PUT', url: '/connectors/pg/resume' });
    expect(l.seen[0]!.headers['authorization']).toBe('Bearer t0ken');
    expect(l.seen[0]!.headers['x-sharesink-forwarded']).toBe('127.0.0.1:1');
  });

  it('a forwarded request reaching a worker that is no longer the leader is a 409, not forwarded again', async () => {
    const l = await leader();
    const { w } = fakeWorker({ leader: false, leaderUrl: l.url });
    const router = new Router();
    addDistributedRoutes(router, w);
    await expect(
      call(router, 'PUT', '/connectors/pg/stop', {}, { 'x-sharesink-forwarded': 'other:1' }),
    ).rejects.toMatchObject({ status: 409 });
    expect(l.seen).toEqual([]);
  });

  it('a config that fails validation is a 400 listing every problem, before any forwarding', async () => {
    const l = await leader();
    const { w } = fakeWorker({ leader: false, leaderUrl: l.url });
    const router = new Router();
    addDistributedRoutes(router, w);
    const err = await call(router, 'POST', '/connectors', {
      name: 'bad',
      config: { 'connector.class': 'NoopSink', 'tasks.max': '0', 'errors.tolerance': 'some' },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    const message = (err as Error).message;
    expect(message).toMatch(/contains the following \d+ error/);
    for (const key of ['tasks.max', 'errors.tolerance', 'topics']) expect(message).toContain(key);
    expect(l.seen).toEqual([]);
  });

  it('POST takes initial_state (KIP-980): RUNNING, PAUSED or STOPPED, any case; anything else is a 400', async () => {
    const { w, written } = fakeWorker({ leader: true });
    const router = new Router();
    addDistributedRoutes(router, w);
    const config = { 'connector.class': 'NoopSink', topics: 'orders' };
    await call(router, 'POST', '/connectors', { name: 'a', config, initial_state: 'STOPPED' });
    await call(router, 'POST', '/connectors', { name: 'b', config, initial_state: 'paused' });
    await call(router, 'POST', '/connectors', { name: 'c', config, initial_state: 'RUNNING' });
    await call(router, 'POST', '/connectors', { name: 'd', config });
    expect(written).toEqual(['put:a:STOPPED', 'put:b:PAUSED', 'put:c', 'put:d']);
    const err = await call(router, 'POST', '/connectors', {
      name: 'e',
      config,
      initial_state: 'ASLEEP',
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    expect((err as Error).message).toBe(
      'initial_state must be one of RUNNING, PAUSED, STOPPED; got "ASLEEP"',
    );
    expect(written).toHaveLength(4);
  });

  it('bad bodies and unknown classes are said once, plainly', async () => {
    const { w } = fakeWorker({ leader: true });
    const router = new Router();
    addDistributedRoutes(router, w);
    const refusal = (method: string, path: string, body: unknown) =>
      call(router, method, path, body).then(
        () => '',
        (e: Error) => e.message,
      );
    expect(await refusal('POST', '/connectors', [1, 2])).toMatch(/^The body must be a JSON object: \{"name"/);
    const unknown = await refusal('POST', '/connectors', {
      name: 'x',
      config: { 'connector.class': 'NopeSink', topics: 't' },
    });
    expect(unknown).toMatch(/contains the following 1 error/);
    expect(unknown.match(/^connector\.class:/gm)).toHaveLength(1);
    const http = await refusal('POST', '/connectors', {
      name: 'h',
      config: { 'connector.class': 'HttpSink', topics: 't' },
    });
    expect(http).toMatch(/^http\.url: (?!http\.url:)/m);
  });

  it('answers 409 until the worker has joined, and /health 503', async () => {
    const { w } = fakeWorker({ leader: false, started: false });
    const router = new Router();
    addDistributedRoutes(router, w);
    await expect(call(router, 'GET', '/connectors')).rejects.toMatchObject({ status: 409 });
    expect(await call(router, 'GET', '/health')).toMatchObject({ status: 503 });
  });

  it('a STOPPED connector has no tasks: [] in its info and /tasks, 404 for a task status or restart (as Connect and standalone)', async () => {
    const { w } = fakeWorker({ leader: true });
    const state = (w.herder as unknown as { state: ConfigState }).state;
    // STOPPED with its task configs still listed: between the stop's two writes, or an older version's topic
    state.apply({ kind: 'target-state', name: 'pg', state: 'STOPPED' }, 2n);
    const asked: unknown[] = [];
    Object.assign(w.herder, {
      statusStore: {
        connector: () => ({ state: 'STOPPED', workerId: 'a:1', generation: 1 }),
        tasks: () => new Map([[0, { state: 'UNASSIGNED', workerId: 'a:1', generation: 1 }]]),
      },
    });
    Object.assign(w.writes, { requestRestart: (...a: unknown[]) => (asked.push(a), Promise.resolve()) });
    const router = new Router();
    addDistributedRoutes(router, w);
    const answer = (method: string, path: string) =>
      Promise.resolve()
        .then(() => call(router, method, path))
        .catch((e: { status: number; message: string }) => ({ status: e.status, json: e.message }));
    expect(await answer('GET', '/connectors/pg')).toMatchObject({
      status: 200,
      json: { name: 'pg', tasks: [] },
    });
    expect(await answer('GET', '/connectors/pg/tasks')).toEqual({ status: 200, json: [] });
    expect(await answer('GET', '/connectors/pg/status')).toMatchObject({
      status: 200,
      json: { connector: { state: 'STOPPED' }, tasks: [] },
    });
    expect(await answer('GET', '/connectors/pg/tasks/0/status')).toEqual({
      status: 404,
      json: 'Task pg-0 not found',
    });
    expect(await answer('POST', '/connectors/pg/tasks/0/restart')).toEqual({
      status: 404,
      json: 'Task pg-0 not found',
    });
    expect(asked).toEqual([]);
  });

  it('a restart with includeTasks&onlyFailed answers 202 with what it restarts as RESTARTING (KIP-745)', async () => {
    const { w } = fakeWorker({ leader: true });
    const state = (w.herder as unknown as { state: ConfigState }).state;
    state.apply({ kind: 'commit', name: 'pg', tasks: 2 }, 2n);
    const asked: unknown[] = [];
    Object.assign(w.herder, {
      statusStore: {
        connector: () => ({ state: 'RUNNING', workerId: 'a:1', generation: 1 }),
        tasks: () =>
          new Map([
            [0, { state: 'FAILED', workerId: 'a:1', generation: 1, trace: 'boom' }],
            [1, { state: 'RUNNING', workerId: 'b:1', generation: 1 }],
          ]),
      },
    });
    Object.assign(w.writes, { requestRestart: (...a: unknown[]) => (asked.push(a), Promise.resolve()) });
    const router = new Router();
    addDistributedRoutes(router, w);
    const res = await callRoute(router, 'POST', '/connectors/pg/restart', {
      query: 'includeTasks=true&onlyFailed=true',
      body: undefined,
    });
    expect(asked).toEqual([['pg', { includeTasks: true, onlyFailed: true }]]);
    expect(res).toMatchObject({ status: 202 });
    expect((res as { json: unknown }).json).toMatchObject({
      connector: { state: 'RUNNING', worker_id: 'a:1' },
      tasks: [
        { id: 0, state: 'RESTARTING', worker_id: 'a:1' },
        { id: 1, state: 'RUNNING', worker_id: 'b:1' },
      ],
    });
  });
  it('POST trims the name as Connect does, then holds config.name to the trimmed one', async () => {
    const { w, written } = fakeWorker({ leader: true });
    const router = new Router();
    addDistributedRoutes(router, w);
    const config = { 'connector.class': 'NoopSink', topics: 'orders' };
    const created = await call(router, 'POST', '/connectors', { name: '  orders\t', config });
    expect(created).toMatchObject({ status: 201, json: { name: 'orders', config: { name: 'orders' } } });
    const same = await call(router, 'POST', '/connectors', {
      name: ' audit ',
      config: { ...config, name: 'audit' },
    });
    expect(same).toMatchObject({ status: 201, json: { name: 'audit' } });
    expect(written).toEqual(['put:orders', 'put:audit']);
    // config.name is compared as sent: only the request's name is trimmed
    const err = await call(router, 'POST', '/connectors', {
      name: ' x ',
      config: { ...config, name: ' x ' },
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 400,
      message: "Connector name configuration ( x ) doesn't match connector name in the URL (x)",
    });
    const blank = await call(router, 'POST', '/connectors', { name: '   ', config }).catch((e: unknown) => e);
    expect(blank).toMatchObject({ status: 400, message: 'Connector name must not be empty' });
    expect(written).toHaveLength(2);
  });

  it('a restart of a STOPPED connector, includeTasks with or without onlyFailed, answers it STOPPED and asks nothing', async () => {
    const { w } = fakeWorker({ leader: true });
    const state = (w.herder as unknown as { state: ConfigState }).state;
    state.apply({ kind: 'target-state', name: 'pg', state: 'STOPPED' }, 2n);
    state.apply({ kind: 'commit', name: 'pg', tasks: 0 }, 3n);
    // the holder's FAILED from before the stop may still be the last status written
    let last = 'STOPPED';
    Object.assign(w.herder, {
      statusStore: {
        connector: () => ({ state: last, workerId: 'a:1', generation: 1 }),
        tasks: () => new Map(),
      },
    });
    const asked: unknown[] = [];
    Object.assign(w.writes, { requestRestart: (...a: unknown[]) => (asked.push(a), Promise.resolve()) });
    const router = new Router();
    addDistributedRoutes(router, w);
    const restart = (query: string) => {
      return callRoute(router, 'POST', '/connectors/pg/restart', { query, body: undefined });
    };
    const stopped = {
      name: 'pg',
      connector: { state: 'STOPPED', worker_id: 'a:1' },
      tasks: [],
      type: 'sink',
    };
    expect(await restart('includeTasks=true')).toEqual({ status: 202, json: stopped });
    expect(await restart('includeTasks=true&onlyFailed=true')).toEqual({ status: 202, json: stopped });
    last = 'FAILED';
    expect(await restart('includeTasks=true&onlyFailed=true')).toMatchObject({
      status: 202,
      json: { connector: { state: 'FAILED' }, tasks: [] },
    });
    expect(await restart('')).toEqual({ status: 204 });
    expect(asked).toEqual([]);
    // stopped between this worker's look and the leader's write: the leader wrote nothing, said so
    state.apply({ kind: 'target-state', name: 'pg', state: 'STARTED' }, 4n);
    last = 'RUNNING';
    Object.assign(w.writes, { requestRestart: () => Promise.resolve(false) });
    expect(await restart('includeTasks=true')).toMatchObject({
      status: 202,
      json: { connector: { state: 'RUNNING' } },
    });
  });

  it('the leader says what standalone says of a connector it writes: a key that looks like a typo, a converter that rejects plain JSON', async () => {
    const { w, written } = fakeWorker({ leader: true });
    const { logger, lines } = capturingLogger('info');
    Object.assign(w, { logger });
    const router = new Router();
    addDistributedRoutes(router, w);
    const config = { 'connector.class': 'NoopSink', topics: 't', 'tasks.maxx': '2' };
    await call(router, 'POST', '/connectors', { name: 'pg', config });
    expect(written).toEqual(['put:pg']);
    const said = lines.map((l) => `${l.level} ${String(l['connector'])} ${l.msg}`);
    expect(said).toContainEqual(expect.stringMatching(/^40 pg tasks\.maxx: .*did you mean tasks\.max\?/));
    expect(said).toContainEqual(
      // notice(): level 35, as on a worker's own logger
      expect.stringMatching(/^35 pg value\.converter is JsonConverter with schemas\.enable=true/),
    );

    lines.length = 0;
    await call(router, 'PUT', '/connectors/pg/config', {
      'connector.class': 'NoopSink',
      topics: 't',
      'value.converter': 'StringConverter',
      'key.converter': 'StringConverter',
    });
    expect(lines.filter((l) => l.level >= 30)).toEqual([]);
  });
});
