/**
 * The two databases the JDBC sink writes to, as tests administer them: PostgreSQL
 * (SHARESINK_TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/test) and MariaDB/MySQL
 * (SHARESINK_TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306/test). No server, no green run.
 */
import { randomBytes } from 'node:crypto';
import * as mysql from 'mysql2/promise';
import pg from 'pg';

export interface TestDb {
  readonly name: 'postgresql' | 'mariadb';
  /** connection.url, connection.user, connection.password as a Confluent JDBC sink file has them. */
  readonly props: Readonly<Record<string, string>>;
  /** A quoted identifier. */
  q(name: string): string;
  exec(sql: string, values?: unknown[]): Promise<void>;
  rows(sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** A table name no other run uses, dropped at close(). */
  table(prefix: string): string;
  /**
   * Makes the first write of a row whose `name` is `slowName` sleep `seconds` inside the statement
   * (a BEFORE INSERT trigger and a sequence, which a rollback does not reset): a slow first put.
   */
  slowFirstWrite(table: string, slowName: string, seconds: number): Promise<void>;
  /** How many sessions are sleeping in that trigger now. */
  sleeping(table: string): Promise<number>;
  close(): Promise<void>;
}

const unique = (prefix: string): string =>
  `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export async function postgresDb(): Promise<TestDb> {
  const url = process.env.SHARESINK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const client = new pg.Client({ connectionString: url });
  await client.connect().catch((cause: unknown) => {
    throw new Error(
      `PostgreSQL is not reachable at ${url} (set SHARESINK_TEST_PG_URL); these tests never skip`,
      { cause },
    );
  });
  const parsed = new URL(url);
  const drops: string[] = [];
  const q = (n: string): string => `"${n.replaceAll('"', '""')}"`;
  return {
    name: 'postgresql',
    props: {
      'connection.url': `jdbc:postgresql://${parsed.host}${parsed.pathname}`,
      'connection.user': decodeURIComponent(parsed.username),
      'connection.password': decodeURIComponent(parsed.password),
    },
    q,
    exec: async (sql, values) => void (await client.query(sql, values)),
    rows: async (sql, values) => (await client.query(sql, values)).rows as Record<string, unknown>[],
    table: (prefix) => {
      const name = unique(prefix);
      drops.push(`DROP TABLE IF EXISTS ${q(name)} CASCADE`, `DROP SEQUENCE IF EXISTS ${q(`${name}_seq`)}`);
      return name;
    },
    slowFirstWrite: async (table, slowName, seconds) => {
      const seq = q(`${table}_seq`);
      await client.query(`CREATE SEQUENCE ${seq}`);
      await client.query(`CREATE FUNCTION ${q(`${table}_slow`)}() RETURNS trigger AS $$
        BEGIN
          IF NEW.name = '${slowName}' THEN
            IF nextval('${seq}') = 1 THEN PERFORM pg_sleep(${seconds}); END IF;
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await client.query(
        `CREATE TRIGGER slow BEFORE INSERT OR UPDATE ON ${q(table)} FOR EACH ROW EXECUTE FUNCTION ${q(`${table}_slow`)}()`,
      );
      drops.push(`DROP FUNCTION IF EXISTS ${q(`${table}_slow`)}() CASCADE`);
    },
    sleeping: async (table) => {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND query LIKE $1`,
        [`%${table}%`],
      );
      return rows[0]!.n;
    },
    close: async () => {
      for (const sql of drops.reverse()) await client.query(sql).catch(() => undefined);
      await client.end();
    },
  };
}

export async function mariadb(): Promise<TestDb> {
  const url = process.env.SHARESINK_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
  const parsed = new URL(url);
  const conn = await mysql
    .createConnection({
      host: parsed.hostname,
      port: Number(parsed.port || 3306),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password),
      database: parsed.pathname.slice(1),
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    })
    .catch((cause: unknown) => {
      throw new Error(
        `MariaDB is not reachable at ${url} (set SHARESINK_TEST_MYSQL_URL); these tests never skip`,
        { cause },
      );
    });
  const drops: string[] = [];
  const q = (n: string): string => `\`${n.replaceAll('`', '``')}\``;
  return {
    name: 'mariadb',
    props: {
      'connection.url': `jdbc:mariadb://${parsed.host}${parsed.pathname}`,
      'connection.user': decodeURIComponent(parsed.username),
      'connection.password': decodeURIComponent(parsed.password),
    },
    q,
    exec: async (sql, values) => void (await conn.query(sql, values)),
    rows: async (sql, values) => (await conn.query(sql, values))[0] as Record<string, unknown>[],
    table: (prefix) => {
      const name = unique(prefix);
      drops.push(`DROP TABLE IF EXISTS ${q(name)}`, `DROP SEQUENCE IF EXISTS ${q(`${name}_seq`)}`);
      return name;
    },
    slowFirstWrite: async (table, slowName, seconds) => {
      const seq = q(`${table}_seq`);
      await conn.query(`CREATE SEQUENCE ${seq}`);
      await conn.query(`CREATE TRIGGER ${q(`${table}_slow`)} BEFORE INSERT ON ${q(table)} FOR EACH ROW
        BEGIN
          IF NEW.name = '${slowName}' THEN
            IF NEXTVAL(${seq}) = 1 THEN DO SLEEP(${seconds} + 0 * LENGTH('${table}')); END IF;
          END IF;
        END`);
    },
    sleeping: async (table) => {
      // the process list shows the statement running inside the trigger, which names the table
      const [rows] = await conn.query(
        `SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE STATE = 'User sleep' AND INFO LIKE ?`,
        [`%${table}%`],
      );
      return Number((rows as Record<string, unknown>[])[0]!['n']);
    },
    close: async () => {
      for (const sql of drops.reverse()) await conn.query(sql).catch(() => undefined);
      await conn.end();
    },
  };
}

export const TEST_DBS = { postgresql: postgresDb, mariadb } as const;
