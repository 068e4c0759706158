/**
 * Errors of the Kafka wire layer. Every one is a {@link SharesinkError}; match on `code`:
 *
 * | code | class | meaning |
 * |---|---|---|
 * | `SHARESINK_PROTOCOL_DECODE` | {@link KafkaProtocolError} | bytes from the broker could not be decoded (truncated, malformed, out of range) |
 * | `SHARESINK_PROTOCOL_ENCODE` | {@link KafkaProtocolError} | a request value cannot be encoded (a bug in the caller) |
 * | `SHARESINK_PROTOCOL_CORRUPT_BATCH` | {@link CorruptRecordBatchError} | a RecordBatch failed its CRC-32C or could not be decompressed |
 * | `SHARESINK_KAFKA_ERROR` | {@link KafkaError} | the broker answered with a non-zero Kafka error code |
 * | `SHARESINK_KAFKA_UNSUPPORTED_VERSION` | {@link UnsupportedVersionError} | no request version both sides support |
 * | `SHARESINK_KAFKA_CONNECTION` | {@link KafkaConnectionError} | connect / TLS / SASL failure or the connection closed under a request |
 * | `SHARESINK_KAFKA_SASL` | {@link KafkaConnectionError} | SASL authentication failed |
 * | `SHARESINK_KAFKA_REQUEST_TIMEOUT` | {@link KafkaRequestTimeoutError} | no response within the request timeout |
 */
import { SharesinkError, type SharesinkErrorCode } from '../../errors.js';
import { KafkaErrorCode, RETRIABLE_KAFKA_CODES, type KafkaErrorName } from './error-codes.js';

export { KafkaErrorCode, RETRIABLE_KAFKA_CODES, type KafkaErrorName };

const NAMES = new Map<number, string>();
for (const [name, code] of Object.entries(KafkaErrorCode)) NAMES.set(code, name);

/** `'NOT_COORDINATOR'` for 16; `'UNKNOWN_CODE_<n>'` for a code newer than our table. */
export function kafkaErrorName(code: number): string {
  return NAMES.get(code) ?? `UNKNOWN_CODE_${code}`;
}

/** True when the Java client treats `code` as retriable (see {@link RETRIABLE_KAFKA_CODES}). */
export function isRetriableKafkaCode(code: number): boolean {
  return RETRIABLE_KAFKA_CODES.has(code);
}

/** Bytes from the broker could not be decoded. Never retried blindly: it means a bug or a corrupt frame. */
export class KafkaProtocolError extends SharesinkError {
  /** Byte position in the buffer being decoded where the problem was found, when known. */
  readonly position: number | undefined;

  constructor(
    message: string,
    options: { position?: number; cause?: unknown; code?: SharesinkErrorCode } = {},
  ) {
    super(options.code ?? 'SHARESINK_PROTOCOL_DECODE', message, { cause: options.cause });
    this.position = options.position;
  }
}

/** A request that cannot be encoded (a value out of range for its wire type, a field the version lacks). */
export function encodeError(message: string): KafkaProtocolError {
  return new KafkaProtocolError(message, { code: 'SHARESINK_PROTOCOL_ENCODE' });
}

/**
 * A RecordBatch whose CRC-32C does not match, or whose compressed payload does not decompress. The batch
 * header (and so its offset range) was readable: a share consumer can REJECT or RELEASE exactly that range.
 */
export class CorruptRecordBatchError extends KafkaProtocolError {
  readonly baseOffset: number;
  readonly lastOffset: number;

  constructor(message: string, baseOffset: number, lastOffset: number, cause?: unknown) {
    super(message, { code: 'SHARESINK_PROTOCOL_CORRUPT_BATCH', cause });
    this.baseOffset = baseOffset;
    this.lastOffset = lastOffset;
  }
}

/** Where a Kafka error was returned, for messages and logs. */
export interface KafkaErrorContext {
  /** API name, e.g. `'ShareFetch'`. */
  api?: string;
  /** The broker's own `ErrorMessage` field, when the response has one. */
  brokerMessage?: string | null;
  /** Free text naming the entity: `'group g1'`, `'topic t partition 3'`. */
  subject?: string;
}

const SHARE_APIS = new Set(['ShareGroupHeartbeat', 'ShareGroupDescribe', 'ShareFetch', 'ShareAcknowledge']);

/** The ACL operation a group request needs, where it is not READ (Kafka's authorizer, per API). */
const GROUP_OPERATION: Readonly<Record<string, string>> = {
  DescribeConfigs: 'DESCRIBE_CONFIGS',
  IncrementalAlterConfigs: 'ALTER_CONFIGS',
  AlterConfigs: 'ALTER_CONFIGS',
  ShareGroupDescribe: 'DESCRIBE',
  DescribeGroups: 'DESCRIBE',
  ConsumerGroupDescribe: 'DESCRIBE',
  DescribeShareGroupOffsets: 'DESCRIBE',
  OffsetDelete: 'DELETE',
  DeleteShareGroupOffsets: 'DELETE',
};

/** Extra advice for codes where the bare name does not say what to do. */
function advice(code: number, ctx: KafkaErrorContext): string | undefined {
  switch (code) {
    case KafkaErrorCode.UNSUPPORTED_VERSION:
      return ctx.api !== undefined && SHARE_APIS.has(ctx.api)
        ? 'the broker does not support share groups: share.version is 0 or the broker is older than Kafka 4.1; ' +
            'run `kafka-features.sh --bootstrap-server … upgrade --feature share.version=1` or use Kafka ≥ 4.2'
        : 'the broker does not support this request version';
    case KafkaErrorCode.GROUP_AUTHORIZATION_FAILED:
      return `the principal needs ${GROUP_OPERATION[ctx.api ?? ''] ?? 'READ'} on the group`;
    case KafkaErrorCode.TOPIC_AUTHORIZATION_FAILED:
      return 'the principal needs READ (and DESCRIBE) on the topic';
    case KafkaErrorCode.INVALID_RECORD_STATE:
      return 'the acknowledged records are not acquired by this member (lock expired or already acknowledged)';
    case KafkaErrorCode.SHARE_SESSION_NOT_FOUND:
    case KafkaErrorCode.INVALID_SHARE_SESSION_EPOCH:
      return 'reopen the share session with epoch 0; acknowledgements in this request failed';
    case KafkaErrorCode.SHARE_SESSION_LIMIT_REACHED:
      return 'the broker share-session cache is full; back off and retry';
    case KafkaErrorCode.NOT_COORDINATOR:
    case KafkaErrorCode.COORDINATOR_NOT_AVAILABLE:
    case KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      return 'find the group coordinator again and retry';
    case KafkaErrorCode.NOT_LEADER_OR_FOLLOWER:
      return 'refresh metadata and send to the new leader';
    case KafkaErrorCode.GROUP_MAX_SIZE_REACHED:
      return 'the share group has group.share.max.size members already';
    default:
      return undefined;
  }
}

/** The broker answered with a non-zero Kafka error code. */
export class KafkaError extends SharesinkError {
  /** The Kafka error code, e.g. 16. */
  readonly kafkaCode: number;
  /** The Kafka error name, e.g. `'NOT_COORDINATOR'`. */
  readonly kafkaName: string;
  /** True when retrying the same request later may succeed (Java's RetriableException). */
  readonly retriable: boolean;
  /** The API that returned it, when known. */
  readonly api: string | undefined;
  /** The broker's `ErrorMessage`, when it sent one. */
  readonly brokerMessage: string | null;

  constructor(kafkaCode: number, ctx: KafkaErrorContext = {}) {
    const kafkaName = kafkaErrorName(kafkaCode);
    const parts = [`${ctx.api ?? 'Kafka'} failed with ${kafkaName} (${kafkaCode})`];
    if (ctx.subject !== undefined) parts[0] += ` for ${ctx.subject}`;
    if (ctx.brokerMessage) parts.push(`broker says: ${ctx.brokerMessage}`);
    const hint = advice(kafkaCode, ctx);
    if (hint !== undefined) parts.push(hint);
    super('SHARESINK_KAFKA_ERROR', parts.join('; '));
    this.kafkaCode = kafkaCode;
    this.kafkaName = kafkaName;
    this.retriable = isRetriableKafkaCode(kafkaCode);
    this.api = ctx.api;
    this.brokerMessage = ctx.brokerMessage ?? null;
  }
}

/** Throws a {@link KafkaError} when `code` is not 0 (NONE). */
export function throwIfKafkaError(code: number, ctx: KafkaErrorContext = {}): void {
  if (code !== 0) throw new KafkaError(code, ctx);
}

/** No request version is supported by both sharesink and the broker. */
export class UnsupportedVersionError extends SharesinkError {
  readonly apiKey: number;
  readonly apiName: string;
  /** Versions sharesink implements. */
  readonly ours: readonly [min: number, max: number];
  /** Versions the broker advertised in ApiVersions; undefined when it does not know the API at all. */
  readonly broker: { readonly min: number; readonly max: number } | undefined;
  readonly nodeId: number;

  constructor(args: {
    apiKey: number;
    apiName: string;
    ours: readonly [number, number];
    broker: { min: number; max: number } | undefined;
    nodeId: number;
    address: string;
    /** Finalized `share.version` of the cluster, when the broker reported it. */
    shareVersion?: number | undefined;
  }) {
    const theirs =
      args.broker === undefined
        ? 'does not support it at all'
        : `supports v${args.broker.min}–v${args.broker.max}`;
    let message =
      `${args.apiName} (key ${args.apiKey}): sharesink speaks v${args.ours[0]}–v${args.ours[1]}, ` +
      `broker ${args.nodeId} (${args.address}) ${theirs}`;
    if (SHARE_APIS.has(args.apiName)) {
      message +=
        '; the broker does not support share groups: ' +
        (args.shareVersion !== undefined
          ? `share.version is ${args.shareVersion}`
          : 'share.version is not finalized') +
        '; share groups need Kafka ≥ 4.1 with `kafka-features.sh upgrade --feature share.version=1` (GA in Kafka 4.2)';
    }
    super('SHARESINK_KAFKA_UNSUPPORTED_VERSION', message);
    this.apiKey = args.apiKey;
    this.apiName = args.apiName;
    this.ours = args.ours;
    this.broker = args.broker;
    this.nodeId = args.nodeId;
  }
}

/** Connecting, TLS, SASL, or the socket closed while a request was in flight. Always retriable. */
export class KafkaConnectionError extends SharesinkError {
  /** `host:port` of the broker. */
  readonly broker: string;
  readonly retriable = true;

  constructor(broker: string, message: string, options: { cause?: unknown; code?: SharesinkErrorCode } = {}) {
    super(options.code ?? 'SHARESINK_KAFKA_CONNECTION', `${broker}: ${message}`, { cause: options.cause });
    this.broker = broker;
  }
}

/**
 * No response arrived within the request timeout. The request may still have been processed by the broker
 * (e.g. acknowledgements applied): treat its outcome as unknown.
 */
export class KafkaRequestTimeoutError extends KafkaConnectionError {
  constructor(broker: string, message: string, cause?: unknown) {
    super(broker, message, { cause, code: 'SHARESINK_KAFKA_REQUEST_TIMEOUT' });
  }
}
