// PostgresSink through checkSinkTask against the real PostgreSQL server (SHARESINK_TEST_PG_URL,
// default postgres://postgres@127.0.0.1:5432/test), one table per run. insert.mode=idempotent must
// pass as idempotent: no ACCEPTed record lost, none written twice, through crashes, lost replies and
// expired locks. insert.mode=insert must not, and the kit must say so with a minimal schedule.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSinkTask } from '../../src/sinks/postgres/index.js';
import { checkSinkTask, SinkTaskCheckError, type RunContext } from '../../src/testing/index.js';

const PG_URL = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const prefix = `kit_pg_${Date.now().toString(36)}_${randomBytes(2).toString('hex')}`;

let admin: pg.Client;
beforeAll(async () => {
  admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
});

const q = (identifier: string): string => `"${identifier.replaceAll('"', '""')}"`;

/** Rows per record id; a table that was never created (nothing written yet) has none. */
async function countRows(run: RunContext): Promise<Map<string, number>> {
  try {
    const { rows } = await admin.query<{ record_id: string; n: number }>(
      `SELECT record_id, count(*)::int AS n FROM ${q(run.props.table!)} GROUP BY record_id`,
    );
    return new Map(rows.map((r) => [r.record_id, r.n]));
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return new Map();
    throw error;
  }
}

const postgres = (mode: 'idempotent' | 'insert') => ({
  props: (run: { index: number }) => ({
    'connection.url': PG_URL,
    table: `${prefix}_${mode}_${run.index}`,
    'insert.mode': mode,
    'auto.create': 'true',
  }),
  // a struct value becomes columns; record_id lets observe() count rows in either mode
  mapValue: (value: unknown, record: { id: string }) => ({ record_id: record.id, ...(value as object) }),
  observe: countRows,
  cleanup: async (run: RunContext) => {
    await admin.query(`DROP TABLE IF EXISTS ${q(run.props.table!)}`);
  },
});

describe('PostgresSink under checkSinkTask', () => {
  it('insert.mode=idempotent: no record lost, none written twice', async () => {
    const report = await checkSinkTask(() => new PostgresSinkTask(), {
      ...postgres('idempotent'),
      idempotent: true,
      numRuns: 30,
    });
    expect(report.runs).toBe(30);
    expect(report.redeliveries).toBeGreaterThan(0);
  });

  it('insert.mode=insert is not idempotent: one record written twice', async () => {
    const error = await checkSinkTask(() => new PostgresSinkTask(), {
      ...postgres('insert'),
      idempotent: true,
      numRuns: 30,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkTaskCheckError);
    const { schedule, violations } = error as SinkTaskCheckError;
    expect(schedule.records).toHaveLength(1);
    expect(schedule.rounds.flat()).toHaveLength(1);
    expect(violations).toEqual([expect.stringMatching(/^duplicate: .* is written 2 times/)]);
  });
});
