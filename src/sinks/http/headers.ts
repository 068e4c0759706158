/**
 * Request headers from the connector config: the `http.headers` list (`Name:value|Name:value`, the
 * separator configurable) and `http.headers.<name>=<value>` keys, which read better for one header
 * and need no escaping. Problems name the header but never show a value, since values are often
 * credentials.
 */

export const HEADERS_KEY = 'http.headers';
export const HEADER_PREFIX = 'http.headers.';

// RFC 9110 token characters
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[\r\n\0]/;
/** Headers the HTTP client derives from the request itself; setting them would corrupt it. */
const MANAGED = new Set(['content-length', 'transfer-encoding', 'host', 'connection']);

export interface HeaderProblem {
  readonly key: string;
  readonly text: string;
}

export interface ParsedHeaders {
  /** Name as written, value trimmed, in config order. */
  readonly headers: readonly (readonly [string, string])[];
  /** Each with the key it is about, so validate() can file it under that key. */
  readonly problems: readonly HeaderProblem[];
}

export function parseHeaders(
  props: Readonly<Record<string, string | undefined>>,
  list: string | null,
  separator: string,
): ParsedHeaders {
  const headers: [string, string][] = [];
  const problems: HeaderProblem[] = [];
  const problem = (key: string, text: string): void => {
    problems.push({ key, text: `${key}: ${text}` });
  };
  const seen = new Map<string, string>();
  const add = (name: string, value: string, where: string): void => {
    if (!TOKEN.test(name)) {
      problem(
        where,
        `${JSON.stringify(name)} is not a valid header name (letters, digits, -, and !#$%&'*+.^_\`|~)`,
      );
      return;
    }
    if (BAD_VALUE.test(value)) {
      problem(where, `the value of header ${name} contains a line break or NUL, which HTTP forbids`);
      return;
    }
    const lower = name.toLowerCase();
    if (MANAGED.has(lower)) {
      problem(where, `header ${name} is set by the HTTP client from the request; remove it`);
      return;
    }
    const previous = seen.get(lower);
    if (previous !== undefined) {
      problem(where, `header ${name} is also set by ${previous}; set each header once`);
      return;
    }
    seen.set(lower, where);
    headers.push([name, value.trim()]);
  };

  if (list !== null && list.trim() !== '') {
    const entries = separator === '' ? [list] : list.split(separator);
    entries.forEach((entry, i) => {
      if (entry.trim() === '') return; // a trailing separator is harmless
      const colon = entry.indexOf(':');
      if (colon <= 0) {
        problem(
          HEADERS_KEY,
          `entry ${i + 1} is not Name:value (entries are separated by ${JSON.stringify(separator)}, see http.header.separator)`,
        );
        return;
      }
      add(entry.slice(0, colon).trim(), entry.slice(colon + 1), HEADERS_KEY);
    });
  }
  for (const [key, value] of Object.entries(props)) {
    if (!key.startsWith(HEADER_PREFIX) || value === undefined) continue;
    add(key.slice(HEADER_PREFIX.length), value, key);
  }
  return { headers, problems };
}
