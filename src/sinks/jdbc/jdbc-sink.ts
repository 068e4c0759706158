/**
 * A Confluent (or Aiven) JdbcSinkConnector file, run as it is: one core over a dialect per database
 * (PostgreSQL, MySQL/MariaDB). See docs/jdbc-sink.md and docs/adr/0014-jdbc-sink.md.
 */
import { ConnectError, DataError, RetriableError } from '../../connect/errors.js';
import { SinkConnector, type ConnectorNote } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask, type ErrantRecordReporter } from '../../connect/sink-task.js';
import { ConfigError } from '../../errors.js';
import { tableProblem } from '../postgres/errors.js';
import { JDBC_SINK_CONFIG, compileJdbcSettings, jdbcCrossKeyProblems, type JdbcSettings } from './config.js';
import { VERSIONS_TABLE, type Connection, type Dialect, type TableInfo } from './dialect.js';
import { startNotes } from './notes.js';
import { claimOf, columnDefs, groupBy, overwrites, units, writeMode, type Unit } from './plan.js';
import { dialectFor } from './dialects.js';
import { RowShapes, toJdbcRow, type JdbcRow } from './rows.js';
import { refusedIn } from './unused-keys.js';

const VERSION = '0.1.0';
/** How long an aborted put waits for its statement's cancel before it closes the connection anyway. */
const CANCEL_WAIT_MS = 300;

function problemsOf(props: Readonly<Record<string, string>>): Map<string, string[]> {
  const problems = JDBC_SINK_CONFIG.validate(props);
  if (problems.size === 0)
    for (const [k, v] of jdbcCrossKeyProblems(JDBC_SINK_CONFIG.parse(props))) problems.set(k, v);
  for (const [k, v] of refusedIn(props)) problems.set(k, v);
  return problems;
}

/** The task's settings from the connector's properties; a ConfigError lists every problem. */
export function jdbcSinkSettings(props: Readonly<Record<string, string>>): JdbcSettings {
  const problems = problemsOf(props);
  if (problems.size > 0) throw new ConfigError([...problems.values()].flat());
  return compileJdbcSettings(JDBC_SINK_CONFIG.parse(props));
}

export class JdbcSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof JDBC_SINK_CONFIG {
    return JDBC_SINK_CONFIG;
  }

  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    return problemsOf(props);
  }

  override notes(
    props: Readonly<Record<string, string>>,
    context: { readonly share: boolean },
  ): readonly ConnectorNote[] {
    return startNotes(props, jdbcSinkSettings(props), context.share);
  }

  start(props: Readonly<Record<string, string>>): void {
    jdbcSinkSettings(props);
    this.#props = props;
  }

  /**
   * A task writes through one connection, as Connect's does: a second instance on another pool thread
   * only added a connection, cold code and thread hops (docs/jdbc-sink.md, Performance).
   */
  override oneThreadPerTask(): boolean {
    return true;
  }

  /** Tasks are interchangeable: every one writes whatever records it is given. */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

/**
 * Each put is one transaction: every good row of the batch is committed, or none is. With the order
 * guard, a row is written only when its record is newer than the last one written for its key.
 */
export class JdbcSinkTask extends SinkTask {
  #s!: JdbcSettings;
  #dialect: Dialect | undefined;
  /** Columns per table name; forgotten after any failure that may mean the table changed. */
  readonly #tables = new Map<string, TableInfo>();
  readonly #tableNames = new Map<string, string>();
  #versionsReady = false;
  /** The column names of the rows made last: equal names share one array (rows.ts). */
  readonly #shapes = new RowShapes();
  /** The last put's table lookups (describe, create, evolve): the next put's wait for it, never overlap. */
  #planned: Promise<unknown> = Promise.resolve();

  /**
   * Two puts at once, each on its own connection, when batches can be written in any order (ADR 0020:
   * the next batch is converted and sent while the database writes the last one); else one.
   */
  override putsAtOnce(): number {
    return this.#s.putsAtOnce;
  }

  version(): string {
    return VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    await this.stop();
    const s = jdbcSinkSettings(props);
    this.#s = s;
    this.#tables.clear();
    this.#tableNames.clear();
    this.#versionsReady = false;
    const dialect = dialectFor(s);
    await dialect.open();
    this.#dialect = dialect;
  }

  async stop(): Promise<void> {
    const dialect = this.#dialect;
    this.#dialect = undefined;
    await dialect?.close();
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    const dialect = this.#dialect;
    if (dialect === undefined) throw new ConnectError('JdbcSinkTask.put() before start()');
    const report = this.context.errantRecordReporter();
    // before any await: with two puts at once, only then does the context know which put this is
    const abort = this.context.abortSignal();
    const rows: JdbcRow[] = [];
    for (const record of records) {
      try {
        const row = toJdbcRow(record, this.#tableName(record.topic), this.#s, this.#shapes);
        if (row !== undefined) rows.push(row);
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        report(record, error);
      }
    }
    if (rows.length === 0) return;

    let c: Connection;
    try {
      c = await dialect.connect();
    } catch (error) {
      throw this.#retriable(dialect.toConnectError(error, `cannot connect to ${dialect.label}`));
    }
    // The runtime gave up on this put: the statement is cancelled from another connection, the
    // transaction never commits, and the connection is closed after CANCEL_WAIT_MS at most.
    let settled = false;
    let released = false;
    const onAbort = (): void => {
      void withinMs(
        c.cancel().catch(() => undefined),
        CANCEL_WAIT_MS,
      ).then(() => {
        if (settled) return;
        released = true;
        c.release(true);
      });
    };
    abort.addEventListener('abort', onAbort, { once: true });
    // fired while the connection was being taken: a listener added now would never hear it
    if (abort.aborted) onAbort();
    let broken = false;
    try {
      const plan = await this.#inTurn(() => this.#plan(c, rows));
      await this.#write(c, plan, report);
    } catch (error) {
      this.#tables.clear();
      if (abort.aborted)
        throw new ConnectError(
          `put aborted (${String(abort.reason)}): its statement was cancelled or its connection closed`,
        );
      broken = !(error instanceof ConnectError) && dialect.breaksConnection(error);
      throw this.#retriable(dialect.toConnectError(error, `writing to ${dialect.label} failed`));
    } finally {
      settled = true;
      abort.removeEventListener('abort', onAbort);
      if (!released) c.release(broken || abort.aborted);
    }
  }

  /** Runs `step` once the previous put's step has ended, whichever way. */
  #inTurn<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#planned.then(step);
    this.#planned = run.catch(() => undefined);
    return run;
  }

  /** retry.backoff.ms: how long the runtime waits before it retries a put the database failed. */
  #retriable(error: Error): Error {
    if (error instanceof RetriableError) this.context.timeout(this.#s.retryBackoffMs);
    return error;
  }

  #tableName(topic: string): string {
    let name = this.#tableNames.get(topic);
    if (name === undefined) {
      name = this.#s.tableFormat.replaceAll('${topic}', topic);
      this.#tableNames.set(topic, name);
    }
    return name;
  }

  /** Describes (creates, evolves) every table the rows go to, outside any transaction (MySQL commits on DDL). */
  async #plan(
    c: Connection,
    rows: readonly JdbcRow[],
  ): Promise<{ units: Unit[]; infos: Map<string, TableInfo> }> {
    const dedupe = overwrites(this.#s);
    const out: Unit[] = [];
    const infos = new Map<string, TableInfo>();
    for (const [table, tableRows] of groupBy(rows, (r) => r.table)) {
      const info = await this.#table(c, table, tableRows);
      if (info === undefined) continue; // only deletes, and no table: nothing to delete
      infos.set(table, info);
      out.push(...units(table, tableRows, dedupe));
    }
    if (this.#s.ordered && !this.#versionsReady) {
      await this.#ddl(c, this.#dialect!.createVersionsTable(), VERSIONS_TABLE);
      this.#versionsReady = true;
    }
    return { units: out, infos };
  }

  async #table(c: Connection, table: string, rows: readonly JdbcRow[]): Promise<TableInfo | undefined> {
    const dialect = this.#dialect!;
    let info = this.#tables.get(table) ?? (await dialect.describe(c, table));
    const writes = rows.some((r) => r.op === 'write');
    if (info === undefined) {
      if (!writes) return undefined;
      if (!this.#s.autoCreate)
        throw tableProblem(`table ${table} does not exist`, 'create it, or set auto.create=true');
      const { columns, key } = columnDefs(rows, dialect);
      await this.#ddl(c, dialect.createTable(table, columns, key), table);
      info = await dialect.describe(c, table);
      if (info === undefined)
        throw tableProblem(`table ${table} was created but cannot be found`, 'check table.name.format');
    }
    if (this.#s.autoEvolve && writes) {
      const known = info;
      const missing = columnDefs(rows, dialect).columns.filter((col) => !known.has(col.name));
      for (const col of missing)
        await this.#ddl(c, dialect.addColumn(table, { ...col, notNull: false }), table);
      if (missing.length > 0) info = (await dialect.describe(c, table)) ?? info;
    }
    this.#tables.set(table, info);
    return info;
  }

  /** DDL that another task may run at the same moment: it failing with the object there means another won. */
  async #ddl(c: Connection, sql: string, table: string): Promise<void> {
    try {
      await c.query(sql);
    } catch (error) {
      // the versions table too: two tasks' first ordered puts create it at once (PostgreSQL then fails
      // one CREATE TABLE IF NOT EXISTS with 23505 on pg_type)
      const there = await this.#dialect!.describe(c, table).catch(() => undefined);
      if (there === undefined || !/CREATE TABLE/i.test(sql)) throw error;
    }
  }

  /** The fast path: one transaction, every unit's statements. On a data error, row by row (#isolate). */
  async #write(
    c: Connection,
    plan: { units: Unit[]; infos: Map<string, TableInfo> },
    report: ErrantRecordReporter,
  ): Promise<void> {
    const dialect = this.#dialect!;
    const mode = writeMode(this.#s);
    let work = plan.units;
    const statementsOf = (u: Unit, rows: readonly JdbcRow[]) =>
      u.op === 'delete'
        ? dialect.deletes(u.table, plan.infos.get(u.table)!, rows)
        : dialect.writes(u.table, plan.infos.get(u.table)!, rows, mode);
    // a lone statement is its own transaction; anything more, or a claim, needs one
    const planned = this.#s.ordered ? undefined : work.flatMap((u) => statementsOf(u, u.rows));
    const single = planned?.length === 1;
    try {
      if (!single) await c.query('BEGIN');
      if (this.#s.ordered) work = await this.#claimed(c, work);
      for (const st of planned ?? work.flatMap((u) => statementsOf(u, u.rows)))
        await c.query(st.text, st.values, st.reuse);
      if (!single) await c.query('COMMIT');
      return;
    } catch (error) {
      if (!single) await rollback(c, error);
      if (!dialect.isDataError(error)) throw error;
    }
    this.#tables.clear();
    await c.query('BEGIN');
    try {
      for (const u of plan.units) {
        for (const row of this.#s.ordered
          ? u.rows
          : u.rows.flatMap((r) => [...(r.superseded as JdbcRow[]), r])) {
          await c.query('SAVEPOINT sharesink_row');
          try {
            const claimed = this.#s.ordered ? await this.#claimed(c, [{ ...u, rows: [row] }]) : [u];
            for (const st of claimed.length === 0 ? [] : statementsOf(u, [row]))
              await c.query(st.text, st.values, st.reuse);
          } catch (error) {
            if (!dialect.isDataError(error)) throw error;
            await c.query('ROLLBACK TO SAVEPOINT sharesink_row');
            const { topic, partition, offset } = row.record;
            report(
              row.record,
              new DataError(
                `${dialect.label} refused ${topic}-${partition}@${offset} for table ${u.table}: ${describe(error)}`,
                { cause: error },
              ),
            );
          }
          await c.query('RELEASE SAVEPOINT sharesink_row');
        }
      }
      await c.query('COMMIT');
    } catch (error) {
      await rollback(c, error);
      throw error;
    }
  }

  /** The units with only the rows that won their key's claim (newer than the key's last write). */
  async #claimed(c: Connection, work: readonly Unit[]): Promise<Unit[]> {
    const claims = new Map(work.flatMap((u) => u.rows.map((r) => [r, claimOf(r)] as const)));
    if (claims.size === 0) return [];
    // one lock order for every put, so that two puts claiming the same keys queue instead of deadlocking
    const won = await this.#dialect!.claim(
      c,
      [...claims.values()].sort((x, y) => (x.hash < y.hash ? -1 : 1)),
    );
    return work
      .map((u) => ({ ...u, rows: u.rows.filter((r) => won.has(claims.get(r)!.hash)) }))
      .filter((u) => u.rows.length > 0);
  }
}

/** A failed ROLLBACK means the connection is gone; the original error is the one worth reporting. */
async function rollback(c: Connection, original: unknown): Promise<void> {
  try {
    await c.query('ROLLBACK');
  } catch {
    throw original;
  }
}

function describe(error: unknown): string {
  const e = error as { code?: unknown; errno?: unknown };
  const message = error instanceof Error ? error.message : String(error);
  return typeof e.code === 'string'
    ? `${message} (${e.code}${typeof e.errno === 'number' ? ` ${e.errno}` : ''})`
    : message;
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
