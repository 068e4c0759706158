// /admin/loggers over real HTTP against a fake worker: Connect's shapes (KIP-495, KIP-976), the level
// applied to the pino children by name, refusals, authentication, and admin.listeners= turning it off.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { compileWorkerConfig } from '../../../../src/config/index.js';
import { CUSTOM_LEVELS } from '../../../../src/logger.js';
import { logLevelsFor } from '../../../../src/observability/log-levels.js';
import { startRestServer, type RestServer } from '../../../../src/rest/server/server.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

let server: RestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function capture(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _e, done) {
      out.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'info', customLevels: CUSTOM_LEVELS }, stream) as unknown as Logger;
  return { logger, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

async function serve(logger: Logger, workerProps: Record<string, string> = {}) {
  const worker = {
    ...fakeWorker([new FakeConnector('orders', 1)]),
    config: compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '1', ...workerProps }),
  };
  server = await startRestServer(worker, { listener: 'http://127.0.0.1:0', lookupClusterId: false, logger });
  return server.url;
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('/admin/loggers', () => {
  it("lists, reads and sets levels in Connect's shapes", async () => {
    const { logger, lines } = capture();
    logLevelsFor(logger, () => 1234);
    // what the runtime makes: a connector's task and its kafka client
    const task = logger.child({ component: 'worker' }).child({ connector: 'orders' }).child({ task: 0 });
    const kafka = task.child({ component: 'kafka' });
    const base = await serve(logger);

    const all = await call(base, 'GET', '/admin/loggers');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({
      root: { level: 'INFO', last_modified: null },
      rest: { level: 'INFO', last_modified: null },
      kafka: { level: 'INFO', last_modified: null },
      'connector.orders': { level: 'INFO', last_modified: null },
      'task.orders-0': { level: 'INFO', last_modified: null },
    });
    expect(Object.keys(all.json as object)).toEqual(Object.keys(all.json as object).sort());

    const put = await call(base, 'PUT', '/admin/loggers/kafka', { level: 'debug' });
    expect(put).toEqual({ status: 200, json: ['kafka'] });
    expect(await call(base, 'GET', '/admin/loggers/kafka')).toEqual({
      status: 200,
      json: { level: 'DEBUG', last_modified: 1234 },
    });
    task.debug('task line');
    kafka.debug('kafka line');
    expect(
      lines()
        .filter((l) => l['level'] === 20)
        .map((l) => l['msg']),
    ).toEqual(['kafka line']);
    // the change itself is logged, by the rest logger
    expect(lines()).toContainEqual(
      expect.objectContaining({
        component: 'rest',
        logger: 'kafka',
        newLevel: 'DEBUG',
        level: 35,
        changed: ['kafka'],
      }),
    );

    // scope=cluster: this worker is the cluster; Connect answers 204
    expect(await call(base, 'PUT', '/admin/loggers/task?scope=cluster', { level: 'TRACE' })).toEqual({
      status: 204,
      json: undefined,
    });
    expect(task.level).toBe('trace');
    // ALL is Log4j's trace; root changes every known name, and says which
    const root = await call(base, 'PUT', '/admin/loggers/root', { level: 'warn' });
    expect(root.json).toEqual(expect.arrayContaining(['root', 'kafka', 'task', 'task.orders-0', 'rest']));
    expect(kafka.level).toBe('warn');
  });

  it('refuses a missing or unknown level and an unknown logger, saying what is accepted', async () => {
    const { logger } = capture();
    const base = await serve(logger);
    expect(await call(base, 'PUT', '/admin/loggers/kafka', {})).toEqual({
      status: 400,
      json: {
        error_code: 400,
        message: `Desired 'level' parameter was not specified in request; send {"level": "DEBUG"}`,
      },
    });
    const bad = await call(base, 'PUT', '/admin/loggers/kafka', { level: 'loud' });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toBe(
      "Invalid log level 'loud'; accepted: OFF, FATAL, ERROR, WARN, NOTICE, INFO, DEBUG, TRACE, ALL",
    );
    expect(await call(base, 'GET', '/admin/loggers/nobody')).toEqual({
      status: 404,
      json: { error_code: 404, message: 'Logger nobody not found. Known loggers: GET /admin/loggers' },
    });
    // a name set before any logger carries it is known from then on (Connect creates the logger)
    expect((await call(base, 'PUT', '/admin/loggers/connector.later', { level: 'DEBUG' })).json).toEqual([
      'connector.later',
    ]);
    expect((await call(base, 'GET', '/admin/loggers/connector.later')).json).toMatchObject({
      level: 'DEBUG',
    });
  });

  it('needs the same authentication as every other path', async () => {
    const { logger } = capture();
    const base = await serve(logger, { 'rest.auth.bearer.token': 'tok-123456' });
    expect((await call(base, 'GET', '/admin/loggers')).status).toBe(401);
    expect((await call(base, 'PUT', '/admin/loggers/root', { level: 'TRACE' })).status).toBe(401);
    const ok = await call(
      base,
      'PUT',
      '/admin/loggers/root',
      { level: 'DEBUG' },
      { authorization: 'Bearer tok-123456' },
    );
    expect(ok.status).toBe(200);
  });

  it('admin.listeners= (empty) turns the endpoints off, as in Connect; a listener there is not opened', async () => {
    const off = capture();
    const base = await serve(off.logger, { 'admin.listeners': '' });
    expect((await call(base, 'GET', '/admin/loggers')).status).toBe(404);
    await server?.close();
    server = undefined;
    const elsewhere = capture();
    const base2 = await serve(elsewhere.logger, { 'admin.listeners': 'http://127.0.0.1:8084' });
    expect((await call(base2, 'GET', '/admin/loggers')).status).toBe(200);
    expect(elsewhere.lines()).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'admin.listeners=http://127.0.0.1:8084: not opened; sharesink serves /admin/loggers on listeners, behind the same authentication (leave admin.listeners empty to turn those endpoints off)',
      }),
    );
  });
});
