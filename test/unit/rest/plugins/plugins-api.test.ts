// /connector-plugins over real HTTP against a fake worker: Connect's listing with and without
// connectorsOnly (KIP-769), GET /connector-plugins/{plugin}/config, and what validate refuses.
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWorkerConfig } from '../../../../src/config/compile-worker.js';
import { startRestServer, type RestServer } from '../../../../src/rest/server/server.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-plugins-'));
// a module that leaves a mark when imported: validate must not import it for a request
const marker = path.join(dir, 'imported');
const stranger = path.join(dir, 'stranger.mjs');
writeFileSync(
  stranger,
  `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'x');\n`,
);

const worker = fakeWorker([new FakeConnector('orders', 1)]);
let server: RestServer;
beforeAll(async () => {
  server = await startRestServer(worker, {
    listener: 'http://127.0.0.1:0',
    lookupClusterId: false,
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await server.close();
});

async function call(method: string, p: string, body?: unknown) {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

type Plugin = { class: string; type: string; version: string };

describe('GET /connector-plugins', () => {
  it('lists connectors only by default, and every plugin type with connectorsOnly=false', async () => {
    const only = (await call('GET', '/connector-plugins')).json as Plugin[];
    expect(only.every((p) => p.type === 'sink')).toBe(true);
    expect(only).toContainEqual({
      class: 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      type: 'sink',
      version: expect.any(String),
    });
    expect((await call('GET', '/connector-plugins?connectorsOnly=true')).json).toEqual(only);

    const all = (await call('GET', '/connector-plugins?connectorsOnly=false')).json as Plugin[];
    expect(all.slice(0, only.length)).toEqual(only);
    const byType = (type: string) => all.filter((p) => p.type === type).map((p) => p.class);
    expect(byType('converter')).toEqual([
      'org.apache.kafka.connect.json.JsonConverter',
      'org.apache.kafka.connect.storage.StringConverter',
      'org.apache.kafka.connect.converters.ByteArrayConverter',
    ]);
    expect(byType('header_converter')).toContain('org.apache.kafka.connect.storage.SimpleHeaderConverter');
    expect(byType('transformation')).toContain('org.apache.kafka.connect.transforms.Cast$Value');
    expect(byType('transformation')).toContain('org.apache.kafka.connect.transforms.RegexRouter');
    expect(byType('predicate')).toEqual(
      expect.arrayContaining(['org.apache.kafka.connect.transforms.predicates.TopicNameMatches']),
    );
    expect(all.every((p) => p.version !== '')).toBe(true);
  });
});

describe('GET /connector-plugins/{plugin}/config', () => {
  it("answers the connector's own settings as Connect's ConfigKeyInfo list", async () => {
    const r = await call('GET', '/connector-plugins/FileStreamSink/config');
    expect(r.status).toBe(200);
    const keys = r.json as Array<Record<string, unknown>>;
    const file = keys.find((k) => k['name'] === 'file');
    expect(file).toEqual({
      name: 'file',
      type: expect.any(String),
      required: expect.any(Boolean),
      default_value: null,
      importance: expect.stringMatching(/^(HIGH|MEDIUM|LOW)$/),
      documentation: expect.any(String),
      group: null,
      width: 'NONE',
      display_name: expect.any(String),
      dependents: [],
      order: -1,
    });
    // only the plugin's own settings, as Connect: not the framework's (tasks.max, topics)
    expect(keys.map((k) => k['name'])).not.toContain('tasks.max');
    const full = await call(
      'GET',
      '/connector-plugins/org.apache.kafka.connect.file.FileStreamSinkConnector/config',
    );
    expect(full.json).toEqual(keys);
  });

  it('answers a transformation and a predicate by either name; a converter with none', async () => {
    const cast = (
      await call('GET', '/connector-plugins/org.apache.kafka.connect.transforms.Cast$Value/config')
    ).json as Array<{ name: string; required: boolean }>;
    expect(cast.map((k) => k.name)).toContain('spec');
    expect((await call('GET', '/connector-plugins/Cast$Value/config')).json).toEqual(cast);
    const topic = (await call('GET', '/connector-plugins/TopicNameMatches/config')).json as Array<{
      name: string;
    }>;
    expect(topic.map((k) => k.name)).toEqual(['pattern']);
    expect(
      await call('GET', '/connector-plugins/org.apache.kafka.connect.json.JsonConverter/config'),
    ).toEqual({
      status: 200,
      json: [],
    });
  });

  it('404 for a plugin this worker does not have, without importing a module path', async () => {
    const unknown = await call('GET', '/connector-plugins/NoSuchSink/config');
    expect(unknown).toEqual({
      status: 404,
      json: {
        error_code: 404,
        message: 'Unknown plugin NoSuchSink. Listed plugins: GET /connector-plugins?connectorsOnly=false',
      },
    });
    const url = encodeURIComponent(pathToFileURL(stranger).href);
    expect((await call('GET', `/connector-plugins/${url}/config`)).status).toBe(404);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('PUT /connector-plugins/{plugin}/config/validate', () => {
  it('refuses a body naming another connector class, as Connect does', async () => {
    const r = await call('PUT', '/connector-plugins/FileStreamSink/config/validate', {
      'connector.class': 'PostgresSink',
      name: 'x',
      topics: 'orders',
    });
    expect(r).toEqual({
      status: 400,
      json: {
        error_code: 400,
        message: 'Included connector type PostgresSink does not match request type FileStreamSink',
      },
    });
    // the same plugin by another of its names is fine
    const same = await call('PUT', '/connector-plugins/FileStreamSink/config/validate', {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      name: 'x',
      topics: 'orders',
      file: '/tmp/x',
    });
    expect(same.status).toBe(200);
    expect((same.json as { error_count: number }).error_count).toBe(0);
  });

  it('does not import a module no running connector uses; says so under connector.class', async () => {
    const href = pathToFileURL(stranger).href;
    const r = await call('PUT', `/connector-plugins/${encodeURIComponent(href)}/config/validate`, {
      name: 'x',
      topics: 'orders',
    });
    expect(r.status).toBe(200);
    const body = r.json as {
      error_count: number;
      configs: Array<{ value: { name: string; errors: string[] } }>;
    };
    const errors = body.configs.find((c) => c.value.name === 'connector.class')!.value.errors;
    expect(errors).toContain(
      `${href} is not a connector this worker has; accepted: a built-in sink (GET /connector-plugins), the connector.class of a running connector, or a module under a plugin.path directory (plugin.path is not set in the worker file; add the directory that holds the module to plugin.path on every worker, or check the module with sharesink validate)`,
    );
    expect(existsSync(marker)).toBe(false);
  });
});

describe('plugin.path: connector modules a request may name', () => {
  const fixtures = path.resolve('test/fixtures/connectors');
  const ok = path.join(fixtures, 'ok.ts');
  let withPath: RestServer;
  beforeAll(async () => {
    const w = fakeWorker([]);
    Object.assign(w, {
      config: compileWorkerConfig({
        'bootstrap.servers': '127.0.0.1:9',
        'pool.threads': '1',
        'plugin.path': fixtures,
      }),
    });
    withPath = await startRestServer(w, {
      listener: 'http://127.0.0.1:0',
      lookupClusterId: false,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await withPath.close();
  });
  const at = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${withPath.url}${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  const classErrors = (json: unknown) =>
    (json as { configs: Array<{ value: { name: string; errors: string[] } }> }).configs.find(
      (c) => c.value.name === 'connector.class',
    )!.value.errors;

  it('lists the connector modules under plugin.path, by the path a config names them with', async () => {
    const only = (await at('GET', '/connector-plugins')).json as Plugin[];
    expect(only).toContainEqual({ class: ok, type: 'sink', version: 'fixture' });
    const listed = only.map((p) => p.class);
    // helpers that export no connector are not plugins; the built-ins come first, as before
    expect(listed).not.toContain(path.join(fixtures, 'shared.ts'));
    expect(listed).not.toContain(path.join(fixtures, 'not-a-connector.ts'));
    expect(listed[0]).toBe('org.apache.kafka.connect.file.FileStreamSinkConnector');
    const all = (await at('GET', '/connector-plugins?connectorsOnly=false')).json as Plugin[];
    expect(all.slice(0, only.length)).toEqual(only);
  });

  it('validates a module under plugin.path with its own settings, and answers its /config', async () => {
    const r = await at('PUT', `/connector-plugins/${encodeURIComponent(ok)}/config/validate`, {
      name: 'x',
      topics: 'orders',
    });
    expect(r.status).toBe(200);
    expect(classErrors(r.json)).toEqual([]);
    expect((await at('GET', `/connector-plugins/${encodeURIComponent(ok)}/config`)).status).toBe(200);
  });

  it('still refuses a module outside it, naming plugin.path, without importing it', async () => {
    const href = pathToFileURL(stranger).href;
    const r = await at('PUT', `/connector-plugins/${encodeURIComponent(href)}/config/validate`, {
      name: 'x',
      topics: 'orders',
    });
    expect(classErrors(r.json).join('\n')).toContain(`(plugin.path is ${fixtures};`);
    const escape = `${fixtures}/../../../${path.relative(path.resolve('.'), stranger)}`;
    expect((await at('GET', `/connector-plugins/${encodeURIComponent(escape)}/config`)).status).toBe(404);
    expect(existsSync(marker)).toBe(false);
  });

  it('applies the same rule to converter, transform and predicate modules the config names', async () => {
    const transform = path.resolve('test/fixtures/transforms', 'upper-case.ts');
    const body = (extra: Record<string, string>) => ({ name: 'x', topics: 'orders', ...extra });
    const outside = await at('PUT', `/connector-plugins/${encodeURIComponent(ok)}/config/validate`, {
      ...body({
        'value.converter': stranger,
        transforms: 't',
        'transforms.t.type': transform,
      }),
    });
    const errorsOf = (json: unknown, key: string) =>
      (json as { configs: Array<{ value: { name: string; errors: string[] } }> }).configs.find(
        (c) => c.value.name === key,
      )?.value.errors ?? [];
    expect(errorsOf(outside.json, 'value.converter').join('\n')).toContain(
      `${stranger} is a module outside plugin.path (plugin.path is ${fixtures});`,
    );
    expect(errorsOf(outside.json, 'transforms.t.type').join('\n')).toContain(
      'is a module outside plugin.path',
    );
    expect(existsSync(marker)).toBe(false);
    // built-ins are always fine
    const builtin = await at('PUT', `/connector-plugins/${encodeURIComponent(ok)}/config/validate`, {
      ...body({
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
        transforms: 't',
        'transforms.t.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
        'transforms.t.static.field': 'f',
        'transforms.t.static.value': 'v',
      }),
    });
    expect((builtin.json as { error_count: number }).error_count).toBe(0);
  });
});
