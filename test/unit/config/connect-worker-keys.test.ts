import { describe, expect, it } from 'vitest';
import { connectorKeyWarnings } from '../../../src/actors/connector-checks.js';
import { Worker } from '../../../src/actors/worker.js';
import { describeUnusedSettings, unusedConnectSettings } from '../../../src/config/connect-worker-keys.js';
import { compileConnectorConfig, validateWorkerConfig } from '../../../src/config/index.js';
import { FileStreamSinkConnector } from '../../../src/sinks/file/file-stream-sink.js';
import { capturingLogger } from '../cli/capturing-logger.js';

/** Kafka 4's config/connect-standalone.properties, comments dropped, plus settings its users often add. */
const CONNECT_STANDALONE = {
  'bootstrap.servers': 'localhost:9092',
  'key.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'key.converter.schemas.enable': 'true',
  'value.converter.schemas.enable': 'true',
  'offset.storage.file.filename': '/tmp/connect.offsets',
  'offset.flush.interval.ms': '10000',
  'plugin.path': '/usr/local/share/java',
  'plugin.discovery': 'hybrid_warn',
  'internal.key.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'internal.value.converter.schemas.enable': 'false',
  'rest.port': '8083',
  'rest.host.name': 'localhost',
};

describe('Kafka Connect worker settings sharesink does not use', () => {
  it('accepts a connect-standalone.properties: no problem, no warning, each unused key listed with why', () => {
    const check = validateWorkerConfig(CONNECT_STANDALONE);
    expect(check.problems).toEqual([]);
    expect(check.warnings).toEqual([]);
    expect(check.config?.unused).toEqual(check.unused);
    expect(check.unused.map((u) => u.key)).toEqual([
      'offset.storage.file.filename',
      'offset.flush.interval.ms',
      'plugin.discovery',
      'internal.key.converter',
      'internal.value.converter.schemas.enable',
      'rest.port',
      'rest.host.name',
    ]);
    const why = Object.fromEntries(check.unused.map((u) => [u.key, u.reason]));
    expect(why['offset.flush.interval.ms']).toContain('acknowledged to the share group');
    expect(why['plugin.discovery']).toContain('no class discovery to choose');
    // plugin.path is read: the connector modules the REST API may name
    expect(check.config?.pluginPath).toEqual(['/usr/local/share/java']);
    expect(why['internal.key.converter']).toContain('removed from Kafka Connect in 3.0');
    // REST is off (no listeners): the REST keys say so
    expect(why['rest.port']).toContain('listeners is not set, so there is no REST API at all');
  });

  it('says REST settings are replaced by listeners when a REST API runs, and lists an empty listeners=', () => {
    const on = unusedConnectSettings({ 'rest.port': '8083', listeners: 'http://127.0.0.1:8083' });
    expect(on).toHaveLength(1);
    expect(on[0]!.reason).toMatch(/^the REST API listens on `listeners` only/);
    expect(on[0]!.reason).not.toContain('no REST API at all');
    expect(unusedConnectSettings({ listeners: ' ' })).toEqual([
      { key: 'listeners', reason: 'empty: no REST API is served (set listeners=http://host:port for one)' },
    ]);
  });

  it('describes them in one line, keys sharing a reason named together', () => {
    const line = describeUnusedSettings(
      unusedConnectSettings({
        'offset.storage.file.filename': 'x',
        'plugin.discovery': 'y',
        'offset.flush.interval.ms': '1',
      }),
    );
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(
      /^offset\.storage\.file\.filename, offset\.flush\.interval\.ms: sharesink runs sink connectors only.*; plugin\.discovery: connectors, converters/,
    );
  });

  it('still warns about unknown worker keys, with a hint for one close to a known setting', () => {
    const { warnings, unused } = validateWorkerConfig({
      'bootstrap.servers': 'a:1',
      'plugin.pth': '/x',
      'pool.thread': '2',
      'totally.unknown': '1',
      'producer.acks': 'all',
    });
    expect(unused).toEqual([]);
    expect(warnings).toEqual([
      'plugin.pth: not a sharesink worker setting; ignored (did you mean plugin.path?)',
      'pool.thread: not a sharesink worker setting; ignored (did you mean pool.threads?)',
      'totally.unknown: not a sharesink worker setting; ignored',
    ]);
  });

  it('declares bootstrap.timeout.ms, 30 s by default', () => {
    expect(validateWorkerConfig({ 'bootstrap.servers': 'a:1' }).config?.bootstrapTimeoutMs).toBe(30_000);
    expect(
      validateWorkerConfig({ 'bootstrap.servers': 'a:1', 'bootstrap.timeout.ms': '5000' }).config
        ?.bootstrapTimeoutMs,
    ).toBe(5000);
    expect(
      validateWorkerConfig({ 'bootstrap.servers': 'a:1', 'bootstrap.timeout.ms': '-1' }).problems,
    ).toHaveLength(1);
  });
});

describe('connector settings that look like typos', () => {
  const worker = validateWorkerConfig({ 'bootstrap.servers': 'a:1' }).config!;
  const fileSink = (extra: Record<string, string>) =>
    compileConnectorConfig(
      { name: 'f', 'connector.class': 'FileStreamSink', topics: 't', file: '/tmp/out', ...extra },
      worker,
    );

  it('names the setting a near miss meant, from sharesink and from the connector', () => {
    const config = fileSink({ 'tasks.mx': '2', fil: '/tmp/x', topic: 't' });
    expect(connectorKeyWarnings(new FileStreamSinkConnector(), config)).toEqual([
      'tasks.mx: not a setting of sharesink or of FileStreamSink; ignored (did you mean tasks.max?)',
      'fil: not a setting of sharesink or of FileStreamSink; ignored (did you mean file?)',
      'topic: not a setting of sharesink or of FileStreamSink; ignored (did you mean topics?)',
    ]);
  });

  it('stays quiet about declared keys, open prefixes and unknown keys that resemble nothing', () => {
    const config = fileSink({
      'consumer.override.max.poll.records': '10',
      'value.converter.schemas.enable': 'false',
      'my.own.setting': 'x',
      batch: '1',
    });
    expect(connectorKeyWarnings(new FileStreamSinkConnector(), config)).toEqual([]);
  });
});

describe('Worker start', () => {
  it('logs one notice line listing the Connect settings with no effect, and the typo warnings', async () => {
    const { logger, lines } = capturingLogger('info');
    const config = validateWorkerConfig({ ...CONNECT_STANDALONE, 'pool.thread': '1' }).config!;
    const w = new Worker({ worker: config, connectors: [], logger });
    await w.start();
    await w.stop();
    const unused = lines.filter((l) => String(l['msg']).startsWith('Kafka Connect settings with no effect'));
    expect(unused).toHaveLength(1);
    expect(unused[0]!['level']).toBe(35);
    expect(unused[0]!['settings']).toEqual(config.unused!.map((u) => u.key));
    expect(String(unused[0]!['msg'])).toContain('; plugin.discovery: connectors, converters');
    const warns = lines.filter((l) => l['level'] === 40).map((l) => l['msg']);
    expect(warns).toEqual([
      'pool.thread: not a sharesink worker setting; ignored (did you mean pool.threads?)',
    ]);
  });
});
