/** Which MySQL/MariaDB errors blame the rows, which the server or the connection, as mysql2 reports them. */
import { ConnectError, RetriableError } from '../../connect/errors.js';
import { RETRIED_NOT_REJECTED as KEPT } from '../retried-not-rejected.js';

interface MysqlError {
  readonly errno?: number;
  readonly code?: string;
  readonly sqlState?: string;
  readonly fatal?: boolean;
}

const fields = (error: unknown): MysqlError => (typeof error === 'object' && error !== null ? error : {});

/**
 * Rows the server refuses for their data: SQLSTATE classes 22 (bad value, too long, out of range) and
 * 23 (NOT NULL, duplicate key, foreign key, CHECK), an unknown column (1054), and the strict-mode
 * refusals MySQL reports without a class-22 state (1366 incorrect value, 1265 truncated, 1292 bad
 * date).
 */
const DATA_ERRNOS = new Set([1054, 1366, 1265, 1292, 1264, 1406, 1048, 1062, 1452, 1451, 4025, 3819, 3140]);

/** Deadlock, lock wait timeout, too many connections, shutdown, lost connection, killed query. */
const RETRIABLE_ERRNOS = new Set([1213, 1205, 1040, 1053, 2006, 2013, 1927, 1317, 1203, 1129, 1130]);

export function isMysqlDataError(error: unknown): boolean {
  const { errno, sqlState } = fields(error);
  if (errno !== undefined && DATA_ERRNOS.has(errno)) return true;
  return sqlState !== undefined && (sqlState.startsWith('22') || sqlState.startsWith('23'));
}

function isRetriable(error: unknown): boolean {
  const { errno, code, fatal } = fields(error);
  if (errno !== undefined && RETRIABLE_ERRNOS.has(errno)) return true;
  if (fatal === true) return true;
  if (typeof code === 'string' && (/^E[A-Z]+$/.test(code) || code.startsWith('PROTOCOL_'))) return true;
  return error instanceof AggregateError && error.errors.some(isRetriable);
}

export function mysqlBreaksConnection(error: unknown): boolean {
  return fields(error).sqlState === undefined || fields(error).fatal === true;
}

function refusalHint(errno: number | undefined): string | undefined {
  switch (errno) {
    case 1045:
      return `the server refused the login: check connection.user and connection.password (or the user in connection.url), then restart the connector. ${KEPT}`;
    case 1044:
    case 1142:
    case 1143:
      return `the user lacks a privilege: GRANT INSERT, UPDATE, DELETE (and CREATE, ALTER for auto.create, auto.evolve and the order guard's table) to it; the next retry picks the grant up, without a restart. ${KEPT}`;
    case 1049:
      return `the database does not exist: create it, or fix connection.url, then restart the connector. ${KEPT}`;
    case 1146:
      return `the table does not exist: create it, or set auto.create=true; the next retry picks it up, without a restart. ${KEPT}`;
    default:
      return undefined;
  }
}

export function mysqlConnectError(error: unknown, what: string): Error {
  if (error instanceof ConnectError) return error;
  const { errno, code } = fields(error);
  const reason = error instanceof Error ? error.message : String(error);
  const message = `${what}: ${reason}${errno === undefined ? '' : ` (${code ?? ''} ${errno})`}`;
  const hint = refusalHint(errno);
  if (hint !== undefined) return new RetriableError(`${message}. ${hint}`, { cause: error });
  return isRetriable(error)
    ? new RetriableError(message, { cause: error })
    : new ConnectError(message, { cause: error });
}
