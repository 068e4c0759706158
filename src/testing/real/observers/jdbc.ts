/**
 * The JDBC sink's observer: every row of the run's table (`table.name.format` with `${topic}` as the
 * run's topic), as JSON, read through the sink's own settings and dialect (PostgreSQL or
 * MySQL/MariaDB, the URL, user and password handled as the task handles them).
 *
 * Rows are what the kit counts: with `insert.mode=insert` and `pk.mode=none` every delivery is a row,
 * so a redelivered record shows up twice; a keyed mode (`upsert` with `pk.mode=record_value` and
 * `pk.fields=id`, or `pk.mode=kafka`) rewrites its row, which is what `--idempotent` checks.
 */
import { dialectFor } from '../../../sinks/jdbc/dialects.js';
import { jdbcSinkSettings } from '../../../sinks/jdbc/jdbc-sink.js';
import type { ObservedRun } from './types.js';

/** Column values the drivers hand back that JSON.stringify cannot write (int8 as bigint). */
const jsonSafe = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? value.toString() : value;

export async function jdbcObserver(run: ObservedRun): Promise<string[]> {
  const s = jdbcSinkSettings(run.connector);
  const table = s.tableFormat.replaceAll('${topic}', run.topic);
  const dialect = dialectFor(s);
  await dialect.open();
  try {
    const c = await dialect.connect();
    try {
      // no table: the run wrote nothing (auto.create makes it on the first put)
      if ((await dialect.describe(c, table)) === undefined) return [];
      const rows = await c.query(`SELECT * FROM ${dialect.qualified(table)}`);
      return rows.map((row) => JSON.stringify(row, jsonSafe));
    } finally {
      c.release(false);
    }
  } finally {
    await dialect.close();
  }
}
