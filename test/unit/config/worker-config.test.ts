import { ConfigProviders } from '../../../src/config/config-providers.js';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { compileWorkerConfig, validateWorkerConfig } from '../../../src/config/index.js';
import { DEFAULT_CONVERTERS } from '../../../src/connect/converters/registry.js';
import { problemsOf } from './config-helpers.js';

const PLAINTEXT_CLIENT = { protocol: 'PLAINTEXT', principal: 'User:ANONYMOUS' };

describe('compileWorkerConfig', () => {
  it('fills every default from bootstrap.servers alone', () => {
    expect(compileWorkerConfig({ 'bootstrap.servers': 'a:9092, b:9093' })).toEqual({
      bootstrapServers: ['a:9092', 'b:9093'],
      clientId: 'sharesink',
      groupProtocol: 'classic',
      converters: DEFAULT_CONVERTERS,
      consumer: {},
      poolThreads: availableParallelism(),
      poolPutsPerThread: 16,
      poolAbortGraceMs: 1000,
      shutdownGraceMs: 5000,
      lagPollIntervalMs: 30_000,
      listeners: [],
      pluginPath: [],
      // no TLS, no authentication, /health exempt (were authentication set)
      rest: { auth: { exemptPaths: ['/health'] } },
      bootstrapTimeoutMs: 30_000,
      // KIP-558: Connect's defaults
      topicTrackingEnable: true,
      topicTrackingAllowReset: true,
      raw: { 'bootstrap.servers': 'a:9092, b:9093' },
      warnings: [],
      unused: [],
      // PLAINTEXT for every client, and config.providers=none
      security: { consumer: PLAINTEXT_CLIENT, producer: PLAINTEXT_CLIENT, admin: PLAINTEXT_CLIENT },
      configProviders: expect.any(ConfigProviders),
      // connector.client.config.override.policy: Connect's default
      overridePolicy: { name: 'All', allowlist: [] },
    });
  });

  it('collects consumer.* without the prefix and converter settings by their prefix', () => {
    const config = compileWorkerConfig({
      'bootstrap.servers': '[::1]:9092',
      'client.id': 'w1',
      'key.converter': 'StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'consumer.max.poll.records': '100',
      'consumer.group.protocol': 'SHARE',
      'pool.threads': '3',
      'task.shutdown.graceful.timeout.ms': '0',
    });
    expect(config.bootstrapServers).toEqual(['[::1]:9092']);
    expect(config.clientId).toBe('w1');
    expect(config.groupProtocol).toBe('share');
    expect(config.consumer).toEqual({ 'max.poll.records': '100', 'group.protocol': 'SHARE' });
    expect(config.converters.key).toEqual({ className: 'StringConverter', props: {} });
    expect(config.converters.value.props).toEqual({ 'schemas.enable': 'false' });
    expect(config.poolThreads).toBe(3);
    expect(config.shutdownGraceMs).toBe(0);
  });

  it('reads the KIP-848 protocol name consumer as the consumer protocol, without a warning', () => {
    const config = compileWorkerConfig({ 'bootstrap.servers': 'a:1', 'consumer.group.protocol': 'Consumer' });
    expect(config.groupProtocol).toBe('consumer');
    expect(config.warnings).toEqual([]);
  });

  it('warns about settings it does not read, with a hint for near misses', () => {
    const { warnings } = validateWorkerConfig({
      'bootstrap.servers': 'a:1',
      'bootstrap.server': 'a:1',
      'offset.storage.file.filename': '/tmp/x',
      'producer.acks': 'all',
      'admin.retries': '1',
    });
    // offset.storage.file.filename is a Connect setting: listed as unused, not warned about
    expect(warnings).toEqual([
      'bootstrap.server: not a sharesink worker setting; ignored (did you mean bootstrap.servers?)',
    ]);
  });

  it('requires bootstrap.servers, as Connect 4 does', () => {
    expect(problemsOf(() => compileWorkerConfig({}))).toEqual([
      'bootstrap.servers: is required and has no value; accepted: a comma-separated list, host:port pairs, at least one',
    ]);
  });

  it('lists every problem at once, with the key, the value and what is accepted', () => {
    expect(
      problemsOf(() =>
        compileWorkerConfig({
          'bootstrap.servers': 'localhost,host:99999,ok:1',
          'key.converter': 'io.confluent.connect.avro.AvroConverter',
          'header.converter': 'io.confluent.connect.avro.AvroConverter',
          'consumer.group.protocol': 'queue',
          'pool.threads': '0',
          'task.shutdown.graceful.timeout.ms': '-1',
        }),
      ),
    ).toEqual([
      'bootstrap.servers: "localhost,host:99999,ok:1" has entries that are not host:port: "localhost", "host:99999"; accepted: a comma-separated list, host:port pairs, at least one',
      'header.converter: "io.confluent.connect.avro.AvroConverter" is a key and value converter: the Schema Registry converters convert keys and values, not headers, as in Connect; leave header.converter at SimpleHeaderConverter (the default); accepted: a class name or module specifier, one of org.apache.kafka.connect.storage.SimpleHeaderConverter, SimpleHeaderConverter, org.apache.kafka.connect.json.JsonConverter, JsonConverter, org.apache.kafka.connect.storage.StringConverter, StringConverter, org.apache.kafka.connect.converters.ByteArrayConverter, ByteArrayConverter, or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the header converter',
      'consumer.group.protocol: "queue" is not one of the accepted values; accepted: a string, one of share, classic, consumer',
      'pool.threads: "0" is less than 1; accepted: a 32-bit integer, [1,...]',
      'task.shutdown.graceful.timeout.ms: "-1" is outside 0..2147483647; accepted: an integer between -9007199254740991 and 9007199254740991, [0,...,2147483647]',
      "key.converter.schema.registry.url: is not set; accepted: the registry's URL, several separated by commas (the local one: run `npm run registry:start`, it prints http://127.0.0.1:18081/apis/ccompat/v7)",
    ]);
  });

  it("reads Connect's topic.tracking.enable and topic.tracking.allow.reset as settings, not unknown keys", () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'a:1',
      'topic.tracking.enable': 'false',
      'topic.tracking.allow.reset': 'FALSE',
    });
    expect(check.config).toMatchObject({ topicTrackingEnable: false, topicTrackingAllowReset: false });
    expect(check.warnings).toEqual([]);
    expect(
      validateWorkerConfig({ 'bootstrap.servers': 'a:1', 'topic.tracking.enable': 'sometimes' }).problems,
    ).toEqual([expect.stringMatching(/^topic\.tracking\.enable: "sometimes"/)]);
  });

  it('accepts converter modules by path or package name', () => {
    const config = compileWorkerConfig({
      'bootstrap.servers': 'a:1',
      'key.converter': './converters/avro.js',
      'value.converter': '@acme/connect-avro',
      'header.converter': 'file:///opt/h.js',
    });
    expect(config.converters.key.className).toBe('./converters/avro.js');
    expect(config.converters.value.className).toBe('@acme/connect-avro');
  });
});
