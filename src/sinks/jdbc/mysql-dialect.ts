/** The JDBC sink's MySQL/MariaDB dialect, on mysql2. */
import type * as mysql from 'mysql2/promise';
import { LOGICAL, type Schema } from '../../connect/schema.js';
import { importOptional } from '../../optional-package.js';
import { dropOldest } from '../../bounded.js';
import type { JdbcSettings } from './config.js';
import {
  VERSIONS_TABLE,
  type Claim,
  type ColumnDef,
  type Connection,
  type Dialect,
  type Statement,
  type TableInfo,
  type WriteMode,
} from './dialect.js';
import { identifierQuoter, qualify } from './identifiers.js';
import { isMysqlDataError, mysqlBreaksConnection, mysqlConnectError } from './mysql-errors.js';
import { mysqlValue } from './mysql-values.js';
import type { JdbcRow } from './rows.js';
import { mysqlUrl } from './url.js';

const backtick = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

/** Placeholders one prepared statement may carry (the binary protocol counts them in 16 bits). */
const MAX_PLACEHOLDERS = 65_535;
/** Prepared statements one connection keeps (mysql2 closes the least recently used beyond). */
const PREPARED_PER_CONNECTION = 16;
/** Statement texts remembered to tell a text that comes back from one seen once. */
const SEEN_TEXTS = 64;

export class MysqlDialect implements Dialect {
  readonly label = 'MySQL';
  readonly #s: JdbcSettings;
  readonly #ident: (name: string) => string;
  #driver: typeof mysql | undefined;
  #pool: mysql.Pool | undefined;
  readonly #ready = new WeakSet<object>();
  /** Reusable statement texts run once already: the second time, they run prepared. */
  readonly #seen = new Set<string>();
  /** The multi-row INSERT texts by head, tail and row count (`#insertText`). */
  readonly #inserts = new Map<string, string>();

  constructor(settings: JdbcSettings) {
    this.#s = settings;
    this.#ident = identifierQuoter(backtick, settings.quoteIdentifiers);
  }

  #options(): mysql.PoolOptions {
    const target = mysqlUrl(this.#s.url);
    return {
      host: target.host,
      port: target.port,
      database: target.database,
      user: this.#s.user ?? target.user,
      password: this.#s.password ?? target.password,
      // one connection per put at once: puts in parallel write side by side, not queued on one socket
      connectionLimit: this.#s.putsAtOnce,
      maxPreparedStatements: PREPARED_PER_CONNECTION,
      maxIdle: this.#s.putsAtOnce,
      idleTimeout: 60_000,
      connectTimeout: this.#s.connectionTimeoutMs,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
      charset: 'utf8mb4',
      // mysql2 captured a stack per query to put the caller's frames in its errors' stacks: the sink
      // reads their code, errno and sqlState, never those frames
      trace: false,
    };
  }

  async open(): Promise<void> {
    const mod = await importOptional<typeof mysql & { default?: typeof mysql }>(
      'mysql2',
      'The JDBC sink for MySQL and MariaDB',
      'mysql2/promise',
    );
    this.#driver = mod.default ?? mod;
    this.#pool = this.#driver.createPool(this.#options());
    // an idle connection that dies is reported on the pool; unheard, the event would kill the thread
    (this.#pool as unknown as { on(e: string, f: () => void): void }).on('error', () => undefined);
  }

  async connect(): Promise<Connection> {
    const conn = await this.#pool!.getConnection();
    try {
      if (!this.#ready.has(conn.connection)) {
        const zone = this.#s.timeZone;
        await conn.query('SET time_zone = ?', [zone === 'UTC' || zone === 'Etc/UTC' ? '+00:00' : zone]);
        // no gap locks: two puts claiming the same new key then queue on its row instead of deadlocking
        await conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
        this.#ready.add(conn.connection);
      }
    } catch (error) {
      conn.destroy();
      throw error;
    }
    const threadId = conn.threadId;
    return {
      query: async (text, values, reuse) => {
        const [rows] =
          reuse === true && this.#again(text)
            ? await conn.execute(text, values as mysql.ExecuteValues[] | undefined)
            : await conn.query(text, values as unknown[] | undefined);
        return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
      },
      cancel: async () => {
        const other = await this.#driver!.createConnection(this.#options());
        try {
          await other.query(`KILL QUERY ${Number(threadId)}`);
        } finally {
          other.destroy();
        }
      },
      release: (broken) => {
        if (broken) conn.destroy();
        else conn.release();
      },
    };
  }

  /**
   * The same string for the same INSERT of the same row count: puts mostly carry equal batches, and a
   * text built anew each time was ~6 KB to join, hash (prepared-statement lookups) and compare again.
   */
  #insertText(head: string, columns: number, rows: number, tail: string): string {
    const key = `${rows}\u0000${columns}\u0000${tail}\u0000${head}`;
    let text = this.#inserts.get(key);
    if (text === undefined) {
      const tuple = `(${new Array<string>(columns).fill('?').join(',')})`;
      text = head + new Array<string>(rows).fill(tuple).join(',') + tail;
      this.#inserts.set(key, text);
      dropOldest(this.#inserts, SEEN_TEXTS);
    }
    return text;
  }

  /**
   * True when `text` was run before: a statement that comes back is worth preparing (the server
   * parses it once, and values go binary, not escaped into the text); a one-off runs as text, in
   * one round trip instead of a prepare and an execute.
   */
  #again(text: string): boolean {
    if (this.#seen.has(text)) return true;
    this.#seen.add(text);
    dropOldest(this.#seen, SEEN_TEXTS);
    return false;
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }

  qualified(table: string): string {
    return qualify(table, this.#ident);
  }

  async describe(c: Connection, table: string): Promise<TableInfo | undefined> {
    const parts = table.split('.');
    const name = parts.pop()!;
    const db = parts.length > 0 ? parts.join('.') : null;
    const rows = await c.query(
      `SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?`,
      [db, name],
    );
    if (rows.length === 0) return undefined;
    return new Map(
      rows.map((r) => [
        String(r['name']),
        { type: String(r['type']).toLowerCase(), category: '', sqlType: '' },
      ]),
    );
  }

  /** Key columns need a bounded type: MySQL indexes no TEXT or BLOB without a prefix length. */
  columnType(schema: Schema | undefined, sample: unknown, key: boolean): string {
    if (schema === undefined) return guessType(sample, key);
    switch (schema.name) {
      case LOGICAL.decimal:
        return `DECIMAL(65,${Number(schema.parameters?.['scale'] ?? 0)})`;
      case LOGICAL.date:
        return 'DATE';
      case LOGICAL.time:
        return 'TIME(3)';
      case LOGICAL.timestamp:
        return 'DATETIME(3)';
    }
    switch (schema.type) {
      case 'int8':
        return 'TINYINT';
      case 'int16':
        return 'SMALLINT';
      case 'int32':
        return 'INT';
      case 'int64':
        return 'BIGINT';
      case 'float32':
        return 'FLOAT';
      case 'float64':
        return 'DOUBLE';
      case 'boolean':
        return 'TINYINT(1)';
      case 'string':
        return key ? 'VARCHAR(256)' : 'TEXT';
      case 'bytes':
        return key ? 'VARBINARY(1024)' : 'BLOB';
      default:
        return 'JSON';
    }
  }

  createTable(table: string, columns: readonly ColumnDef[], key: readonly string[]): string {
    const lines = columns.map((c) => `${this.#ident(c.name)} ${c.type}${c.notNull ? ' NOT NULL' : ' NULL'}`);
    if (key.length > 0) lines.push(`PRIMARY KEY (${key.map(this.#ident).join(', ')})`);
    return `CREATE TABLE IF NOT EXISTS ${this.qualified(table)} (\n  ${lines.join(',\n  ')}\n)`;
  }

  addColumn(table: string, column: ColumnDef): string {
    return `ALTER TABLE ${this.qualified(table)} ADD COLUMN ${this.#ident(column.name)} ${column.type} NULL`;
  }

  writes(table: string, info: TableInfo, rows: readonly JdbcRow[], mode: WriteMode): Statement[] {
    if (mode === 'update') return rows.map((r) => this.#update(table, info, r));
    const first = rows[0]!;
    const names = first.columns.map(this.#ident);
    const infos = first.columns.map((c) => info.get(c));
    const zone = this.#s.timeZone;
    const tail =
      mode === 'upsert'
        ? ` ON DUPLICATE KEY UPDATE ${(first.keyCount < names.length
            ? names.slice(first.keyCount)
            : names.slice(0, 1)
          )
            .map((n) => `${n} = VALUES(${n})`)
            .join(', ')}`
        : '';
    const head = `INSERT INTO ${this.qualified(table)} (${names.join(', ')}) VALUES `;
    const size = this.#rowsPerStatement(names.length);
    const statements: Statement[] = [];
    for (let i = 0; i < rows.length; i += size) {
      const end = Math.min(rows.length, i + size);
      const values: unknown[] = [];
      for (let r = i; r < end; r++) {
        const v = rows[r]!.values;
        for (let k = 0; k < v.length; k++) values.push(mysqlValue(v[k], infos[k], zone));
      }
      statements.push({ text: this.#insertText(head, names.length, end - i, tail), values, reuse: true });
    }
    return statements;
  }

  #update(table: string, info: TableInfo, row: JdbcRow): Statement {
    const zone = this.#s.timeZone;
    const values: unknown[] = [];
    const assign = (i: number): string => {
      values.push(mysqlValue(row.values[i], info.get(row.columns[i]!), zone));
      return `${this.#ident(row.columns[i]!)} = ?`;
    };
    const sets: string[] = [];
    for (let i = row.keyCount; i < row.columns.length; i++) sets.push(assign(i));
    if (sets.length === 0) return { text: 'SELECT 1', values: [] };
    const where: string[] = [];
    for (let i = 0; i < row.keyCount; i++) where.push(assign(i));
    return {
      text: `UPDATE ${this.qualified(table)} SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`,
      values,
      reuse: true,
    };
  }

  deletes(table: string, info: TableInfo, rows: readonly JdbcRow[]): Statement[] {
    const first = rows[0]!;
    const key = first.columns.slice(0, first.keyCount);
    const zone = this.#s.timeZone;
    const tuple = `(${key.map(() => '?').join(',')})`;
    const size = this.#rowsPerStatement(key.length);
    const statements: Statement[] = [];
    for (let i = 0; i < rows.length; i += size) {
      const chunk = rows.slice(i, i + size);
      const values: unknown[] = [];
      for (const row of chunk)
        key.forEach((c, k) => values.push(mysqlValue(row.values[k], info.get(c), zone)));
      statements.push({
        text: `DELETE FROM ${this.qualified(table)} WHERE (${key.map(this.#ident).join(', ')}) IN (${chunk.map(() => tuple).join(',')})`,
        values,
        reuse: true,
      });
    }
    return statements;
  }

  /** batch.size rows, fewer when a prepared statement could not carry their placeholders. */
  #rowsPerStatement(columns: number): number {
    return Math.max(1, Math.min(this.#s.batchSize, Math.floor(MAX_PLACEHOLDERS / Math.max(1, columns))));
  }

  createVersionsTable(): string {
    return `CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (
  key_hash CHAR(64) NOT NULL PRIMARY KEY,
  table_name VARCHAR(512) NOT NULL,
  __sharesink_topic VARCHAR(249) NOT NULL,
  __sharesink_partition INT NOT NULL,
  __sharesink_offset BIGINT NOT NULL
) ENGINE=InnoDB`;
  }

  /**
   * Read the keys' last writes under lock, upsert the newer claims with the guard in the statement
   * (`__sharesink_offset` is assigned first, so its guard sees the old coordinates; topic and partition
   * differ only when the guard holds), then read them back under lock: a claim won when its own
   * coordinates are stored. The read-back makes a concurrent first write of one key safe under any
   * isolation level.
   */
  async claim(c: Connection, claims: readonly Claim[]): Promise<Set<string>> {
    const read = async (hashes: readonly string[]): Promise<Map<string, Record<string, unknown>>> =>
      new Map(
        (
          await c.query(
            `SELECT key_hash, __sharesink_topic AS t, __sharesink_partition AS p, __sharesink_offset AS o
               FROM ${VERSIONS_TABLE} WHERE key_hash IN (?) FOR UPDATE`,
            [hashes],
          )
        ).map((r) => [String(r['key_hash']), r]),
      );
    const before = await read(claims.map((x) => x.hash));
    const newer = claims.filter((x) => {
      const last = before.get(x.hash);
      return (
        last === undefined ||
        last['t'] !== x.topic ||
        Number(last['p']) !== x.partition ||
        Number(last['o']) < x.offset
      );
    });
    if (newer.length === 0) return new Set();
    await c.query(
      `INSERT INTO ${VERSIONS_TABLE} (key_hash, table_name, __sharesink_topic, __sharesink_partition, __sharesink_offset)
       VALUES ? ON DUPLICATE KEY UPDATE
         __sharesink_offset = IF(__sharesink_topic <> VALUES(__sharesink_topic)
           OR __sharesink_partition <> VALUES(__sharesink_partition)
           OR __sharesink_offset < VALUES(__sharesink_offset), VALUES(__sharesink_offset), __sharesink_offset),
         __sharesink_topic = VALUES(__sharesink_topic),
         __sharesink_partition = VALUES(__sharesink_partition)`,
      [newer.map((x) => [x.hash, x.table, x.topic, x.partition, String(x.offset)])],
    );
    const after = await read(newer.map((x) => x.hash));
    return new Set(
      newer
        .filter((x) => {
          const now = after.get(x.hash);
          return (
            now !== undefined &&
            now['t'] === x.topic &&
            Number(now['p']) === x.partition &&
            Number(now['o']) === x.offset
          );
        })
        .map((x) => x.hash),
    );
  }

  isDataError(error: unknown): boolean {
    return isMysqlDataError(error);
  }

  toConnectError(error: unknown, what: string): Error {
    return mysqlConnectError(error, what);
  }

  breaksConnection(error: unknown): boolean {
    return mysqlBreaksConnection(error);
  }
}

function guessType(sample: unknown, key: boolean): string {
  if (typeof sample === 'string' || sample === null || sample === undefined)
    return key ? 'VARCHAR(256)' : 'TEXT';
  if (typeof sample === 'number') return key && Number.isInteger(sample) ? 'BIGINT' : 'DOUBLE';
  if (typeof sample === 'bigint') return 'BIGINT';
  if (typeof sample === 'boolean') return 'TINYINT(1)';
  if (sample instanceof Uint8Array) return key ? 'VARBINARY(1024)' : 'BLOB';
  if (sample instanceof Date) return 'DATETIME(3)';
  return 'JSON';
}
