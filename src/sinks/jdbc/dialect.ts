/**
 * What differs between the databases the JDBC sink writes to: the driver, quoting, types, the
 * statements, the order guard's claim and which errors blame the rows. The task (jdbc-sink.ts) is one
 * core over this strategy; it owns the transaction, bad-row isolation and abort.
 */
import type { Schema } from '../../connect/schema.js';
import type { ColumnInfo } from '../postgres/rows.js';
import type { JdbcRow } from './rows.js';

export type TableInfo = ReadonlyMap<string, ColumnInfo>;

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
  /**
   * The same text comes back put after put (a row write of one shape and size): the dialect may run
   * it as a prepared statement (MySQL's binary protocol; docs/jdbc-sink.md, Performance).
   */
  readonly reuse?: boolean;
}

/** One connection, held for one put. */
export interface Connection {
  /** `reuse`: see {@link Statement.reuse}. */
  query(text: string, values?: readonly unknown[], reuse?: boolean): Promise<Record<string, unknown>[]>;
  /** Ends the running statement from another connection; best effort. */
  cancel(): Promise<void>;
  /** Gives the connection back; a broken one is closed instead. */
  release(broken: boolean): void;
}

/** How rows of an existing or new table are written: `idempotent` is insert that skips existing keys. */
export type WriteMode = 'insert' | 'upsert' | 'update';

/** One key's claim in the order guard: applies when newer than the key's last write. */
export interface Claim {
  /** sha-256 of the table and key, hex: the versions table's primary key. */
  readonly hash: string;
  readonly table: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export interface ColumnDef {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

/** The order guard's table: one row per key written, with the Kafka coordinates of its last write. */
export const VERSIONS_TABLE = '__sharesink_versions';

export interface Dialect {
  /** For messages: PostgreSQL, MySQL. */
  readonly label: string;
  /** Loads the driver (an optional package) and prepares the pool; no connection yet. */
  open(): Promise<void>;
  connect(): Promise<Connection>;
  close(): Promise<void>;
  /** A table name as the statements write it; `schema.table` parts quoted one by one. */
  qualified(table: string): string;
  describe(c: Connection, table: string): Promise<TableInfo | undefined>;
  /** The column type auto.create and auto.evolve declare; key columns need a bounded type on MySQL. */
  columnType(schema: Schema | undefined, sample: unknown, key: boolean): string;
  createTable(table: string, columns: readonly ColumnDef[], key: readonly string[]): string;
  addColumn(table: string, column: ColumnDef): string;
  /** Statements writing rows of one table and one column list, at most batch.size rows each. */
  writes(table: string, info: TableInfo, rows: readonly JdbcRow[], mode: WriteMode): Statement[];
  deletes(table: string, info: TableInfo, rows: readonly JdbcRow[]): Statement[];
  createVersionsTable(): string;
  /** Records the claims that are newer than their key's last write; returns their hashes. */
  claim(c: Connection, claims: readonly Claim[]): Promise<Set<string>>;
  /** True when the error blames the rows: retrying them one by one finds the bad ones. */
  isDataError(error: unknown): boolean;
  /** What put() throws for a failure it does not handle (RetriableError or ConnectError). */
  toConnectError(error: unknown, what: string): Error;
  /** True when the connection may be unusable after the error. */
  breaksConnection(error: unknown): boolean;
}
