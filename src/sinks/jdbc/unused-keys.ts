/**
 * Settings of Confluent's and Aiven's JDBC sinks that sharesink reads and does not use, each with why
 * (listed once at start, as the worker lists Connect's worker keys), and those it refuses because
 * ignoring them would write somewhere else than the file means.
 */
import type { ConfigDef } from '../../connect/config-def.js';

export interface UnusedKey {
  readonly key: string;
  readonly reason: string;
}

export const UNUSED_KEYS: readonly UnusedKey[] = [
  {
    key: 'dialect.name',
    reason: "the dialect follows connection.url's scheme, jdbc:postgresql:, jdbc:mysql: or jdbc:mariadb:",
  },
  {
    key: 'connection.attempts',
    reason:
      'a connection that cannot be made fails the put with a RetriableError, which the runtime retries (retry.backoff.ms apart) until the database answers',
  },
  {
    key: 'connection.backoff.ms',
    reason: "see connection.attempts: retries are the runtime's, retry.backoff.ms apart",
  },
  {
    key: 'max.retries',
    reason:
      'a database failure is retried by the runtime until it heals, retry.backoff.ms apart, so no record is given up after a count (errors.retry.timeout bounds the retries in classic mode; share mode keeps the records locked meanwhile)',
  },
  {
    key: 'table.types',
    reason: 'the sink writes to whatever relation the name resolves to, table or updatable view',
  },
  { key: 'trim.sensitive.log', reason: 'sharesink never logs row values' },
  {
    key: 'mssql.use.merge.holdlock',
    reason: 'SQL Server only; sharesink writes to PostgreSQL and MySQL/MariaDB',
  },
  {
    key: 'timestamp.precision.mode',
    reason: "timestamps are written with the millisecond precision of Connect's Timestamp",
  },
  { key: 'timestamp.fields.list', reason: 'see timestamp.precision.mode' },
  { key: 'date.timezone', reason: "Connect's Date is a UTC date and is written as that date" },
  { key: 'db.timezone.use.legacy', reason: 'see date.timezone' },
];

/** Aiven's name for quote.sql.identifiers, true/false. */
export const AIVEN_QUOTE_KEY = 'sql.quote.identifiers';

/** Keys whose effect is where rows go: ignoring them would write to the wrong tables. */
export const REFUSED_KEYS: Readonly<Record<string, (value: string) => string | undefined>> = {
  'topics.to.tables.mapping': () =>
    "is Aiven's per-topic table map, which sharesink does not have: use table.name.format (with ${topic}), one connector per mapping, or a RegexRouter transform that renames topics to table names",
  'table.name.normalize': (v) =>
    v.trim().toLowerCase() === 'true'
      ? '=true (Aiven) rewrites topic names into table names, which sharesink does not do: set table.name.format, or a RegexRouter transform that renames the topics'
      : undefined,
};

/** The keys above declared, so that they are neither typos nor undocumented. */
export function withUnusedKeys<V extends Record<string, unknown>>(def: ConfigDef<V>): ConfigDef<V> {
  let out: ConfigDef<Record<string, unknown>> = def as unknown as ConfigDef<Record<string, unknown>>;
  for (const u of UNUSED_KEYS)
    out = out.define({
      name: u.key,
      type: 'string',
      default: null,
      importance: 'low',
      documentation: `Not used: ${u.reason}.`,
    });
  for (const key of Object.keys(REFUSED_KEYS))
    out = out.define({
      name: key,
      type: 'string',
      default: null,
      importance: 'low',
      documentation: 'Refused when set (see docs/jdbc-sink.md).',
    });
  return out as unknown as ConfigDef<V>;
}

/** The set keys that have no effect, each with why. */
export function unusedIn(props: Readonly<Record<string, string>>): UnusedKey[] {
  return UNUSED_KEYS.filter((u) => Object.hasOwn(props, u.key));
}

export function refusedIn(props: Readonly<Record<string, string>>): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  for (const [key, check] of Object.entries(REFUSED_KEYS)) {
    const value = props[key];
    const problem = value === undefined ? undefined : check(value);
    if (problem !== undefined) problems.set(key, [`${key}: ${problem}`]);
  }
  return problems;
}
