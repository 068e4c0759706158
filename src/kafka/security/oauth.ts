/**
 * OAUTHBEARER tokens for kafkajs's `oauthBearerProvider`, as Kafka's OAuthBearerLoginCallbackHandler
 * gets them: the client credentials grant against `sasl.oauthbearer.token.endpoint.url` (client id and
 * secret in HTTP basic auth, `scope` when configured). A token is kept and shared by every connection
 * of the client until 80% of its lifetime has passed; kafkajs asks again when it re-authenticates a
 * connection (the broker's session lifetime), so long-lived connections move to fresh tokens.
 */
import { KafkaConnectionError } from '../errors/kafka-errors.js';
import type { Secret } from './types.js';

/**
 * Getting a token failed: the endpoint could not be reached, refused the client, or answered no token.
 * A connection error (retried with backoff by the clients, as an identity provider's outage is
 * transient), with its own code: the start-up check reports it at once.
 */
export class OAuthTokenError extends KafkaConnectionError {
  constructor(endpoint: string, message: string, options: { cause?: unknown } = {}) {
    super(`OAuth token endpoint ${endpoint}`, message, { ...options, code: 'SHARESINK_KAFKA_OAUTH' });
  }
}

export interface ClientCredentials {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly scope?: string | undefined;
}

export interface OAuthToken {
  readonly value: string;
}

/** Refresh when this fraction of the token's lifetime has passed (Kafka's sasl.login.refresh.window.factor). */
const REFRESH_FRACTION = 0.8;
/** A token without `expires_in` is kept this long. */
const DEFAULT_LIFETIME_MS = 5 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export class ClientCredentialsTokenProvider {
  readonly #c: ClientCredentials;
  readonly #fetch: FetchLike;
  readonly #now: () => number;
  #cached: { value: string; refreshAt: number } | undefined;
  #pending: Promise<string> | undefined;

  constructor(credentials: ClientCredentials, options: { fetch?: FetchLike; now?: () => number } = {}) {
    this.#c = credentials;
    this.#fetch = options.fetch ?? ((url, init) => fetch(url, init));
    this.#now = options.now ?? Date.now;
  }

  /** What kafkajs calls on every SASL authentication. */
  readonly provider = async (): Promise<OAuthToken> => ({ value: await this.token() });

  async token(): Promise<string> {
    const cached = this.#cached;
    if (cached !== undefined && this.#now() < cached.refreshAt) return cached.value;
    // connections authenticating at once share one request
    this.#pending ??= this.#request().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #request(): Promise<string> {
    const { tokenEndpoint, clientId, clientSecret, scope } = this.#c;
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope !== '') body.set('scope', scope);
    // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined for basic auth
    const basic = Buffer.from(
      `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret.value())}`,
    ).toString('base64');
    const started = this.#now();
    let res: Response;
    try {
      res = await this.#fetch(tokenEndpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: body.toString(),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new OAuthTokenError(
        tokenEndpoint,
        `cannot be reached (sasl.oauthbearer.token.endpoint.url): ${reason(err)}`,
        { cause: err },
      );
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      // the error body of a token endpoint is an OAuth error object, never the secret
      const detail = errorDetail(text);
      throw new OAuthTokenError(
        tokenEndpoint,
        `refused client ${JSON.stringify(clientId)}: HTTP ${res.status}${detail}; check clientId and clientSecret in sasl.jaas.config`,
      );
    }
    let json: { access_token?: unknown; expires_in?: unknown };
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      throw new OAuthTokenError(tokenEndpoint, 'answered something other than JSON');
    }
    if (typeof json.access_token !== 'string' || json.access_token === '')
      throw new OAuthTokenError(tokenEndpoint, 'answered no access_token');
    const expiresIn = Number(json.expires_in);
    const lifetime = Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn * 1000 : DEFAULT_LIFETIME_MS;
    this.#cached = { value: json.access_token, refreshAt: started + lifetime * REFRESH_FRACTION };
    return json.access_token;
  }
}

/** fetch() says only "fetch failed"; the socket error (ECONNREFUSED, ENOTFOUND) is its cause. */
function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return (err as Error).message;
}

function errorDetail(text: string): string {
  try {
    const e = JSON.parse(text) as { error?: unknown; error_description?: unknown };
    if (typeof e.error === 'string')
      return ` (${e.error}${typeof e.error_description === 'string' ? `: ${e.error_description.slice(0, 200)}` : ''})`;
  } catch {
    // not an OAuth error object: say nothing of it
  }
  return '';
}

/**
 * An unsigned token (`alg: none`) as Kafka's OAuthBearerUnsecuredLoginCallbackHandler makes for
 * `unsecuredLoginStringClaim_sub`: accepted only by brokers configured for unsecured OAUTHBEARER.
 */
export function unsecuredToken(subject: string, now = Date.now()): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const iat = Math.floor(now / 1000);
  return `${b64({ alg: 'none' })}.${b64({ sub: subject, iat, exp: iat + 3600 })}.`;
}
