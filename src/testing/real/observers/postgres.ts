/** PostgresSink's observer: every row of the run's table, as JSON. */
import { POSTGRES_SINK_CONFIG, poolConfig } from '../../../sinks/postgres/config.js';
import type { ObservedRun } from './types.js';

export async function postgresObserver(run: ObservedRun): Promise<string[]> {
  const cfg = POSTGRES_SINK_CONFIG.parse(run.connector);
  const table = cfg['table'].replaceAll('${topic}', run.topic);
  const schema = cfg['table.schema'];
  const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const name = schema === null ? quote(table) : `${quote(schema)}.${quote(table)}`;
  // loaded on first use: `sharesink/testing` does not load pg for a sink that is not PostgreSQL
  const { default: pg } = await import('pg');
  const client = new pg.Client(poolConfig(cfg));
  await client.connect();
  try {
    const res = await client.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM ${name} t`);
    return res.rows.map((row) => row.r);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return []; // no table: nothing was written
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}
