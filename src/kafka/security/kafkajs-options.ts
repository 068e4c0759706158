/**
 * {@link KafkaSecurity} → the `ssl` and `sasl` options of a kafkajs client or connection: the one place
 * every client factory (share client, classic consumer, producers, admin calls) gets them from.
 */
import type { ConnectionOptions } from 'node:tls';
import type { SaslConfig, SslConfig } from '../kafkajs/internals.js';
import { ClientCredentialsTokenProvider, unsecuredToken } from './oauth.js';
import type { KafkaSecurity, SaslSettings } from './types.js';

export interface KafkajsSecurityOptions {
  readonly ssl?: SslConfig;
  readonly sasl?: SaslConfig;
}

// one token provider per SASL settings object: every connection of a worker shares its token
const providers = new WeakMap<SaslSettings, ClientCredentialsTokenProvider>();

type ClientCredentialsSasl = Extract<SaslSettings, { tokenEndpoint: string }>;

function tokenProvider(sasl: ClientCredentialsSasl): ClientCredentialsTokenProvider {
  let provider = providers.get(sasl);
  if (provider === undefined) {
    provider = new ClientCredentialsTokenProvider(sasl);
    providers.set(sasl, provider);
  }
  return provider;
}

function saslOptions(sasl: SaslSettings): SaslConfig {
  switch (sasl.mechanism) {
    case 'PLAIN':
      return { mechanism: 'plain', username: sasl.username, password: sasl.password.value() };
    case 'SCRAM-SHA-256':
      return { mechanism: 'scram-sha-256', username: sasl.username, password: sasl.password.value() };
    case 'SCRAM-SHA-512':
      return { mechanism: 'scram-sha-512', username: sasl.username, password: sasl.password.value() };
    case 'OAUTHBEARER': {
      if ('unsecuredSubject' in sasl) {
        const subject = sasl.unsecuredSubject;
        return {
          mechanism: 'oauthbearer',
          oauthBearerProvider: async () => ({ value: unsecuredToken(subject) }),
        };
      }
      return { mechanism: 'oauthbearer', oauthBearerProvider: tokenProvider(sasl).provider };
    }
  }
}

function tlsOptions(security: KafkaSecurity): ConnectionOptions {
  const tls = security.tls;
  if (tls === undefined) return {};
  const out: ConnectionOptions = {};
  if (tls.ca !== undefined) out.ca = [...tls.ca];
  if (tls.cert !== undefined) out.cert = tls.cert;
  if (tls.key !== undefined) {
    out.key = tls.key.value();
    if (tls.keyPassphrase !== undefined) out.passphrase = tls.keyPassphrase.value();
  }
  if (tls.pfx !== undefined) {
    out.pfx = tls.pfx;
    out.passphrase = tls.pfxPassphrase?.value() ?? '';
  }
  // ssl.endpoint.identification.algorithm= (empty): the chain is still verified, the host name is not
  if (!tls.verifyHostname) out.checkServerIdentity = () => undefined;
  return out;
}

/** The kafkajs `ssl` / `sasl` options for `security`; `{}` for PLAINTEXT or undefined. */
export function kafkajsSecurityOptions(security: KafkaSecurity | undefined): KafkajsSecurityOptions {
  if (security === undefined || security.protocol === 'PLAINTEXT') return {};
  const usesTls = security.protocol === 'SSL' || security.protocol === 'SASL_SSL';
  return {
    ...(usesTls ? { ssl: tlsOptions(security) } : {}),
    ...(security.sasl !== undefined ? { sasl: saslOptions(security.sasl) } : {}),
  };
}
