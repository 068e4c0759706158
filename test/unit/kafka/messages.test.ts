import { describe, expect, it } from 'vitest';
import { KafkaProtocolError } from '../../../src/kafka/errors/kafka-errors.js';
import {
  ApiVersions,
  Metadata,
  Reader,
  ShareAcknowledge,
  ShareFetch,
  ShareGroupHeartbeat,
  Writer,
  buildRequest,
  highestCommonVersion,
  metadataForTopicNames,
  type ShareFetchRequest,
} from '../../../src/kafka/protocol/index.js';

const TOPIC_ID = 'Ej5FZ-ibEtOkVkJmFBdAAA';
const TOPIC_HEX = '123e4567e89b12d3a456426614174000';

describe('buildRequest', () => {
  it('marks header flexibility per version; the ApiVersions response header is always v0', () => {
    const av0 = buildRequest(ApiVersions, 0, { clientSoftwareName: 'a', clientSoftwareVersion: '1' });
    expect([av0.flexibleRequestHeader, av0.flexibleResponseHeader, av0.body.length]).toEqual([
      false,
      false,
      0,
    ]);
    const av3 = buildRequest(ApiVersions, 3, { clientSoftwareName: 'a', clientSoftwareVersion: '1' });
    expect([av3.flexibleRequestHeader, av3.flexibleResponseHeader]).toEqual([true, false]);
    expect(av3.body.toString('hex')).toBe('02' + '61' + '02' + '31' + '00');
    const md = buildRequest(Metadata, 12, metadataForTopicNames(['t']));
    expect([md.flexibleRequestHeader, md.flexibleResponseHeader, md.apiKey, md.apiName]).toEqual([
      true,
      true,
      3,
      'Metadata',
    ]);
  });

  it('refuses versions we do not implement', () => {
    expect(() => buildRequest(Metadata, 11, metadataForTopicNames([]))).toThrow(
      /Metadata v11 is not implemented/,
    );
  });

  it('highestCommonVersion', () => {
    expect(highestCommonVersion([1, 2], { min: 1, max: 1 })).toBe(1);
    expect(highestCommonVersion([1, 2], { min: 0, max: 9 })).toBe(2);
    expect(highestCommonVersion([1, 2], { min: 3, max: 9 })).toBeUndefined();
    expect(highestCommonVersion([1, 2], undefined)).toBeUndefined();
  });
});

describe('ShareGroupHeartbeat v1', () => {
  it('encodes the join request byte for byte', () => {
    const req = buildRequest(ShareGroupHeartbeat, 1, {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 0,
      rackId: null,
      subscribedTopicNames: ['t'],
    });
    expect(req.body.toString('hex')).toBe(
      '0267' + // GroupId "g"
        '026d' + // MemberId "m"
        '00000000' + // MemberEpoch 0
        '00' + // RackId null
        '02' +
        '0274' + // SubscribedTopicNames ["t"]
        '00', // tagged fields
    );
  });

  it('decodes a null assignment (int8 -1) and a present one (int8 1)', () => {
    const head = '00000000' + '0000' + '00' + '026d' + '00000005' + '00001388';
    const none = ShareGroupHeartbeat.decodeResponse(new Reader(Buffer.from(head + 'ff' + '00', 'hex')), 1);
    expect(none).toMatchObject({
      memberId: 'm',
      memberEpoch: 5,
      heartbeatIntervalMs: 5000,
      assignment: null,
    });
    const some = ShareGroupHeartbeat.decodeResponse(
      new Reader(
        Buffer.from(
          head + '01' + '02' + TOPIC_HEX + '03' + '00000000' + '00000002' + '00' + '00' + '00',
          'hex',
        ),
      ),
      1,
    );
    expect(some.assignment).toEqual({ topicPartitions: [{ topicId: TOPIC_ID, partitions: [0, 2] }] });
  });
});

describe('ShareFetch / ShareAcknowledge version rules', () => {
  const base: ShareFetchRequest = {
    groupId: 'g',
    memberId: 'm',
    shareSessionEpoch: 0,
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 1024,
    maxRecords: 10,
    batchSize: 10,
    topics: [],
    forgottenTopicsData: [],
  };

  it('v2 writes ShareAcquireMode then IsRenewAck after BatchSize; v1 writes neither', () => {
    const v1 = buildRequest(ShareFetch, 1, base).body;
    const v2 = buildRequest(ShareFetch, 2, { ...base, shareAcquireMode: 1, isRenewAck: true }).body;
    expect(v2.length).toBe(v1.length + 2);
    const at = 2 + 2 + 6 * 4; // "g" and "m" (2 bytes each), then six int32 up to BatchSize
    expect(v2.subarray(at, at + 2).toString('hex')).toBe('0101');
  });

  it('v1 refuses Renew fields instead of dropping them silently', () => {
    expect(() => buildRequest(ShareFetch, 1, { ...base, isRenewAck: true })).toThrow(KafkaProtocolError);
    expect(() => buildRequest(ShareFetch, 1, { ...base, shareAcquireMode: 1 })).toThrow(/need v2/);
    expect(() =>
      buildRequest(ShareAcknowledge, 1, {
        groupId: 'g',
        memberId: 'm',
        shareSessionEpoch: 1,
        isRenewAck: true,
        topics: [],
      }),
    ).toThrow(/need v2/);
  });

  it('acknowledgement batches: int64 offsets and an int8 type array', () => {
    const w = new Writer();
    ShareAcknowledge.encodeRequest(
      w,
      {
        groupId: null,
        memberId: 'm',
        shareSessionEpoch: 3,
        topics: [
          {
            topicId: TOPIC_ID,
            partitions: [
              {
                partitionIndex: 1,
                acknowledgementBatches: [{ firstOffset: 5, lastOffset: 6, acknowledgeTypes: [1, 3] }],
              },
            ],
          },
        ],
      },
      1,
    );
    expect(Buffer.from(w.finish()).toString('hex')).toBe(
      '00' +
        '026d' +
        '00000003' + // GroupId null, MemberId, epoch (no IsRenewAck in v1)
        '02' +
        TOPIC_HEX + // 1 topic
        '02' +
        '00000001' + // 1 partition
        '02' +
        '0000000000000005' +
        '0000000000000006' +
        '03' +
        '0103' +
        '00' + // batch
        '00' +
        '00' + // partition, topic tags
        '00', // request tags
    );
  });

  it('a null Records is read as empty (non-nullable from v1, tolerated)', () => {
    const partition =
      '00000000' + '0000' + '00' + '0000' + '00' + ('00000001' + '00000000' + '00') + '00' + '01' + '00';
    const body =
      '00000000' + '0000' + '00' + '00003a98' + '02' + TOPIC_HEX + '02' + partition + '00' + '01' + '00';
    const res = ShareFetch.decodeResponse(new Reader(Buffer.from(body, 'hex')), 1);
    expect(res.acquisitionLockTimeoutMs).toBe(15000);
    expect(res.responses[0]!.partitions[0]!.records.length).toBe(0);
    expect(res.responses[0]!.partitions[0]!.currentLeader).toEqual({ leaderId: 1, leaderEpoch: 0 });
  });
});

describe('ApiVersions', () => {
  it('reads the v0 body a broker sends back with UNSUPPORTED_VERSION', () => {
    // error 35, classic array of 1: key 18 v0..v2 (no throttle time, no tags)
    const body = Buffer.from('0023' + '00000001' + '0012' + '0000' + '0002', 'hex');
    expect(ApiVersions.decodeResponse(new Reader(body), 4)).toMatchObject({
      errorCode: 35,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 2 }],
      finalizedFeatures: [],
    });
  });

  it('reads finalized features from tag 2 (share.version)', () => {
    const w = new Writer();
    w.int16(0)
      .compactArray([], () => {})
      .int32(0);
    w.taggedFields([
      { tag: 1, write: (x) => x.int64(7) },
      {
        tag: 2,
        write: (x) =>
          x.compactArray(['share.version'], (y, name) => {
            y.compactString(name).int16(1).int16(1).emptyTaggedFields();
          }),
      },
    ]);
    const res = ApiVersions.decodeResponse(new Reader(Buffer.from(w.finish())), 3);
    expect(res.finalizedFeaturesEpoch).toBe(7);
    expect(res.finalizedFeatures).toEqual([
      { name: 'share.version', maxVersionLevel: 1, minVersionLevel: 1 },
    ]);
  });
});
