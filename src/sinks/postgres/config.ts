import type { PoolConfig } from 'pg';
import { ConfigDef, type ConfigValues } from '../../connect/config-def.js';
import { atLeast, between, nonEmptyString, oneOf } from '../../connect/config-validators.js';

export const INSERT_MODES = ['insert', 'upsert', 'idempotent'] as const;
export type InsertMode = (typeof INSERT_MODES)[number];

const CONNECTION_PARTS = [
  'connection.host',
  'connection.port',
  'connection.user',
  'connection.password',
  'connection.database',
] as const;

export const POSTGRES_SINK_CONFIG = new ConfigDef()
  .define({
    name: 'connection.url',
    type: 'password',
    default: null,
    importance: 'high',
    documentation:
      'postgres://user:password@host:port/database?… connection string (hidden in logs). When set, the ' +
      'other connection.host/port/user/password/database settings must not be.',
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
    const clashing = CONNECTION_PARTS.filter((k) => cfg[k] !== null);
    if (clashing.length > 0) {
      problems.set('connection.url', [
        `connection.url: is set together with ${clashing.join(', ')}; put everything in the URL or use only the separate settings`,
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
  if (url !== null) return { ...common, connectionString: url.value() };
  return {
    ...common,
    host: cfg['connection.host'] ?? undefined,
    port: cfg['connection.port'] ?? undefined,
    user: cfg['connection.user'] ?? undefined,
    password: cfg['connection.password']?.value(),
    database: cfg['connection.database'] ?? undefined,
  };
}
