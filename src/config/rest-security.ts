/**
 * The REST API's own protection, from the worker file: TLS for an `https://` listener (Connect's
 * `listeners.https.ssl.*` keys) and authentication (HTTP basic from a credentials file, as Connect's
 * BasicAuthSecurityRestExtension reads it, and/or a bearer token). Files are read here, at validation,
 * so a missing keystore or an unreadable credentials file is a configuration problem named by its key,
 * not a failure after the worker has started. No message ever repeats a password or a token.
 */
import { readFileSync } from 'node:fs';
import type { ConfigDef, Password } from '../connect/config-def.js';
import { oneOf, type Validator } from '../connect/config-validators.js';
import { JaasSyntaxError, parseJaasConfig } from '../kafka/security/jaas.js';
import { loadTlsSettings, type SecretSetting, type Setting } from '../kafka/security/tls-material.js';
import { HiddenValue, type Secret } from '../kafka/security/types.js';
import { parseListener } from './listener.js';
import { parseProperties } from './properties.js';

export const CLIENT_AUTH_VALUES = ['none', 'requested', 'required'] as const;
export type ClientAuth = (typeof CLIENT_AUTH_VALUES)[number];

export interface RestTls {
  /** Server certificate chain and key (PEM), or a PKCS#12 keystore. */
  readonly cert?: string | undefined;
  readonly key?: Secret | undefined;
  readonly keyPassphrase?: Secret | undefined;
  readonly pfx?: Buffer | undefined;
  readonly pfxPassphrase?: Secret | undefined;
  /** CAs whose client certificates are accepted (`listeners.https.ssl.truststore.*`). */
  readonly ca?: readonly string[] | undefined;
  /** `listeners.https.ssl.client.auth`. */
  readonly clientAuth: ClientAuth;
}

export interface RestAuth {
  /** HTTP basic users and their passwords; undefined: basic authentication is off. */
  readonly basicUsers?: ReadonlyMap<string, Secret> | undefined;
  /** The bearer token; undefined: bearer authentication is off. */
  readonly bearerToken?: Secret | undefined;
  /** Paths answered without authentication (exact match). */
  readonly exemptPaths: readonly string[];
}

export interface RestSecurity {
  /** Set for an `https://` listener. */
  readonly tls?: RestTls | undefined;
  readonly auth: RestAuth;
}

/** No TLS, no authentication, `/health` exempt: what a worker file without these keys compiles to. */
export const OPEN_REST: RestSecurity = { auth: { exemptPaths: ['/health'] } };

const HTTPS = 'listeners.https.';
/** Connect's REST extension that does HTTP basic authentication; its JAAS login context is `KafkaConnect`. */
export const BASIC_AUTH_EXTENSION =
  'org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension';
const PROPERTY_FILE_MODULE = 'PropertyFileLoginModule';

const group = 'rest';

function absolutePaths(): Validator<readonly string[] | null> {
  return {
    check: (paths) => {
      const bad = (paths ?? []).find((p) => !p.startsWith('/'));
      return bad === undefined ? undefined : `has ${JSON.stringify(bad)}, which does not start with /`;
    },
    describe: () => 'paths starting with /, or empty',
  };
}

/** Adds the REST security keys to the worker's ConfigDef (one declaration each, as every other key). */
export function defineRestSecurity<T extends ConfigDef<Record<string, unknown>>>(def: T): T {
  const tls = (name: string, type: 'string' | 'password', documentation: string) =>
    def.define({ name: `${HTTPS}${name}`, type, default: null, importance: 'medium', group, documentation });
  tls(
    'ssl.keystore.location',
    'string',
    "The REST server's certificate and key for an `https://` listener: a PKCS12 file, or a PEM file holding the key and the certificate chain (Connect's name). JKS is refused with the keytool line that converts it.",
  );
  tls('ssl.keystore.password', 'password', 'Password of `listeners.https.ssl.keystore.location` (PKCS12).');
  tls('ssl.keystore.type', 'string', 'PKCS12 or PEM; read from the file itself when not set.');
  tls('ssl.key.password', 'password', 'Password of an encrypted PEM private key.');
  tls(
    'ssl.keystore.certificate.chain',
    'password',
    "The REST server's certificate chain as inline PEM, instead of a keystore file (with `listeners.https.ssl.keystore.key`).",
  );
  tls('ssl.keystore.key', 'password', "The REST server's private key as inline PEM.");
  tls(
    'ssl.truststore.location',
    'string',
    'CAs whose client certificates the REST server accepts (`listeners.https.ssl.client.auth`): PKCS12 or PEM.',
  );
  tls(
    'ssl.truststore.password',
    'password',
    'Password of a PKCS12 `listeners.https.ssl.truststore.location`.',
  );
  tls('ssl.truststore.type', 'string', 'PKCS12 or PEM; read from the file itself when not set.');
  tls(
    'ssl.truststore.certificates',
    'password',
    'Trusted client CAs as inline PEM, instead of a truststore file.',
  );
  def.define({
    name: `${HTTPS}ssl.client.auth`,
    type: 'string',
    default: 'none',
    validator: oneOf(CLIENT_AUTH_VALUES, { caseInsensitive: true }),
    importance: 'medium',
    group,
    documentation:
      "`required`: every REST client must present a certificate signed by a CA of the truststore (mTLS); `requested`: asked for, not required; `none`: not asked for. Connect's name and values.",
  });
  def.define({
    name: 'rest.auth.basic.credentials.file',
    type: 'string',
    default: null,
    importance: 'high',
    group,
    documentation:
      "HTTP basic authentication on the REST API: a file of `user: password` lines (Java properties), the file Connect's `PropertyFileLoginModule` reads. Every request except `rest.auth.exempt.paths` then needs a listed user. See docs/security.md.",
  });
  def.define({
    name: 'rest.auth.basic.jaas.file',
    type: 'string',
    default: null,
    importance: 'high',
    group,
    documentation:
      'The JAAS file a Connect worker with `BasicAuthSecurityRestExtension` is given (`-Djava.security.auth.login.config`): its `KafkaConnect` entry, a `PropertyFileLoginModule` with `file="…"`, names the credentials file. An alternative to `rest.auth.basic.credentials.file`.',
  });
  def.define({
    name: 'rest.extension.classes',
    type: 'list',
    default: [],
    importance: 'low',
    group,
    documentation: `Connect's REST extensions. Only \`${BASIC_AUTH_EXTENSION}\` is accepted, read as HTTP basic authentication with \`rest.auth.basic.jaas.file\`; any other class is refused (sharesink runs no Java).`,
  });
  def.define({
    name: 'rest.auth.bearer.token',
    type: 'password',
    default: null,
    importance: 'high',
    group,
    documentation:
      'A token the REST API accepts as `Authorization: Bearer <token>`, alone or besides basic authentication. Use a long random value (e.g. `openssl rand -hex 32`).',
  });
  def.define({
    name: 'rest.auth.exempt.paths',
    type: 'list',
    default: ['/health'],
    validator: absolutePaths(),
    importance: 'low',
    group,
    documentation:
      'Paths answered without authentication (exact match), so a liveness probe needs no credentials. Empty: every path needs them. `/metrics` and `/machines` follow the same rule as the rest.',
  });
  return def;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const secret = (v: unknown): Password | undefined =>
  v !== null && typeof v === 'object' ? (v as Password) : undefined;

/**
 * Compiles the REST security settings, reading the keystore, truststore and credentials files.
 * `get(key)` returns the parsed value of a declared key; `raw` is the worker file (for keys Connect
 * has and sharesink does not declare, such as `rest.extension.classes`).
 */
export function compileRestSecurity(
  get: (key: string) => unknown,
  raw: Readonly<Record<string, string>>,
): { security: RestSecurity; problems: string[] } {
  const problems: string[] = [];
  const listener = parseListener(((get('listeners') as string[] | null) ?? [])[0] ?? '');
  const tls = listener?.scheme === 'https' ? restTls(get, problems) : undefined;
  if (listener?.scheme !== 'https') {
    const stray = Object.keys(raw).filter((k) => k.startsWith(`${HTTPS}ssl.`));
    if (stray.length > 0)
      problems.push(
        `${stray[0]}: set, but listeners is not https://host:port, so the REST server would not use it; accepted: listeners=https://host:port with the listeners.https.ssl.* keys, or neither`,
      );
  }
  const auth = restAuth(get, raw, problems);
  return { security: { tls, auth }, problems };
}

function restTls(get: (key: string) => unknown, problems: string[]): RestTls | undefined {
  const setting = (name: string): Setting | undefined => {
    const value = text(get(`${HTTPS}${name}`));
    return value === undefined ? undefined : { key: `${HTTPS}${name}`, value };
  };
  const secretSetting = (name: string): SecretSetting | undefined => {
    const value = secret(get(`${HTTPS}${name}`));
    return value === undefined ? undefined : { key: `${HTTPS}${name}`, value };
  };
  const keystore = setting('ssl.keystore.location') ?? secretSetting('ssl.keystore.certificate.chain');
  if (keystore === undefined) {
    problems.push(
      `${HTTPS}ssl.keystore.location: is required with an https:// listener; accepted: the server's certificate and key as a PKCS12 or PEM file (or ${HTTPS}ssl.keystore.certificate.chain and ${HTTPS}ssl.keystore.key as inline PEM)`,
    );
    return undefined;
  }
  const loaded = loadTlsSettings({
    keystoreLocation: setting('ssl.keystore.location'),
    keystorePassword: secretSetting('ssl.keystore.password'),
    keystoreType: setting('ssl.keystore.type'),
    keystoreCertificateChain: secretSetting('ssl.keystore.certificate.chain'),
    keystoreKey: secretSetting('ssl.keystore.key'),
    keyPassword: secretSetting('ssl.key.password'),
    truststoreLocation: setting('ssl.truststore.location'),
    truststorePassword: secretSetting('ssl.truststore.password'),
    truststoreType: setting('ssl.truststore.type'),
    truststoreCertificates: secretSetting('ssl.truststore.certificates'),
    verifyHostname: false,
    keystoreRole: 'server',
  });
  problems.push(...loaded.problems);
  const clientAuth = (text(get(`${HTTPS}ssl.client.auth`)) ?? 'none').toLowerCase() as ClientAuth;
  if (clientAuth !== 'none' && loaded.tls?.ca === undefined && loaded.problems.length === 0)
    problems.push(
      `${HTTPS}ssl.client.auth: is ${clientAuth}, but no truststore says which client certificates to accept; accepted: ${HTTPS}ssl.truststore.location (or ${HTTPS}ssl.truststore.certificates) with it, or none`,
    );
  if (loaded.tls === undefined) return undefined;
  const { cert, key, keyPassphrase, pfx, pfxPassphrase, ca } = loaded.tls;
  return { cert, key, keyPassphrase, pfx, pfxPassphrase, ca, clientAuth };
}

function restAuth(
  get: (key: string) => unknown,
  raw: Readonly<Record<string, string>>,
  problems: string[],
): RestAuth {
  const exemptPaths = (get('rest.auth.exempt.paths') as string[] | null) ?? [];
  const credentialsFile = text(get('rest.auth.basic.credentials.file'));
  const jaasFile = text(get('rest.auth.basic.jaas.file'));
  const extensions = (get('rest.extension.classes') as string[] | null) ?? [];
  for (const ext of extensions.filter((c) => c !== BASIC_AUTH_EXTENSION))
    problems.push(
      `rest.extension.classes: ${ext} is a Java REST extension, which sharesink cannot run; accepted: ${BASIC_AUTH_EXTENSION} (read as rest.auth.basic.*), or remove it`,
    );
  if (extensions.includes(BASIC_AUTH_EXTENSION) && credentialsFile === undefined && jaasFile === undefined)
    problems.push(
      `rest.extension.classes: ${BASIC_AUTH_EXTENSION} needs its JAAS file, which Connect takes from -Djava.security.auth.login.config; accepted: rest.auth.basic.jaas.file=<that file> (or rest.auth.basic.credentials.file=<the user: password file>)`,
    );
  if (credentialsFile !== undefined && jaasFile !== undefined)
    problems.push(
      'rest.auth.basic.jaas.file: set together with rest.auth.basic.credentials.file; accepted: one of them',
    );
  let basicUsers: Map<string, Secret> | undefined;
  const file =
    credentialsFile ?? (jaasFile === undefined ? undefined : credentialsFromJaas(jaasFile, problems));
  if (file !== undefined) {
    const key =
      credentialsFile !== undefined ? 'rest.auth.basic.credentials.file' : 'rest.auth.basic.jaas.file';
    basicUsers = readCredentials(file, key, problems);
  }
  const token = secret(get('rest.auth.bearer.token'));
  if (token !== undefined && token.value().trim() === '')
    problems.push('rest.auth.bearer.token: is empty; accepted: a long random value, or no such line');
  return { basicUsers, bearerToken: token, exemptPaths };
}

/** The `file` option of the `KafkaConnect` entry's PropertyFileLoginModule, as Connect reads it. */
function credentialsFromJaas(jaasFile: string, problems: string[]): string | undefined {
  const key = 'rest.auth.basic.jaas.file';
  let content: string;
  try {
    content = readFileSync(jaasFile, 'utf8');
  } catch (err) {
    problems.push(
      `${key}: cannot read ${jaasFile} (${(err as NodeJS.ErrnoException).code ?? 'error'}); accepted: a readable file`,
    );
    return undefined;
  }
  // JAAS files take // and /* */ comments; the entry is `Name { module flag options; };`
  const uncommented = content.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const entry = /(?:^|[\s;}])KafkaConnect\s*\{([\s\S]*?)\}\s*;?/.exec(uncommented);
  if (entry === null) {
    problems.push(
      `${key}: ${jaasFile} has no KafkaConnect { … }; entry; accepted: KafkaConnect { org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required file="/path/to/credentials.properties"; };`,
    );
    return undefined;
  }
  try {
    const parsed = parseJaasConfig(entry[1]!);
    if (!parsed.loginModule.endsWith(PROPERTY_FILE_MODULE)) {
      problems.push(
        `${key}: the KafkaConnect entry of ${jaasFile} uses ${parsed.loginModule}; accepted: org.apache.kafka.connect.rest.basic.auth.extension.${PROPERTY_FILE_MODULE} with file="…"`,
      );
      return undefined;
    }
    const file = parsed.options['file'];
    if (file === undefined || file === '') {
      problems.push(
        `${key}: the ${PROPERTY_FILE_MODULE} of ${jaasFile} has no file="…" option naming the credentials file`,
      );
      return undefined;
    }
    return file;
  } catch (err) {
    if (!(err instanceof JaasSyntaxError)) throw err;
    problems.push(`${key}: the KafkaConnect entry of ${jaasFile} ${err.message}`);
    return undefined;
  }
}

function readCredentials(file: string, key: string, problems: string[]): Map<string, Secret> | undefined {
  let props: Record<string, string>;
  try {
    props = parseProperties(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problems.push(
      code !== undefined
        ? `${key}: cannot read the credentials file ${file} (${code}); accepted: a readable file of user: password lines`
        : `${key}: the credentials file ${file} is not a properties file (${(err as Error).message.split('\n')[0]})`,
    );
    return undefined;
  }
  const users = new Map<string, Secret>();
  for (const [user, password] of Object.entries(props)) users.set(user, new HiddenValue(password));
  if (users.size === 0) {
    problems.push(
      `${key}: the credentials file ${file} lists no user; accepted: one user: password line per user`,
    );
    return undefined;
  }
  return users;
}
