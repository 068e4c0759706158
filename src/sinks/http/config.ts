import { ConfigDef, type ConfigValues, type Password } from '../../connect/config-def.js';
import { atLeast, nonEmptyString, oneOf, type Validator } from '../../connect/config-validators.js';
import { ConfigError } from '../../errors.js';
import { HEADERS_KEY, parseHeaders } from './headers.js';
import { Redactor, displayUrl, isSensitiveHeader } from './secrets.js';
import { StatusCodes } from './status-codes.js';

export const HTTP_METHODS = ['POST', 'PUT', 'PATCH'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const BODY_FORMATS = ['json_array', 'json_records', 'ndjson', 'raw'] as const;
export type BodyFormat = (typeof BODY_FORMATS)[number];
export const AUTH_TYPES = ['none', 'basic', 'bearer'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];
export const ERROR_BEHAVIORS = ['errant', 'fail'] as const;
export type ErrorBehavior = (typeof ERROR_BEHAVIORS)[number];

const TOPIC = '${topic}';

function statusList(): Validator<readonly string[] | null> {
  return {
    check: (v) => {
      if (v === null) return undefined;
      if (v.length === 0) return 'is empty';
      const parsed = StatusCodes.parse(v);
      return typeof parsed === 'string' ? parsed : undefined;
    },
    // ConfigDef's accepted text puts "a comma-separated list, " in front of this
    describe: () => 'each entry a status code or an ascending range within 100..599 (e.g. 408,429,500-599)',
  };
}

export const HTTP_SINK_CONFIG = new ConfigDef()
  .define({
    name: 'http.url',
    type: 'string',
    validator: nonEmptyString(),
    importance: 'high',
    documentation:
      'http:// or https:// endpoint; every ${topic} is replaced by the record topic. No user:password@ ' +
      '(use http.auth.*). Redirects are not followed.',
  })
  .define({
    name: 'http.method',
    type: 'string',
    default: 'POST',
    validator: oneOf(HTTP_METHODS, { caseInsensitive: true }),
    importance: 'medium',
    documentation: 'Request method.',
  })
  .define({
    name: HEADERS_KEY,
    type: 'string',
    default: null,
    importance: 'medium',
    documentation:
      'Extra request headers as Name:value entries separated by http.header.separator, e.g. ' +
      'Content-Type:application/json|X-Tenant:shop. One header can also be set as http.headers.<Name>=<value>.',
  })
  .define({
    name: 'http.header.separator',
    type: 'string',
    default: '|',
    validator: nonEmptyString(),
    importance: 'low',
    documentation: 'Separator between the entries of http.headers.',
  })
  .define({
    name: 'http.auth.type',
    type: 'string',
    default: 'none',
    validator: oneOf(AUTH_TYPES, { caseInsensitive: true }),
    importance: 'high',
    documentation:
      'none; basic (Authorization: Basic from http.auth.user and http.auth.password); bearer ' +
      '(Authorization: Bearer http.auth.token).',
  })
  .define({
    name: 'http.auth.user',
    type: 'string',
    default: null,
    importance: 'high',
    documentation: 'User name for http.auth.type=basic.',
  })
  .define({
    name: 'http.auth.password',
    type: 'password',
    default: null,
    importance: 'high',
    documentation: 'Password for http.auth.type=basic (hidden in logs and messages).',
  })
  .define({
    name: 'http.auth.token',
    type: 'password',
    default: null,
    importance: 'high',
    documentation: 'Token for http.auth.type=bearer (hidden in logs and messages).',
  })
  .define({
    name: 'http.idempotency.header',
    type: 'string',
    default: null,
    importance: 'medium',
    documentation:
      'When set (e.g. Idempotency-Key), each request carries this header with a key derived from the ' +
      'topic, partition and offset of its records: the same records give the same key.',
  })
  .define({
    name: 'batch.max.size',
    type: 'int',
    default: 500,
    validator: atLeast(1),
    importance: 'medium',
    documentation: 'Most records in one request; 1 sends one request per record.',
  })
  .define({
    name: 'request.body.format',
    type: 'string',
    default: 'json_array',
    validator: oneOf(BODY_FORMATS, { caseInsensitive: true }),
    importance: 'high',
    documentation:
      'json_array: a JSON array of the values. json_records: a JSON array of {topic, partition, offset, ' +
      'timestamp, key, value, headers, deliveryCount}. ndjson: one JSON value per line. raw: the value ' +
      'bytes of a single record (needs batch.max.size=1).',
  })
  .define({
    name: 'request.timeout.ms',
    type: 'int',
    default: 30_000,
    validator: atLeast(1),
    importance: 'low',
    documentation: 'How long one request may take, response body included, before it counts as retriable.',
  })
  .define({
    name: 'max.in.flight.requests',
    type: 'int',
    default: 1,
    validator: atLeast(1),
    importance: 'low',
    documentation: 'Requests of one put sent at the same time.',
  })
  .define({
    name: 'retry.on.status.codes',
    type: 'list',
    // 401, 403, 404, 405, 407, 415: the endpoint refused the client or its settings (credentials, URL,
    // method, content type), not the records; rejecting them would lose records that are fine
    default: ['401', '403', '404', '405', '407', '408', '415', '429', '500-599'],
    validator: statusList(),
    importance: 'medium',
    documentation:
      'Statuses that fail the put with a RetriableError, so the batch is tried again (Retry-After is ' +
      'the backoff hint). The default retries the refusals of the client itself (401, 403, 407: ' +
      'credentials, permissions, proxy login; 404, 405, 415: URL, method, content type), which a fix on ' +
      'either side cures without losing records.',
  })
  .define({
    name: 'http.success.status.codes',
    type: 'list',
    default: ['200-299'],
    validator: statusList(),
    importance: 'medium',
    documentation: 'Statuses that mean the records of the request were written.',
  })
  .define({
    name: 'behavior.on.error',
    type: 'string',
    default: 'errant',
    validator: oneOf(ERROR_BEHAVIORS, { caseInsensitive: true }),
    importance: 'medium',
    documentation:
      'Any other status (most 4xx): errant reports the records of that request to the errant record ' +
      'reporter (REJECT in share mode, errors.tolerance in classic mode) and the put goes on; fail ' +
      'fails the whole put with a ConnectError.',
  });

type Declared = ConfigValues<typeof HTTP_SINK_CONFIG>;

/** Everything a task needs, compiled once at start: no string parsing on the put path. */
export interface HttpSinkSettings {
  /** With `${topic}` still in it; checked to be a valid http(s) URL for any topic name. */
  readonly urlTemplate: string;
  readonly method: HttpMethod;
  /** Configured headers and the Authorization header from http.auth.*, in that order. */
  readonly headers: readonly (readonly [string, string])[];
  readonly idempotencyHeader: string | null;
  readonly batchMaxSize: number;
  readonly format: BodyFormat;
  readonly timeoutMs: number;
  readonly maxInFlight: number;
  readonly success: StatusCodes;
  readonly retriable: StatusCodes;
  readonly onError: ErrorBehavior;
  readonly redactor: Redactor;
}

/** Problems per key that involve parsing beyond one value or more than one key, all at once. */
export function crossKeyProblems(
  cfg: Declared,
  props: Readonly<Record<string, string | undefined>>,
): Map<string, string[]> {
  const problems = new Map<string, string[]>();
  const add = (key: string, text: string): void => {
    problems.set(key, [...(problems.get(key) ?? []), text]);
  };

  const urlProblem = checkUrl(cfg['http.url']);
  if (urlProblem !== undefined) add('http.url', `http.url: ${urlProblem}`);

  const { headers, problems: headerProblems } = parseHeaders(
    props,
    cfg[HEADERS_KEY],
    cfg['http.header.separator'],
  );
  for (const p of headerProblems) add(p.key, p.text);

  const auth = cfg['http.auth.type'].toLowerCase() as AuthType;
  const user = cfg['http.auth.user'];
  const password = cfg['http.auth.password'];
  const token = cfg['http.auth.token'];
  if (auth === 'basic') {
    if (user === null || user === '')
      add('http.auth.user', 'http.auth.user: is required for http.auth.type=basic');
    else if (user.includes(':'))
      add('http.auth.user', 'http.auth.user: contains ":", which Basic authentication cannot carry');
    if (password === null)
      add('http.auth.password', 'http.auth.password: is required for http.auth.type=basic');
  }
  if (auth === 'bearer' && (token === null || token.value().trim() === '')) {
    add('http.auth.token', 'http.auth.token: is required for http.auth.type=bearer');
  }
  for (const [key, set] of [
    ['http.auth.user', user !== null && auth !== 'basic'],
    ['http.auth.password', password !== null && auth !== 'basic'],
    ['http.auth.token', token !== null && auth !== 'bearer'],
  ] as const) {
    if (set)
      add(key, `${key}: is set but http.auth.type=${auth} does not use it; set http.auth.type or remove it`);
  }
  if (auth !== 'none' && headers.some(([name]) => name.toLowerCase() === 'authorization')) {
    add(
      'http.auth.type',
      `http.auth.type: is ${auth} but an Authorization header is configured too; keep one of them`,
    );
  }

  const idempotency = cfg['http.idempotency.header'];
  if (idempotency !== null) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(idempotency)) {
      add(
        'http.idempotency.header',
        `http.idempotency.header: ${JSON.stringify(idempotency)} is not a valid header name`,
      );
    } else if (headers.some(([name]) => name.toLowerCase() === idempotency.toLowerCase())) {
      add(
        'http.idempotency.header',
        `http.idempotency.header: ${idempotency} is also configured as a fixed header; it is set per request`,
      );
    }
  }

  if (cfg['request.body.format'].toLowerCase() === 'raw' && cfg['batch.max.size'] !== 1) {
    add(
      'batch.max.size',
      `batch.max.size: is ${cfg['batch.max.size']}, but request.body.format=raw sends one record's bytes per request; set batch.max.size=1`,
    );
  }
  return problems;
}

/** Stands in for a missing or empty http.url so the other checks can still run. */
const PLACEHOLDER_URL = 'http://placeholder.invalid/';

/**
 * Every problem for these props in one map: the declared keys' own problems, then the parsing and
 * cross-key checks. Those run even when some keys are invalid, on the valid keys with the invalid
 * ones at their defaults; a check that involves an invalid key is left out, since it would judge a
 * value the user did not write.
 */
export function validateHttpSink(props: Readonly<Record<string, string | undefined>>): Map<string, string[]> {
  const problems = HTTP_SINK_CONFIG.validate(props);
  const invalid = [...problems.keys()];
  const valid: Record<string, string | undefined> = { ...props };
  for (const key of invalid) delete valid[key];
  if (invalid.includes('http.url')) valid['http.url'] = PLACEHOLDER_URL;
  for (const [key, texts] of crossKeyProblems(HTTP_SINK_CONFIG.parse(valid), props)) {
    if (problems.has(key)) continue;
    const relevant = texts.filter((text) => !invalid.some((bad) => text.includes(bad)));
    if (relevant.length > 0) problems.set(key, relevant);
  }
  return problems;
}

/** Compiles the props; throws one ConfigError listing every problem. */
export function httpSinkSettings(props: Readonly<Record<string, string | undefined>>): HttpSinkSettings {
  const problems = validateHttpSink(props);
  if (problems.size > 0) throw new ConfigError([...problems.values()].flat());
  const cfg = HTTP_SINK_CONFIG.parse(props);
  const { headers } = parseHeaders(props, cfg[HEADERS_KEY], cfg['http.header.separator']);
  const secrets: string[] = headers.filter(([name]) => isSensitiveHeader(name)).map(([, value]) => value);
  const all: (readonly [string, string])[] = [...headers];
  const auth = authorization(cfg);
  if (auth !== undefined) {
    all.push(['Authorization', auth.header]);
    secrets.push(...auth.secrets);
  }
  return {
    urlTemplate: cfg['http.url'],
    method: cfg['http.method'].toUpperCase() as HttpMethod,
    headers: all,
    idempotencyHeader: cfg['http.idempotency.header'],
    batchMaxSize: cfg['batch.max.size'],
    format: cfg['request.body.format'].toLowerCase() as BodyFormat,
    timeoutMs: cfg['request.timeout.ms'],
    maxInFlight: cfg['max.in.flight.requests'],
    success: StatusCodes.parse(cfg['http.success.status.codes']) as StatusCodes,
    retriable: StatusCodes.parse(cfg['retry.on.status.codes']) as StatusCodes,
    onError: cfg['behavior.on.error'].toLowerCase() as ErrorBehavior,
    redactor: new Redactor(secrets),
  };
}

function authorization(cfg: Declared): { header: string; secrets: string[] } | undefined {
  const auth = cfg['http.auth.type'].toLowerCase() as AuthType;
  if (auth === 'basic') {
    const password = (cfg['http.auth.password'] as Password).value();
    const encoded = Buffer.from(`${cfg['http.auth.user']}:${password}`, 'utf8').toString('base64');
    return { header: `Basic ${encoded}`, secrets: [password, encoded] };
  }
  if (auth === 'bearer') {
    const token = (cfg['http.auth.token'] as Password).value().trim();
    return { header: `Bearer ${token}`, secrets: [token] };
  }
  return undefined;
}

/** Why the URL template cannot be used, or undefined; never echoes user info or the query. */
function checkUrl(template: string): string | undefined {
  let url: URL;
  try {
    url = new URL(template.replaceAll(TOPIC, 'topic'));
  } catch {
    return 'is not an absolute URL; accepted: http://host[:port]/path or https://…, ${topic} allowed';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `has scheme ${url.protocol.slice(0, -1)}; accepted: http or https`;
  }
  if (url.username !== '' || url.password !== '') {
    return `${displayUrl(url)} carries user:password@, which fetch refuses; use http.auth.type=basic with http.auth.user and http.auth.password`;
  }
  return undefined;
}
