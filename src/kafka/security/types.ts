/**
 * How one Kafka client authenticates and encrypts: what Connect's `security.protocol`, `sasl.*` and
 * `ssl.*` keys compile to. TLS material is already loaded (files read, PKCS#12 truststores opened) so
 * that a client factory needs no I/O and a bad file is a configuration problem, found at validation.
 * Secrets are {@link Secret}s: they print as `[hidden]` wherever a config object lands in a log line.
 */

/** A value that prints as `[hidden]` (the config layer's `Password` is one). */
export interface Secret {
  value(): string;
}

/** A {@link Secret} made here (a key read from a file, a JAAS password). */
export { HiddenValue } from '../../hidden-value.js';

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export const SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export type SaslSettings =
  | {
      readonly mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
      readonly username: string;
      readonly password: Secret;
    }
  | {
      readonly mechanism: 'OAUTHBEARER';
      /** `sasl.oauthbearer.token.endpoint.url`: an OAuth 2 token endpoint (client credentials grant). */
      readonly tokenEndpoint: string;
      readonly clientId: string;
      readonly clientSecret: Secret;
      readonly scope?: string | undefined;
    }
  | {
      /** Kafka's unsecured OAUTHBEARER tokens (`unsecuredLoginStringClaim_sub`): development brokers only. */
      readonly mechanism: 'OAUTHBEARER';
      readonly unsecuredSubject: string;
    };

export interface TlsSettings {
  /** Trusted CA certificates, PEM; undefined trusts Node's default CAs. */
  readonly ca?: readonly string[] | undefined;
  /** Client certificate chain, PEM (mTLS). */
  readonly cert?: string | undefined;
  /** Client private key, PEM (mTLS). */
  readonly key?: Secret | undefined;
  /** Passphrase of an encrypted `key` (`ssl.key.password`). */
  readonly keyPassphrase?: Secret | undefined;
  /** A PKCS#12 keystore (mTLS) and its password. */
  readonly pfx?: Buffer | undefined;
  readonly pfxPassphrase?: Secret | undefined;
  /** `ssl.endpoint.identification.algorithm=https` (the default): the broker's name must match its certificate. */
  readonly verifyHostname: boolean;
}

export interface KafkaSecurity {
  readonly protocol: SecurityProtocol;
  /** Set for SASL_PLAINTEXT and SASL_SSL. */
  readonly sasl?: SaslSettings | undefined;
  /** Set for SSL and SASL_SSL. */
  readonly tls?: TlsSettings | undefined;
  /**
   * Who the broker will see, for messages: `User:alice` (SASL user name), `User:CN=client,O=acme` (the
   * certificate's subject, as Kafka's default principal builder names it), `User:ANONYMOUS`.
   */
  readonly principal?: string | undefined;
}

export const PLAINTEXT: KafkaSecurity = { protocol: 'PLAINTEXT', principal: 'User:ANONYMOUS' };
