import type { PoolConfig } from 'pg';
import { ConfigDef, type ConfigValues } from '../../connect/config-def.js';
import { atLeast, between, nonEmptyString, oneOf } from '../../connect/config-validators.js';

export const INSERT_MODES = ['insert', 'upsert', 'idempotent'] as const;
export type InsertMode = (typeof INSERT_MODES)[number];

/** What a URL names itself: set beside connection.url, these clash. */
const URL_PARTS = ['connection.host', 'connection.port', 'connection.database'] as const;

const ACCEPTED_URL =
  'accepted: postgres://user:password@host:port/database?… (or postgresql://), or the JDBC form jdbc:postgresql://host:port/database?…';

export const POSTGRES_SINK_CONFIG = new ConfigDef()
  .define({
    name: 'connection.url',
    type: 'password',
    default: null,
    importance: 'high',
    documentation:
      'postgres://user:password@host:port/database?… connection string (hidden in logs); a JDBC URL ' +
      'jdbc:postgresql://host:port/database?… is accepted too. When set, connection.host/port/database ' +
      'must not be; connection.user and connection.password may be, as in a JDBC sink config, when the ' +
      'URL names no user or password of its own.',
  })
  .define({
    name: 'connection.host',
    type: 'string',
    default: null,
    importance: 'high',
    documentation: 'Server host name; unset means PGHOST or localhost.',
  })
  .define({
    name: 'connection.port',
    type: 'int',
    default: null,
    validator: between(1, 65535),
    importance: 'medium',
    documentation: 'Server port; unset means PGPORT or 5432.',
  })
  .define({
    name: 'connection.user',
    type: 'string',
    default: null,
    importance: 'high',
    documentation: 'User name; unset means PGUSER or the operating-system user.',
  })
  .define({
    name: 'connection.password',
    type: 'password',
    default: null,
    importance: 'high',
    documentation: 'Password; unset means PGPASSWORD or none.',
  })
  .define({
    name: 'connection.database',
    type: 'string',
    default: null,
    importance: 'high',
    documentation: 'Database name; unset means PGDATABASE or the user name.',
  })
  .define({
    name: 'connection.timeout.ms',
    type: 'int',
    default: 10_000,
    validator: atLeast(1),
    importance: 'low',
    documentation: 'How long to wait for a connection before the put fails with a RetriableError.',
  })
  .define({
    name: 'table',
    type: 'string',
    default: '${topic}',
    validator: nonEmptyString(),
    importance: 'high',
    documentation:
      'Destination table; every ${topic} is replaced by the record topic. One identifier, quoted as ' +
      'written (dots and dashes are part of the name); use table.schema for the schema.',
  })
  .define({
    name: 'table.schema',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation: "Schema of the table; unset resolves the name through the connection's search_path.",
  })
  .define({
    name: 'insert.mode',
    type: 'string',
    default: 'insert',
    validator: oneOf(INSERT_MODES, { caseInsensitive: true }),
    importance: 'high',
    documentation:
      'insert: plain INSERT. upsert: INSERT … ON CONFLICT (pk.fields) DO UPDATE. idempotent: rows carry ' +
      '(__connect_topic, __connect_partition, __connect_offset) under a unique constraint and are ' +
      'inserted with ON CONFLICT DO NOTHING, so redelivered records change nothing.',
  })
  .define({
    name: 'pk.fields',
    type: 'list',
    default: [],
    importance: 'medium',
    documentation:
      'upsert only: the columns that identify a row (fields of a struct value, or key for the ' +
      'key/value layout). The table needs a primary key or unique constraint on exactly these.',
  })
  .define({
    name: 'auto.create',
    type: 'boolean',
    default: false,
    importance: 'medium',
    documentation: 'Create the table (CREATE TABLE IF NOT EXISTS) from the first records written to it.',
  })
  .define({
    name: 'batch.size',
    type: 'int',
    default: 1000,
    validator: atLeast(1),
    importance: 'medium',
    documentation:
      'Most rows in one INSERT statement (fewer when rows × columns would exceed 65535 parameters).',
  });

export type PostgresSinkSettings = ConfigValues<typeof POSTGRES_SINK_CONFIG>;

/** Problems that involve more than one key, as ConfigDef reports single-key ones. */
export function crossKeyProblems(cfg: PostgresSinkSettings): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  const mode = insertMode(cfg);
  if (mode === 'upsert' && cfg['pk.fields'].length === 0) {
    problems.set('pk.fields', ['pk.fields: is empty; insert.mode=upsert needs the columns to upsert on']);
  }
  if (mode !== 'upsert' && cfg['pk.fields'].length > 0) {
    problems.set('pk.fields', [`pk.fields: is only used by insert.mode=upsert, not ${mode}`]);
  }
  if (cfg['connection.url'] !== null) {
    const urlProblem = connectionUrlProblem(cfg['connection.url'].value());
    if (urlProblem !== undefined) problems.set('connection.url', [`connection.url: ${urlProblem}`]);
    const named = urlCredentials(cfg['connection.url'].value());
    const clashing = [
      ...URL_PARTS.filter((k) => cfg[k] !== null),
      ...(named.user && cfg['connection.user'] !== null ? ['connection.user'] : []),
      ...(named.password && cfg['connection.password'] !== null ? ['connection.password'] : []),
    ];
    if (clashing.length > 0) {
      problems.set('connection.url', [
        ...(problems.get('connection.url') ?? []),
        `connection.url: is set together with ${clashing.join(', ')}, which the URL names too; put everything in the URL or use only the separate settings`,
      ]);
    }
  }
  return problems;
}

export function insertMode(cfg: PostgresSinkSettings): InsertMode {
  return cfg['insert.mode'].toLowerCase() as InsertMode;
}

/**
 * One connection per task instance: puts on an instance never overlap, so a second connection would
 * only sit idle (and a thread pool already multiplies instances).
 */
export function poolConfig(cfg: PostgresSinkSettings): PoolConfig {
  const common: PoolConfig = {
    max: 1,
    connectionTimeoutMillis: cfg['connection.timeout.ms'],
    idleTimeoutMillis: 60_000,
    application_name: 'sharesink',
  };
  const url = cfg['connection.url'];
  if (url !== null)
    return {
      ...common,
      connectionString: withCredentials(
        connectionString(url.value()),
        cfg['connection.user'] ?? undefined,
        cfg['connection.password']?.value(),
      ),
    };
  return {
    ...common,
    host: cfg['connection.host'] ?? undefined,
    port: cfg['connection.port'] ?? undefined,
    user: cfg['connection.user'] ?? undefined,
    password: cfg['connection.password']?.value(),
    database: cfg['connection.database'] ?? undefined,
  };
}

/**
 * The URL node-postgres is given. Connect users copy JDBC sink configs, whose URLs differ from libpq's
 * by the jdbc: prefix; node-postgres does not check the scheme and would read jdbc:postgresql://db/shop
 * as no host, no user and a database called "ostgresql://db/shop".
 */
export function connectionString(url: string): string {
  return url.trim().replace(/^jdbc:/i, '');
}

/**
 * Why connection.url cannot be used, or undefined. Found at start: node-postgres accepts any string,
 * and a URL it misreads only shows up as puts failing with an unrelated login or database error.
 * The message shows the URL with its password hidden, and a value that is no URL at all not at all:
 * it may be a password pasted into the wrong setting.
 */
export function connectionUrlProblem(url: string): string | undefined {
  const value = connectionString(url);
  const jdbc = value.length < url.trim().length;
  if (!/^postgres(?:ql)?:\/\//i.test(value)) {
    if (jdbc && /^postgresql:/i.test(value)) {
      return `${shown(url)} names no host (pgJDBC then means localhost:5432); ${ACCEPTED_URL}`;
    }
    if (!jdbc && !value.includes('://')) return `is not a URL (its value is not shown); ${ACCEPTED_URL}`;
    return `${shown(url)} is not a PostgreSQL URL; ${ACCEPTED_URL}`;
  }
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(value)![1]!;
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  if (hosts.includes(',')) {
    return `${shown(url)} names several hosts, and sharesink's client connects to one only: name the primary; ${ACCEPTED_URL}`;
  }
  let parsed: URL;
  try {
    // node-postgres reads user:password@/database (no host) as the default host; so does this check
    parsed = new URL(value.replace('@/', '@localhost/'));
  } catch {
    return `${shown(url)} cannot be parsed as a URL (a port that is not a number, or a character in the user name or password that needs percent-encoding); ${ACCEPTED_URL}`;
  }
  // pgJDBC resolves table names through this schema; node-postgres ignores it and would write elsewhere
  const schema = [...parsed.searchParams.keys()].find((k) => k.toLowerCase() === 'currentschema');
  if (jdbc && schema !== undefined) {
    return `${shown(url)} sets ${schema}, a pgJDBC parameter that node-postgres does not read; remove it and set table.schema instead`;
  }
  return undefined;
}

/** The URL as it may appear in a message: quoted, user info and password parameters hidden, however malformed. */
function shown(url: string): string {
  let text = url.trim();
  const start = text.indexOf('//');
  const at = text.lastIndexOf('@');
  if (start >= 0 && at > start) {
    const colon = text.indexOf(':', start + 2);
    if (colon >= 0 && colon < at) text = `${text.slice(0, colon + 1)}[hidden]${text.slice(at)}`;
  }
  return JSON.stringify(text.replace(/(password\s*=\s*)[^&\s]*/gi, '$1[hidden]'));
}

/** Whether the URL names a user or a password itself (in its user info, or as a parameter). */
function urlCredentials(url: string): { user: boolean; password: boolean } {
  const value = connectionString(url);
  const authority = /^[^:]+:\/\/([^/?#]*)/.exec(value)?.[1] ?? '';
  const info = authority.includes('@') ? authority.slice(0, authority.lastIndexOf('@')) : '';
  const params = value.includes('?') ? new URLSearchParams(value.slice(value.indexOf('?') + 1)) : undefined;
  return {
    user: (info !== '' && !info.startsWith(':')) || params?.has('user') === true,
    password: info.includes(':') || params?.has('password') === true,
  };
}

/**
 * connection.user and connection.password written into the URL, as a JDBC sink config gives them
 * beside it: node-postgres lets a connection string override its separate fields, user unset included.
 */
export function withCredentials(url: string, user: string | undefined, password: string | undefined): string {
  if (user === undefined && password === undefined) return url;
  const parsed = new URL(url);
  if (user !== undefined) parsed.username = user;
  if (password !== undefined) parsed.password = password;
  return parsed.toString();
}
