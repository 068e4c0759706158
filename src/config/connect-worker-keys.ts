/**
 * Kafka Connect worker settings that sharesink accepts and does not use. Kafka's own
 * `connect-standalone.properties` and `connect-distributed.properties` carry several of them, so a
 * Connect user's file must run unchanged; the worker says once, at start, which ones had no effect
 * and why, instead of warning about each one as if it were a typo.
 */

export interface UnusedSetting {
  readonly key: string;
  readonly reason: string;
}

interface Rule {
  /** Exact names. */
  readonly keys?: readonly string[];
  /** Name prefixes (`ssl.` matches `ssl.truststore.location`). */
  readonly prefixes?: readonly string[];
  readonly reason: string;
}

const OFFSETS =
  'sharesink runs sink connectors only: their progress is committed to the consumer group (classic) or acknowledged to the share group (share) as each batch finishes, not kept in an offsets file or topic nor flushed on a timer';
const DISTRIBUTED =
  'read by `sharesink distributed` only (docs/distributed.md); standalone runs the connectors of its files';
const REST =
  'the REST API listens on `listeners` only (one http(s)://host:port with its `listeners.https.ssl.*` keys; no admin listener, CORS or custom headers)';

const RULES: readonly Rule[] = [
  {
    keys: [
      'offset.storage.file.filename',
      'offset.flush.interval.ms',
      'offset.flush.timeout.ms',
      'offset.storage.topic',
      'offset.storage.partitions',
      'offset.storage.replication.factor',
    ],
    reason: OFFSETS,
  },
  {
    keys: ['plugin.discovery'],
    reason:
      'connectors, converters and transforms are Node modules named where they are used (connector.class, key.converter / value.converter, transforms.<alias>.type: a built-in name, a path or an npm package), so there is no class discovery to choose (plugin.path says which modules the REST API may name, and GET /connector-plugins lists the connector modules directly in it)',
  },
  {
    keys: ['internal.key.converter', 'internal.value.converter'],
    prefixes: ['internal.key.converter.', 'internal.value.converter.'],
    reason: 'removed from Kafka Connect in 3.0; sharesink keeps no internal topics',
  },
  {
    keys: [
      'rest.port',
      'rest.host.name',
      'rest.advertised.host.name',
      'rest.advertised.port',
      'rest.advertised.listener',
      'access.control.allow.origin',
      'access.control.allow.methods',
      'response.http.headers.config',
    ],
    prefixes: ['admin.listeners.https.'],
    reason: REST,
  },
  {
    keys: [
      'group.id',
      'config.storage.topic',
      'config.storage.replication.factor',
      'status.storage.topic',
      'status.storage.partitions',
      'status.storage.replication.factor',
      'connect.protocol',
      'scheduled.rebalance.max.delay.ms',
      'heartbeat.interval.ms',
      'session.timeout.ms',
      'rebalance.timeout.ms',
      'worker.sync.timeout.ms',
      'worker.unsync.backoff.ms',
      'inter.worker.key.generation.algorithm',
      'inter.worker.key.size',
      'inter.worker.key.ttl.ms',
      'inter.worker.signature.algorithm',
      'inter.worker.verification.algorithms',
    ],
    reason: DISTRIBUTED,
  },
  {
    keys: ['topic.creation.enable', 'exactly.once.source.support'],
    reason: 'source connectors only; sharesink runs sink connectors',
  },
  {
    keys: [
      'metric.reporters',
      'metrics.num.samples',
      'metrics.sample.window.ms',
      'metrics.recording.level',
      'auto.include.jmx.reporter',
    ],
    prefixes: ['metrics.context.'],
    reason:
      'sharesink has no metric reporters or JMX: it serves Prometheus metrics at /metrics (with listeners) and writes --summary-file',
  },
  {
    keys: [
      'client.dns.lookup',
      'metadata.max.age.ms',
      'request.timeout.ms',
      'retry.backoff.ms',
      'retry.backoff.max.ms',
      'reconnect.backoff.ms',
      'reconnect.backoff.max.ms',
      'connections.max.idle.ms',
      'receive.buffer.bytes',
      'send.buffer.bytes',
      'socket.connection.setup.timeout.ms',
      'socket.connection.setup.timeout.max.ms',
    ],
    reason:
      "the worker's own client network settings are not read (sharesink's clients connect within 10 s and wait 30 s for a response; bootstrap.timeout.ms bounds the start)",
  },
];

/** The table, for docs/configuration.md: names, name prefixes (shown as `prefix*`) and why each has no effect. */
export function connectWorkerKeyTable(): Array<{
  readonly names: readonly string[];
  readonly reason: string;
}> {
  return RULES.map((r) => ({
    names: [...(r.keys ?? []), ...(r.prefixes ?? []).map((p) => `${p}*`)],
    reason: r.reason,
  }));
}

/** Every exact name in the table, for "did you mean" hints (a typo of plugin.path is still worth naming). */
export const CONNECT_WORKER_KEYS: readonly string[] = RULES.flatMap((r) => r.keys ?? []);

function ruleFor(key: string): Rule | undefined {
  return RULES.find(
    (r) => r.keys?.includes(key) === true || r.prefixes?.some((p) => key.startsWith(p)) === true,
  );
}

/** True for a Kafka Connect worker setting that sharesink accepts without using it. */
export function isUnusedConnectSetting(key: string): boolean {
  return ruleFor(key) !== undefined;
}

/**
 * The Connect settings in `props` that have no effect here, each with why, in file order. An empty
 * `listeners=` is listed too: in Connect it would still serve REST on the default port, here it means
 * no REST API, which is worth saying to someone who wrote it.
 */
export function unusedConnectSettings(props: Readonly<Record<string, string>>): UnusedSetting[] {
  const restOff = (props['listeners'] ?? '').trim() === '';
  const out: UnusedSetting[] = [];
  for (const key of Object.keys(props)) {
    if (key === 'listeners' && restOff) {
      out.push({ key, reason: 'empty: no REST API is served (set listeners=http://host:port for one)' });
      continue;
    }
    const rule = ruleFor(key);
    if (rule === undefined) continue;
    const reason =
      rule.reason === REST && restOff
        ? `${REST}; listeners is not set, so there is no REST API at all`
        : rule.reason;
    out.push({ key, reason });
  }
  return out;
}

/**
 * One line for the log: settings sharing a reason are named together, `a, b: reason; c: reason`, so a
 * whole Connect file reads as a handful of clauses rather than a wall of repeats.
 */
export function describeUnusedSettings(unused: readonly UnusedSetting[]): string {
  const byReason = new Map<string, string[]>();
  for (const { key, reason } of unused) {
    const keys = byReason.get(reason) ?? [];
    keys.push(key);
    byReason.set(reason, keys);
  }
  return [...byReason].map(([reason, keys]) => `${keys.join(', ')}: ${reason}`).join('; ');
}
