/**
 * Keeps credentials out of error messages. A put's error message is logged by the runtime and may
 * reach a dead-letter header, so everything HttpSink puts into a message goes through `redact()`:
 * secrets configured for the connector (auth password and token, the values of credential-bearing
 * headers) are replaced wherever they appear, including in a response body that echoes them.
 */

export const HIDDEN = '[hidden]';

/**
 * Headers whose values are credentials by convention (Authorization, Proxy-Authorization, Cookie,
 * X-Api-Key, X-Auth-Token, X-Session-Id, X-Hub-Signature, …); their values are redacted.
 */
const SENSITIVE_HEADER = /auth|token|secret|passw|api-?key|cookie|session|signature|credential/i;

export function isSensitiveHeader(name: string): boolean {
  return SENSITIVE_HEADER.test(name);
}

export class Redactor {
  // longest first, so a secret that contains another one is replaced whole
  readonly #secrets: readonly string[];

  constructor(secrets: Iterable<string>) {
    // very short values would blank out ordinary words of a message; they are not credentials anyway
    this.#secrets = [...new Set([...secrets].filter((s) => s.length >= 4))].sort(
      (a, b) => b.length - a.length,
    );
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.replaceAll(secret, HIDDEN);
    return out;
  }
}

/**
 * A URL as it may appear in a message: scheme, host and path. User info and the query string can
 * carry credentials (`?api_key=…`), so they are left out; `?…` says a query was there.
 */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}${url.search === '' ? '' : '?…'}`;
}
