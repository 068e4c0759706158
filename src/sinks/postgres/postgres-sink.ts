import pg from 'pg';
import type { PoolClient } from 'pg';
import { ConnectError, DataError } from '../../connect/errors.js';
import { SinkConnector } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask, type ErrantRecordReporter } from '../../connect/sink-task.js';
import { ConfigError } from '../../errors.js';
import {
  POSTGRES_SINK_CONFIG,
  crossKeyProblems,
  insertMode,
  poolConfig,
  type InsertMode,
  type PostgresSinkSettings,
} from './config.js';
import {
  breaksConnection,
  isCastRefused,
  isDataError,
  sqlState,
  tableProblem,
  toConnectError,
} from './errors.js';
import { IDEMPOTENCE_KEY, dedupeByKey, toRow, type Row } from './rows.js';
import {
  createTableSql,
  describeTable,
  insertStatement,
  qualifiedName,
  rowsPerStatement,
  type Statement,
  type TableInfo,
} from './sql.js';

const VERSION = '0.1.0';
/** How long an aborted put waits for its statement's cancel before it closes the connection anyway. */
const CANCEL_WAIT_MS = 300;

function settings(props: Readonly<Record<string, string>>): PostgresSinkSettings {
  const cfg = POSTGRES_SINK_CONFIG.parse(props);
  const problems = crossKeyProblems(cfg);
  if (problems.size > 0) throw new ConfigError([...problems.values()].flat());
  return cfg;
}

/** Writes records to PostgreSQL tables; see docs/sinks.md. */
export class PostgresSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof POSTGRES_SINK_CONFIG {
    return POSTGRES_SINK_CONFIG;
  }

  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    const problems = super.validate(props);
    if (problems.size === 0) {
      for (const [key, list] of crossKeyProblems(POSTGRES_SINK_CONFIG.parse(props))) problems.set(key, list);
    }
    return problems;
  }

  start(props: Readonly<Record<string, string>>): void {
    settings(props);
    this.#props = props;
  }

  /** One connection per task, as the JDBC sink (docs/jdbc-sink.md, Performance). */
  override oneThreadPerTask(): boolean {
    return true;
  }

  /** Tasks are interchangeable: every one writes whatever records it is given. */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

/** Rows for one table and one column list, at most one statement's worth. */
interface Chunk {
  readonly qualified: string;
  readonly table: TableInfo;
  readonly rows: readonly Row[];
}

/**
 * Each put is one transaction (a lone statement is its own): either every good row of the batch is
 * committed or none is, so a RetriableError never leaves half a batch behind to be inserted twice.
 */
export class PostgresSinkTask extends SinkTask {
  #pool: pg.Pool | undefined;
  #cfg!: PostgresSinkSettings;
  #mode: InsertMode = 'insert';
  /** Column types per qualified table name; forgotten after any failure that may mean the table changed. */
  readonly #tables = new Map<string, TableInfo>();
  /** Table name per topic: worked out once, not per record. */
  readonly #tableNames = new Map<string, string>();
  /** Multi-row statements as unnest; off for this instance once the server refused a cast (see #write). */
  #unnest = true;

  version(): string {
    return VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const cfg = settings(props);
    await this.#closePool();
    this.#cfg = cfg;
    this.#mode = insertMode(cfg);
    this.#tables.clear();
    this.#tableNames.clear();
    this.#unnest = true;
    const pool = new pg.Pool(poolConfig(cfg));
    // a pooled connection that dies while idle is reported here; unheard, the event would kill the thread
    pool.on('error', () => undefined);
    this.#pool = pool;
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const pool = this.#pool;
    if (pool === undefined) throw new ConnectError('PostgresSinkTask.put() before start()');
    const report = this.context.errantRecordReporter();
    const rows: Row[] = [];
    for (const record of records) {
      // tombstones: deletes are not supported, and a null has no columns to insert
      if (record.value === null || record.value === undefined) continue;
      try {
        rows.push(toRow(record, this.#tableName(record.topic), this.#mode, this.#cfg['pk.fields']));
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        report(record, error);
      }
    }
    if (rows.length === 0) return;

    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw toConnectError(error, 'cannot connect to PostgreSQL');
    }
    // pg-pool listens for a client's 'error' only while it is idle. A socket that dies while the put
    // holds the client (a reset, the server restarting, pg_terminate_backend) emits 'error' besides
    // failing the running query; unheard, it would kill the pool thread and every put running on it.
    let broken = false;
    const onClientError = (): void => {
      broken = true;
    };
    client.on('error', onClientError);
    let released = false;
    // The runtime gave up on this put: the running statement is cancelled by backend pid (the server
    // does not notice a closed socket while a statement waits), its transaction never commits, and the
    // put fails at once. Should the cancel not get through within CANCEL_WAIT_MS (a server that does not
    // answer holds a new connection for connection.timeout.ms), closing the connection still ends the
    // put, well within the runtime's pool.abort.grace.ms: the thread it shares with other puts lives on.
    const abort = this.context.abortSignal();
    let settled = false;
    const onAbort = (): void => {
      const pid = (client as unknown as { processID?: number | null }).processID;
      const cancel = typeof pid === 'number' ? cancelBackend(this.#cfg, pid) : Promise.resolve();
      void withinMs(cancel, CANCEL_WAIT_MS).then(() => {
        if (settled) return;
        released = true;
        client.release(new Error('put aborted'));
      });
    };
    abort.addEventListener('abort', onAbort, { once: true });
    try {
      const chunks = await this.#plan(client, rows);
      await this.#write(client, chunks, report);
    } catch (error) {
      this.#tables.clear();
      if (abort.aborted)
        throw new ConnectError(
          `put aborted (${String(abort.reason)}): its statement was cancelled or its connection closed`,
        );
      broken ||= !(error instanceof ConnectError) && breaksConnection(error);
      throw toConnectError(error, 'writing to PostgreSQL failed');
    } finally {
      settled = true;
      abort.removeEventListener('abort', onAbort);
      // released with an error, the client is ended by the pool, which listens for its errors again
      if (!released) client.release(broken || abort.aborted);
      client.off('error', onClientError);
    }
  }

  async stop(): Promise<void> {
    await this.#closePool();
  }

  #tableName(topic: string): string {
    let name = this.#tableNames.get(topic);
    if (name === undefined) {
      name = this.#cfg.table.replaceAll('${topic}', topic);
      this.#tableNames.set(topic, name);
    }
    return name;
  }

  /** Looks up (or creates) every table, then splits rows into statements by table and column list. */
  async #plan(client: PoolClient, rows: readonly Row[]): Promise<Chunk[]> {
    const byTable = groupBy(rows, (r) => r.table);
    const chunks: Chunk[] = [];
    for (const [name, tableRows] of byTable) {
      const qualified = qualifiedName(this.#cfg['table.schema'], name);
      const table = await this.#table(client, qualified, tableRows);
      for (const sameColumns of groupBy(tableRows, (r) => r.columns.join('\0')).values()) {
        const unique =
          this.#mode === 'upsert' ? dedupeByKey(sameColumns, this.#cfg['pk.fields']) : sameColumns;
        const size = rowsPerStatement(this.#cfg['batch.size'], unique[0]!.columns.length);
        for (let i = 0; i < unique.length; i += size) {
          chunks.push({ qualified, table, rows: unique.slice(i, i + size) });
        }
      }
    }
    return chunks;
  }

  async #table(client: PoolClient, qualified: string, rows: readonly Row[]): Promise<TableInfo> {
    const cached = this.#tables.get(qualified);
    if (cached !== undefined) return cached;
    let table = await describeTable(client, qualified);
    if (table === undefined && this.#cfg['auto.create']) {
      try {
        await client.query(createTableSql(qualified, rows, this.#mode, this.#cfg['pk.fields']));
        table = await describeTable(client, qualified);
      } catch (error) {
        // IF NOT EXISTS does not cover two sessions creating the table at the same moment: the loser
        // fails on the catalog (23505 on pg_type, 42710 "type already exists" or 42P07, by server
        // version). Whatever it said, the table being there now means another thread or task won.
        table = await describeTable(client, qualified).catch(() => undefined);
        if (table === undefined) throw error;
      }
    }
    if (table === undefined) {
      throw tableProblem(`table ${qualified} does not exist`, 'create it, or set auto.create=true');
    }
    // without these every row would fail as "undefined column" and be rejected as bad data
    const needed =
      this.#mode === 'idempotent' ? IDEMPOTENCE_KEY : this.#mode === 'upsert' ? this.#cfg['pk.fields'] : [];
    const missing = needed.filter((c) => !table.has(c));
    if (missing.length > 0) {
      throw tableProblem(
        `table ${qualified} has no column ${missing.join(', ')}, which insert.mode=${this.#mode} needs`,
        'add it, under a unique constraint',
      );
    }
    this.#tables.set(qualified, table);
    return table;
  }

  #statement(chunk: Chunk, rows: readonly Row[]): Statement {
    return insertStatement(
      chunk.qualified,
      chunk.table,
      rows,
      this.#mode,
      this.#cfg['pk.fields'],
      this.#unnest,
    );
  }

  /**
   * The fast path writes each chunk with one statement. Only when the server blames the data does it
   * roll back and write again, isolating bad rows (see #isolate).
   */
  async #write(client: PoolClient, chunks: readonly Chunk[], report: ErrantRecordReporter): Promise<void> {
    const single = chunks.length === 1;
    try {
      if (!single) await client.query('BEGIN');
      for (const chunk of chunks) {
        const { text, values } = this.#statement(chunk, chunk.rows);
        await client.query(text, values);
      }
      if (!single) await client.query('COMMIT');
      return;
    } catch (error) {
      if (!single) await rollback(client, error);
      if (this.#unnest && isCastRefused(error)) {
        // the type cast to is gone or out of reach; VALUES names none, so the batch may still go that
        // way. Rare enough (a renamed type, no USAGE on a type's schema) to stay on VALUES from here on.
        this.#unnest = false;
        this.#tables.clear();
        return this.#write(client, chunks, report);
      }
      if (!isDataError(error)) throw error;
    }
    // The column types cast to may be stale (ALTER TABLE … TYPE makes the multi-row statement fail with
    // 42804 while single rows pass): describe the tables again on the next put, or every later batch
    // would take the row-by-row path.
    this.#tables.clear();
    await this.#isolate(client, chunks, report);
  }

  /**
   * Slow path, in one transaction: each chunk again under a savepoint, and a chunk that still fails
   * row by row under savepoints. Rows the server refuses for their data are reported as errant; the
   * others are committed. Upserted rows go in batch order, superseded ones first, as a batch would.
   */
  async #isolate(client: PoolClient, chunks: readonly Chunk[], report: ErrantRecordReporter): Promise<void> {
    await client.query('BEGIN');
    try {
      for (const chunk of chunks) {
        if ((await attempt(client, this.#statement(chunk, chunk.rows))) === undefined) continue;
        for (const row of chunk.rows.flatMap((r) => [...r.superseded, r])) {
          const error = await attempt(client, this.#statement(chunk, [row]));
          if (error === undefined) continue;
          const { topic, partition, offset } = row.record;
          report(
            row.record,
            new DataError(
              `PostgreSQL refused ${topic}-${partition}@${offset} for ${chunk.qualified}: ${describe(error)}`,
              { cause: error },
            ),
          );
        }
      }
      await client.query('COMMIT');
    } catch (error) {
      await rollback(client, error);
      throw error;
    }
  }

  async #closePool(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.end();
  }
}

/** Runs one statement under a savepoint; returns the data error that undid it, throws any other. */
async function attempt(client: PoolClient, { text, values }: Statement): Promise<unknown> {
  await client.query('SAVEPOINT sharesink_rows');
  try {
    await client.query(text, values);
  } catch (error) {
    if (!isDataError(error)) throw error;
    await client.query('ROLLBACK TO SAVEPOINT sharesink_rows');
    await client.query('RELEASE SAVEPOINT sharesink_rows');
    return error;
  }
  await client.query('RELEASE SAVEPOINT sharesink_rows');
  return undefined;
}

/** A failed ROLLBACK means the connection is gone; the original error is the one worth reporting. */
async function rollback(client: PoolClient, original: unknown): Promise<void> {
  try {
    await client.query('ROLLBACK');
  } catch {
    throw original;
  }
}

function describe(error: unknown): string {
  const state = sqlState(error);
  const message = error instanceof Error ? error.message : String(error);
  return state === undefined ? message : `${message} (SQLSTATE ${state})`;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group === undefined) groups.set(k, [item]);
    else group.push(item);
  }
  return groups;
}

/** Resolves when `promise` settles or after `ms`, whichever comes first; never rejects. */
function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    promise.then(done, done);
  });
}

/** Cancels the statement a backend is running (pg_cancel_backend), on a connection of its own. */
async function cancelBackend(cfg: PostgresSinkSettings, pid: number): Promise<void> {
  const client = new pg.Client(poolConfig(cfg));
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT pg_cancel_backend($1)', [pid]);
  } catch {
    // best effort: at worst the statement completes, and the redelivered records are written again
  } finally {
    await client.end().catch(() => undefined);
  }
}
