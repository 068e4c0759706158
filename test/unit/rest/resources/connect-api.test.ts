// Connect's REST endpoints over real HTTP against a fake worker: paths, status codes and JSON shapes.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRestServer, type RestServer } from '../../../../src/rest/server/server.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

const orders = new FakeConnector('orders', 2);
const audit = new FakeConnector('audit', 1, 'classic');
const worker = fakeWorker([orders, audit]);
const logger = pino({ level: 'silent' });
let server: RestServer;

beforeAll(async () => {
  server = await startRestServer(worker, { listener: 'http://127.0.0.1:0', lookupClusterId: false, logger });
});
afterAll(async () => {
  await server.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    json: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}

describe('Connect REST API', () => {
  const workerId = () => new URL(server.url).host;

  it('GET / reports the version like Connect', async () => {
    const r = await call('GET', '/');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ version: '0.1.0', commit: expect.any(String) });
  });

  it('GET /connectors lists names, and expands status and info', async () => {
    expect((await call('GET', '/connectors')).json).toEqual(['orders', 'audit']);
    const both = (await call('GET', '/connectors?expand=status&expand=info')).json as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(both)).toEqual(['orders', 'audit']);
    expect(both['orders']).toHaveProperty('status.connector.state', 'RUNNING');
    expect(both['orders']).toHaveProperty('info.type', 'sink');
    const status = (await call('GET', '/connectors?expand=status')).json as Record<
      string,
      Record<string, unknown>
    >;
    expect(Object.keys(status['audit']!)).toEqual(['status']);
  });

  it('GET /connectors/{name}, /config, /tasks, /topics have Connect’s shapes', async () => {
    expect((await call('GET', '/connectors/orders')).json).toEqual({
      name: 'orders',
      config: orders.config.raw,
      tasks: [
        { connector: 'orders', task: 0 },
        { connector: 'orders', task: 1 },
      ],
      type: 'sink',
    });
    expect((await call('GET', '/connectors/orders/config')).json).toEqual(orders.config.raw);
    expect((await call('GET', '/connectors/orders/tasks')).json).toEqual([
      { id: { connector: 'orders', task: 0 }, config: { ...orders.config.raw, 'task.id': '0' } },
      { id: { connector: 'orders', task: 1 }, config: { ...orders.config.raw, 'task.id': '1' } },
    ]);
    // the active topics (KIP-558), not the configured ones: none until a put carried records
    expect((await call('GET', '/connectors/orders/topics')).json).toEqual({ orders: { topics: [] } });
    orders.topicsSeen = ['orders'];
    expect((await call('GET', '/connectors/orders/topics')).json).toEqual({ orders: { topics: ['orders'] } });
    expect(await call('PUT', '/connectors/orders/topics/reset')).toMatchObject({
      status: 202,
      json: undefined,
    });
    expect(orders.topicResets).toBe(1);
    expect((await call('GET', '/connectors/orders/topics')).json).toEqual({ orders: { topics: [] } });
    expect((await call('PUT', '/connectors/nope/topics/reset')).status).toBe(404);
  });

  it('GET status: connector and task states with worker_id, and the trace of a failed task', async () => {
    orders.tasks[1] = { id: 1, state: 'FAILED', trace: 'task failed: boom' };
    expect((await call('GET', '/connectors/orders/status')).json).toEqual({
      name: 'orders',
      connector: { state: 'RUNNING', worker_id: workerId() },
      tasks: [
        { id: 0, state: 'RUNNING', worker_id: workerId() },
        { id: 1, state: 'FAILED', worker_id: workerId(), trace: 'task failed: boom' },
      ],
      type: 'sink',
    });
    expect((await call('GET', '/connectors/orders/tasks/1/status')).json).toEqual({
      id: 1,
      state: 'FAILED',
      worker_id: workerId(),
      trace: 'task failed: boom',
    });
  });

  it('PUT pause / resume answer 202 and reach the connector', async () => {
    expect((await call('PUT', '/connectors/audit/pause')).status).toBe(202);
    expect(
      ((await call('GET', '/connectors/audit/status')).json as { connector: { state: string } }).connector
        .state,
    ).toBe('PAUSED');
    expect((await call('PUT', '/connectors/audit/resume')).status).toBe(202);
    expect(audit.calls).toEqual(['pause', 'resume']);
  });

  it('PUT stop answers 202; the connector stays registered as STOPPED with no tasks; stopping again changes nothing', async () => {
    audit.calls.length = 0;
    expect((await call('PUT', '/connectors/audit/stop')).status).toBe(202);
    expect((await call('GET', '/connectors/audit/status')).json).toEqual({
      name: 'audit',
      connector: { state: 'STOPPED', worker_id: workerId() },
      tasks: [],
      type: 'sink',
    });
    expect((await call('GET', '/connectors/audit/tasks')).json).toEqual([]);
    expect((await call('GET', '/connectors/audit')).json).toMatchObject({ name: 'audit', tasks: [] });
    expect((await call('GET', '/connectors/audit/config')).json).toEqual(audit.config.raw);
    expect((await call('GET', '/connectors')).json).toEqual(['orders', 'audit']);
    expect((await call('GET', '/connectors/audit/tasks/0/status')).status).toBe(404);
    expect((await call('POST', '/connectors/audit/tasks/0/restart')).status).toBe(404);
    expect((await call('PUT', '/connectors/audit/stop')).status).toBe(202);
    expect(audit.calls).toEqual(['halt', 'halt']);

    // an operator's stop is not a fault (orders' failed task, from above, is what /health reports)
    const health = (await call('GET', '/health')).json as {
      connectors: Array<{ name: string; state: string; tasks: unknown[] }>;
      unhealthy: string[];
    };
    expect(health.connectors.find((c) => c.name === 'audit')).toEqual({
      name: 'audit',
      state: 'STOPPED',
      tasks: [],
    });
    expect(health.unhealthy.filter((u) => u.startsWith('audit'))).toEqual([]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toContain('sharesink_connector_state{connector="audit",state="STOPPED"} 1');
    expect(metrics).toContain('sharesink_connector_state{connector="audit",state="RUNNING"} 0');
    expect(metrics).not.toContain('sharesink_task_state{connector="audit"');

    // a restart keeps it STOPPED (Connect keeps the target state); nothing to mark RESTARTING
    expect((await call('POST', '/connectors/audit/restart')).status).toBe(204);
    const kip745 = await call('POST', '/connectors/audit/restart?includeTasks=true');
    expect(kip745.status).toBe(202);
    expect(kip745.json).toMatchObject({ connector: { state: 'STOPPED' }, tasks: [] });

    // resume starts it again with its tasks
    expect((await call('PUT', '/connectors/audit/resume')).status).toBe(202);
    expect((await call('GET', '/connectors/audit/status')).json).toMatchObject({
      connector: { state: 'RUNNING' },
      tasks: [{ id: 0, state: 'RUNNING' }],
    });
  });

  it('PUT pause on a STOPPED connector brings it back PAUSED, its tasks created paused', async () => {
    expect((await call('PUT', '/connectors/audit/stop')).status).toBe(202);
    expect((await call('PUT', '/connectors/audit/pause')).status).toBe(202);
    expect((await call('GET', '/connectors/audit/status')).json).toMatchObject({
      connector: { state: 'PAUSED' },
      tasks: [{ id: 0, state: 'PAUSED' }],
    });
    expect((await call('PUT', '/connectors/audit/resume')).status).toBe(202);
    expect(audit.state).toBe('RUNNING');
  });

  it('POST restart: 204 for the plain form, 202 with RESTARTING instances for includeTasks / onlyFailed (KIP-745)', async () => {
    expect((await call('POST', '/connectors/orders/restart')).status).toBe(204);
    const r = await call('POST', '/connectors/orders/restart?includeTasks=true&onlyFailed=true');
    expect(r.status).toBe(202);
    expect(r.json).toMatchObject({
      connector: { state: 'RUNNING' },
      tasks: [
        { id: 0, state: 'RUNNING' },
        { id: 1, state: 'RESTARTING' },
      ],
    });
    expect((await call('POST', '/connectors/orders/tasks/1/restart')).status).toBe(204);
    expect(orders.calls).toEqual([
      'restart includeTasks=false onlyFailed=false',
      'restart includeTasks=true onlyFailed=true',
      'restartTask 1',
    ]);
  });

  it('answers Connect’s error JSON: 404 for unknown connectors and tasks, 405 for what standalone files own', async () => {
    expect(await call('GET', '/connectors/nope/status')).toMatchObject({
      status: 404,
      json: { error_code: 404, message: 'Connector nope not found' },
    });
    expect((await call('GET', '/connectors/orders/tasks/7/status')).status).toBe(404);
    expect((await call('POST', '/connectors/orders/tasks/x/restart')).status).toBe(404);
    for (const [method, path] of [
      ['POST', '/connectors'],
      ['PUT', '/connectors/orders/config'],
      ['DELETE', '/connectors/orders'],
    ] as const) {
      const r = await call(method, path, method === 'DELETE' ? undefined : {});
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.json).toMatchObject({ error_code: 405 });
    }
    expect((await call('PATCH', '/connectors')).status).toBe(405);
    expect((await call('GET', '/nowhere')).status).toBe(404);
  });

  it('GET /connector-plugins lists the built-in sinks', async () => {
    const plugins = (await call('GET', '/connector-plugins')).json as Array<{ class: string; type: string }>;
    expect(plugins.map((p) => p.class)).toContain('org.apache.kafka.connect.file.FileStreamSinkConnector');
    expect(plugins.every((p) => p.type === 'sink')).toBe(true);
  });

  it('PUT /connector-plugins/{class}/config/validate answers ConfigInfos with error_count', async () => {
    const good = (
      await call('PUT', '/connector-plugins/FileStreamSink/config/validate', {
        name: 'x',
        topics: 'orders',
        file: '/tmp/x.txt',
      })
    ).json as {
      name: string;
      error_count: number;
      configs: Array<{ definition: { name: string }; value: { errors: string[] } }>;
    };
    expect(good.error_count).toBe(0);
    expect(good.name).toBe('FileStreamSink');
    expect(good.configs.map((c) => c.definition.name)).toContain('tasks.max');
    const bad = (
      await call('PUT', '/connector-plugins/FileStreamSink/config/validate', {
        name: 'x',
        topics: 'orders',
        'tasks.max': 'many',
      })
    ).json as typeof good;
    expect(bad.error_count).toBeGreaterThan(0);
    expect(bad.configs.find((c) => c.definition.name === 'tasks.max')?.value.errors.length).toBeGreaterThan(
      0,
    );
    const notJson = await fetch(`${server.url}/connector-plugins/FileStreamSink/config/validate`, {
      method: 'PUT',
      body: '{',
    });
    expect(notJson.status).toBe(400);
  });
});

describe('/health, /metrics and the live view', () => {
  it('/health is 200 while every instance runs or is paused, 503 with the failed ones otherwise', async () => {
    orders.tasks[1] = { id: 1, state: 'RUNNING', trace: undefined };
    orders.state = 'PAUSED';
    expect((await call('GET', '/health')).status).toBe(200);
    orders.state = 'RUNNING';
    orders.tasks[1] = { id: 1, state: 'FAILED', trace: 'boom' };
    const r = await call('GET', '/health');
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ status: 'DOWN', unhealthy: ['orders/1'] });
    orders.tasks[1] = { id: 1, state: 'RUNNING', trace: undefined };
  });

  it('/metrics is Prometheus text with per-task labels', async () => {
    orders.counters = { ...orders.counters, recordsAccepted: 40, puts: 4, putMsTotal: 2000 };
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/);
    const text = await res.text();
    for (const line of [
      'sharesink_task_records_accepted_total{connector="orders",task="1"} 40',
      'sharesink_task_put_duration_seconds_sum{connector="orders",task="0"} 2',
      'sharesink_task_put_duration_seconds_count{connector="orders",task="0"} 4',
      'sharesink_share_fetches_total{connector="orders",task="0"} 5',
      'sharesink_task_state{connector="orders",task="0",state="RUNNING"} 1',
      'sharesink_pool_threads{connector="orders"} 2',
      'sharesink_locks_batches_released_early_total{connector="orders"} 1',
      'sharesink_machine_transitions_total{machine="batch",from="acquired",to="putting"} 7',
      'sharesink_machine_actors{machine="batch",state="putting/renewing"} 1',
    ])
      expect(text).toContain(line);
    expect(text).not.toContain('sharesink_share_fetches_total{connector="audit"');
    expect(text).toMatch(/^sharesink_process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^sharesink_eventloop_delay_seconds\{quantile="0.99"\} [\d.e-]+$/m);
    // every sample line parses as name{labels} value
    for (const line of text.split('\n').filter((l) => l !== '' && !l.startsWith('#')))
      expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? (-?[\d.e+-]+|NaN|[+-]Inf)$/);
  });

  it('/machines is one self-contained page with a diagram per machine', async () => {
    const res = await fetch(`${server.url}/machines`);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const m of ['batch', 'task', 'connector']) expect(html).toContain(`data-machine="${m}"`);
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).toContain('data-state="up.running"');
    // the first request lays the machines out with ELK (in its own thread): seconds on a busy machine
  }, 60_000);

  it('/machines/events streams an update at once, as Server-Sent Events', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/machines/events`, { signal: abort.signal });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\nevent: machines') || !text.endsWith('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    const data = JSON.parse(/data: (.*)\n/.exec(text)![1]!) as {
      states: Record<string, Record<string, number>>;
    };
    expect(data.states['batch']).toEqual({ putting: 2, 'putting/renewing': 1 });
    expect(data.states['task']).toEqual({ running: 3 });
    expect(data.states['connector']).toEqual({ 'up.running': 2 });
  });
});

describe('startRestServer', () => {
  it('close() ends open event streams and resolves promptly', async () => {
    const own = await startRestServer(worker, {
      listener: 'http://127.0.0.1:0',
      lookupClusterId: false,
      logger,
    });
    const res = await fetch(`${own.url}/machines/events`);
    const reader = res.body!.getReader();
    await reader.read();
    const began = Date.now();
    await own.close();
    expect(Date.now() - began).toBeLessThan(1000);
    for (let r = await reader.read(); !r.done; r = await reader.read());
  });

  it('refuses a listener that is not http://host:port, and a port in use, with typed errors', async () => {
    await expect(
      startRestServer(worker, { listener: 'ftp://x:1', lookupClusterId: false, logger }),
    ).rejects.toMatchObject({
      code: 'SHARESINK_REST_LISTENER_INVALID',
    });
    const port = new URL(server.url).port;
    await expect(
      startRestServer(worker, { listener: `http://127.0.0.1:${port}`, lookupClusterId: false, logger }),
    ).rejects.toMatchObject({ code: 'SHARESINK_REST_LISTEN_FAILED' });
  });
});
