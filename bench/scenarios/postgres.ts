/**
 * Scenario 4: PostgresSink (1 task, default pool threads and 1 pool thread) against a bare `pg` loop
 * writing the same rows in batches of the size sharesink's puts had; best of plan.repeats, alternating.
 */
import os from 'node:os';
import type { ChildResult, WorkerRunSpec } from '../child-protocol.js';
import { createTopic, portOpen, round } from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import { producePgRows } from '../pg-rows.js';
import type { BenchResults } from '../results.js';

export async function runPostgres(ctx: BenchContext): Promise<void> {
  const { plan, results, brokers, pgUrl, measured, topicName, createdTopics, wants } = ctx;
  if (wants(4)) {
    await measured('PostgreSQL sink vs bare pg loop', async () => {
      const { host, port } = { host: new URL(pgUrl).hostname, port: Number(new URL(pgUrl).port || 5432) };
      if (!(await portOpen(host, port))) throw new Error(`PostgreSQL is not reachable at ${host}:${port}`);
      const topic = topicName('pg');
      await createTopic(brokers, topic, 1);
      createdTopics.push(topic);
      await producePgRows(brokers, topic, plan.pgRows);
      const table = `bench_pg_${ctx.runId}`;
      const pgResult: NonNullable<BenchResults['scenarios']['postgres']> = {};
      results.scenarios.postgres = pgResult;
      const pgSpec = (poolThreads: number, table: string): WorkerRunSpec => ({
        kind: 'worker',
        label: `pg-share-t1-threads${poolThreads}`,
        brokers,
        topic,
        topicRecords: plan.pgRows,
        mode: 'share',
        tasks: 1,
        poolThreads,
        connectorClass: 'PostgresSink',
        connectorProps: {
          'connection.url': pgUrl,
          table,
          'insert.mode': 'insert',
          'auto.create': 'true',
          'consumer.override.max.poll.records': '500',
        },
        workerProps: {
          'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'value.converter.schemas.enable': 'false',
        },
        measure: { kind: 'drain', records: plan.pgRows },
        timeoutMs: 300_000,
      });
      // Best of plan.repeats in alternating order, as for the other headline ratios: a single ~1 s
      // drain per side is at the mercy of whatever else the two cores run at that moment. Each
      // repeat: the product default (one connection per pool thread), one thread = one connection
      // as the bare loop, and the bare loop (a copy of the first sink table's definition).
      const rate = (r: ChildResult) => r.steadyRecordsPerSec ?? r.recordsPerSec;
      const samples = {
        sharesink: [] as number[],
        sharesinkOneThread: [] as number[],
        bare: [] as number[],
      };
      pgResult.samples = samples;
      const keep = (side: keyof typeof samples, r: ChildResult) => {
        samples[side].push(round(rate(r)));
        const best = pgResult[side];
        if (best === undefined || rate(r) > rate(best)) pgResult[side] = r;
      };
      const tables: string[] = [];
      for (let rep = 0; rep < plan.repeats; rep++) {
        const t = rep === 0 ? table : `${table}_r${rep}`;
        tables.push(t, `${t}_1t`);
        const steps = [
          async () => keep('sharesink', await runChild(pgSpec(os.availableParallelism(), t))),
          async () => keep('sharesinkOneThread', await runChild(pgSpec(1, `${t}_1t`))),
          async () => {
            pgResult.batchSize ??= Math.max(1, Math.round(pgResult.sharesink?.avgRecordsPerPut ?? 500));
            keep(
              'bare',
              await runChild({
                kind: 'pg-bare',
                label: 'pg-bare',
                pgUrl,
                likeTable: table,
                table: `${table}_bare`,
                rows: plan.pgRows,
                batchSize: pgResult.batchSize,
                timeoutMs: 300_000,
              }),
            );
          },
        ];
        for (const step of rep % 2 === 0 ? steps : steps.reverse()) await step();
      }
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        const n = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
        pgResult.rowsInTable = Number(n.rows[0]?.n ?? 0);
        for (const t of tables) await client.query(`DROP TABLE IF EXISTS "${t}"`);
      } finally {
        await client.end();
      }
    });
  }
}
