import { ConnectError, RetriableError } from '../../connect/errors.js';
import { RETRIED_NOT_REJECTED as KEPT } from '../retried-not-rejected.js';

/**
 * SQLSTATE classes that describe the server or the connection, not the rows: connection exceptions
 * (08), transaction rollbacks such as serialization failures and deadlocks (40), insufficient
 * resources (53), operator intervention such as shutdowns and cancelled statements (57), system
 * errors (58). The same batch may well succeed later.
 */
const RETRIABLE_CLASSES = new Set(['08', '40', '53', '57', '58']);
/** lock_not_available, object_in_use: another session holds what we need. */
const RETRIABLE_CODES = new Set(['55P03', '55006']);

/**
 * SQLSTATEs that blame the data of some rows: data exceptions (22: bad number, text too long, bad
 * JSON), integrity violations (23: NOT NULL, unique, foreign key, check), a field with no column
 * (42703), a value of the wrong type (42804), and exceptions raised by triggers (P0001).
 */
const DATA_CLASSES = new Set(['22', '23']);
const DATA_CODES = new Set(['42703', '42804', 'P0001']);

// node-postgres's own wording when a socket dies or a connection cannot be had in time
const CONNECTION_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i;

/** The SQLSTATE of an error the server reported; undefined for socket and client-side errors. */
export function sqlState(error: unknown): string | undefined {
  // pg's DatabaseError, recognised by shape so that this module does not load the driver
  if (!(error instanceof Error) || typeof (error as { severity?: unknown }).severity !== 'string')
    return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * True when the server refused the type a multi-row statement casts its arrays to: undefined_object
 * (the type was renamed or dropped since the table was described) or insufficient_privilege (no USAGE
 * on the type's schema). A VALUES statement names no type, so it may still pass.
 */
export function isCastRefused(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42704' || state === '42501';
}

/** True when the error blames specific rows, so retrying them one by one finds the bad ones. */
export function isDataError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (DATA_CLASSES.has(state.slice(0, 2)) || DATA_CODES.has(state));
}

export function isRetriableDbError(error: unknown): boolean {
  const state = sqlState(error);
  if (state !== undefined) return RETRIABLE_CLASSES.has(state.slice(0, 2)) || RETRIABLE_CODES.has(state);
  if (!(error instanceof Error)) return false;
  // ECONNREFUSED, ETIMEDOUT, ENOTFOUND… (also on the AggregateError of a dual-stack connect)
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  if (error instanceof AggregateError && error.errors.some(isRetriableDbError)) return true;
  return CONNECTION_MESSAGE.test(error.message);
}

/**
 * True when the connection may be unusable after the error, so it must not go back to the pool.
 * Errors the server reported with a SQLSTATE leave the connection fine.
 */
export function breaksConnection(error: unknown): boolean {
  return sqlState(error) === undefined;
}

/**
 * The server refusing the sink's user rather than the rows: a login it refuses (class 28: wrong
 * password, unknown role, pg_hba.conf), a database that is not there, a missing privilege. Rejecting
 * the batch for these would lose records that are fine, so they are retried, with what to fix.
 */
function refusalHint(state: string | undefined): string | undefined {
  if (state === undefined) return undefined;
  if (state.startsWith('28'))
    return `PostgreSQL refused the login: check connection.user and connection.password (or the user in connection.url) and the server's pg_hba.conf, then restart the connector. ${KEPT}`;
  if (state === '3D000')
    return `the database does not exist: create it, or fix connection.database (or connection.url), then restart the connector. ${KEPT}`;
  if (state === '42P10')
    return `the table has no unique constraint on the columns ON CONFLICT names (pk.fields for insert.mode=upsert, __connect_topic, __connect_partition, __connect_offset for idempotent): create one; the next retry picks it up, without a restart. ${KEPT}`;
  if (state === '42501')
    return `the user lacks a privilege on the table or its schema: GRANT INSERT (UPDATE too for insert.mode=upsert, CREATE on the schema for auto.create) to it; the next retry picks the grant up, without a restart. ${KEPT}`;
  return undefined;
}

/**
 * A table that does not fit what the sink needs (missing, or without columns the mode needs): the
 * records are fine and a change to the table heals the next put, so it is retried, not rejected.
 */
export function tableProblem(problem: string, fix: string): RetriableError {
  return new RetriableError(`${problem}: ${fix}; the next retry picks it up, without a restart. ${KEPT}`);
}

/**
 * What put() throws for a failure it does not handle itself: RetriableError for anything transient
 * and for the server refusing the user or the table's shape (refusalHint), which both modes retry in
 * place; ConnectError for the rest (an error sharesink does not know), which REJECTs the batch (share)
 * or fails the task (classic).
 */
export function toConnectError(error: unknown, what: string): Error {
  if (error instanceof ConnectError) return error;
  const state = sqlState(error);
  const reason = error instanceof Error ? error.message : String(error);
  const message = `${what}: ${reason}${state === undefined ? '' : ` (SQLSTATE ${state})`}`;
  const hint = refusalHint(state);
  if (hint !== undefined) return new RetriableError(`${message}. ${hint}`, { cause: error });
  return isRetriableDbError(error)
    ? new RetriableError(message, { cause: error })
    : new ConnectError(message, { cause: error });
}
