/**
 * Authentication of REST requests: HTTP basic (users from a credentials file, as Connect's
 * BasicAuthSecurityRestExtension) and/or a bearer token. Every path needs it except the exempt ones
 * (`rest.auth.exempt.paths`, `/health` by default), whatever the method, so a request that fails it
 * reaches no handler and changes nothing. Secrets are compared in constant time over their SHA-256
 * digests, so neither a password's content nor its length leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RestAuth } from '../../config/rest-security.js';
import { RestError } from './errors.js';

export type AuthResult =
  | { readonly ok: true; readonly user?: string }
  /** `user`: the name a basic request gave (for the log); never the password. */
  | { readonly ok: false; readonly error: RestError; readonly challenge: string; readonly user?: string };

const REALM = 'sharesink';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function same(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** True when the worker asks for authentication at all. */
export function authRequired(auth: RestAuth | undefined): boolean {
  return auth?.basicUsers !== undefined || auth?.bearerToken !== undefined;
}

/** Checks one request; `{ ok: true }` for an exempt path or when no authentication is configured. */
export function authenticate(auth: RestAuth | undefined, req: IncomingMessage, path: string): AuthResult {
  if (auth === undefined || !authRequired(auth) || auth.exemptPaths.includes(path)) return { ok: true };
  const challenge = [
    ...(auth.basicUsers !== undefined ? [`Basic realm="${REALM}", charset="UTF-8"`] : []),
    ...(auth.bearerToken !== undefined ? [`Bearer realm="${REALM}"`] : []),
  ].join(', ');
  const fail = (message: string, user?: string): AuthResult => ({
    ok: false,
    error: new RestError('SHARESINK_REST_UNAUTHORIZED', 401, message),
    challenge,
    ...(user === undefined ? {} : { user }),
  });
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === '') return fail(`Authentication required: ${accepted(auth)}`);
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const credentials = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'basic' && auth.basicUsers !== undefined) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = colon < 0 ? decoded : decoded.slice(0, colon);
    const password = colon < 0 ? '' : decoded.slice(colon + 1);
    const expected = auth.basicUsers.get(user);
    // an unknown user costs the same comparison as a known one
    const ok = same(password, expected?.value() ?? '\u0000no such user') && expected !== undefined;
    return ok ? { ok: true, user } : fail('Invalid credentials', user);
  }
  if (scheme === 'bearer' && auth.bearerToken !== undefined)
    return same(credentials, auth.bearerToken.value()) ? { ok: true } : fail('Invalid credentials');
  return fail(`Unsupported authorization scheme ${JSON.stringify(scheme)}: ${accepted(auth)}`);
}

function accepted(auth: RestAuth): string {
  const ways = [
    ...(auth.basicUsers !== undefined ? ['HTTP basic (user and password)'] : []),
    ...(auth.bearerToken !== undefined ? ['a bearer token (Authorization: Bearer <token>)'] : []),
  ];
  return `this API accepts ${ways.join(' or ')}`;
}
