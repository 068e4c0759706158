/**
 * SASL authentication failures at start, said as what they are and what to check. kafkajs's text
 * (`SASL SCRAM SHA512 authentication failed: Authentication failed during authentication due to invalid
 * credentials with SASL mechanism SCRAM-SHA-512`) names neither the user nor the settings; this names
 * the broker, the mechanism, the user (never the password) and the keys that decide it.
 */
import { SharesinkError, isSharesinkError } from '../../errors.js';

/** Who tried: the mechanism and, for PLAIN / SCRAM, the user name. */
export interface SaslIdentity {
  readonly mechanism: string;
  readonly username?: string | undefined;
}

/** The broker refused this client's SASL authentication. Code `SHARESINK_KAFKA_SASL`, as at run time. */
export class KafkaAuthenticationError extends SharesinkError {
  readonly broker: string;
  readonly mechanism: string | undefined;
  readonly username: string | undefined;
  /** The broker's (or the client library's) reason, e.g. `invalid credentials`. */
  readonly reason: string;

  constructor(args: {
    broker: string;
    identity: SaslIdentity | undefined;
    reason: string;
    unsupportedMechanism: boolean;
    cause?: unknown;
  }) {
    const mechanism = args.identity?.mechanism.toUpperCase();
    const who =
      mechanism === undefined
        ? 'this client'
        : args.identity?.username === undefined
          ? mechanism
          : `${mechanism} user "${args.identity.username}"`;
    const advice = args.unsupportedMechanism
      ? `Set sasl.mechanism to one this listener enables, or point bootstrap.servers at the listener meant for ${mechanism ?? 'it'}`
      : `Check the user name and password in sasl.jaas.config, and that the cluster has this user for ${mechanism ?? 'the mechanism'} (sasl.mechanism)`;
    super(
      'SHARESINK_KAFKA_SASL',
      `authentication failed at ${args.broker}: the broker refused ${who} (${args.reason}). ${advice}`,
      { cause: args.cause },
    );
    this.broker = args.broker;
    this.mechanism = mechanism;
    this.username = args.identity?.username;
    this.reason = args.reason;
  }
}

const UNSUPPORTED = /SASL (\S+) mechanism is not supported by the server/i;

/** `for SCRAM-SHA-512 user "alice":`, as translateKafkajsError names who was refused. */
const WHO = /SASL authentication failed for (\S+)(?: user "((?:[^"\\]|\\.)*)")?:/;

/** The SASL failure behind `err`, said plainly; undefined when `err` is something else. */
export function authenticationFailure(err: unknown, broker: string): KafkaAuthenticationError | undefined {
  if (!isSharesinkError(err)) return undefined;
  const saslCode = err.code === 'SHARESINK_KAFKA_SASL';
  // SaslAuthenticate answered SASL_AUTHENTICATION_FAILED (58) as a Kafka error code
  const saslKafkaError =
    err.code === 'SHARESINK_KAFKA_ERROR' && /SASL_AUTHENTICATION_FAILED/.test(err.message);
  if (!saslCode && !saslKafkaError) return undefined;
  const text = err.message;
  const who = WHO.exec(text);
  const identity = who === null ? undefined : { mechanism: who[1]!, username: who[2] };
  const unsupported = UNSUPPORTED.exec(text);
  if (unsupported !== null)
    return new KafkaAuthenticationError({
      broker,
      identity: identity ?? { mechanism: unsupported[1]! },
      reason: `this listener does not enable SASL ${unsupported[1]}`,
      unsupportedMechanism: true,
      cause: err,
    });
  const dueTo = /due to (.+?)(?: with SASL mechanism \S+)?\.?$/i.exec(text);
  const reason = dueTo?.[1] ?? text.slice(text.lastIndexOf(': ') + 2).trim();
  return new KafkaAuthenticationError({ broker, identity, reason, unsupportedMechanism: false, cause: err });
}

/**
 * The listener takes SASL and this client does not authenticate (security.protocol=SSL or PLAINTEXT):
 * the broker answers ApiVersions, then closes the connection at the next request. Code
 * `SHARESINK_KAFKA_SASL`: the fix is in the same settings as a refused password.
 */
export class SaslRequiredError extends SharesinkError {
  readonly broker: string;
  /** The mechanisms the listener enables, as it listed them. */
  readonly mechanisms: readonly string[];

  constructor(args: { broker: string; mechanisms: readonly string[]; protocol: string; cause?: unknown }) {
    const sasl = args.protocol === 'SSL' ? 'SASL_SSL' : 'SASL_PLAINTEXT';
    const which = args.mechanisms.length > 0 ? ` (it enables ${args.mechanisms.join(', ')})` : '';
    super(
      'SHARESINK_KAFKA_SASL',
      `the listener at ${args.broker} requires SASL authentication${which}, and security.protocol=${args.protocol} does not authenticate: the broker closed the connection. ` +
        `Set security.protocol=${sasl} with sasl.mechanism (one the listener enables) and sasl.jaas.config, or point bootstrap.servers at the listener meant for ${args.protocol}`,
      { cause: args.cause },
    );
    this.broker = args.broker;
    this.mechanisms = args.mechanisms;
  }
}
