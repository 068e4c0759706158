/** connection.url: which database it names, and what the driver for it is given. */
import { connectionUrlProblem } from '../postgres/config.js';

export type DialectName = 'postgresql' | 'mysql';

const ACCEPTED =
  'accepted: jdbc:postgresql://host:port/database?…, jdbc:mysql://host:port/database?… or jdbc:mariadb://host:port/database?…';

/** The dialect a URL names, by its scheme (with or without `jdbc:`); undefined for any other. */
export function dialectOf(url: string): DialectName | undefined {
  const scheme = /^(?:jdbc:)?([a-z]+):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === 'postgresql' || scheme === 'postgres') return 'postgresql';
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  return undefined;
}

/** Why the URL cannot be used, or undefined. Never shows a password. */
export function urlProblem(url: string): string | undefined {
  const dialect = dialectOf(url);
  if (dialect === undefined) {
    const scheme = /^(?:jdbc:)?([a-z0-9]+):/i.exec(url.trim())?.[1];
    return scheme === undefined
      ? `is not a JDBC URL (its value is not shown); ${ACCEPTED}`
      : `names the database ${JSON.stringify(scheme)}, and sharesink's JDBC sink writes to PostgreSQL and MySQL/MariaDB only; ${ACCEPTED}`;
  }
  if (dialect === 'postgresql') return connectionUrlProblem(url);
  try {
    const parsed = mysqlUrl(url);
    if (parsed.database === undefined)
      return `names no database (jdbc:mysql://host:port/database); ${ACCEPTED}`;
  } catch (error) {
    return `${(error as Error).message}; ${ACCEPTED}`;
  }
  return undefined;
}

export interface MysqlTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string | undefined;
  readonly user: string | undefined;
  readonly password: string | undefined;
}

/** jdbc:mysql://user:pw@host:port/db?user=…&password=… (or jdbc:mariadb:) as the driver's options. */
export function mysqlUrl(url: string): MysqlTarget {
  const rest = url.trim().replace(/^(?:jdbc:)?(?:mysql|mariadb):/i, '');
  if (!rest.startsWith('//')) throw new Error('names no host (write //host:port after the scheme)');
  const authority = /^\/\/([^/?#]*)/.exec(rest)![1]!;
  if (authority.slice(authority.lastIndexOf('@') + 1).includes(','))
    throw new Error('names several hosts, and sharesink connects to one only: name the primary');
  let parsed: URL;
  try {
    parsed = new URL(`mysql:${rest}`);
  } catch {
    throw new Error(
      'cannot be parsed as a URL (a port that is not a number, or a character in the user name or password that needs percent-encoding)',
    );
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const param = (name: string): string | undefined => parsed.searchParams.get(name) ?? undefined;
  return {
    host: parsed.hostname || 'localhost',
    port: parsed.port === '' ? 3306 : Number(parsed.port),
    database: database === '' ? undefined : database,
    user: parsed.username !== '' ? decodeURIComponent(parsed.username) : param('user'),
    password: parsed.password !== '' ? decodeURIComponent(parsed.password) : param('password'),
  };
}
