/** The JDBC sink's PostgreSQL dialect, on node-postgres and the statements PostgresSink writes with. */
import type pg from 'pg';
import type { Schema } from '../../connect/schema.js';
import { importOptional } from '../../optional-package.js';
import { connectionString, withCredentials } from '../postgres/config.js';
import { breaksConnection, isDataError, toConnectError } from '../postgres/errors.js';
import { columnSpec, encodeValue } from '../postgres/rows.js';
import { describeTable, insertStatement, quoteIdent, rowsPerStatement } from '../postgres/sql.js';
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
import type { JdbcRow } from './rows.js';

export class PostgresDialect implements Dialect {
  readonly label = 'PostgreSQL';
  readonly #s: JdbcSettings;
  readonly #ident: (name: string) => string;
  #pg: typeof pg | undefined;
  #pool: pg.Pool | undefined;

  constructor(settings: JdbcSettings) {
    this.#s = settings;
    this.#ident = identifierQuoter(quoteIdent, settings.quoteIdentifiers);
  }

  async open(): Promise<void> {
    const mod = await importOptional<{ default: typeof pg }>('pg', 'The JDBC sink for PostgreSQL');
    this.#pg = mod.default;
    const pool = new mod.default.Pool(this.#config());
    // a pooled connection that dies while idle is reported here; unheard, the event would kill the thread
    pool.on('error', () => undefined);
    this.#pool = pool;
  }

  #config(): pg.PoolConfig {
    return {
      // one connection per put at once (settings.putsAtOnce)
      max: this.#s.putsAtOnce,
      connectionTimeoutMillis: this.#s.connectionTimeoutMs,
      idleTimeoutMillis: 60_000,
      application_name: 'sharesink',
      options: `-c TimeZone=${this.#s.timeZone}`,
      connectionString: withCredentials(connectionString(this.#s.url), this.#s.user, this.#s.password),
    };
  }

  async connect(): Promise<Connection> {
    const client = await this.#pool!.connect();
    let broken = false;
    // pg-pool listens for a client's 'error' only while it is idle; one while the put holds it would
    // otherwise kill the thread
    const onError = (): void => {
      broken = true;
    };
    client.on('error', onError);
    const config = this.#config();
    const driver = this.#pg!;
    return {
      query: async (text, values) => (await client.query(text, values as unknown[] | undefined)).rows,
      cancel: async () => {
        const pid = (client as unknown as { processID?: number | null }).processID;
        if (typeof pid !== 'number') return;
        const other = new driver.Client(config);
        other.on('error', () => undefined);
        try {
          await other.connect();
          await other.query('SELECT pg_cancel_backend($1)', [pid]);
        } finally {
          await other.end().catch(() => undefined);
        }
      },
      release: (brokenByCaller) => {
        client.off('error', onError);
        client.release(broken || brokenByCaller);
      },
    };
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
    const client = {
      query: (text: string, values: unknown[]) => c.query(text, values).then((rows) => ({ rows })),
    };
    return describeTable(client as unknown as pg.ClientBase, this.qualified(table));
  }

  columnType(schema: Schema | undefined, sample: unknown): string {
    return columnSpec(schema, sample).type;
  }

  createTable(table: string, columns: readonly ColumnDef[], key: readonly string[]): string {
    const lines = columns.map((c) => `${this.#ident(c.name)} ${c.type}${c.notNull ? ' NOT NULL' : ''}`);
    if (key.length > 0) lines.push(`PRIMARY KEY (${key.map(this.#ident).join(', ')})`);
    return `CREATE TABLE IF NOT EXISTS ${this.qualified(table)} (\n  ${lines.join(',\n  ')}\n)`;
  }

  addColumn(table: string, column: ColumnDef): string {
    return `ALTER TABLE ${this.qualified(table)} ADD COLUMN IF NOT EXISTS ${this.#ident(column.name)} ${column.type}`;
  }

  writes(table: string, info: TableInfo, rows: readonly JdbcRow[], mode: WriteMode): Statement[] {
    const first = rows[0]!;
    const size = rowsPerStatement(this.#s.batchSize, first.columns.length);
    const statements: Statement[] = [];
    if (mode === 'update') return rows.map((r) => this.#update(table, info, r));
    const key = first.columns.slice(0, first.keyCount);
    for (let i = 0; i < rows.length; i += size) {
      statements.push(insertStatement(this.qualified(table), info, rows.slice(i, i + size), mode, key));
    }
    return statements;
  }

  #update(table: string, info: TableInfo, row: JdbcRow): Statement {
    const values: unknown[] = [];
    const slot = (i: number): string => {
      values.push(encodeValue(row.values[i], info.get(row.columns[i]!)));
      return `$${values.length}`;
    };
    const sets: string[] = [];
    for (let i = row.keyCount; i < row.columns.length; i++)
      sets.push(`${this.#ident(row.columns[i]!)} = ${slot(i)}`);
    const where: string[] = [];
    for (let i = 0; i < row.keyCount; i++) where.push(`${this.#ident(row.columns[i]!)} = ${slot(i)}`);
    if (sets.length === 0) return { text: `SELECT 1`, values: [] };
    return {
      text: `UPDATE ${this.qualified(table)} SET ${sets.join(', ')} WHERE ${where.join(' AND ')}`,
      values,
    };
  }

  deletes(table: string, info: TableInfo, rows: readonly JdbcRow[]): Statement[] {
    const first = rows[0]!;
    const key = first.columns.slice(0, first.keyCount);
    const size = rowsPerStatement(this.#s.batchSize, key.length);
    const statements: Statement[] = [];
    for (let i = 0; i < rows.length; i += size) {
      const values: unknown[] = [];
      const tuples = rows.slice(i, i + size).map((r) => {
        const slots = key.map((c, k) => {
          values.push(encodeValue(r.values[k], info.get(c)));
          return `$${values.length}`;
        });
        return `(${slots.join(',')})`;
      });
      statements.push({
        text: `DELETE FROM ${this.qualified(table)} WHERE (${key.map(this.#ident).join(', ')}) IN (${tuples.join(',')})`,
        values,
      });
    }
    return statements;
  }

  createVersionsTable(): string {
    return `CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (
  key_hash char(64) PRIMARY KEY,
  table_name text NOT NULL,
  __sharesink_topic text NOT NULL,
  __sharesink_partition integer NOT NULL,
  __sharesink_offset bigint NOT NULL
)`;
  }

  /**
   * One statement: the guarded upsert takes each key's row lock, so concurrent claims of one key queue
   * up, and the later one re-checks the guard against the row the earlier one committed.
   */
  async claim(c: Connection, claims: readonly Claim[]): Promise<Set<string>> {
    const rows = await c.query(
      `INSERT INTO ${VERSIONS_TABLE} AS v (key_hash, table_name, __sharesink_topic, __sharesink_partition, __sharesink_offset)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::int8[])
       ON CONFLICT (key_hash) DO UPDATE SET __sharesink_topic = EXCLUDED.__sharesink_topic,
         __sharesink_partition = EXCLUDED.__sharesink_partition, __sharesink_offset = EXCLUDED.__sharesink_offset
       WHERE v.__sharesink_topic <> EXCLUDED.__sharesink_topic
          OR v.__sharesink_partition <> EXCLUDED.__sharesink_partition
          OR v.__sharesink_offset < EXCLUDED.__sharesink_offset
       RETURNING key_hash`,
      [
        claims.map((x) => x.hash),
        claims.map((x) => x.table),
        claims.map((x) => x.topic),
        claims.map((x) => x.partition),
        claims.map((x) => String(x.offset)),
      ],
    );
    return new Set(rows.map((r) => String(r['key_hash'])));
  }

  isDataError(error: unknown): boolean {
    return isDataError(error);
  }

  toConnectError(error: unknown, what: string): Error {
    return toConnectError(error, what);
  }

  breaksConnection(error: unknown): boolean {
    return breaksConnection(error);
  }
}
