/**
 * The settings of the Schema Registry converters, with Confluent's key names: where the registry is,
 * how to authenticate (basic or a static bearer token), TLS to it, and the schema cache. Keys that only
 * a serializer reads, or that sharesink does not honour, are listed with the reason so the start-up
 * lines can say so once.
 */
import { ConfigError } from '../../../errors.js';
import { loadTlsSettings, type Setting } from '../../../kafka/security/tls-material.js';
import { HiddenValue, type TlsSettings } from '../../../kafka/security/types.js';

export interface RegistrySettings {
  readonly urls: readonly URL[];
  /** The Authorization header value, if any (computed once). */
  readonly authorization: string | undefined;
  readonly tls: TlsSettings | undefined;
  readonly cacheSize: number;
  readonly connectTimeoutMs: number;
  readonly readTimeoutMs: number;
}

/** Every key the converters read. */
export const REGISTRY_SETTINGS: readonly string[] = [
  'schema.registry.url',
  'basic.auth.credentials.source',
  'basic.auth.user.info',
  'schema.registry.basic.auth.user.info',
  'bearer.auth.credentials.source',
  'bearer.auth.token',
  'schema.registry.ssl.truststore.location',
  'schema.registry.ssl.truststore.password',
  'schema.registry.ssl.truststore.type',
  'schema.registry.ssl.keystore.location',
  'schema.registry.ssl.keystore.password',
  'schema.registry.ssl.keystore.type',
  'schema.registry.ssl.key.password',
  'schema.registry.ssl.endpoint.identification.algorithm',
  'schemas.cache.config',
  'max.schemas.per.subject',
  'http.connect.timeout.ms',
  'http.read.timeout.ms',
];

const SERIALIZER_ONLY = 'only a serializer reads it; these converters decode';

/** Keys Connect users write that sharesink accepts and does not act on, with the reason. */
export const REGISTRY_IGNORED: Readonly<Record<string, string>> = {
  'auto.register.schemas': SERIALIZER_ONLY,
  'use.latest.version': SERIALIZER_ONLY,
  'latest.compatibility.strict': SERIALIZER_ONLY,
  'normalize.schemas': SERIALIZER_ONLY,
  'use.schema.id': SERIALIZER_ONLY,
  'id.compatibility.strict': SERIALIZER_ONLY,
  'key.subject.name.strategy': SERIALIZER_ONLY,
  'value.subject.name.strategy': SERIALIZER_ONLY,
  'avro.remove.java.properties': SERIALIZER_ONLY,
  'latest.cache.size': SERIALIZER_ONLY,
  'latest.cache.ttl.sec': SERIALIZER_ONLY,
  'connect.meta.data': 'the Connect schema is read from the registry schema itself',
  'enhanced.avro.schema.support': 'the Connect schema is read from the registry schema itself',
  'enhanced.protobuf.schema.support': 'the Connect schema is read from the registry schema itself',
  'avro.use.logical.type.converters': 'Avro logical types are always converted',
  'specific.avro.reader': 'records are read as Connect data, never as generated classes',
  'scrub.invalid.names': 'names are kept as the schema has them',
  'json.fail.invalid.schema': 'JSON Schema payloads are not validated against their schema',
  'generalized.sum.type.support': 'unions map to io.confluent.connect.avro.Union structs, as by default',
  'schemas.enable': 'a Schema Registry converter always has a schema',
};

const BASIC_SOURCES = ['USER_INFO', 'URL', 'SASL_INHERIT'];
const BEARER_SOURCES = ['STATIC_TOKEN', 'OAUTHBEARER', 'SASL_OAUTHBEARER_INHERIT', 'CUSTOM'];

function positiveInt(
  props: Readonly<Record<string, string>>,
  key: string,
  fallback: number,
  problems: string[],
): number {
  const raw = props[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) {
    problems.push(`${key}: ${JSON.stringify(raw)} is not a positive integer`);
    return fallback;
  }
  return n;
}

/** Reads the settings; every problem is listed in one ConfigError, each naming its key. */
export function parseRegistrySettings(props: Readonly<Record<string, string>>): RegistrySettings {
  const problems: string[] = [];
  const rawUrls = (props['schema.registry.url'] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  const urls: URL[] = [];
  if (rawUrls.length === 0)
    problems.push(
      "schema.registry.url: is not set; accepted: the registry's URL, several separated by commas (the local one: run `npm run registry:start`, it prints http://127.0.0.1:18081/apis/ccompat/v7)",
    );
  for (const raw of rawUrls) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      problems.push(
        `schema.registry.url: ${JSON.stringify(raw)} is not a URL; accepted: http://host:port or https://host:port, with a path if the registry has one`,
      );
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      problems.push(`schema.registry.url: ${raw} is not an http or https URL`);
    else urls.push(url);
  }

  let authorization: string | undefined;
  const basicSource = (props['basic.auth.credentials.source'] ?? 'URL').trim().toUpperCase();
  const bearerSource = (props['bearer.auth.credentials.source'] ?? '').trim().toUpperCase();
  const userInfo = props['basic.auth.user.info'] ?? props['schema.registry.basic.auth.user.info'];
  if (!BASIC_SOURCES.includes(basicSource))
    problems.push(
      `basic.auth.credentials.source: ${JSON.stringify(basicSource)} is not a source; accepted: USER_INFO or URL`,
    );
  else if (basicSource === 'SASL_INHERIT')
    problems.push(
      'basic.auth.credentials.source: SASL_INHERIT is not supported; set USER_INFO and basic.auth.user.info=user:password',
    );
  else if (basicSource === 'USER_INFO') {
    if (userInfo === undefined || !userInfo.includes(':'))
      problems.push(
        'basic.auth.user.info: is not set (or has no ":"); with basic.auth.credentials.source=USER_INFO it must be user:password',
      );
    else authorization = `Basic ${Buffer.from(userInfo).toString('base64')}`;
  } else {
    const withCredentials = urls.find((u) => u.username !== '');
    if (withCredentials !== undefined)
      authorization = `Basic ${Buffer.from(`${decodeURIComponent(withCredentials.username)}:${decodeURIComponent(withCredentials.password)}`).toString('base64')}`;
  }
  if (bearerSource !== '') {
    if (!BEARER_SOURCES.includes(bearerSource))
      problems.push(
        `bearer.auth.credentials.source: ${JSON.stringify(bearerSource)} is not a source; accepted: STATIC_TOKEN`,
      );
    else if (bearerSource !== 'STATIC_TOKEN')
      problems.push(
        `bearer.auth.credentials.source: ${bearerSource} is not supported; accepted: STATIC_TOKEN with bearer.auth.token`,
      );
    else if ((props['bearer.auth.token'] ?? '').trim() === '')
      problems.push(
        'bearer.auth.token: is not set; with bearer.auth.credentials.source=STATIC_TOKEN it is the token',
      );
    else if (authorization !== undefined && basicSource === 'USER_INFO')
      problems.push(
        'bearer.auth.credentials.source: set together with basic.auth.credentials.source=USER_INFO; choose one',
      );
    else authorization = `Bearer ${props['bearer.auth.token']!.trim()}`;
  }
  for (const url of urls) {
    url.username = '';
    url.password = '';
  }

  const setting = (name: string): Setting | undefined => {
    const key = `schema.registry.ssl.${name}`;
    const value = props[key];
    return value === undefined || value.trim() === '' ? undefined : { key, value: value.trim() };
  };
  const secret = (name: string) => {
    const s = setting(name);
    return s === undefined ? undefined : { key: s.key, value: new HiddenValue(s.value) };
  };
  let tls: TlsSettings | undefined;
  const anyTls = REGISTRY_SETTINGS.some(
    (k) => k.startsWith('schema.registry.ssl.') && props[k] !== undefined,
  );
  if (anyTls || urls.some((u) => u.protocol === 'https:')) {
    const loaded = loadTlsSettings({
      truststoreLocation: setting('truststore.location'),
      truststorePassword: secret('truststore.password'),
      truststoreType: setting('truststore.type'),
      keystoreLocation: setting('keystore.location'),
      keystorePassword: secret('keystore.password'),
      keystoreType: setting('keystore.type'),
      keyPassword: secret('key.password'),
      verifyHostname:
        (props['schema.registry.ssl.endpoint.identification.algorithm'] ?? 'https').trim() !== '',
    });
    problems.push(...loaded.problems);
    tls = loaded.tls;
  }

  const cacheSize = Math.max(
    positiveInt(props, 'schemas.cache.config', 1000, problems),
    positiveInt(props, 'max.schemas.per.subject', 1000, problems),
  );
  const connectTimeoutMs = positiveInt(props, 'http.connect.timeout.ms', 60_000, problems);
  const readTimeoutMs = positiveInt(props, 'http.read.timeout.ms', 60_000, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { urls, authorization, tls, cacheSize, connectTimeoutMs, readTimeoutMs };
}
