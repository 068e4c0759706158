/**
 * Kafka client security with Connect's keys: `security.protocol`, `sasl.*` (PLAIN, SCRAM, OAUTHBEARER)
 * and `ssl.*` (PEM / PKCS#12 stores, inline PEM, mTLS) → {@link KafkaSecurity} → kafkajs options.
 *
 * @example
 * ```ts
 * const check = parseKafkaSecurity(overlaySecurityProps([{ props: workerProps, prefix: '' }]));
 * if (check.security) new KafkaCluster({ brokers, ...kafkajsSecurityOptions(check.security) });
 * ```
 */
export * from './types.js';
export { parseJaasConfig, JaasSyntaxError, type JaasEntry } from './jaas.js';
export {
  parseKafkaSecurity,
  overlaySecurityProps,
  isSecurityKey,
  isSecretSecurityKey,
  SECURITY_KEYS,
  SECRET_SECURITY_KEYS,
  type SecurityCheck,
  type SecurityProps,
} from './settings.js';
export { kafkajsSecurityOptions, type KafkajsSecurityOptions } from './kafkajs-options.js';
export { ClientCredentialsTokenProvider, OAuthTokenError, unsecuredToken } from './oauth.js';
export { pemBlocks, certificatePrincipal } from './tls-material.js';
