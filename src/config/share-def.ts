import { ConfigDef } from '../connect/config-def.js';
import { atLeast, between, oneOf } from '../connect/config-validators.js';
import { shareAutoOffsetReset, shareDlqTopicName } from './validators.js';

const group = 'share';

/** `share.group.<config>` sets the group config `<config>` when a share-mode connector starts. */
export const SHARE_GROUP_PREFIX = 'share.group.';

/**
 * Share-mode settings. The `share.group.*` ones are Apache Kafka group configs; names, defaults and
 * bounds were read from the 4.4.0 and 4.2.2 `GroupConfig` / `ShareGroupConfig` classes. Bounds here
 * are the widest any broker allows; each broker narrows them with its `group.share.min.*` /
 * `group.share.max.*` settings and refuses values outside.
 */
export const SHARE_CONFIG_DEF = new ConfigDef()
  .define({
    name: 'share.lock.renewal',
    type: 'string',
    default: 'auto',
    validator: oneOf(['auto', 'off']),
    importance: 'medium',
    group,
    documentation:
      "`auto`: renew the record locks of a batch whose `put()` is still running (Kafka 4.2+, RENEW acknowledgements; the group config `share.renew.acknowledge.enable` must not be false). `off`: never renew; a put that outlives its locks is aborted and its records released early, before the broker's lock expires.",
  })
  .define({
    name: 'share.retriable.action',
    type: 'string',
    default: 'retry',
    validator: oneOf(['retry', 'release']),
    importance: 'medium',
    group,
    documentation:
      'What a `RetriableError` from `put()` does in share mode. `retry` (default): put the same batch again after a backoff (100 ms doubling up to `errors.retry.delay.max.ms`), its locks held and renewed, for at most `errors.retry.timeout` ms when that is > 0 (then RELEASE); a sink outage then spends no delivery attempts. `release`: RELEASE the batch at once, as KIP-1302 describes; the broker redelivers it with delivery count + 1, so an outage longer than `share.delivery.count.limit` attempts archives (or dead-letters) healthy records.',
  })
  .define({
    name: 'share.member.scope',
    type: 'string',
    default: 'connector',
    validator: oneOf(['connector', 'task']),
    importance: 'low',
    group,
    documentation:
      "`connector` (default): the connector's tasks on one worker read through one share-group member: one membership, one share session per partition leader, and each ShareFetch answer goes to the next task that is ready for records. Delivery is the same as with a member per task (any member may get any record); a steady stream costs sharesink less CPU (ADR 0012: ~11 % at 4 partitions and 4 tasks), because one fetch brings what several members would each have fetched in small pieces, and the broker answers fewer requests. `task`: every task is a member of its own, as Kafka Connect runs share consumers (KIP-1302); the group then lists one member per task.",
  })
  .define({
    name: 'share.lock.renew.fraction',
    type: 'double',
    default: 0.5,
    validator: between(0.1, 0.9),
    importance: 'low',
    group,
    documentation:
      'Renew when this fraction of the lock duration has passed. Lower renews more often; higher leaves less time for the renewal round trip before the lock expires.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.record.lock.duration.ms`,
    type: 'int',
    default: null,
    validator: between(1000, 3_600_000),
    importance: 'high',
    group,
    documentation:
      "Group config `share.record.lock.duration.ms`: how long a delivered record stays locked to its consumer before the broker redelivers it. Broker default 30000, bounded by the broker's `group.share.min/max.record.lock.duration.ms` (15000/60000 by default). Must exceed the worst `put()` unless locks are renewed.",
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.delivery.count.limit`,
    type: 'int',
    default: null,
    validator: between(2, 25),
    importance: 'high',
    group,
    documentation:
      'Group config `share.delivery.count.limit` (Kafka 4.4): delivery attempts before a record is archived or dead-lettered. Broker default 5, bounded by `group.share.min/max.delivery.count.limit` (2/10 by default).',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.auto.offset.reset`,
    type: 'string',
    default: null,
    validator: shareAutoOffsetReset(),
    importance: 'high',
    group,
    documentation:
      'Group config `share.auto.offset.reset`: where the group starts on a partition it has not read yet. Broker default `latest`. When neither this nor `auto.offset.reset` is set, sharesink sets `earliest` on a group that has no members and no value of its own (Connect starts sink consumers at the earliest offset), and never overwrites a value set on the group. Takes effect only for partitions the group has not started, so set it before the first start.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.isolation.level`,
    type: 'string',
    default: null,
    validator: oneOf(['read_committed', 'read_uncommitted']),
    importance: 'medium',
    group,
    documentation:
      'Group config `share.isolation.level`: `read_committed` delivers only committed transactional records. Broker default `read_uncommitted`.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.partition.max.record.locks`,
    type: 'int',
    default: null,
    validator: between(100, 10_000),
    importance: 'low',
    group,
    documentation:
      "Group config `share.partition.max.record.locks` (Kafka 4.4): records of one partition that may be locked (in flight) at once. Broker default 2000, at most the broker's `group.share.max.partition.max.record.locks`.",
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.heartbeat.interval.ms`,
    type: 'int',
    default: null,
    validator: atLeast(1),
    importance: 'low',
    group,
    documentation:
      "Group config `share.heartbeat.interval.ms`. Broker default 5000, bounded by the broker's `group.share.min/max.heartbeat.interval.ms`.",
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.session.timeout.ms`,
    type: 'int',
    default: null,
    validator: atLeast(1),
    importance: 'low',
    group,
    documentation:
      'Group config `share.session.timeout.ms`: a member that has not heartbeated for this long is removed and its locks released. Broker default 45000; must be greater than the heartbeat interval.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.renew.acknowledge.enable`,
    type: 'boolean',
    default: null,
    importance: 'low',
    group,
    documentation:
      'Group config `share.renew.acknowledge.enable` (Kafka 4.4; 4.2 refuses the name): whether members may renew record locks. Broker default true.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}share.assignment.interval.ms`,
    type: 'int',
    default: null,
    validator: atLeast(0),
    importance: 'low',
    group,
    documentation:
      'Group config `share.assignment.interval.ms` (Kafka 4.4): interval between assignment updates of the group. Broker default 1000.',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}errors.deadletterqueue.topic.name`,
    type: 'string',
    default: null,
    validator: shareDlqTopicName(),
    importance: 'medium',
    group,
    documentation:
      'Group config `errors.deadletterqueue.topic.name` (Kafka 4.4, KIP-1191): the broker writes records that are rejected or reach the delivery limit to this topic. Empty: no dead-letter queue. The topic needs `errors.deadletterqueue.group.enable=true` (the broker sets it when it creates the topic itself).',
  })
  .define({
    name: `${SHARE_GROUP_PREFIX}errors.deadletterqueue.copy.record.enable`,
    type: 'boolean',
    default: null,
    importance: 'medium',
    group,
    documentation:
      "Group config `errors.deadletterqueue.copy.record.enable` (Kafka 4.4): `true` copies the record's key and value to the dead-letter topic, `false` (broker default) writes only the `__dlq.errors.*` context headers.",
  });
