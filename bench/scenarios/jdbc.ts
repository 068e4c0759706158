/**
 * Scenario 10: the JDBC sink (Confluent's class name, DEFAULT settings, 1 task, share mode) against a
 * bare driver loop writing the same rows in batches of the size the sink's puts had, for PostgreSQL
 * (pg) and MariaDB (mysql2); best of plan.repeats per side, sides alternating.
 */
import type { ChildResult, WorkerRunSpec } from '../child-protocol.js';
import { createTopic, round } from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import { producePgRows } from '../pg-rows.js';
import type { JdbcDialectResult } from '../results.js';

const MYSQL_URL = process.env.SHARESINK_BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

export async function runJdbc(ctx: BenchContext): Promise<void> {
  const { plan, results, brokers, pgUrl, measured, topicName, createdTopics, wants } = ctx;
  if (!wants(10)) return;
  await measured('JDBC sink vs bare driver loops (PostgreSQL, MariaDB)', async () => {
    const topic = topicName('jdbc');
    await createTopic(brokers, topic, 1);
    createdTopics.push(topic);
    await producePgRows(brokers, topic, plan.jdbcRows);
    results.scenarios.jdbc = {};
    const pg = new URL(pgUrl);
    const my = new URL(MYSQL_URL);
    const dialects = [
      {
        name: 'postgresql' as const,
        url: `jdbc:postgresql://${pg.host}${pg.pathname}`,
        user: decodeURIComponent(pg.username),
        password: decodeURIComponent(pg.password),
      },
      {
        name: 'mariadb' as const,
        url: `jdbc:mariadb://${my.host}${my.pathname}`,
        user: decodeURIComponent(my.username),
        password: decodeURIComponent(my.password),
      },
    ];
    for (const d of dialects) {
      const out: JdbcDialectResult = { samples: { sharesink: [], bare: [] } };
      results.scenarios.jdbc[d.name] = out;
      const table = `bench_jdbc_${d.name}_${ctx.runId}`.replaceAll('-', '_');
      const spec = (t: string): WorkerRunSpec => ({
        kind: 'worker',
        label: `jdbc-${d.name}-share-t1`,
        brokers,
        topic,
        topicRecords: plan.jdbcRows,
        mode: 'share',
        tasks: 1,
        connectorClass: 'io.confluent.connect.jdbc.JdbcSinkConnector',
        connectorProps: {
          'connection.url': d.url,
          'connection.user': d.user,
          'connection.password': d.password,
          'table.name.format': t,
          'auto.create': 'true',
        },
        workerProps: {
          'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'value.converter.schemas.enable': 'false',
        },
        measure: { kind: 'drain', records: plan.jdbcRows },
        timeoutMs: 300_000,
      });
      const rate = (r: ChildResult) => r.steadyRecordsPerSec ?? r.recordsPerSec;
      const keep = (side: 'sharesink' | 'bare', r: ChildResult) => {
        out.samples[side].push(round(rate(r)));
        const best = out[side];
        if (best === undefined || rate(r) > rate(best)) out[side] = r;
      };
      const tables: string[] = [];
      for (let rep = 0; rep < plan.repeats; rep++) {
        const t = `${table}_r${rep}`;
        tables.push(t);
        const steps = [
          async () => keep('sharesink', await runChild(spec(t))),
          async () => {
            out.batchSize ??= Math.max(1, Math.round(out.sharesink?.avgRecordsPerPut ?? 500));
            const bare = {
              label: `${d.name}-bare`,
              likeTable: tables[0]!,
              table: `${table}_bare`,
              rows: plan.jdbcRows,
              batchSize: out.batchSize,
              timeoutMs: 300_000,
            };
            keep(
              'bare',
              await runChild(
                d.name === 'postgresql'
                  ? { kind: 'pg-bare', pgUrl, ...bare }
                  : { kind: 'mysql-bare', mysqlUrl: MYSQL_URL, ...bare },
              ),
            );
          },
        ];
        // the bare loop copies the sink's table, so the sink goes first in the first repeat
        for (const step of rep % 2 === 0 ? steps : steps.reverse()) await step();
      }
      await dropTables(d.name, pgUrl, tables);
    }
  });
}

async function dropTables(
  dialect: 'postgresql' | 'mariadb',
  pgUrl: string,
  tables: readonly string[],
): Promise<void> {
  if (dialect === 'postgresql') {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
    await client.end();
    return;
  }
  const mysql = await import('mysql2/promise');
  const url = new URL(MYSQL_URL);
  const conn = await mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
  });
  for (const t of tables) await conn.query(`DROP TABLE IF EXISTS \`${t}\``);
  await conn.end();
}
