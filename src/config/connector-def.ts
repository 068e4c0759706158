import { ConfigDef } from '../connect/config-def.js';
import { all, atLeast, between, nonEmptyString, oneOf } from '../connect/config-validators.js';
import { BUILTIN_CONNECTORS } from '../connect/connector-module.js';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from './converter-names.js';
import { SHARE_CONFIG_DEF } from './share-def.js';
import {
  classOrModule,
  GROUP_PROTOCOL_VALUES,
  MAX_TIMER_MS,
  noControlCharacters,
  optionalTopicName,
  topicNames,
  validRegex,
} from './validators.js';

const connector = 'connector';
const errors = 'errors';
const transforms = 'transforms';

export const CONNECTOR_BASE_DEF = new ConfigDef()
  .define({
    name: 'name',
    type: 'string',
    validator: all(nonEmptyString(), noControlCharacters()),
    importance: 'high',
    group: connector,
    documentation: 'Unique name of the connector. The default group id is `connect-<name>`.',
  })
  .define({
    name: 'connector.class',
    type: 'class',
    validator: classOrModule('sink connector', Object.keys(BUILTIN_CONNECTORS)),
    importance: 'high',
    group: connector,
    documentation:
      "The connector to run: a built-in one by any of its names (Connect's class names are aliases), or a module whose default export is `{ connector, task }` (see docs/connector-authoring.md). Relative paths are resolved against the working directory.",
  })
  .define({
    name: 'tasks.max',
    type: 'int',
    default: 1,
    validator: atLeast(1),
    importance: 'high',
    group: connector,
    documentation:
      'Maximum number of tasks for this connector. In classic mode more tasks than partitions sit idle; in share mode every task reads from every partition.',
  })
  .define({
    name: 'topics',
    type: 'list',
    default: [],
    validator: topicNames(),
    importance: 'high',
    group: connector,
    documentation: 'Topics to read, comma-separated. Exactly one of `topics` and `topics.regex` must be set.',
  })
  .define({
    name: 'topics.regex',
    type: 'string',
    default: null,
    validator: validRegex(),
    importance: 'high',
    group: connector,
    documentation:
      "Regular expression (JavaScript syntax, which agrees with Java's for the usual cases) that whole topic names must match. Exactly one of `topics` and `topics.regex` must be set.",
  })
  .define({
    name: 'key.converter',
    type: 'class',
    default: null,
    validator: classOrModule('converter', BUILTIN_VALUE_CONVERTERS),
    importance: 'low',
    group: connector,
    documentation:
      "Overrides the worker's `key.converter` for this connector; its settings then come from this connector's `key.converter.*` only.",
  })
  .define({
    name: 'value.converter',
    type: 'class',
    default: null,
    validator: classOrModule('converter', BUILTIN_VALUE_CONVERTERS),
    importance: 'low',
    group: connector,
    documentation:
      "Overrides the worker's `value.converter` for this connector; its settings then come from this connector's `value.converter.*` only.",
  })
  .define({
    name: 'header.converter',
    type: 'class',
    default: null,
    validator: classOrModule('header converter', BUILTIN_HEADER_CONVERTERS),
    importance: 'low',
    group: connector,
    documentation: "Overrides the worker's `header.converter` for this connector.",
  })
  .define({
    name: 'consumer.override.group.protocol',
    type: 'string',
    default: null,
    validator: oneOf(GROUP_PROTOCOL_VALUES, { caseInsensitive: true }),
    importance: 'high',
    group: connector,
    documentation:
      "The switch: `share` reads through a share group (KIP-932, KIP-1302), `classic` through a consumer group, `consumer` through a consumer group on the consumer protocol (KIP-848; docs/consumer-protocol.md). Default: the worker's `consumer.group.protocol`. Nothing else needs to change.",
  })
  .define({
    name: 'consumer.override.group.id',
    type: 'string',
    default: null,
    validator: nonEmptyString(),
    importance: 'medium',
    group: connector,
    documentation: "Group id (the share group's name in share mode). Default `connect-<name>`, as Connect.",
  })
  .define({
    name: 'put.timeout.ms',
    type: 'long',
    default: null,
    validator: between(1, MAX_TIMER_MS),
    importance: 'medium',
    group: connector,
    documentation:
      'Longest a `put()` may run: in share mode the lock supervisor then aborts it and releases its records for redelivery. Default: no limit. Connect has no such setting.',
  })
  .define({
    name: 'put.placement',
    type: 'string',
    default: 'pool',
    validator: oneOf(['pool', 'event-loop']),
    importance: 'medium',
    group: connector,
    documentation:
      "Where the task's `put()` runs. `pool` (default): on the worker's thread pool (`pool.threads`), so a put that computes does not hold up fetches, heartbeats or lock renewals, and a put that ignores its abort signal can be stopped by ending its thread. `event-loop`: on the main thread, with no thread hop per batch, for sinks whose `put()` awaits I/O (a database, an endpoint): ~20 % less CPU per record at a steady rate (ADR 0013). There a put must not block the event loop, one that ignores its abort signal runs on while its records are released, and an error the task throws outside `put()` reaches the process.",
  })
  .define({
    name: 'max.inflight.batches',
    type: 'int',
    default: 4,
    validator: atLeast(1),
    importance: 'medium',
    group: connector,
    documentation:
      "Puts a task runs at once. In share mode a put carries every batch fetched while the task's previous puts ran, up to `max.poll.records` records (ADR 0007), and a further put starts only when a whole put's worth waits; records fetched ahead hold locks, at most `max.poll.records` beyond the puts in flight. In classic mode, partitions whose batches are put concurrently.",
  });

export const ERRORS_DEF = new ConfigDef()
  .define({
    name: 'errors.tolerance',
    type: 'string',
    default: 'none',
    validator: oneOf(['none', 'all']),
    importance: 'medium',
    group: errors,
    documentation:
      '`none`: a record that fails for good (conversion or a non-retriable `put()` error) fails the task. `all`: such records are skipped (classic) or rejected (share) and the task goes on.',
  })
  .define({
    name: 'errors.retry.timeout',
    type: 'long',
    default: 0,
    validator: atLeast(-1),
    importance: 'medium',
    group: errors,
    documentation:
      "How long a batch whose `put()` fails with a retriable error is retried, in ms. `0` and `-1` retry until it succeeds, as Connect's sink tasks do for `put()`. Classic mode: a positive value gives up after that long and the batch counts as failed (see `errors.tolerance`). Share mode (`share.retriable.action=retry`, the default): the batch is retried in place while its record locks are renewed; a positive value RELEASEs it after that long, and the broker redelivers it with delivery count + 1 (ADR 0004). It is also released, whatever this says, when its locks cannot be held (no renewal, `put.timeout.ms`) or the task stops.",
  })
  .define({
    name: 'errors.retry.delay.max.ms',
    type: 'long',
    default: 60000,
    validator: between(1, MAX_TIMER_MS),
    importance: 'medium',
    group: errors,
    documentation: 'Longest wait between retries; the wait doubles from 100 ms up to this.',
  })
  .define({
    name: 'errors.log.enable',
    type: 'boolean',
    default: false,
    importance: 'medium',
    group: errors,
    documentation:
      'Log failed records (never good ones): one WARN line per error of a batch, naming the records it covers compactly (`orders-1@10-12,15`), with the error.',
  })
  .define({
    name: 'errors.log.include.messages',
    type: 'boolean',
    default: false,
    importance: 'medium',
    group: errors,
    documentation: "Include the record's key, value and headers in those log lines.",
  })
  .define({
    name: 'errors.deadletterqueue.topic.name',
    type: 'string',
    default: null,
    validator: optionalTopicName(),
    importance: 'medium',
    group: errors,
    documentation:
      "Classic mode: the topic the worker writes failed records to (needs `errors.tolerance=all`). Share mode: mapped to the group's broker-side dead-letter queue (`share.group.errors.deadletterqueue.topic.name`, Kafka 4.4), so the name must start with `dlq.`.",
  })
  .define({
    name: 'errors.deadletterqueue.context.headers.enable',
    type: 'boolean',
    default: false,
    importance: 'low',
    group: errors,
    documentation:
      'Classic mode: add `__connect.errors.*` headers describing the failure to dead-letter records. In share mode the broker always adds its own `__dlq.errors.*` headers.',
  });

/** The lists; each alias's `type` and settings live under its prefix (see src/config/transforms.ts). */
export const TRANSFORMS_DEF = new ConfigDef()
  .define({
    name: 'transforms',
    type: 'list',
    default: [],
    importance: 'low',
    group: transforms,
    documentation:
      'Aliases of the Single Message Transforms to apply to each record, in order, between the converters and `put()`. Each needs `transforms.<alias>.type`; see docs/transforms.md.',
  })
  .define({
    name: 'predicates',
    type: 'list',
    default: [],
    importance: 'low',
    group: transforms,
    documentation:
      'Aliases of the predicates transforms refer to with `transforms.<alias>.predicate`. Each needs `predicates.<alias>.type`; see docs/transforms.md.',
  });

/** The connector file (`.properties` or JSON): connector, errors, transforms and share settings. */
export const CONNECTOR_CONFIG_DEF = CONNECTOR_BASE_DEF.merge(ERRORS_DEF)
  .merge(TRANSFORMS_DEF)
  .merge(SHARE_CONFIG_DEF);
