// HttpSink against a real HTTP server (node:http, started by the test): what arrives, and what a
// put does for each kind of answer. The Worker runs in sink-http-worker.test.ts.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { convertersFromProps, resolveConnectorModule, type RawRecord } from '../../src/connect/index.js';
import { PutPool } from '../../src/pool/put-pool.js';
import { ConnectHeaders } from '../../src/connect/headers.js';
import { isRetriableError } from '../../src/connect/errors.js';
import { SinkRecord } from '../../src/connect/sink-record.js';
import { HttpSinkTask } from '../../src/sinks/http/index.js';
import { requestKey } from '../../src/sinks/http/requests.js';
import { testTaskContext, type ErrantReport } from '../../src/testing/task-context.js';
import { startHttpServer, type ReceivedRequest, type TestHttpServer } from './harness/http-server.js';
import { until } from './harness/wait.js';

const servers: TestHttpServer[] = [];
const tasks: HttpSinkTask[] = [];

afterEach(async () => {
  await Promise.all(tasks.splice(0).map((t) => t.stop()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(): Promise<TestHttpServer> {
  const s = await startHttpServer();
  servers.push(s);
  return s;
}

function start(props: Record<string, string>): {
  task: HttpSinkTask;
  errant: ErrantReport[];
  hints: number[];
} {
  const task = new HttpSinkTask();
  const { context, errant } = testTaskContext(props);
  const hints: number[] = [];
  task.initialize({ ...context, timeout: (ms) => hints.push(ms) });
  task.start(props);
  tasks.push(task);
  return { task, errant, hints };
}

const records = (count: number, topic = 'orders', from = 0): SinkRecord[] =>
  Array.from(
    { length: count },
    (_, i) =>
      new SinkRecord({
        topic,
        partition: i % 3,
        offset: from + i,
        timestamp: 1_700_000_000_000 + i,
        timestampType: 'CreateTime',
        key: `k${from + i}`,
        value: { id: from + i, note: 'é✓' },
        headers: new ConnectHeaders([{ key: 'trace', value: `t${from + i}`, schema: undefined }]),
        deliveryCount: 1,
      }),
  );

interface Posted {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: { id: number };
  headers: { key: string; value: unknown }[];
  deliveryCount: number | null;
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = await startHttpServer();
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

const posted = (r: ReceivedRequest): Posted[] => JSON.parse(r.body.toString('utf8')) as Posted[];

describe('HttpSink against a real HTTP server', () => {
  it('sends a batch as complete requests of batch.max.size, with headers, auth and idempotency keys', async () => {
    const s = await server();
    const { task, errant } = start({
      'http.url': `${s.url}/ingest/\${topic}`,
      'http.method': 'put',
      'request.body.format': 'json_records',
      'batch.max.size': '500',
      'max.in.flight.requests': '3',
      'http.headers': 'X-Tenant:shop|Accept:application/json',
      'http.headers.X-Source': 'sharesink',
      'http.auth.type': 'bearer',
      'http.auth.token': 'tok-123',
      'http.idempotency.header': 'Idempotency-Key',
    });
    const batch = records(1200);
    await task.put(batch);
    expect(errant).toEqual([]);
    expect(s.requests.map((r) => posted(r).length)).toEqual([500, 500, 200]);
    for (const r of s.requests) {
      expect(r.method).toBe('PUT');
      expect(r.path).toBe('/ingest/orders');
      expect(r.headers).toMatchObject({
        'content-type': 'application/json',
        'x-tenant': 'shop',
        'x-source': 'sharesink',
        accept: 'application/json',
        authorization: 'Bearer tok-123',
      });
      const body = posted(r);
      expect(r.headers['idempotency-key']).toBe(
        requestKey(body.map((b) => batch.find((x) => x.offset === b.offset)!)),
      );
    }
    const all = s.requests.flatMap(posted);
    expect(all.map((p) => p.offset).sort((a, b) => a - b)).toEqual(batch.map((r) => r.offset));
    expect(all[7]).toEqual({
      topic: 'orders',
      partition: 1,
      offset: 7,
      timestamp: 1_700_000_000_007,
      key: 'k7',
      value: { id: 7, note: 'é✓' },
      headers: [{ key: 'trace', value: 't7' }],
      deliveryCount: 1,
    });
  });

  it('max.in.flight.requests bounds the requests of one put that are open at once', async () => {
    const s = await server();
    s.respond(() => ({ status: 200, delayMs: 50 }));
    const { task } = start({
      'http.url': `${s.url}/in`,
      'batch.max.size': '1',
      'max.in.flight.requests': '3',
    });
    await task.put(records(12));
    expect(s.requests).toHaveLength(12);
    expect(s.peakOpen).toBe(3);
  });

  it('503 then 200: the put fails retriably with the Retry-After hint; the retry sends only the failed request', async () => {
    const s = await server();
    let failed = false;
    let refusedAt = -1;
    s.respond((req, n) => {
      const body = JSON.parse(req.body.toString()) as { id: number }[];
      // the request holding id 10 is refused once with 503
      if (!failed && body.some((v) => v.id === 10)) {
        failed = true;
        refusedAt = n;
        return { status: 503, headers: { 'retry-after': '2' }, body: 'busy, try later' };
      }
      return { status: 200 };
    });
    const { task, errant, hints } = start({ 'http.url': `${s.url}/in`, 'batch.max.size': '5' });
    const batch = records(20);
    const error = await task.put(batch).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'SHARESINK_RETRIABLE' });
    expect((error as Error).message).toMatch(
      /^POST http:\/\/127\.0\.0\.1:\d+\/in \(5 records\) answered 503 Service Unavailable: busy, try later/,
    );
    expect((error as Error).message).toContain(
      '(1 of 4 requests failed retriably, 2 succeeded, 1 not sent yet;',
    );
    expect(hints).toEqual([2000]);
    // requests 1 and 2 succeeded, 3 got 503, and after a retriable failure no new request starts
    expect(s.requests).toHaveLength(3);

    // the runtime puts the same batch again: only the failed request and the unsent one go out
    await task.put(batch);
    expect(errant).toEqual([]);
    expect(s.requests).toHaveLength(5);
    const written = s.requests
      .filter((_, n) => n !== refusedAt)
      .flatMap((r) => JSON.parse(r.body.toString()) as { id: number }[])
      .map((v) => v.id)
      .sort((a, b) => a - b);
    // every record written exactly once; the only request seen twice is the one that got 503
    expect(written).toEqual(batch.map((r) => r.offset));
  });

  it('the same batch on a fresh task instance (another pool thread) is sent whole again: at least once', async () => {
    const s = await server();
    s.respond((_, n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const props = {
      'http.url': `${s.url}/in`,
      'batch.max.size': '2',
      'http.idempotency.header': 'Idempotency-Key',
    };
    const batch = records(4);
    expect(
      isRetriableError(
        await start(props)
          .task.put(batch)
          .catch((e: unknown) => e),
      ),
    ).toBe(true);
    await start(props).task.put(batch);
    const keys = s.requests.map((r) => r.headers['idempotency-key']);
    // request 1 written twice, with the same key each time, so the receiver can drop the copy
    expect(keys).toHaveLength(4);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).toBe(keys[1]);
  });

  it('400 for one request: only its records are errant, the others are written', async () => {
    const s = await server();
    s.respond((req) => {
      const body = JSON.parse(req.body.toString()) as { id: number }[];
      return body.some((v) => v.id === 5)
        ? { status: 400, body: JSON.stringify({ error: 'id 5 is invalid' }) }
        : { status: 201 };
    });
    const { task, errant } = start({
      'http.url': `${s.url}/in`,
      'batch.max.size': '4',
      'max.in.flight.requests': '3',
    });
    await task.put(records(12));
    expect(errant.map((e) => e.record.offset)).toEqual([4, 5, 6, 7]);
    expect(errant[0]!.message).toMatch(/answered 400 Bad Request: \{"error":"id 5 is invalid"\}/);
    expect(s.requests).toHaveLength(3);
  });

  it('behavior.on.error=fail: a 4xx fails the put with SHARESINK_HTTP_REFUSED, not retriable', async () => {
    const s = await server();
    s.respond(() => ({ status: 422, body: 'no' }));
    const { task } = start({ 'http.url': `${s.url}/in`, 'behavior.on.error': 'fail' });
    const error = await task.put(records(3)).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(false);
    expect(error).toMatchObject({ code: 'SHARESINK_HTTP_REFUSED', status: 422 });
  });

  it('secrets never appear in error messages, even when the server echoes them', async () => {
    const s = await server();
    s.respond((req) => ({ status: 401, body: `bad credentials: ${req.headers.authorization}` }));
    const { task, errant } = start({
      'http.url': `${s.url}/in?api_key=query-secret`,
      'http.auth.type': 'basic',
      'http.auth.user': 'sink',
      'http.auth.password': 'pa55-w0rd',
    });
    const error = await task.put(records(1)).catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toContain('answered 401 Unauthorized (the endpoint refused the credentials');
    expect(message).toContain('bad credentials: Basic [hidden]');
    expect(message).toContain('/in?…');
    expect(message).not.toMatch(/pa55|query-secret|c2luazpwYTU1/);
    expect(errant).toEqual([]);
    expect(s.requests[0]!.path).toBe('/in?api_key=query-secret');
  });

  it('401, 403, 404, 405, 407 and 415 refuse the client, not the records: retriable by default, errant only when taken out of retry.on.status.codes', async () => {
    const s = await server();
    for (const status of [401, 403, 404, 405, 407, 415]) {
      s.respond(() => ({ status, body: 'not you' }));
      const { task, errant } = start({ 'http.url': `${s.url}/in` });
      const error = await task.put(records(2)).catch((e: unknown) => e);
      expect(isRetriableError(error), `status ${status}`).toBe(true);
      expect(errant).toEqual([]);
    }
    s.respond(() => ({ status: 403, body: 'not you' }));
    const strict = start({ 'http.url': `${s.url}/in`, 'retry.on.status.codes': '408,429,500-599' });
    await strict.task.put(records(2));
    expect(strict.errant.map((e) => e.message)).toEqual([
      expect.stringContaining('answered 403 Forbidden (the credentials are not allowed to write there'),
      expect.stringContaining('answered 403 Forbidden'),
    ]);
  });

  it('no connection and no answer in time are retriable', async () => {
    const unreachable = start({ 'http.url': `http://127.0.0.1:${await closedPort()}/in` });
    const refused = await unreachable.task.put(records(1)).catch((e: unknown) => e);
    expect(isRetriableError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/failed: ECONNREFUSED/);

    const blocked = await start({ 'http.url': 'http://127.0.0.1:1/in' })
      .task.put(records(1))
      .catch((e: unknown) => e);
    expect(isRetriableError(blocked)).toBe(false);
    expect((blocked as Error).message).toContain('fetch refuses port 1, which the Fetch standard blocks');

    const s = await server();
    s.respond(() => ({ status: 200, delayMs: 2000 }));
    const slow = start({ 'http.url': `${s.url}/slow`, 'request.timeout.ms': '200' });
    const timedOut = await slow.task.put(records(1)).catch((e: unknown) => e);
    expect(isRetriableError(timedOut)).toBe(true);
    expect((timedOut as Error).message).toContain('no complete response within 200 ms (request.timeout.ms)');
  });

  it('request.timeout.ms still ends a request the endpoint never answers after a garbage collection', async () => {
    // AbortSignal.timeout() inside AbortSignal.any() is held by nothing: a GC cancelled the timeout
    // and the put waited for good, its records locked and renewed, with no line in the log
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const s = await server();
    s.respond(() => ({ status: 200, delayMs: 60_000 }));
    const { task } = start({ 'http.url': `${s.url}/hang`, 'request.timeout.ms': '300' });
    const put = task.put(records(1)).catch((e: unknown) => e);
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      gc();
    }
    const outcome = await Promise.race([
      put,
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000)),
    ]);
    expect(isRetriableError(outcome)).toBe(true);
    expect((outcome as Error).message).toContain('no complete response within 300 ms (request.timeout.ms)');
  });

  it('redirects are not followed: a 302 is a refusal, not a success', async () => {
    const s = await server();
    s.respond((req) =>
      req.path === '/old' ? { status: 302, headers: { location: '/new' } } : { status: 200 },
    );
    const { task, errant } = start({ 'http.url': `${s.url}/old` });
    await task.put(records(2));
    expect(errant).toHaveLength(2);
    expect(errant[0]!.message).toContain('answered 302 Found (redirects are not followed');
    expect(s.requests.map((r) => r.path)).toEqual(['/old']);
  });

  it('raw and ndjson bodies', async () => {
    const s = await server();
    const raw = start({ 'http.url': `${s.url}/raw`, 'request.body.format': 'raw', 'batch.max.size': '1' });
    const bytes = Buffer.from([0, 1, 254, 255]);
    await raw.task.put([
      new SinkRecord({
        topic: 't',
        partition: 0,
        offset: 1,
        timestamp: null,
        timestampType: 'NoTimestampType',
        key: null,
        value: bytes,
      }),
      new SinkRecord({
        topic: 't',
        partition: 0,
        offset: 2,
        timestamp: null,
        timestampType: 'NoTimestampType',
        key: null,
        value: 'text',
      }),
    ]);
    expect(s.requests.map((r) => [r.headers['content-type'], r.body])).toEqual([
      ['application/octet-stream', bytes],
      ['application/octet-stream', Buffer.from('text')],
    ]);
    const nd = start({
      'http.url': `${s.url}/nd`,
      'request.body.format': 'ndjson',
      'http.headers.Content-Type': 'text/plain',
    });
    await nd.task.put(records(2));
    const last = s.requests.at(-1)!;
    expect(last.headers['content-type']).toBe('text/plain');
    expect(last.body.toString()).toBe('{"id":0,"note":"é✓"}\n{"id":1,"note":"é✓"}\n');
  });
});

describe('HttpSink on the worker-thread pool: an aborted put', () => {
  it('cancels its requests at once when the runtime aborts it; the thread and the instance live on', async () => {
    const s = await server();
    s.respond(() => ({ status: 200, delayMs: 60_000 }));
    const pool = new PutPool({
      connectorModule: resolveConnectorModule('HttpSink'),
      threads: 1,
      logger: pino({ level: 'silent' }),
      // a put that ignored the abort would cost its thread long after this test looked
      abortGraceMs: 30_000,
    });
    const poolTask = {
      id: 'http-abort',
      props: { 'http.url': `${s.url}/in`, 'request.timeout.ms': '120000' },
      converters: convertersFromProps({ 'value.converter': 'StringConverter' }),
    };
    const raw: RawRecord[] = [
      {
        topic: 'orders',
        partition: 0,
        offset: 1,
        timestamp: 0,
        timestampType: 'CreateTime',
        key: null,
        value: Buffer.from('a'),
        headers: [],
      },
    ];
    try {
      const controller = new AbortController();
      const put = pool.put(poolTask, raw, { signal: controller.signal });
      await until(
        'the request at the server',
        () => s.requests.length,
        (n) => n === 1,
        10_000,
      );
      const began = Date.now();
      controller.abort('lock about to expire');
      expect(await put).toMatchObject({ kind: 'aborted', reason: 'lock about to expire' });
      expect(Date.now() - began).toBeLessThan(10_000);
      s.respond(() => ({ status: 200 }));
      // same thread, same instance: nothing was terminated
      expect(await pool.put(poolTask, raw)).toMatchObject({ kind: 'ok', taskStarted: false });
    } finally {
      await pool.close();
    }
  });
});
