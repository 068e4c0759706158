import { describe, expect, it } from 'vitest';
import { compileConnectorConfig, compileWorkerConfig } from '../../../src/config/index.js';
import { base, problemsOf, worker } from './config-helpers.js';

const share = (props: Record<string, string>, w = worker) =>
  compileConnectorConfig({ ...base, 'consumer.override.group.protocol': 'share', ...props }, w);

describe('share mode: consumer settings mapped to group configs', () => {
  it('maps auto.offset.reset to share.auto.offset.reset, with a warning', () => {
    const config = share({ 'consumer.override.auto.offset.reset': 'earliest' });
    expect(config.groupProtocol).toBe('share');
    expect(config.shareGroupConfigs).toEqual({ 'share.auto.offset.reset': 'earliest' });
    expect(config.warnings).toEqual([
      'consumer.override.auto.offset.reset=earliest: share consumers have no auto.offset.reset; mapped to the group config share.auto.offset.reset=earliest, which applies only to partitions the group has not read yet',
    ]);
  });

  it("maps the worker's consumer.* defaults too, naming the worker key", () => {
    const w = compileWorkerConfig({
      'bootstrap.servers': 'a:1',
      'consumer.auto.offset.reset': 'by_duration:PT1H',
      'consumer.isolation.level': 'read_committed',
    });
    const config = share({}, w);
    expect(config.shareGroupConfigs).toEqual({
      'share.auto.offset.reset': 'by_duration:PT1H',
      'share.isolation.level': 'read_committed',
    });
    expect(config.warnings).toEqual([
      'consumer.auto.offset.reset=by_duration:PT1H: share consumers have no auto.offset.reset; mapped to the group config share.auto.offset.reset=by_duration:PT1H, which applies only to partitions the group has not read yet',
      'consumer.isolation.level=read_committed: share consumers have no isolation.level; mapped to the group config share.isolation.level=read_committed',
    ]);
  });

  it('lets an explicit share.group.* setting win over a mapped one', () => {
    const config = share({
      'consumer.override.auto.offset.reset': 'earliest',
      'share.group.share.auto.offset.reset': 'latest',
    });
    expect(config.shareGroupConfigs).toEqual({ 'share.auto.offset.reset': 'latest' });
    expect(config.warnings).toEqual([
      'consumer.override.auto.offset.reset=earliest: ignored in share mode; share.group.share.auto.offset.reset=latest is set and wins',
    ]);
  });

  it('warns that auto.offset.reset=none has no share equivalent', () => {
    expect(share({ 'consumer.override.auto.offset.reset': 'none' }).warnings).toEqual([
      'consumer.override.auto.offset.reset=none: has no share-mode equivalent (a share group always starts somewhere); ignored, so the start position is chosen as when it is unset: a new share group starts at the earliest offset',
    ]);
  });

  it('refuses values that cannot become the group config', () => {
    expect(
      problemsOf(() =>
        share({
          'consumer.override.auto.offset.reset': 'smallest',
          'consumer.override.isolation.level': 'READ_COMMITTED',
        }),
      ),
    ).toEqual([
      'consumer.override.auto.offset.reset: "smallest" cannot become the group config share.auto.offset.reset; accepted: earliest, latest, none (ignored) or by_duration: and an ISO-8601 duration (e.g. by_duration:PT1H)',
      'consumer.override.isolation.level: "READ_COMMITTED" cannot become the group config share.isolation.level; accepted: read_committed or read_uncommitted',
    ]);
  });

  it('warns about every consumer setting that means nothing to a share consumer', () => {
    const config = share({
      'consumer.override.enable.auto.commit': 'false',
      'consumer.override.auto.commit.interval.ms': '1000',
      'consumer.override.partition.assignment.strategy': 'range',
      'consumer.override.group.instance.id': 'i1',
      'consumer.override.session.timeout.ms': '10000',
      'consumer.override.heartbeat.interval.ms': '3000',
      'consumer.override.max.poll.interval.ms': '600000',
      'consumer.override.max.poll.records': '100',
    });
    expect(config.shareGroupConfigs).toEqual({});
    expect(config.consumer['max.poll.records']).toBe('100');
    expect(config.warnings).toEqual([
      'consumer.override.enable.auto.commit=false: has no meaning in share mode (share consumers acknowledge each record; there are no offsets to commit); ignored',
      'consumer.override.auto.commit.interval.ms=1000: has no meaning in share mode (share consumers acknowledge each record; there are no offsets to commit); ignored',
      'consumer.override.partition.assignment.strategy=range: has no meaning in share mode (the broker assigns partitions to share-group members); ignored',
      'consumer.override.group.instance.id=i1: has no meaning in share mode (share groups have no static membership); ignored',
      'consumer.override.session.timeout.ms=10000: has no meaning in share mode (the group config share.session.timeout.ms applies instead; set share.group.share.session.timeout.ms); ignored',
      'consumer.override.heartbeat.interval.ms=3000: has no meaning in share mode (the group config share.heartbeat.interval.ms applies instead; set share.group.share.heartbeat.interval.ms); ignored',
      'consumer.override.max.poll.interval.ms=600000: has no meaning in share mode (membership does not depend on put() returning; record locks (share.group.share.record.lock.duration.ms) and put.timeout.ms bound a slow put); ignored',
    ]);
  });

  it('warns about Connect error settings the share runtime does not use', () => {
    expect(share({ 'errors.deadletterqueue.context.headers.enable': 'true' }).warnings).toEqual([
      'errors.deadletterqueue.context.headers.enable=true: not used in share mode; the broker adds its own __dlq.errors.* headers to dead-letter records',
    ]);
  });

  it('takes errors.retry.timeout (it bounds retries in place, ADR 0004) and says once what it does that Connect’s does not', () => {
    const config = share({ 'errors.retry.timeout': '30000' });
    expect(config.warnings).toEqual([
      'errors.retry.timeout=30000: here it bounds the retries of a put() that fails retriably (Connect applies it only to conversions and transforms, and retries such a put() until it succeeds): a batch whose put() still fails after 30000 ms is RELEASEd and delivered again with delivery count + 1, until the group’s share.delivery.count.limit archives (or dead-letters) it. Set errors.retry.timeout=0 to retry until the put succeeds, as Connect does',
    ]);
    expect(config.errors.retryTimeoutMs).toBe(30000);
    expect(share({ 'errors.retry.timeout': '-1' }).warnings).toEqual([]);
    expect(share({ 'errors.retry.timeout': '0' }).warnings).toEqual([]);
  });
});

describe('share mode: topics', () => {
  it('refuses topics.regex: share consumers subscribe to names only', () => {
    expect(
      problemsOf(() =>
        compileConnectorConfig(
          {
            name: 'n',
            'connector.class': 'noop',
            'topics.regex': 'orders-.*',
            'consumer.override.group.protocol': 'share',
          },
          worker,
        ),
      ),
    ).toEqual([
      "topics.regex: share groups subscribe to topic names, not patterns (Kafka's KafkaShareConsumer has only subscribe(topics)); accepted: in share mode, topics (a comma-separated list of topic names)",
    ]);
  });
});

describe("share mode: Connect's dead-letter queue becomes the group's", () => {
  it('maps a dlq.-prefixed topic to the group config, copying records as Connect does', () => {
    const config = share({ 'errors.tolerance': 'all', 'errors.deadletterqueue.topic.name': 'dlq.orders' });
    expect(config.errors.deadLetterQueueTopic).toBeUndefined();
    expect(config.shareGroupConfigs).toEqual({
      'errors.deadletterqueue.topic.name': 'dlq.orders',
      'errors.deadletterqueue.copy.record.enable': 'true',
    });
    expect(config.warnings).toEqual([
      "errors.deadletterqueue.topic.name=dlq.orders: share mode uses the broker's group dead-letter queue (Kafka 4.4): mapped to the group config errors.deadletterqueue.topic.name=dlq.orders and errors.deadletterqueue.copy.record.enable=true (Connect's dead-letter records carry the original key and value); the broker writes rejected records and those past the delivery limit there, sharesink writes none itself",
    ]);
  });

  it('keeps an explicit copy.record.enable', () => {
    const config = share({
      'errors.deadletterqueue.topic.name': 'dlq.orders',
      'share.group.errors.deadletterqueue.copy.record.enable': 'false',
    });
    expect(config.shareGroupConfigs).toEqual({
      'errors.deadletterqueue.copy.record.enable': 'false',
      'errors.deadletterqueue.topic.name': 'dlq.orders',
    });
  });

  it('refuses a topic without the dlq. prefix, explaining the rule', () => {
    expect(problemsOf(() => share({ 'errors.deadletterqueue.topic.name': 'orders-dlq' }))).toEqual([
      'errors.deadletterqueue.topic.name: "orders-dlq" cannot be a share group\'s dead-letter topic; accepted: in share mode, a topic name starting with "dlq." (the broker writes the group\'s dead-letter queue itself, Kafka 4.4, and only to topics with its errors.deadletterqueue.topic.name.prefix, "dlq." by default; other names are accepted but nothing is ever written to them)',
    ]);
  });

  it('refuses two different dead-letter topics', () => {
    expect(
      problemsOf(() =>
        share({
          'errors.deadletterqueue.topic.name': 'dlq.a',
          'share.group.errors.deadletterqueue.topic.name': 'dlq.b',
        }),
      ),
    ).toEqual([
      'errors.deadletterqueue.topic.name: "dlq.a" differs from share.group.errors.deadletterqueue.topic.name ("dlq.b"); accepted: one of the two, or the same topic in both',
    ]);
  });

  it('refuses a dead-letter topic the connector also reads', () => {
    expect(
      problemsOf(() =>
        share({ topics: 'orders,dlq.n', 'share.group.errors.deadletterqueue.topic.name': 'dlq.n' }),
      ),
    ).toEqual([
      'topics: the dead-letter topic "dlq.n" is also read by this connector; accepted: topics and topics.regex that leave out the dead-letter topic',
    ]);
  });
});

describe('share.group.* group configs', () => {
  it('land in shareGroupConfigs without the prefix, normalised', () => {
    const config = share({
      'share.group.share.record.lock.duration.ms': '5000',
      'share.group.share.delivery.count.limit': ' 3 ',
      'share.group.share.auto.offset.reset': 'by_duration:p1dt2h30m0.5s',
      'share.group.share.isolation.level': 'read_committed',
      'share.group.share.renew.acknowledge.enable': 'TRUE',
      'share.group.share.partition.max.record.locks': '4000',
      'share.group.share.heartbeat.interval.ms': '1000',
      'share.group.share.session.timeout.ms': '6000',
      'share.group.share.assignment.interval.ms': '0',
      'share.group.errors.deadletterqueue.topic.name': 'dlq.orders',
      'share.group.errors.deadletterqueue.copy.record.enable': 'true',
    });
    expect(config.shareGroupConfigs).toEqual({
      'share.record.lock.duration.ms': '5000',
      'share.delivery.count.limit': '3',
      'share.auto.offset.reset': 'by_duration:p1dt2h30m0.5s',
      'share.isolation.level': 'read_committed',
      'share.renew.acknowledge.enable': 'true',
      'share.partition.max.record.locks': '4000',
      'share.heartbeat.interval.ms': '1000',
      'share.session.timeout.ms': '6000',
      'share.assignment.interval.ms': '0',
      'errors.deadletterqueue.topic.name': 'dlq.orders',
      'errors.deadletterqueue.copy.record.enable': 'true',
    });
    expect(config.warnings).toEqual([]);
  });

  it('pass unknown names through with a warning', () => {
    const config = share({ 'share.group.share.assignor.offload.enable': 'false' });
    expect(config.shareGroupConfigs).toEqual({ 'share.assignor.offload.enable': 'false' });
    expect(config.warnings).toEqual([
      'share.group.share.assignor.offload.enable: share.assignor.offload.enable is not a group config sharesink knows; it is set as written, and brokers refuse group config names they do not know',
    ]);
  });

  it('are checked against the bounds and values brokers accept', () => {
    expect(
      problemsOf(() =>
        share({
          'share.group.share.record.lock.duration.ms': '500',
          'share.group.share.delivery.count.limit': '1',
          'share.group.share.auto.offset.reset': 'EARLIEST',
          'share.group.share.isolation.level': 'committed',
          'share.group.errors.deadletterqueue.topic.name': 'orders-dlq',
          'share.group.share.partition.max.record.locks': '99',
          'share.group.errors.deadletterqueue.copy.record.enable': 'yes',
        }),
      ),
    ).toEqual([
      'share.group.share.record.lock.duration.ms: "500" is outside 1000..3600000; accepted: a 32-bit integer, [1000,...,3600000]',
      'share.group.share.delivery.count.limit: "1" is outside 2..25; accepted: a 32-bit integer, [2,...,25]',
      'share.group.share.auto.offset.reset: "EARLIEST" is not a share-group reset strategy; accepted: a string, earliest, latest or by_duration: and an ISO-8601 duration (e.g. by_duration:PT1H)',
      'share.group.share.isolation.level: "committed" is not one of the accepted values; accepted: a string, one of read_committed, read_uncommitted',
      'share.group.share.partition.max.record.locks: "99" is outside 100..10000; accepted: a 32-bit integer, [100,...,10000]',
      'share.group.errors.deadletterqueue.topic.name: "orders-dlq" does not start with "dlq."; accepted: a string, empty, or a topic name starting with "dlq." (the broker writes a group\'s dead-letter queue only to topics with its errors.deadletterqueue.topic.name.prefix, "dlq." by default)',
      'share.group.errors.deadletterqueue.copy.record.enable: "yes" is not true or false; accepted: true or false',
    ]);
  });

  // the broker's (4.4.0) verdicts on the same strings
  it.each([
    'by_duration:P',
    'by_duration:PT',
    'by_duration:-PT1H',
    'by_duration:P1DT',
    'BY_DURATION:PT1H',
    'by_duration:PT1',
    'by_duration:P2W',
  ])('refuse the reset strategy %s, as the broker does', (value) => {
    expect(problemsOf(() => share({ 'share.group.share.auto.offset.reset': value }))).toHaveLength(1);
  });

  it('need a session timeout above the heartbeat interval', () => {
    expect(
      problemsOf(() =>
        share({
          'share.group.share.session.timeout.ms': '1000',
          'share.group.share.heartbeat.interval.ms': '1000',
        }),
      ),
    ).toEqual([
      'share.group.share.session.timeout.ms: "1000" is not greater than share.group.share.heartbeat.interval.ms ("1000"); accepted: a session timeout greater than the heartbeat interval (the broker refuses the pair otherwise)',
    ]);
  });

  it('warn when the group refuses renewals that share.lock.renewal=auto would make', () => {
    expect(share({ 'share.group.share.renew.acknowledge.enable': 'false' }).warnings).toEqual([
      'share.group.share.renew.acknowledge.enable=false: the group refuses lock renewals, so share.lock.renewal=auto cannot renew; a put that outlives its locks is aborted and its records released',
    ]);
    expect(
      share({ 'share.group.share.renew.acknowledge.enable': 'false', 'share.lock.renewal': 'off' }).warnings,
    ).toEqual([]);
  });

  it('are ignored with a warning in classic mode, like the other share settings', () => {
    const config = compileConnectorConfig(
      { ...base, 'share.group.share.record.lock.duration.ms': '5000', 'share.lock.renewal': 'off' },
      worker,
    );
    expect(config.shareGroupConfigs).toEqual({});
    expect(config.lockRenewal).toBe('off');
    expect(config.warnings).toEqual([
      'share.group.share.record.lock.duration.ms: ignored in classic mode (it applies only with consumer.override.group.protocol=share)',
      'share.lock.renewal: ignored in classic mode (it applies only with consumer.override.group.protocol=share)',
    ]);
  });
});
