/**
 * The JDBC sink's settings, under the names and defaults of Confluent's JdbcSinkConnector (Aiven's
 * takes the same ones), compiled once into the form the task reads.
 */
import { ConfigDef, type ConfigValues } from '../../connect/config-def.js';
import { atLeast, oneOf } from '../../connect/config-validators.js';
import { AIVEN_QUOTE_KEY, withUnusedKeys } from './unused-keys.js';
import { dialectOf, urlProblem, type DialectName } from './url.js';

export const INSERT_MODES = ['insert', 'upsert', 'update'] as const;
export const PK_MODES = ['none', 'kafka', 'record_key', 'record_value'] as const;
export type JdbcInsertMode = (typeof INSERT_MODES)[number];
export type PkMode = (typeof PK_MODES)[number];

/** Confluent's names for the Kafka coordinates under pk.mode=kafka. */
export const KAFKA_PK_DEFAULT = ['__connect_topic', '__connect_partition', '__connect_offset'] as const;
/** Confluent's column name for a primitive record key under pk.mode=record_key. */
export const PRIMITIVE_KEY_DEFAULT = '__connect_key';

export const JDBC_SINK_CONFIG = withUnusedKeys(
  new ConfigDef()
    .define({
      name: 'connection.url',
      type: 'password',
      importance: 'high',
      documentation:
        'jdbc:postgresql://host:port/db?…, jdbc:mysql://host:port/db?… or jdbc:mariadb://host:port/db?… ' +
        '(the jdbc: prefix may be left out); picks the dialect. Hidden in logs.',
    })
    .define({
      name: 'connection.user',
      type: 'string',
      default: null,
      importance: 'high',
      documentation: 'User name, when the URL names none.',
    })
    .define({
      name: 'connection.password',
      type: 'password',
      default: null,
      importance: 'high',
      documentation: 'Password, when the URL names none.',
    })
    .define({
      name: 'connection.timeout.ms',
      type: 'int',
      default: 10_000,
      validator: atLeast(1),
      importance: 'low',
      documentation: 'How long to wait for a connection before the put fails with a RetriableError (ours).',
    })
    .define({
      name: 'insert.mode',
      type: 'string',
      default: 'insert',
      validator: oneOf(INSERT_MODES, { caseInsensitive: true }),
      importance: 'high',
      documentation: 'insert, upsert (insert or overwrite by primary key) or update (only existing rows).',
    })
    .define({
      name: 'pk.mode',
      type: 'string',
      default: 'none',
      validator: oneOf(PK_MODES, { caseInsensitive: true }),
      importance: 'high',
      documentation:
        'Where the primary key comes from: none, kafka (topic, partition, offset), record_key or record_value.',
    })
    .define({
      name: 'pk.fields',
      type: 'list',
      default: [],
      importance: 'medium',
      documentation:
        'kafka: the three column names (default __connect_topic,__connect_partition,__connect_offset); ' +
        'record_key: the key fields (all when empty; one column name for a primitive key, default __connect_key); ' +
        'record_value: the value fields (all when empty).',
    })
    .define({
      name: 'fields.whitelist',
      type: 'list',
      default: [],
      importance: 'medium',
      documentation: 'Value fields to write (all when empty). `fields.include` is the same setting.',
    })
    .define({
      name: 'fields.include',
      type: 'list',
      default: [],
      importance: 'low',
      documentation: 'The same as fields.whitelist.',
    })
    .define({
      name: 'table.name.format',
      type: 'string',
      default: '${topic}',
      importance: 'high',
      documentation:
        'Destination table; ${topic} is replaced by the record topic. `schema.table` (PostgreSQL) or `db.table` (MySQL) names one elsewhere.',
    })
    .define({
      name: 'auto.create',
      type: 'boolean',
      default: false,
      importance: 'medium',
      documentation:
        'Create a missing table from the first records written to it, with the primary key of pk.mode.',
    })
    .define({
      name: 'auto.evolve',
      type: 'boolean',
      default: false,
      importance: 'medium',
      documentation: 'Add a nullable column for a field the table lacks (ALTER TABLE … ADD COLUMN).',
    })
    .define({
      name: 'delete.enabled',
      type: 'boolean',
      default: false,
      importance: 'medium',
      documentation: 'A tombstone (null value) deletes the row of its key; needs pk.mode=record_key.',
    })
    .define({
      name: 'batch.size',
      type: 'int',
      default: 3000,
      validator: atLeast(1),
      importance: 'medium',
      documentation: 'Most rows in one statement.',
    })
    .define({
      name: 'quote.sql.identifiers',
      type: 'string',
      default: 'always',
      validator: oneOf(['always', 'never'], { caseInsensitive: true }),
      importance: 'medium',
      documentation:
        'always: table and column names are quoted, taken literally. never: written bare (PostgreSQL folds them to lower case); a name that is not a plain word is then a bad record.',
    })
    .define({
      name: AIVEN_QUOTE_KEY,
      type: 'string',
      default: null,
      importance: 'low',
      documentation: "Aiven's name for quoting: false is quote.sql.identifiers=never.",
    })
    .define({
      name: 'db.timezone',
      type: 'string',
      default: 'UTC',
      importance: 'medium',
      documentation:
        'The session time zone: timestamps are written to columns without a time zone in this zone (an IANA name such as Europe/Paris, or UTC).',
    })
    .define({
      name: 'retry.backoff.ms',
      type: 'int',
      default: 3000,
      validator: atLeast(0),
      importance: 'medium',
      documentation:
        'How long the runtime waits before retrying a put the database failed (context.timeout).',
    })
    .define({
      name: 'order.guard',
      type: 'boolean',
      default: true,
      importance: 'medium',
      documentation:
        'Ours. With a keyed pk.mode and insert.mode=upsert/update or delete.enabled: a write applies only when its record is newer (by topic, partition, offset) than the last one written for its key, kept in the table __sharesink_versions. See docs/jdbc-sink.md.',
    }),
);

export type JdbcSinkValues = ConfigValues<typeof JDBC_SINK_CONFIG>;

/** The compiled settings the task works from. */
export interface JdbcSettings {
  readonly dialect: DialectName;
  readonly url: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly connectionTimeoutMs: number;
  readonly insertMode: JdbcInsertMode;
  readonly pkMode: PkMode;
  readonly pkFields: readonly string[];
  readonly fields: ReadonlySet<string> | undefined;
  readonly tableFormat: string;
  readonly autoCreate: boolean;
  readonly autoEvolve: boolean;
  readonly deleteEnabled: boolean;
  readonly batchSize: number;
  readonly quoteIdentifiers: boolean;
  readonly timeZone: string;
  readonly retryBackoffMs: number;
  /** Writes go through the order guard (see order-guard.ts). */
  readonly ordered: boolean;
  /**
   * Puts the task takes at once, each on a connection of its own (ADR 0020): 2 when no write's effect
   * depends on the order of two batches (plain INSERTs whose keys cannot collide: pk.mode none or
   * kafka, no deletes), else 1.
   */
  readonly putsAtOnce: 1 | 2;
}

/** Problems that involve more than one key, worded as Confluent's connector refuses them. */
export function jdbcCrossKeyProblems(v: JdbcSinkValues): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  const add = (key: string, text: string): void => {
    problems.set(key, [...(problems.get(key) ?? []), `${key}: ${text}`]);
  };
  const mode = v['insert.mode'].toLowerCase() as JdbcInsertMode;
  const pk = v['pk.mode'].toLowerCase() as PkMode;
  const url = urlProblem(v['connection.url'].value());
  if (url !== undefined) add('connection.url', url);
  if (v['delete.enabled'] && pk !== 'record_key')
    add(
      'delete.enabled',
      `=true needs pk.mode=record_key (a tombstone has only its key to find the row by), not ${pk}`,
    );
  if (mode !== 'insert' && pk === 'none')
    add(
      'pk.mode',
      `=none leaves insert.mode=${mode} no key to find rows by: set pk.mode=record_key or record_value`,
    );
  if (pk === 'kafka' && v['pk.fields'].length !== 0 && v['pk.fields'].length !== 3)
    add(
      'pk.fields',
      'with pk.mode=kafka names the topic, partition and offset columns: three names, or none',
    );
  if (pk === 'none' && v['pk.fields'].length > 0) add('pk.fields', 'is set, but pk.mode=none uses no key');
  if (v['fields.whitelist'].length > 0 && v['fields.include'].length > 0)
    add('fields.include', 'is the same setting as fields.whitelist: set one of them');
  if (!validTimeZone(v['db.timezone']))
    add(
      'db.timezone',
      `${JSON.stringify(v['db.timezone'])} is not a time zone name (e.g. UTC, Europe/Paris)`,
    );
  return problems;
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function compileJdbcSettings(v: JdbcSinkValues): JdbcSettings {
  const insertMode = v['insert.mode'].toLowerCase() as JdbcInsertMode;
  const pkMode = v['pk.mode'].toLowerCase() as PkMode;
  const url = v['connection.url'].value();
  const fieldList = v['fields.whitelist'].length > 0 ? v['fields.whitelist'] : v['fields.include'];
  const keyed = pkMode === 'record_key' || pkMode === 'record_value';
  return {
    dialect: dialectOf(url)!,
    url,
    user: v['connection.user'] ?? undefined,
    password: v['connection.password']?.value(),
    connectionTimeoutMs: v['connection.timeout.ms'],
    insertMode,
    pkMode,
    pkFields: v['pk.fields'],
    fields: fieldList.length > 0 ? new Set(fieldList) : undefined,
    tableFormat: v['table.name.format'],
    autoCreate: v['auto.create'],
    autoEvolve: v['auto.evolve'],
    deleteEnabled: v['delete.enabled'],
    batchSize: v['batch.size'],
    quoteIdentifiers:
      v['quote.sql.identifiers'].toLowerCase() === 'always' &&
      v[AIVEN_QUOTE_KEY]?.trim().toLowerCase() !== 'false',
    timeZone: v['db.timezone'],
    retryBackoffMs: v['retry.backoff.ms'],
    ordered: v['order.guard'] && keyed && (insertMode !== 'insert' || v['delete.enabled']),
    putsAtOnce: insertMode === 'insert' && !keyed && !v['delete.enabled'] ? 2 : 1,
  };
}
