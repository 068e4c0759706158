/**
 * The MariaDB/MySQL side of the JDBC scenario's baseline: mysql2 on one connection writing the rows of
 * pg-rows.ts with multi-row INSERTs of the size the sink's puts had, into a copy of the sink's table.
 */
import type { ChildResult, MysqlBareSpec } from './child-protocol.js';
import { cpuUs } from './proc-stats.js';

const MB = 1024 * 1024;

export async function runMysqlBare(spec: MysqlBareSpec): Promise<ChildResult> {
  const mysql = await import('mysql2/promise');
  const { pgRow, PG_COLUMNS } = await import('./pg-rows.js');
  const url = new URL(spec.mysqlUrl);
  const conn = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
  });
  const q = (s: string) => `\`${s.replaceAll('`', '``')}\``;
  await conn.query(`DROP TABLE IF EXISTS ${q(spec.table)}`);
  await conn.query(`CREATE TABLE ${q(spec.table)} LIKE ${q(spec.likeTable)}`);
  const head = `INSERT INTO ${q(spec.table)} (${PG_COLUMNS.map(q).join(', ')}) VALUES `;
  const tuple = `(${PG_COLUMNS.map(() => '?').join(',')})`;
  let peak = process.memoryUsage.rss();
  const cpu0 = cpuUs();
  const t0 = performance.now();
  for (let start = 0; start < spec.rows; start += spec.batchSize) {
    const n = Math.min(spec.batchSize, spec.rows - start);
    const values: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const row = pgRow(start + i);
      for (const c of PG_COLUMNS) values.push(row[c]);
    }
    await conn.query(head + new Array<string>(n).fill(tuple).join(','), values);
    if (performance.now() - t0 > spec.timeoutMs) throw new Error('bare mysql2 loop timed out');
  }
  const wall = performance.now() - t0;
  const cpu = cpuUs() - cpu0;
  peak = Math.max(peak, process.memoryUsage.rss());
  const [count] = await conn.query(`SELECT COUNT(*) AS n FROM ${q(spec.table)}`);
  await conn.query(`DROP TABLE IF EXISTS ${q(spec.table)}`);
  await conn.end();
  return {
    label: spec.label,
    via: 'mysql2',
    records: Number((count as { n: number }[])[0]?.n ?? 0),
    recordsPerSec: spec.rows / (wall / 1000),
    steadyRecordsPerSec: undefined,
    firstRecordMs: undefined,
    ackTailMs: undefined,
    windowMs: wall,
    cpuUsPerRecord: cpu / spec.rows,
    cpuCores: cpu / 1000 / wall,
    peakRssMb: peak / MB,
    rssAfterStartMb: undefined,
    avgRecordsPerPut: spec.batchSize,
    stopMs: undefined,
    ranDry: false,
    counters: undefined,
    notes: [],
  };
}
