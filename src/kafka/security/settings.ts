/**
 * Connect's client security keys (`security.protocol`, `sasl.*`, `ssl.*`) → {@link KafkaSecurity}, with
 * every problem named by the key as the user wrote it (`consumer.override.sasl.mechanism`) and what is
 * accepted. A combination sharesink cannot honour is a problem, never dropped: a worker must not talk
 * plaintext to a broker the file asked to reach over TLS. Secrets never appear in a message.
 */
import { JAAS_FORM, JaasSyntaxError, parseJaasConfig, type JaasEntry } from './jaas.js';
import { certificatePrincipal, loadTlsSettings, type SecretSetting, type Setting } from './tls-material.js';
import {
  HiddenValue,
  SASL_MECHANISMS,
  SECURITY_PROTOCOLS,
  type KafkaSecurity,
  type SaslSettings,
  type SecurityProtocol,
  type Secret,
} from './types.js';

export const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
export const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
export const OAUTH_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';

/** The keys this module reads, without prefix. */
export const SECURITY_KEYS = [
  'security.protocol',
  'sasl.mechanism',
  'sasl.jaas.config',
  'sasl.oauthbearer.token.endpoint.url',
  'sasl.oauthbearer.client.credentials.client.id',
  'sasl.oauthbearer.client.credentials.client.secret',
  'sasl.oauthbearer.scope',
  'sasl.login.callback.handler.class',
  'ssl.truststore.location',
  'ssl.truststore.password',
  'ssl.truststore.type',
  'ssl.truststore.certificates',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.keystore.type',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.key.password',
  'ssl.endpoint.identification.algorithm',
] as const;

/** Keys whose values are secrets: printed `[hidden]`, under any prefix. */
export const SECRET_SECURITY_KEYS: ReadonlySet<string> = new Set([
  'sasl.jaas.config',
  'sasl.oauthbearer.client.credentials.client.secret',
  'ssl.truststore.password',
  'ssl.truststore.certificates',
  'ssl.keystore.password',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.key.password',
  // Schema Registry converters' credentials (`value.converter.basic.auth.user.info`, …)
  'basic.auth.user.info',
  'bearer.auth.token',
]);

const KNOWN: ReadonlySet<string> = new Set(SECURITY_KEYS);

/** True for a key of the security family (`security.protocol`, `ssl.*`, `sasl.*`), without prefix. */
export function isSecurityKey(name: string): boolean {
  return name === 'security.protocol' || name.startsWith('ssl.') || name.startsWith('sasl.');
}

/** True when `key` (with any client prefix) holds a secret: `consumer.override.sasl.jaas.config`. */
export function isSecretSecurityKey(key: string): boolean {
  for (const name of SECRET_SECURITY_KEYS) if (key === name || key.endsWith(`.${name}`)) return true;
  return false;
}

const OAUTH_HANDLERS = new Set([
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
  'org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler',
]);

/** Security settings by name without prefix, each with the key it was written under. */
export type SecurityProps = ReadonlyMap<string, Setting>;

/**
 * Layers of properties, later ones winning key by key, as Connect overlays `consumer.override.*` on the
 * worker's `consumer.*`: `[{ props: worker, prefix: '' }, { props: worker, prefix: 'consumer.' }, …]`.
 */
export function overlaySecurityProps(
  layers: ReadonlyArray<{ readonly props: Readonly<Record<string, string>>; readonly prefix: string }>,
): Map<string, Setting> {
  const out = new Map<string, Setting>();
  for (const { props, prefix } of layers) {
    for (const [key, value] of Object.entries(props)) {
      if (!key.startsWith(prefix)) continue;
      const name = key.slice(prefix.length);
      if (isSecurityKey(name)) out.set(name, { key, value });
    }
  }
  return out;
}

export interface SecurityCheck {
  /** Undefined when there are problems. */
  readonly security: KafkaSecurity | undefined;
  readonly problems: string[];
  readonly warnings: string[];
}

const MECHANISM_MODULE: Readonly<Record<string, string>> = {
  PLAIN: PLAIN_MODULE,
  'SCRAM-SHA-256': SCRAM_MODULE,
  'SCRAM-SHA-512': SCRAM_MODULE,
  OAUTHBEARER: OAUTH_MODULE,
};

function jaasExample(mechanism: string): string {
  const module = MECHANISM_MODULE[mechanism] ?? PLAIN_MODULE;
  return mechanism === 'OAUTHBEARER'
    ? `${module} required clientId="…" clientSecret="…" scope="…";`
    : `${module} required username="…" password="…";`;
}

/** Compiles the settings of one client. Reads TLS files (and so checks their passwords) once, here. */
export function parseKafkaSecurity(props: SecurityProps): SecurityCheck {
  const problems: string[] = [];
  const warnings: string[] = [];
  const get = (name: string): Setting | undefined => {
    const s = props.get(name);
    return s === undefined || s.value.trim() === '' ? undefined : s;
  };
  const secretOf = (name: string): SecretSetting | undefined => {
    const s = props.get(name);
    return s === undefined || s.value === '' ? undefined : { key: s.key, value: new HiddenValue(s.value) };
  };

  const protocolSetting = get('security.protocol');
  const protocolText = protocolSetting?.value.trim().toUpperCase() ?? 'PLAINTEXT';
  if (!(SECURITY_PROTOCOLS as readonly string[]).includes(protocolText)) {
    problems.push(
      `${protocolSetting!.key}: ${JSON.stringify(protocolSetting!.value)} is not a security protocol; accepted: ${SECURITY_PROTOCOLS.join(', ')}`,
    );
    return { security: undefined, problems, warnings };
  }
  const protocol = protocolText as SecurityProtocol;
  const usesSasl = protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL';
  const usesTls = protocol === 'SSL' || protocol === 'SASL_SSL';
  const protocolNote = `security.protocol=${protocol}${protocolSetting ? ` (${protocolSetting.key})` : ' (the default)'}`;

  for (const [name, s] of props) {
    if (name === 'security.protocol') continue;
    if (!KNOWN.has(name)) {
      warnings.push(`${s.key}: has no effect in sharesink (its Kafka clients do not read it); ignored`);
      continue;
    }
    if (name.startsWith('sasl.') && !usesSasl && s.value.trim() !== '')
      warnings.push(
        `${s.key}: not used with ${protocolNote}, which does not authenticate with SASL; set security.protocol=SASL_SSL (or SASL_PLAINTEXT) to use it`,
      );
    if (
      name.startsWith('ssl.') &&
      !usesTls &&
      name !== 'ssl.endpoint.identification.algorithm' &&
      s.value !== ''
    )
      warnings.push(
        `${s.key}: not used with ${protocolNote}, which does not use TLS; set security.protocol=SSL (or SASL_SSL) to use it`,
      );
  }

  // a missing key is named under the prefix the protocol was set with (`consumer.override.sasl.mechanism`)
  const prefix =
    protocolSetting === undefined ? '' : protocolSetting.key.slice(0, -'security.protocol'.length);
  const sasl = usesSasl ? parseSasl(get, secretOf, protocol, prefix, problems, warnings) : undefined;
  let tls: KafkaSecurity['tls'];
  if (usesTls) {
    // TLS is checked even when SASL had problems, so that one run lists both
    const before = problems.length;
    const endpoint = props.get('ssl.endpoint.identification.algorithm');
    const algorithm = endpoint?.value.trim().toLowerCase() ?? 'https';
    if (algorithm !== '' && algorithm !== 'https')
      problems.push(
        `${endpoint!.key}: ${JSON.stringify(endpoint!.value)} is not an endpoint identification algorithm; accepted: https (the default: the broker's host name must match its certificate) or empty (no host name check)`,
      );
    for (const [location, inline] of [
      ['ssl.truststore.location', 'ssl.truststore.certificates'],
      ['ssl.keystore.location', 'ssl.keystore.certificate.chain'],
      ['ssl.keystore.location', 'ssl.keystore.key'],
    ] as const) {
      const a = get(location);
      const b = get(inline);
      if (a && b) problems.push(`${b.key}: both ${a.key} and ${b.key} are set; accepted: one of them`);
    }
    for (const name of ['ssl.truststore.type', 'ssl.keystore.type'] as const) {
      const t = get(name);
      const type = t?.value.trim().toUpperCase();
      if (t === undefined || type === 'PEM' || type === 'PKCS12') continue;
      if (type === 'JKS') {
        // Java reads PKCS12 files declared JKS; a real JKS file is refused when it is read, with the keytool line
        continue;
      }
      problems.push(
        `${t.key}: ${JSON.stringify(t.value)} is not a store type sharesink reads; accepted: PKCS12 or PEM`,
      );
    }
    if (problems.length === before) {
      const loaded = loadTlsSettings({
        truststoreLocation: get('ssl.truststore.location'),
        truststorePassword: secretOf('ssl.truststore.password'),
        truststoreType: get('ssl.truststore.type'),
        truststoreCertificates: secretOf('ssl.truststore.certificates'),
        keystoreLocation: get('ssl.keystore.location'),
        keystorePassword: secretOf('ssl.keystore.password'),
        keystoreType: get('ssl.keystore.type'),
        keystoreCertificateChain: secretOf('ssl.keystore.certificate.chain'),
        keystoreKey: secretOf('ssl.keystore.key'),
        keyPassword: secretOf('ssl.key.password'),
        verifyHostname: algorithm === 'https',
      });
      problems.push(...loaded.problems);
      tls = loaded.tls;
    }
  }
  if (problems.length > 0) return { security: undefined, problems, warnings };
  const principal = saslPrincipal(sasl) ?? (tls ? certificatePrincipal(tls) : undefined) ?? 'User:ANONYMOUS';
  return { security: { protocol, sasl, tls, principal }, problems, warnings };
}

function saslPrincipal(sasl: SaslSettings | undefined): string | undefined {
  if (sasl === undefined) return undefined;
  if ('username' in sasl) return `User:${sasl.username}`;
  if ('unsecuredSubject' in sasl) return `User:${sasl.unsecuredSubject}`;
  // the broker takes the principal from the token's claims, which only the identity provider knows
  return undefined;
}

function parseSasl(
  get: (name: string) => Setting | undefined,
  secretOf: (name: string) => SecretSetting | undefined,
  protocol: SecurityProtocol,
  prefix: string,
  problems: string[],
  warnings: string[],
): SaslSettings | undefined {
  const mechanismSetting = get('sasl.mechanism');
  const accepted = `accepted: ${SASL_MECHANISMS.join(', ')}`;
  if (mechanismSetting === undefined) {
    problems.push(
      `${prefix}sasl.mechanism: ${prefix}security.protocol=${protocol} needs a SASL mechanism and none is set (Java's default, GSSAPI, is not supported); ${accepted}`,
    );
    return undefined;
  }
  const mechanism = mechanismSetting.value.trim().toUpperCase();
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    const why =
      mechanism === 'GSSAPI'
        ? ' (Kerberos is not supported by the Node Kafka client sharesink uses)'
        : mechanism === 'AWS_MSK_IAM'
          ? ' (for Amazon MSK use SCRAM-SHA-512 or its OAUTHBEARER support)'
          : '';
    problems.push(
      `${mechanismSetting.key}: ${JSON.stringify(mechanismSetting.value)} is not supported${why}; ${accepted}`,
    );
    return undefined;
  }
  const jaasSetting = get('sasl.jaas.config');
  let jaas: JaasEntry | undefined;
  if (jaasSetting !== undefined) {
    try {
      jaas = parseJaasConfig(jaasSetting.value);
    } catch (err) {
      if (!(err instanceof JaasSyntaxError)) throw err;
      problems.push(`${jaasSetting.key}: ${err.message}; accepted: ${JAAS_FORM}`);
      return undefined;
    }
    const expected = MECHANISM_MODULE[mechanism]!;
    if (jaas.loginModule !== expected) {
      problems.push(
        `${jaasSetting.key}: the login module ${jaas.loginModule} does not go with ${mechanismSetting.key}=${mechanism}; accepted: ${jaasExample(mechanism)}`,
      );
      return undefined;
    }
  }

  if (mechanism !== 'OAUTHBEARER') {
    if (jaas === undefined) {
      problems.push(
        `${prefix}sasl.jaas.config: is required with ${mechanismSetting.key}=${mechanism}; accepted: ${jaasExample(mechanism)}`,
      );
      return undefined;
    }
    const missing = ['username', 'password'].filter((o) => (jaas.options[o] ?? '') === '');
    if (missing.length > 0) {
      problems.push(
        `${jaasSetting!.key}: has no ${missing.join(' and ')} option; accepted: ${jaasExample(mechanism)}`,
      );
      return undefined;
    }
    for (const option of Object.keys(jaas.options))
      if (option !== 'username' && option !== 'password')
        warnings.push(`${jaasSetting!.key}: option ${option} has no effect in sharesink; ignored`);
    return {
      mechanism: mechanism as 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
      username: jaas.options['username']!,
      password: new HiddenValue(jaas.options['password']!),
    };
  }
  return parseOAuth(get, secretOf, prefix, jaasSetting, jaas, problems, warnings);
}

function parseOAuth(
  get: (name: string) => Setting | undefined,
  secretOf: (name: string) => SecretSetting | undefined,
  prefix: string,
  jaasSetting: Setting | undefined,
  jaas: JaasEntry | undefined,
  problems: string[],
  warnings: string[],
): SaslSettings | undefined {
  const options = jaas?.options ?? {};
  const endpoint = get('sasl.oauthbearer.token.endpoint.url');
  const handler = get('sasl.login.callback.handler.class');
  if (handler !== undefined && !OAUTH_HANDLERS.has(handler.value.trim()))
    warnings.push(
      `${handler.key}: ${handler.value.trim()} has no effect in sharesink; tokens come from sasl.oauthbearer.token.endpoint.url (client credentials)`,
    );
  const unsecured = options['unsecuredLoginStringClaim_sub'];
  if (endpoint === undefined && unsecured !== undefined && unsecured !== '')
    return { mechanism: 'OAUTHBEARER', unsecuredSubject: unsecured };
  if (endpoint === undefined) {
    problems.push(
      `${prefix}sasl.oauthbearer.token.endpoint.url: is required with sasl.mechanism=OAUTHBEARER; accepted: the https:// URL of the OAuth token endpoint, with clientId="…" clientSecret="…" (and scope="…") in sasl.jaas.config`,
    );
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(endpoint.value.trim());
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    problems.push(
      `${endpoint.key}: ${JSON.stringify(endpoint.value)} is not an http(s) URL (a file: token is not supported); accepted: the https:// URL of the OAuth token endpoint`,
    );
    return undefined;
  }
  const idKey = get('sasl.oauthbearer.client.credentials.client.id');
  const secretKey = secretOf('sasl.oauthbearer.client.credentials.client.secret');
  const clientId = idKey?.value.trim() ?? options['clientId'];
  const clientSecret: Secret | undefined =
    secretKey?.value ?? (options['clientSecret'] ? new HiddenValue(options['clientSecret']) : undefined);
  const scope = get('sasl.oauthbearer.scope')?.value.trim() ?? options['scope'];
  const missing = [
    ...(clientId === undefined || clientId === '' ? ['clientId'] : []),
    ...(clientSecret === undefined ? ['clientSecret'] : []),
  ];
  if (missing.length > 0) {
    problems.push(
      `${jaasSetting?.key ?? `${prefix}sasl.jaas.config`}: has no ${missing.join(' and ')} for the token endpoint; accepted: ${OAUTH_MODULE} required clientId="…" clientSecret="…" scope="…"; (or sasl.oauthbearer.client.credentials.client.id / .client.secret)`,
    );
    return undefined;
  }
  return {
    mechanism: 'OAUTHBEARER',
    tokenEndpoint: url.href,
    clientId: clientId!,
    clientSecret: clientSecret!,
    scope,
  };
}
