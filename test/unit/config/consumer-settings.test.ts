import { describe, expect, it } from 'vitest';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { classicConsumerSettings } from '../../../src/kafka/kafkajs/classic-consumer.js';
import { base, problemsOf, shareWorker, worker } from './config-helpers.js';

const classic = (props: Record<string, string>, w = worker) =>
  compileConnectorConfig({ ...base, ...props }, w);
const share = (props: Record<string, string>, w = worker) =>
  compileConnectorConfig({ ...base, 'consumer.override.group.protocol': 'share', ...props }, w);

describe('consumer settings: values the mode cannot use are problems when the files are compiled', () => {
  it('classic mode refuses auto.offset.reset=none, which used to fail the task at start, naming the key as written', () => {
    expect(problemsOf(() => classic({ 'consumer.override.auto.offset.reset': 'none' }))).toEqual([
      `consumer.override.auto.offset.reset: "none" is not supported in classic mode (Connect's consumer fails the task on a partition without a committed offset; sharesink does not offer that); accepted: earliest or latest`,
    ]);
    const fromWorker = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'consumer.auto.offset.reset': 'smallest',
    });
    expect(problemsOf(() => classic({}, fromWorker))).toEqual([
      'consumer.auto.offset.reset: "smallest" is not supported in classic mode; accepted: earliest or latest',
    ]);
    expect(classic({ 'consumer.override.auto.offset.reset': 'LATEST' }).consumer['auto.offset.reset']).toBe(
      'LATEST',
    );
  });

  it('classic mode refuses isolation levels its consumer would read as read_uncommitted', () => {
    expect(problemsOf(() => classic({ 'consumer.override.isolation.level': 'read-committed' }))).toEqual([
      'consumer.override.isolation.level: "read-committed" is not an isolation level; accepted: read_committed or read_uncommitted',
    ]);
  });

  it('a size or timeout that is not an integer: every one listed, in both modes (share mode used to put 500 in its place)', () => {
    const props = {
      'consumer.override.max.poll.records': 'abc',
      'consumer.override.fetch.max.wait.ms': '-5',
    };
    expect(problemsOf(() => classic(props))).toEqual([
      'consumer.override.max.poll.records: "abc" is not an integer of at least 1; accepted: an integer, [1,...]',
      'consumer.override.fetch.max.wait.ms: "-5" is not an integer of at least 0; accepted: an integer, [0,...]',
    ]);
    expect(problemsOf(() => share(props))).toEqual([
      'consumer.override.max.poll.records: "abc" is not an integer of at least 1; accepted: an integer, [1,...]',
      'consumer.override.fetch.max.wait.ms: "-5" is not an integer of at least 1; accepted: an integer, [1,...] (share mode would read 0 as the default, 500)',
    ]);
  });

  it('what compile accepts in classic mode, the classic consumer takes; what it refuses, the consumer would have thrown on', () => {
    const ints = [
      'session.timeout.ms',
      'heartbeat.interval.ms',
      'max.poll.interval.ms',
      'max.partition.fetch.bytes',
      'fetch.max.bytes',
      'fetch.min.bytes',
      'fetch.max.wait.ms',
      'max.poll.records',
    ];
    for (const name of ints) {
      const ok = classic({ [`consumer.override.${name}`]: '1000' });
      expect(classicConsumerSettings(ok.groupId, ok.consumer).ignored).toEqual([]);
      expect(problemsOf(() => classic({ [`consumer.override.${name}`]: 'x' }))).toHaveLength(1);
      expect(() => classicConsumerSettings('g', { [name]: 'x' })).toThrow();
    }
  });
});

describe('consumer settings with no effect are named once, with the key as written', () => {
  it('share mode names the settings its consumer does not read (it used to drop them silently)', () => {
    const w = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'consumer.interceptor.classes':
        'io.confluent.monitoring.clients.interceptor.MonitoringConsumerInterceptor',
      'consumer.max.poll.records': '500',
    });
    const config = share(
      { 'consumer.override.fetch.min.bytes': '1024', 'consumer.override.fetch.max.wait.ms': '200' },
      w,
    );
    expect(config.warnings).toEqual([
      "consumer.interceptor.classes, consumer.override.fetch.min.bytes: not used in share mode (sharesink's share consumer reads only max.poll.records and fetch.max.wait.ms of the consumer settings, and maps auto.offset.reset and isolation.level to group configs); ignored",
    ]);
    expect(share({}, shareWorker).warnings).toEqual([]);
  });

  it('a misspelt setting is warned about once, as misspelt, not again as unused', () => {
    const config = share({ 'consumer.override.max.pol.records': '10' });
    expect(config.warnings).toEqual([
      'consumer.override.max.pol.records: not a Kafka consumer setting; ignored (did you mean consumer.override.max.poll.records?)',
    ]);
  });

  it('client.id is ignored in both modes, with how clients are named', () => {
    for (const config of [
      classic({ 'consumer.override.client.id': 'mine' }),
      share({ 'consumer.override.client.id': 'mine' }),
    ])
      expect(config.warnings).toEqual([
        'consumer.override.client.id=mine: ignored; sharesink names each client <worker client.id>-<connector name>[-<task>] (set client.id in the worker file for the prefix)',
      ]);
  });

  it("a bootstrap.servers other than the worker's is a problem (the connector would read the worker's cluster); the same one is fine", () => {
    expect(problemsOf(() => classic({ 'consumer.override.bootstrap.servers': 'other:9092' }))).toEqual([
      `consumer.override.bootstrap.servers: "other:9092" differs from the worker's bootstrap.servers; accepted: the worker's cluster only (sharesink reads every connector's topics from the worker's bootstrap.servers, localhost:9092); run another worker for the other cluster`,
    ]);
    expect(share({ 'consumer.override.bootstrap.servers': ' LOCALHOST:9092 ' }).warnings).toEqual([]);
  });
});
