import { describe, expect, it } from 'vitest';
import { isSharesinkError } from '../../../../src/errors.js';
import {
  KafkaError,
  KafkaErrorCode,
  UnsupportedVersionError,
  isRetriableKafkaCode,
  kafkaErrorName,
  throwIfKafkaError,
} from '../../../../src/kafka/errors/kafka-errors.js';

describe('Kafka error table', () => {
  it('maps the codes a share client handles (reference §5)', () => {
    const expected: [number, string, boolean][] = [
      [-1, 'UNKNOWN_SERVER_ERROR', false],
      [2, 'CORRUPT_MESSAGE', true],
      [3, 'UNKNOWN_TOPIC_OR_PARTITION', true],
      [6, 'NOT_LEADER_OR_FOLLOWER', true],
      [14, 'COORDINATOR_LOAD_IN_PROGRESS', true],
      [15, 'COORDINATOR_NOT_AVAILABLE', true],
      [16, 'NOT_COORDINATOR', true],
      [24, 'INVALID_GROUP_ID', false],
      [25, 'UNKNOWN_MEMBER_ID', false],
      [29, 'TOPIC_AUTHORIZATION_FAILED', false],
      [30, 'GROUP_AUTHORIZATION_FAILED', false],
      [35, 'UNSUPPORTED_VERSION', false],
      [42, 'INVALID_REQUEST', false],
      [56, 'KAFKA_STORAGE_ERROR', true],
      [68, 'NON_EMPTY_GROUP', false],
      [69, 'GROUP_ID_NOT_FOUND', false],
      [81, 'GROUP_MAX_SIZE_REACHED', false],
      [100, 'UNKNOWN_TOPIC_ID', true],
      [110, 'FENCED_MEMBER_EPOCH', false],
      [121, 'INVALID_RECORD_STATE', false],
      [122, 'SHARE_SESSION_NOT_FOUND', true],
      [123, 'INVALID_SHARE_SESSION_EPOCH', true],
      [124, 'FENCED_STATE_EPOCH', false],
      [129, 'REBOOTSTRAP_REQUIRED', false],
      [133, 'SHARE_SESSION_LIMIT_REACHED', true],
    ];
    for (const [code, name, retriable] of expected) {
      expect([code, kafkaErrorName(code), isRetriableKafkaCode(code)]).toEqual([code, name, retriable]);
      expect(KafkaErrorCode[name as keyof typeof KafkaErrorCode]).toBe(code);
    }
  });

  it('is dense from -1 to 136 and names unknown codes', () => {
    for (let c = -1; c <= 136; c++) expect(kafkaErrorName(c)).not.toMatch(/^UNKNOWN_CODE_/);
    expect(kafkaErrorName(4242)).toBe('UNKNOWN_CODE_4242');
  });
});

describe('KafkaError', () => {
  it('carries code, name, retriable flag and a message with the broker text and advice', () => {
    const e = new KafkaError(16, { api: 'ShareGroupHeartbeat', subject: 'group g', brokerMessage: 'moved' });
    expect(isSharesinkError(e)).toBe(true);
    expect(e).toMatchObject({
      code: 'SHARESINK_KAFKA_ERROR',
      kafkaCode: 16,
      kafkaName: 'NOT_COORDINATOR',
      retriable: true,
      api: 'ShareGroupHeartbeat',
      brokerMessage: 'moved',
    });
    expect(e.message).toBe(
      'ShareGroupHeartbeat failed with NOT_COORDINATOR (16) for group g; broker says: moved; ' +
        'find the group coordinator again and retry',
    );
  });

  it('UNSUPPORTED_VERSION on a share API explains share.version', () => {
    expect(new KafkaError(35, { api: 'ShareFetch' }).message).toMatch(
      /does not support share groups: share\.version is 0.*share\.version=1.*Kafka ≥ 4\.2/,
    );
    expect(new KafkaError(35, { api: 'Metadata' }).message).not.toMatch(/share/);
  });

  it('throwIfKafkaError passes 0 and throws the rest', () => {
    expect(() => throwIfKafkaError(0)).not.toThrow();
    expect(() => throwIfKafkaError(122, { api: 'ShareFetch' })).toThrow(/SHARE_SESSION_NOT_FOUND.*epoch 0/);
  });
});

describe('UnsupportedVersionError', () => {
  it('names the API, both ranges, the broker and, for share APIs, share.version', () => {
    const e = new UnsupportedVersionError({
      apiKey: 78,
      apiName: 'ShareFetch',
      ours: [1, 2],
      broker: undefined,
      nodeId: 3,
      address: 'b3:9092',
      shareVersion: 0,
    });
    expect(e.code).toBe('SHARESINK_KAFKA_UNSUPPORTED_VERSION');
    expect(e.message).toMatch(
      /^ShareFetch \(key 78\): sharesink speaks v1–v2, broker 3 \(b3:9092\) does not support it at all; the broker does not support share groups: share\.version is 0/,
    );
    const m = new UnsupportedVersionError({
      apiKey: 3,
      apiName: 'Metadata',
      ours: [12, 13],
      broker: { min: 0, max: 11 },
      nodeId: 1,
      address: 'b1:9092',
    });
    expect(m.message).toBe('Metadata (key 3): sharesink speaks v12–v13, broker 1 (b1:9092) supports v0–v11');
  });
});
