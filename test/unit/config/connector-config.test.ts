import { describe, expect, it } from 'vitest';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  validateConnectorConfig,
} from '../../../src/config/index.js';
import { BUILTIN_CONNECTORS } from '../../../src/connect/connector-module.js';
import { DEFAULT_CONVERTERS } from '../../../src/connect/converters/registry.js';
import { base, problemsOf, worker } from './config-helpers.js';

const compile = (props: Record<string, string>) => compileConnectorConfig(props, worker);

const PLAINTEXT_CLIENT = { protocol: 'PLAINTEXT', principal: 'User:ANONYMOUS' };

describe('compileConnectorConfig', () => {
  it("fills every default the way Connect does (classic, group connect-<name>, the worker's converters)", () => {
    expect(compile({ ...base })).toEqual({
      name: 'orders',
      connectorClass: 'noop',
      connectorModule: BUILTIN_CONNECTORS['noop'],
      tasksMax: 1,
      topics: ['orders'],
      topicsRegex: undefined,
      groupProtocol: 'classic',
      groupId: 'connect-orders',
      converters: DEFAULT_CONVERTERS,
      errors: {
        tolerance: 'none',
        retryTimeoutMs: 0,
        retryDelayMaxMs: 60000,
        logEnable: false,
        logIncludeMessages: false,
        deadLetterQueueTopic: undefined,
        deadLetterQueueContextHeaders: false,
      },
      transforms: { transforms: [], predicates: [] },
      putTimeoutMs: Infinity,
      lockRenewal: 'auto',
      shareMemberScope: 'connector',
      renewFraction: 0.5,
      retriableAction: 'retry',
      maxInFlightBatches: 4,
      putPlacement: 'pool',
      shareGroupConfigs: {},
      consumer: { 'group.id': 'connect-orders', 'group.protocol': 'classic' },
      warnings: [],
      raw: base,
      security: { consumer: PLAINTEXT_CLIENT, producer: PLAINTEXT_CLIENT, admin: PLAINTEXT_CLIENT },
    });
  });

  it('reads every setting it declares', () => {
    const config = compile({
      name: 'orders',
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
      'tasks.max': '8',
      'topics.regex': 'orders-.*',
      'value.converter': 'StringConverter',
      'consumer.override.group.id': 'my-group',
      'consumer.override.max.poll.records': '50',
      'put.timeout.ms': '30000',
      'max.inflight.batches': '2',
      'errors.tolerance': 'all',
      'errors.retry.timeout': '-1',
      'errors.retry.delay.max.ms': '1000',
      'errors.log.enable': 'true',
      'errors.log.include.messages': 'TRUE',
      'errors.deadletterqueue.topic.name': 'dead-orders',
      'errors.deadletterqueue.context.headers.enable': 'true',
    });
    expect(config.connectorModule).toBe(BUILTIN_CONNECTORS['FileStreamSinkConnector']);
    expect(config.tasksMax).toBe(8);
    expect(config.topics).toEqual([]);
    expect(config.topicsRegex?.test('orders-eu')).toBe(true);
    // Java's Pattern.matches: the whole name must match
    expect(config.topicsRegex?.test('old-orders-eu')).toBe(false);
    expect(config.groupId).toBe('my-group');
    expect(config.consumer).toEqual({
      'max.poll.records': '50',
      'group.id': 'my-group',
      'group.protocol': 'classic',
    });
    expect(config.converters.value).toEqual({ className: 'StringConverter', props: {} });
    expect(config.converters.key).toEqual(DEFAULT_CONVERTERS.key);
    expect(config.putTimeoutMs).toBe(30000);
    expect(config.maxInFlightBatches).toBe(2);
    expect(config.errors).toEqual({
      tolerance: 'all',
      retryTimeoutMs: -1,
      retryDelayMaxMs: 1000,
      logEnable: true,
      logIncludeMessages: true,
      deadLetterQueueTopic: 'dead-orders',
      deadLetterQueueContextHeaders: true,
    });
    expect(config.warnings).toEqual([]);
  });

  it('overlays consumer.override.* on the worker consumer.* and takes converter settings from one layer', () => {
    const w = compileWorkerConfig({
      'bootstrap.servers': 'a:1',
      'consumer.max.poll.records': '500',
      'consumer.fetch.min.bytes': '1',
      'value.converter': 'JsonConverter',
      'value.converter.schemas.enable': 'false',
    });
    const config = compileConnectorConfig(
      {
        ...base,
        'consumer.override.max.poll.records': '10',
        'value.converter': 'StringConverter',
        'value.converter.encoding': 'latin1',
      },
      w,
    );
    expect(config.consumer).toEqual({
      'max.poll.records': '10',
      'fetch.min.bytes': '1',
      'group.id': 'connect-orders',
      'group.protocol': 'classic',
    });
    expect(config.converters.value).toEqual({ className: 'StringConverter', props: { encoding: 'latin1' } });
  });

  it('resolves relative connector.class paths against the given directory', () => {
    const config = compileConnectorConfig({ ...base, 'connector.class': './my-sink.js' }, worker, {
      cwd: '/opt/sinks',
    });
    expect(config.connectorModule).toBe('file:///opt/sinks/my-sink.js');
  });

  it('takes the protocol from the worker unless the connector overrides it (case-insensitive)', () => {
    const share = compileWorkerConfig({ 'bootstrap.servers': 'a:1', 'consumer.group.protocol': 'share' });
    expect(compileConnectorConfig({ ...base }, share).groupProtocol).toBe('share');
    expect(
      compileConnectorConfig({ ...base, 'consumer.override.group.protocol': 'Classic' }, share).groupProtocol,
    ).toBe('classic');
    const consumer = compile({ ...base, 'consumer.override.group.protocol': 'consumer' });
    expect(consumer.groupProtocol).toBe('consumer');
    expect(consumer.warnings).toEqual([]);
    expect(consumer.consumer['group.protocol']).toBe('consumer');
  });
});

describe('compileConnectorConfig problems (exact messages)', () => {
  it('neither topics nor topics.regex', () => {
    expect(problemsOf(() => compile({ name: 'n', 'connector.class': 'noop' }))).toEqual([
      'topics: neither topics nor topics.regex is set; accepted: exactly one of topics (a comma-separated list of topic names) or topics.regex (a regular expression matching whole topic names)',
    ]);
  });

  it('an empty topics counts as unset, as in Connect', () => {
    expect(problemsOf(() => compile({ ...base, topics: '', 'topics.regex': '' }))).toHaveLength(1);
  });

  it('both topics and topics.regex', () => {
    expect(problemsOf(() => compile({ ...base, 'topics.regex': 'orders.*' }))).toEqual([
      'topics: both topics ("orders") and topics.regex ("orders.*") are set; accepted: exactly one of them',
    ]);
  });

  it('invalid topic names and regular expressions', () => {
    expect(problemsOf(() => compile({ ...base, topics: 'ok,bad topic,' }))).toEqual([
      `topics: "ok,bad topic," has invalid topic names "bad topic", ""; accepted: a comma-separated list, Kafka topic names (letters, digits, '.', '_', '-'; 1 to 249 characters)`,
    ]);
    expect(problemsOf(() => compile({ name: 'n', 'connector.class': 'noop', 'topics.regex': '(' }))).toEqual([
      'topics.regex: "(" is not a valid regular expression (Invalid regular expression: /^(?:()$/: Unterminated group); accepted: a string, a regular expression matched against whole topic names',
    ]);
  });

  it('bad tasks.max', () => {
    expect(problemsOf(() => compile({ ...base, 'tasks.max': '0' }))).toEqual([
      'tasks.max: "0" is less than 1; accepted: a 32-bit integer, [1,...]',
    ]);
    expect(problemsOf(() => compile({ ...base, 'tasks.max': 'two' }))).toEqual([
      'tasks.max: "two" is not a 32-bit integer; accepted: a 32-bit integer, [1,...]',
    ]);
  });

  it('bad errors.tolerance (case-sensitive, as Connect)', () => {
    expect(problemsOf(() => compile({ ...base, 'errors.tolerance': 'ALL' }))).toEqual([
      'errors.tolerance: "ALL" is not one of the accepted values; accepted: a string, one of none, all',
    ]);
  });

  it('unknown group protocol', () => {
    expect(problemsOf(() => compile({ ...base, 'consumer.override.group.protocol': 'queue' }))).toEqual([
      'consumer.override.group.protocol: "queue" is not one of the accepted values; accepted: a string, one of share, classic, consumer',
    ]);
  });

  it('bad converter class', () => {
    expect(
      problemsOf(() => compile({ ...base, 'value.converter': 'io.confluent.connect.avro.AvroConverter' })),
    ).toEqual([
      "value.converter.schema.registry.url: is not set; accepted: the registry's URL, several separated by commas (the local one: run `npm run registry:start`, it prints http://127.0.0.1:18081/apis/ccompat/v7)",
    ]);
    expect(
      problemsOf(() => compile({ ...base, 'value.converter': 'com.example.connect.FancyConverter' })),
    ).toEqual([
      'value.converter: "com.example.connect.FancyConverter" is a Java class, and sharesink runs no Java: use JsonConverter, StringConverter, ByteArrayConverter, or the Schema Registry converters (io.confluent.connect.avro.AvroConverter, io.confluent.connect.protobuf.ProtobufConverter, io.confluent.connect.json.JsonSchemaConverter; docs/converters.md), or a Node module whose default export is a Converter class (configure, toConnectData); accepted: a class name or module specifier, one of org.apache.kafka.connect.json.JsonConverter, JsonConverter, org.apache.kafka.connect.storage.StringConverter, StringConverter, org.apache.kafka.connect.converters.ByteArrayConverter, ByteArrayConverter, io.confluent.connect.avro.AvroConverter, AvroConverter, io.confluent.connect.protobuf.ProtobufConverter, ProtobufConverter, io.confluent.connect.json.JsonSchemaConverter, JsonSchemaConverter, or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the converter',
    ]);
  });

  it('a Java connector class sharesink does not have', () => {
    const [problem] = problemsOf(() =>
      compile({ ...base, 'connector.class': 'io.confluent.connect.s3.S3SinkConnector' }),
    );
    expect(problem).toBe(
      `connector.class: "io.confluent.connect.s3.S3SinkConnector" is a Java class, and sharesink runs no Java: use a built-in sink (FileStreamSink, PostgresSink, JdbcSinkConnector, HttpSink, KafkaSink, NoopSink; docs/sinks.md) or a Node module whose default export is { connector, task } (docs/connector-authoring.md); accepted: a class name or module specifier, one of ${Object.keys(BUILTIN_CONNECTORS).join(', ')}, or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the sink connector`,
    );
  });

  it('missing name and connector.class, and bad names', () => {
    expect(problemsOf(() => compile({ topics: 't' }))).toEqual([
      'name: is required and has no value; accepted: a string, a non-empty string and no control characters',
      'connector.class: is required and has no value; accepted: a class name or module specifier, one of ' +
        `${Object.keys(BUILTIN_CONNECTORS).join(', ')}, or a module path (./x.js, /abs/x.js, file:...) or npm package whose default export is the sink connector`,
    ]);
    expect(problemsOf(() => compile({ ...base, name: 'a\u0001b' }))).toEqual([
      'name: "a\\u0001b" contains control characters; accepted: a string, a non-empty string and no control characters',
    ]);
  });

  it('out-of-range durations and our own settings', () => {
    expect(
      problemsOf(() =>
        compile({
          ...base,
          'put.timeout.ms': '0',
          'max.inflight.batches': '0',
          'errors.retry.timeout': '-2',
          'errors.retry.delay.max.ms': '2147483648',
          'errors.log.enable': 'yes',
          'share.lock.renewal': 'on',
          'share.lock.renew.fraction': '1',
        }),
      ),
    ).toEqual([
      'put.timeout.ms: "0" is outside 1..2147483647; accepted: an integer between -9007199254740991 and 9007199254740991, [1,...,2147483647]',
      'max.inflight.batches: "0" is less than 1; accepted: a 32-bit integer, [1,...]',
      'errors.retry.timeout: "-2" is less than -1; accepted: an integer between -9007199254740991 and 9007199254740991, [-1,...]',
      'errors.retry.delay.max.ms: "2147483648" is outside 1..2147483647; accepted: an integer between -9007199254740991 and 9007199254740991, [1,...,2147483647]',
      'errors.log.enable: "yes" is not true or false; accepted: true or false',
      'share.lock.renewal: "on" is not one of the accepted values; accepted: a string, one of auto, off',
      'share.lock.renew.fraction: "1" is outside 0.1..0.9; accepted: a finite number, [0.1,...,0.9]',
    ]);
  });

  it('the dead-letter topic among the topics read', () => {
    expect(problemsOf(() => compile({ ...base, 'errors.deadletterqueue.topic.name': 'orders' }))).toEqual([
      'topics: the dead-letter topic "orders" is also read by this connector; accepted: topics and topics.regex that leave out the dead-letter topic',
    ]);
  });

  it('lists problems of every kind in one error', () => {
    expect(
      problemsOf(() =>
        compile({
          'tasks.max': '0',
          'errors.tolerance': 'some',
          'consumer.override.group.protocol': 'queue',
        }),
      ),
    ).toHaveLength(6);
  });

  it('validateConnectorConfig returns problems and warnings instead of throwing', () => {
    const check = validateConnectorConfig({ ...base, 'tasks.max': '0', 'share.lock.renewl': 'off' }, worker);
    expect(check.config).toBeUndefined();
    expect(check.problems).toEqual(['tasks.max: "0" is less than 1; accepted: a 32-bit integer, [1,...]']);
    expect(check.warnings).toEqual([
      'share.lock.renewl: not a sharesink setting; ignored (did you mean share.lock.renewal?)',
    ]);
  });

  it('in classic mode warns that a dead-letter topic needs errors.tolerance=all', () => {
    expect(compile({ ...base, 'errors.deadletterqueue.topic.name': 'dlq' }).warnings).toEqual([
      'errors.deadletterqueue.topic.name=dlq: errors.tolerance=none fails the task at the first failed record, so nothing reaches the dead-letter topic; set errors.tolerance=all to use it',
    ]);
  });
});
