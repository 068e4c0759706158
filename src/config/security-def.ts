/**
 * Connect's client security keys, declared once for docs/configuration.md and docs/security.md. They
 * are read at every client level: top-level and `consumer.` / `producer.` / `admin.` in the worker file,
 * `consumer.override.` / `producer.override.` / `admin.override.` in a connector file (see
 * client-security.ts); src/kafka/security/ compiles them.
 */
import { ConfigDef } from '../connect/config-def.js';
import { oneOf } from '../connect/config-validators.js';
import { SASL_MECHANISMS, SECURITY_PROTOCOLS } from '../kafka/security/index.js';

const group = 'security';

export const SECURITY_CONFIG_DEF = new ConfigDef()
  .define({
    name: 'security.protocol',
    type: 'string',
    default: 'PLAINTEXT',
    validator: oneOf(SECURITY_PROTOCOLS, { caseInsensitive: true }),
    importance: 'high',
    group,
    documentation:
      'How the Kafka clients talk to the brokers: `PLAINTEXT`, `SSL` (TLS), `SASL_PLAINTEXT` (SASL without TLS) or `SASL_SSL` (SASL over TLS). A `sasl.*` or `ssl.*` setting the protocol does not use is reported as a warning.',
  })
  .define({
    name: 'sasl.mechanism',
    type: 'string',
    default: null,
    validator: oneOf(SASL_MECHANISMS, { caseInsensitive: true }),
    importance: 'high',
    group,
    documentation:
      "SASL mechanism for `SASL_PLAINTEXT` / `SASL_SSL`: `PLAIN`, `SCRAM-SHA-256`, `SCRAM-SHA-512` or `OAUTHBEARER`. Required with those protocols (Java's default, GSSAPI, is not supported).",
  })
  .define({
    name: 'sasl.jaas.config',
    type: 'password',
    default: null,
    importance: 'high',
    group,
    documentation:
      'The login module and its options, as Java writes them: `org.apache.kafka.common.security.plain.PlainLoginModule required username="…" password="…";` (PLAIN), `org.apache.kafka.common.security.scram.ScramLoginModule required username="…" password="…";` (SCRAM), `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId="…" clientSecret="…" scope="…";` (OAUTHBEARER).',
  })
  .define({
    name: 'sasl.oauthbearer.token.endpoint.url',
    type: 'string',
    default: null,
    importance: 'medium',
    group,
    documentation:
      "OAUTHBEARER: the identity provider's token endpoint (`https://…`). Tokens are fetched with the client credentials grant (`clientId` / `clientSecret` in `sasl.jaas.config`, HTTP basic auth, `scope` when set), shared by the client's connections and refreshed at 80% of their lifetime.",
  })
  .define({
    name: 'sasl.oauthbearer.client.credentials.client.id',
    type: 'string',
    default: null,
    importance: 'low',
    group,
    documentation: 'OAUTHBEARER: the client id (Kafka 4.1 name); wins over `clientId` in `sasl.jaas.config`.',
  })
  .define({
    name: 'sasl.oauthbearer.client.credentials.client.secret',
    type: 'password',
    default: null,
    importance: 'low',
    group,
    documentation:
      'OAUTHBEARER: the client secret (Kafka 4.1 name); wins over `clientSecret` in `sasl.jaas.config`.',
  })
  .define({
    name: 'sasl.oauthbearer.scope',
    type: 'string',
    default: null,
    importance: 'low',
    group,
    documentation:
      'OAUTHBEARER: the scope asked for (Kafka 4.1 name); wins over `scope` in `sasl.jaas.config`.',
  })
  .define({
    name: 'sasl.login.callback.handler.class',
    type: 'class',
    default: null,
    importance: 'low',
    group,
    documentation:
      "Accepted for Java files: Kafka's `OAuthBearerLoginCallbackHandler` is what sharesink does with a token endpoint; any other class is reported as having no effect.",
  })
  .define({
    name: 'ssl.truststore.location',
    type: 'string',
    default: null,
    importance: 'high',
    group,
    documentation:
      "File of the CA certificates that sign the brokers' certificates: PEM or PKCS12 (told apart by the file's content). JKS is refused with the `keytool -importkeystore … -deststoretype PKCS12` line that converts it. Unset: Node's default CAs (public CAs, as for a cloud service).",
  })
  .define({
    name: 'ssl.truststore.password',
    type: 'password',
    default: null,
    importance: 'high',
    group,
    documentation: 'Password of a PKCS12 truststore. Checked when the configuration is validated.',
  })
  .define({
    name: 'ssl.truststore.type',
    type: 'string',
    default: null,
    validator: oneOf(['PEM', 'PKCS12', 'JKS'], { caseInsensitive: true }),
    importance: 'low',
    group,
    documentation:
      "`PEM` or `PKCS12`. Optional: the file's content decides; `JKS` is accepted for a PKCS12 file (as Java reads one) and a real JKS file is refused with how to convert it.",
  })
  .define({
    name: 'ssl.truststore.certificates',
    type: 'password',
    default: null,
    importance: 'medium',
    group,
    documentation:
      'Trusted CA certificates inline, PEM (instead of `ssl.truststore.location`). Line breaks may be lost to `.properties` line continuations.',
  })
  .define({
    name: 'ssl.keystore.location',
    type: 'string',
    default: null,
    importance: 'high',
    group,
    documentation:
      "mTLS: the client's private key and certificate chain, PKCS12 (one key entry) or PEM (key and certificates in one file). JKS is refused with how to convert it.",
  })
  .define({
    name: 'ssl.keystore.password',
    type: 'password',
    default: null,
    importance: 'high',
    group,
    documentation: 'mTLS: password of a PKCS12 keystore. Checked when the configuration is validated.',
  })
  .define({
    name: 'ssl.keystore.type',
    type: 'string',
    default: null,
    validator: oneOf(['PEM', 'PKCS12', 'JKS'], { caseInsensitive: true }),
    importance: 'low',
    group,
    documentation: 'As `ssl.truststore.type`, for the keystore.',
  })
  .define({
    name: 'ssl.keystore.certificate.chain',
    type: 'password',
    default: null,
    importance: 'medium',
    group,
    documentation: "mTLS: the client's certificate chain inline, PEM (with `ssl.keystore.key`).",
  })
  .define({
    name: 'ssl.keystore.key',
    type: 'password',
    default: null,
    importance: 'medium',
    group,
    documentation:
      "mTLS: the client's private key inline, PEM (PKCS#8; encrypted with `ssl.key.password` or not).",
  })
  .define({
    name: 'ssl.key.password',
    type: 'password',
    default: null,
    importance: 'high',
    group,
    documentation:
      'mTLS: passphrase of an encrypted PEM private key (`ssl.keystore.key` or a PEM keystore file).',
  })
  .define({
    name: 'ssl.endpoint.identification.algorithm',
    type: 'string',
    default: 'https',
    validator: oneOf(['https', ''], { caseInsensitive: true }),
    importance: 'medium',
    group,
    documentation:
      "`https`: the broker's host name must match its certificate. Empty: no host name check (the certificate chain is still verified).",
  });
