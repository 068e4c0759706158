/**
 * What the target cluster's errors mean for the person running the sink, for the errors that are not
 * about the records. The target refusing the sink's producer itself: who it is (SASL authentication)
 * or what it may do (ACLs). kafkajs marks these non-retriable, and a non-retriable put REJECTs its
 * batch in share mode, so a wrong password or a missing ACL on the target would archive the records,
 * which are fine: the client is what is wrong. The sink reports them as retriable instead (a TLS
 * failure, which kafkajs reports as a connection error, already is): the records stay locked and are
 * put again, a grant heals the task where it runs, and fixed credentials take a restart, which
 * releases the records. A target topic that does not exist is retriable in kafkajs already; its
 * message only lacks the name.
 */
import type { KafkaSecurity } from '../../kafka/security/index.js';
import { RETRIED_NOT_REJECTED as KEPT } from '../retried-not-rejected.js';

/** What the message needs to name: where the target is, who the producer is, where it writes. */
export interface TargetIdentity {
  readonly brokers: readonly string[];
  readonly security: KafkaSecurity;
  /** The target topics of the records being produced. */
  readonly topics: readonly string[];
}

const AUTHORIZATION = new Set(['TOPIC_AUTHORIZATION_FAILED', 'CLUSTER_AUTHORIZATION_FAILED']);
const SASL_TYPES = new Set([
  'SASL_AUTHENTICATION_FAILED',
  'UNSUPPORTED_SASL_MECHANISM',
  'ILLEGAL_SASL_STATE',
]);

/** The error and what it wraps (`cause`, kafkajs's `originalError`), outermost first. */
export function errorChain(error: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && out.length < 10;) {
    out.push(e);
    e = (e as { cause?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return out;
}

const field = (e: unknown, key: 'name' | 'type' | 'message'): string => {
  const v = (e as Record<string, unknown> | null)?.[key];
  return typeof v === 'string' ? v : '';
};

function who(security: KafkaSecurity): string {
  const sasl = security.sasl;
  if (sasl !== undefined && 'username' in sasl) return `${sasl.mechanism} user "${sasl.username}"`;
  if (sasl !== undefined) return sasl.mechanism;
  return security.principal ?? 'the producer';
}

/**
 * A message saying what happened and what fixes it, when `error` is the target refusing the producer
 * (then the caller makes it retriable) or missing a topic; undefined for anything else.
 */
export function explainTargetError(error: unknown, target: TargetIdentity): string | undefined {
  const errors = errorChain(error);
  const at = target.brokers.join(',');
  if (errors.some((e) => field(e, 'type') === 'UNKNOWN_TOPIC_OR_PARTITION')) {
    const topics = target.topics.join(', ');
    return (
      `the target cluster (${at}) has no topic ${topics}, and does not create topics on first write ` +
      `(auto.create.topics.enable=false): create it (kafka-topics.sh --bootstrap-server ${target.brokers[0] ?? '…'} ` +
      `--create --topic ${target.topics[0] ?? '…'}), or fix the connector's topic setting. ${KEPT}`
    );
  }
  const sasl = errors.find(
    (e) => field(e, 'name') === 'KafkaJSSASLAuthenticationError' || SASL_TYPES.has(field(e, 'type')),
  );
  if (sasl !== undefined) {
    return (
      `the target cluster (${at}) refused ${who(target.security)}: ${field(sasl, 'message')}. ` +
      'Check producer.override.sasl.jaas.config and producer.override.sasl.mechanism (when the sink writes ' +
      'back to the source cluster without producer.override.*, the consumer.override.* ones), then restart ' +
      `the connector. ${KEPT}`
    );
  }
  const denied = errors.find((e) => AUTHORIZATION.has(field(e, 'type')));
  if (denied === undefined) return undefined;
  const principal = target.security.principal ?? 'User:<name>';
  const topics = target.topics.length > 0 ? target.topics : ['<target topic>'];
  const grants = topics
    .map(
      (t) =>
        `kafka-acls.sh --bootstrap-server ${target.brokers[0] ?? '…'} --add --allow-principal ${principal} --operation Write --topic ${t}`,
    )
    .join(' and ');
  const what =
    field(denied, 'type') === 'CLUSTER_AUTHORIZATION_FAILED'
      ? // InitProducerId: Kafka >= 3.0 lets an idempotent producer in with WRITE on any topic (KIP-679)
        `an idempotent producer id (CLUSTER_AUTHORIZATION_FAILED): ${principal} has no WRITE on any topic there, nor IDEMPOTENT_WRITE on the cluster`
      : `WRITE on ${topics.join(', ')} (TOPIC_AUTHORIZATION_FAILED)`;
  return (
    `the target cluster (${at}) refused ${principal} ${what}. Grant it: ${grants}; the task picks the grant ` +
    `up on its next retry, without a restart. ${KEPT}`
  );
}
