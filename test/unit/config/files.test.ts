import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  loadConnectorConfig,
  loadWorkerConfig,
  parseConnectorJson,
} from '../../../src/config/index.js';
import { BUILTIN_CONNECTORS } from '../../../src/connect/connector-module.js';
import { problemsOf } from './config-helpers.js';

const fixture = (name: string) => new URL(`../../fixtures/config/${name}`, import.meta.url).pathname;

describe('the sample files in test/fixtures/config', () => {
  const worker = compileWorkerConfig(loadWorkerConfig(fixture('worker.properties')));
  const props = loadConnectorConfig(fixture('connector.properties'));

  it('worker.properties compiles with no warnings', () => {
    expect(worker.groupProtocol).toBe('classic');
    expect(worker.converters.value).toEqual({
      className: 'org.apache.kafka.connect.json.JsonConverter',
      props: { 'schemas.enable': 'false' },
    });
    expect(worker.consumer).toEqual({ 'group.protocol': 'classic', 'max.poll.records': '500' });
    expect(worker.shutdownGraceMs).toBe(10000);
    expect(worker.warnings).toEqual([]);
  });

  it('connector.properties compiles in classic mode', () => {
    const config = compileConnectorConfig(props, worker);
    expect(config).toMatchObject({
      name: 'orders-to-file',
      connectorModule: BUILTIN_CONNECTORS['FileStreamSinkConnector'],
      tasksMax: 2,
      topics: ['orders'],
      groupProtocol: 'classic',
      groupId: 'connect-orders-to-file',
      putTimeoutMs: 30000,
      shareGroupConfigs: {},
      warnings: [],
    });
    expect(config.errors.deadLetterQueueTopic).toBe('dlq.orders-to-file');
    expect(config.consumer['auto.offset.reset']).toBe('earliest');
    expect(config.raw['file']).toBe('/tmp/orders.txt');
  });

  it('the same file compiles in share mode with only consumer.override.group.protocol=share added', () => {
    const classic = compileConnectorConfig(props, worker);
    const config = compileConnectorConfig({ ...props, 'consumer.override.group.protocol': 'share' }, worker);
    expect(config.groupProtocol).toBe('share');
    expect(config.groupId).toBe(classic.groupId);
    expect(config.topics).toEqual(classic.topics);
    expect(config.errors).toEqual({ ...classic.errors, deadLetterQueueTopic: undefined });
    expect(config.shareGroupConfigs).toEqual({
      'share.auto.offset.reset': 'earliest',
      'errors.deadletterqueue.topic.name': 'dlq.orders-to-file',
      'errors.deadletterqueue.copy.record.enable': 'true',
    });
    expect(config.warnings.map((w) => w.slice(0, w.indexOf(':')))).toEqual([
      'consumer.override.auto.offset.reset=earliest',
      'errors.deadletterqueue.topic.name=dlq.orders-to-file',
    ]);
  });

  it('both JSON forms give the same properties as the .properties file', () => {
    expect(loadConnectorConfig(fixture('connector-post.json'))).toEqual(props);
    expect(loadConnectorConfig(fixture('connector-flat.json'))).toEqual(props);
  });
});

describe('loading files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sharesink-config-'));
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('recognises JSON by its first character whatever the extension', () => {
    expect(loadConnectorConfig(write('c.conf', '  {"name": "x", "config": {"topics": "t"}}'))).toEqual({
      name: 'x',
      topics: 't',
    });
    expect(loadWorkerConfig(write('w.json', '{"bootstrap.servers": "a:1"}'))).toEqual({
      'bootstrap.servers': 'a:1',
    });
  });

  it('reports a missing file and bad JSON as ConfigErrors', () => {
    const [missing] = problemsOf(() => loadWorkerConfig(join(dir, 'nope.properties')));
    expect(missing).toMatch(/^cannot read the worker file: ENOENT: no such file or directory/);
    const [bad] = problemsOf(() => loadConnectorConfig(write('bad.json', '{"name": ')));
    expect(bad).toMatch(/^not valid JSON: /);
  });
});

describe('parseConnectorJson', () => {
  it("accepts Connect's GET /connectors/<name> answer as pasted (tasks and type are ignored)", () => {
    const text = JSON.stringify({ name: 'x', config: { name: 'x', topics: 't' }, tasks: [], type: 'sink' });
    expect(parseConnectorJson(text)).toEqual({ name: 'x', topics: 't' });
  });

  it('turns numbers, booleans and string arrays into setting strings', () => {
    expect(parseConnectorJson('{"tasks.max": 2, "errors.log.enable": false, "topics": ["a", "b"]}')).toEqual({
      'tasks.max': '2',
      'errors.log.enable': 'false',
      topics: 'a,b',
    });
  });

  it('keeps a key named __proto__ as a setting', () => {
    expect(Object.keys(parseConnectorJson('{"__proto__": "x"}'))).toEqual(['__proto__']);
  });

  it('lists every problem: nested values, nulls, unexpected keys, a name mismatch', () => {
    expect(
      problemsOf(() =>
        parseConnectorJson(
          JSON.stringify({ name: 'a', extra: 1, config: { name: 'b', nested: { x: 1 }, gone: null } }),
        ),
      ),
    ).toEqual([
      'extra: unexpected next to "config"; accepted: "name" and "config" (as POSTed to Connect)',
      'config.nested: {"x":1} is not a setting value; accepted: a string, number, boolean or array of strings',
      'config.gone: null is not a setting value; accepted: a string, number, boolean or array of strings',
      'name: "a" differs from config.name "b"; accepted: the same name in both places, or in one',
    ]);
    expect(problemsOf(() => parseConnectorJson('[1]'))).toEqual([
      'the JSON must be an object of settings, or {"name": ..., "config": {...}}',
    ]);
    expect(problemsOf(() => parseConnectorJson('{"config": "x"}'))).toEqual([
      'config: must be a JSON object of connector settings',
    ]);
  });
});
