import { ConfigDef } from '../connect/config-def.js';
import { atLeast, between, nonEmptyString, oneOf, type Validator } from '../connect/config-validators.js';
import { DEFAULT_CONVERTERS } from '../connect/converters/registry.js';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from './converter-names.js';
import { LISTENER_FORM, parseListener } from './listener.js';
import { defineAdminListeners } from './admin-listeners.js';
import { defineOverridePolicy } from './override-policy.js';
import { defineRestSecurity } from './rest-security.js';
import { classOrModule, GROUP_PROTOCOL_VALUES, hostPorts, MAX_TIMER_MS } from './validators.js';

const group = 'worker';

/** pino's levels, quietest last; `log.level` and `--log-level` take these. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'notice', 'warn', 'error', 'fatal', 'silent'] as const;

/** At most one `http(s)://host:port` listener: the REST API has one server. */
function listeners(): Validator<readonly string[] | null> {
  return {
    check: (entries) => {
      if (entries === null || entries.length === 0) return undefined;
      if (entries.length > 1) return 'has more than one listener; sharesink serves one';
      const entry = entries[0]!;
      return parseListener(entry) === undefined
        ? `is not ${LISTENER_FORM}: ${JSON.stringify(entry)}`
        : undefined;
    },
    describe: () => 'one http://host:port or https://host:port, or empty for no REST server',
  };
}

/** The worker `.properties` file: one declaration per setting, the source of docs/configuration.md. */
export const WORKER_CONFIG_DEF = new ConfigDef()
  .define({
    name: 'bootstrap.servers',
    type: 'list',
    validator: hostPorts(),
    importance: 'high',
    group,
    documentation:
      'Kafka brokers to make the first connection to, as comma-separated host:port pairs. Required, as in Connect 4.',
  })
  .define({
    name: 'client.id',
    type: 'string',
    default: 'sharesink',
    validator: nonEmptyString(),
    importance: 'low',
    group,
    documentation:
      'Prefix of the client.id of every Kafka client the worker makes, as seen in broker logs and quotas.',
  })
  .define({
    name: 'key.converter',
    type: 'class',
    default: DEFAULT_CONVERTERS.key.className,
    validator: classOrModule('converter', BUILTIN_VALUE_CONVERTERS),
    importance: 'high',
    group,
    documentation:
      'Converter for record keys, for connectors that do not set their own. Its settings go under the `key.converter.` prefix (e.g. `key.converter.schemas.enable=false`).',
  })
  .define({
    name: 'value.converter',
    type: 'class',
    default: DEFAULT_CONVERTERS.value.className,
    validator: classOrModule('converter', BUILTIN_VALUE_CONVERTERS),
    importance: 'high',
    group,
    documentation:
      'Converter for record values, for connectors that do not set their own. Its settings go under the `value.converter.` prefix.',
  })
  .define({
    name: 'header.converter',
    type: 'class',
    default: DEFAULT_CONVERTERS.header.className,
    validator: classOrModule('header converter', BUILTIN_HEADER_CONVERTERS),
    importance: 'low',
    group,
    documentation: 'Converter for header values. Its settings go under the `header.converter.` prefix.',
  })
  .define({
    name: 'consumer.group.protocol',
    type: 'string',
    default: 'classic',
    validator: oneOf(GROUP_PROTOCOL_VALUES, { caseInsensitive: true }),
    importance: 'high',
    group,
    documentation:
      'How connectors read Kafka unless they set `consumer.override.group.protocol`: `share` (a share group, KIP-932), `classic` (a consumer group on the classic protocol, as Connect) or `consumer` (a consumer group on the consumer protocol, KIP-848: incremental assignments by the broker, `group.remote.assignor`). Case-insensitive.',
  })
  .define({
    name: 'pool.threads',
    type: 'int',
    default: null,
    validator: atLeast(1),
    importance: 'medium',
    group,
    documentation:
      'Worker threads that run `put()` for every task of every connector. Default: the number of CPUs Node reports (`os.availableParallelism()`). A thread runs several puts at once (`pool.puts.per.thread`), so an I/O-bound sink does not need more threads to scale; more threads help a CPU-bound one.',
  })
  .define({
    name: 'pool.puts.per.thread',
    type: 'int',
    default: 16,
    validator: atLeast(1),
    importance: 'medium',
    group,
    documentation:
      'Puts one pool thread runs at once, each for a different task instance: while one put waits on its database or endpoint, the thread runs another. A new put goes to the least busy thread, so a CPU-bound put still gets a thread of its own while one is idle. Puts in flight are also bounded by the tasks (`tasks.max` × `max.inflight.batches`). Default 16: 8 tasks × 4 batches on 2 threads. `1` gives each put a thread of its own (sharesink before 0.2).',
  })
  .define({
    name: 'pool.abort.grace.ms',
    type: 'long',
    default: 1000,
    validator: atLeast(0),
    importance: 'low',
    group,
    documentation:
      'How long a running put that is aborted (its locks are about to expire, `put.timeout.ms`, shutdown) gets to honour `context.abortSignal()` before its worker thread is terminated. A thread terminated this way takes every other put running on it: those batches are released (share) or retried (classic), never acknowledged, and counted as `putsLostWithThread`.',
  })
  .define({
    name: 'listeners',
    type: 'list',
    default: [],
    validator: listeners(),
    importance: 'low',
    group,
    documentation:
      "Where the REST API (Connect's endpoints, `/metrics`, `/health`, the live view of the machines at `/machines`) listens, in Connect's form, e.g. `http://127.0.0.1:8083`, or `https://host:port` with the `listeners.https.ssl.*` keys. An empty host (`http://:8083`) binds loopback only; write `0.0.0.0` for every interface. Default: empty, no server, so an embedding process opens no port it did not ask for. See docs/rest-api.md and docs/security.md.",
  })
  .define({
    name: 'plugin.path',
    type: 'list',
    default: [],
    importance: 'low',
    group,
    documentation:
      "Directories of connector modules that a REST request may name as `connector.class` (`POST /connectors`, `PUT /connectors/{name}/config`, validate, `/config`), and of the converter, transform and predicate modules its config names: a path or `file:` URL to a file under one of them, or an npm package installed under one. Connect's `plugin.path`, for Node modules: the REST API never imports a module of the request's choosing, so without it only the built-in sinks and the classes of running connectors can be named. In distributed mode every worker needs the same modules at the same paths. Connector files on the command line (`standalone`, `validate`) may name any module.",
  })
  .define({
    name: 'bootstrap.timeout.ms',
    type: 'long',
    default: 30000,
    validator: between(0, MAX_TIMER_MS),
    importance: 'medium',
    group,
    documentation:
      "How long `sharesink standalone` keeps trying to reach `bootstrap.servers` at start before it gives up with exit code 1. The first failure is reported once, with the address and the socket error; `0` tries once. Connect bounds the same wait (the worker's cluster-id lookup at start) with its admin client's `default.api.timeout.ms`.",
  })
  .define({
    name: 'metrics.lag.poll.interval.ms',
    type: 'long',
    default: 30_000,
    validator: between(1000, MAX_TIMER_MS),
    importance: 'low',
    group,
    documentation:
      "How often `/metrics` reads each connector's lag from the broker (share mode: DescribeShareGroupOffsets at the group coordinator; classic mode: committed and end offsets through kafkajs's admin). Read only while `/metrics` is scraped: a scrape shows the last reading and starts a new one in the background when the last is older than this, so the lag series appear from the scrape after the first reading. See docs/rest-api.md.",
  })
  .define({
    name: 'task.shutdown.graceful.timeout.ms',
    type: 'long',
    default: 5000,
    validator: between(0, MAX_TIMER_MS),
    importance: 'low',
    group,
    documentation:
      'How long stopping a task lets running puts finish before it aborts them; in share mode their records are then released for redelivery.',
  })
  .define({
    name: 'topic.tracking.enable',
    type: 'boolean',
    default: true,
    importance: 'low',
    group,
    documentation:
      "Keep each connector's active topics (Connect's KIP-558): the topics its tasks have handed records of to a put since the connector was created or its topics were last reset, shown by `GET /connectors/{name}/topics`. Noted per put, not per record: once every topic of the connector's `topics` list is known a put is not looked at at all (with `topics.regex`, a put's records are compared topic by topic). Standalone keeps the set in memory; distributed mode keeps one `status-topic-<topic>:connector-<name>` record per topic in the status topic, written once. `false`: nothing is kept, and both topics endpoints answer 403.",
  })
  .define({
    name: 'topic.tracking.allow.reset',
    type: 'boolean',
    default: true,
    importance: 'low',
    group,
    documentation:
      "Allow `PUT /connectors/{name}/topics/reset`, which empties a connector's active topics so they fill again from what its tasks handle next. `false`: the endpoint answers 403, as Connect's.",
  })
  .define({
    name: 'log.level',
    type: 'string',
    default: null,
    validator: oneOf(LOG_LEVELS, { caseInsensitive: true }),
    importance: 'low',
    group,
    documentation:
      "The worker's log level (pino's names, and `notice` between info and warn: where a new share group starts, settings with no effect). Default: `notice` on a terminal, `info` otherwise. `sharesink standalone --log-level` wins over it. At `debug` and below the terminal's readable lines also show error stacks.",
  });

// the REST API's TLS and authentication keys, declared beside their compiler (rest-security.ts)
defineRestSecurity(WORKER_CONFIG_DEF);
// what connector files may override, declared beside its check (override-policy.ts)
defineOverridePolicy(WORKER_CONFIG_DEF);
// Connect's admin.listeners: its empty form turns /admin/loggers off (src/rest/loggers-routes.ts)
defineAdminListeners(WORKER_CONFIG_DEF);
