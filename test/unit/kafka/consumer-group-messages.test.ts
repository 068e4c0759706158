import { describe, expect, it } from 'vitest';
import { KafkaProtocolError } from '../../../src/kafka/errors/kafka-errors.js';
import {
  ConsumerGroupHeartbeat,
  Fetch,
  ListOffsets,
  OffsetCommit,
  OffsetFetch,
  Reader,
  buildRequest,
  type ConsumerGroupHeartbeatRequest,
} from '../../../src/kafka/protocol/index.js';

// byte layouts follow the Kafka 4.4.0 message schemas in kafka-clients-4.4.0.jar (common/message/*.json)
const TOPIC_ID = 'Ej5FZ-ibEtOkVkJmFBdAAA';
const TOPIC_HEX = '123e4567e89b12d3a456426614174000';
const decode = <T>(api: { decodeResponse(r: Reader, v: number): T }, hex: string, v: number): T =>
  api.decodeResponse(new Reader(Buffer.from(hex, 'hex')), v);

describe('ConsumerGroupHeartbeat v0–v1', () => {
  const join: ConsumerGroupHeartbeatRequest = {
    groupId: 'g',
    memberId: 'm',
    memberEpoch: 0,
    instanceId: 'i',
    rackId: null,
    rebalanceTimeoutMs: 300000,
    subscribedTopicNames: ['t'],
    subscribedTopicRegex: null,
    serverAssignor: 'uniform',
    topicPartitions: [],
  };

  it('encodes the v1 join byte for byte: regex after the topic names, then the assignor and owned partitions', () => {
    expect(buildRequest(ConsumerGroupHeartbeat, 1, join).body.toString('hex')).toBe(
      '0267' + // GroupId "g"
        '026d' + // MemberId "m"
        '00000000' + // MemberEpoch 0
        '0269' + // InstanceId "i"
        '00' + // RackId null
        '000493e0' + // RebalanceTimeoutMs 300000
        '02' +
        '0274' + // SubscribedTopicNames ["t"]
        '00' + // SubscribedTopicRegex null (v1+)
        '08' +
        Buffer.from('uniform').toString('hex') + // ServerAssignor
        '01' + // TopicPartitions []
        '00', // tagged fields
    );
  });

  it('v0 has no regex field and refuses one', () => {
    const v0 = buildRequest(ConsumerGroupHeartbeat, 0, join).body;
    expect(v0.length).toBe(buildRequest(ConsumerGroupHeartbeat, 1, join).body.length - 1);
    expect(() => buildRequest(ConsumerGroupHeartbeat, 0, { ...join, subscribedTopicRegex: 'x.*' })).toThrow(
      KafkaProtocolError,
    );
  });

  it('encodes owned partitions by topic id, and a heartbeat with nothing changed as nulls', () => {
    const hb = buildRequest(ConsumerGroupHeartbeat, 1, {
      ...join,
      memberEpoch: 7,
      instanceId: null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      serverAssignor: null,
      topicPartitions: [{ topicId: TOPIC_ID, partitions: [1] }],
    });
    expect(hb.body.toString('hex')).toBe(
      '0267026d' +
        '00000007' +
        '00' +
        '00' +
        'ffffffff' +
        '00' +
        '00' +
        '00' +
        '02' +
        TOPIC_HEX +
        '02' +
        '00000001' +
        '00' +
        '00',
    );
  });

  it('decodes an error, a null assignment and a present one', () => {
    const head = '00000000' + '0000' + '00' + '026d' + '00000003' + '00001388';
    expect(decode(ConsumerGroupHeartbeat, head + 'ff' + '00', 1)).toMatchObject({
      memberId: 'm',
      memberEpoch: 3,
      heartbeatIntervalMs: 5000,
      assignment: null,
    });
    const some = decode(
      ConsumerGroupHeartbeat,
      head + '01' + '02' + TOPIC_HEX + '03' + '00000000' + '00000002' + '00' + '00' + '00',
      1,
    );
    expect(some.assignment).toEqual({ topicPartitions: [{ topicId: TOPIC_ID, partitions: [0, 2] }] });
    const fenced = decode(
      ConsumerGroupHeartbeat,
      '00000000' + '006e' + '0278' + '00' + 'ffffffff' + '00000000' + 'ff' + '00',
      1,
    );
    expect([fenced.errorCode, fenced.errorMessage, fenced.memberId]).toEqual([110, 'x', null]);
  });
});

describe('Fetch v13–v17', () => {
  const req = {
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 1000,
    isolationLevel: 0,
    topics: [
      {
        topicId: TOPIC_ID,
        partitions: [{ partition: 2, currentLeaderEpoch: -1, fetchOffset: 5, partitionMaxBytes: 100 }],
      },
    ],
    rackId: '',
  };
  const tail =
    '000001f4' +
    '00000001' +
    '000003e8' +
    '00' +
    '00000000' +
    'ffffffff' + // MaxWait..SessionEpoch
    '02' +
    TOPIC_HEX +
    '02' +
    '00000002' +
    'ffffffff' +
    '0000000000000005' +
    'ffffffff' +
    'ffffffffffffffff' +
    '00000064' +
    '00' +
    '00' +
    '01' + // ForgottenTopicsData []
    '01' + // RackId ""
    '00';

  it('writes ReplicaId -1 up to v14 only, then the full fetch without a session', () => {
    expect(buildRequest(Fetch, 13, req).body.toString('hex')).toBe('ffffffff' + tail);
    expect(buildRequest(Fetch, 15, req).body.toString('hex')).toBe(tail);
    expect(() => buildRequest(Fetch, 12, req)).toThrow(/Fetch v12 is not implemented/);
  });

  it('decodes partition data with its tagged CurrentLeader and the NodeEndpoints tag', () => {
    const partition =
      '00000002' +
      '0006' +
      '000000000000000a' +
      '000000000000000a' +
      '0000000000000000' +
      '00' + // AbortedTransactions null
      'ffffffff' + // PreferredReadReplica
      '04' +
      'aabbcc' + // Records (3 bytes)
      '01' +
      '01' +
      '09' +
      '00000003' +
      '00000009' +
      '00'; // tag 1 CurrentLeader {3, 9}
    const endpoints = '01' + '00' + '0d' + '02' + '00000003' + '0268' + '00002384' + '00' + '00'; // tag 0: [{3,"h",9092,null}]
    const res = decode(
      Fetch,
      '00000000' + '0000' + '00000000' + '02' + TOPIC_HEX + '02' + partition + '00' + endpoints,
      16,
    );
    const p = res.responses[0]!.partitions[0]!;
    expect(res.responses[0]!.topicId).toBe(TOPIC_ID);
    expect([p.partitionIndex, p.errorCode, p.highWatermark, p.abortedTransactions]).toEqual([2, 6, 10, null]);
    expect(p.records.toString('hex')).toBe('aabbcc');
    expect(p.currentLeader).toEqual({ leaderId: 3, leaderEpoch: 9 });
    expect(res.nodeEndpoints).toEqual([{ nodeId: 3, host: 'h', port: 9092, rack: null }]);
  });
});

describe('ListOffsets v6–v10', () => {
  const req = {
    isolationLevel: 0,
    topics: [{ name: 't', partitions: [{ partitionIndex: 1, currentLeaderEpoch: -1, timestamp: -2 }] }],
    timeoutMs: 3000,
  };
  it('writes TimeoutMs from v10 only', () => {
    const body =
      'ffffffff' + '00' + '02' + '0274' + '02' + '00000001' + 'ffffffff' + 'fffffffffffffffe' + '00' + '00';
    expect(buildRequest(ListOffsets, 9, req).body.toString('hex')).toBe(body + '00');
    expect(buildRequest(ListOffsets, 10, req).body.toString('hex')).toBe(body + '00000bb8' + '00');
  });
  it('decodes the offset per partition', () => {
    const res = decode(
      ListOffsets,
      '00000000' +
        '02' +
        '0274' +
        '02' +
        '00000001' +
        '0000' +
        'ffffffffffffffff' +
        '0000000000000007' +
        '00000000' +
        '00' +
        '00' +
        '00',
      10,
    );
    expect(res.topics[0]!.partitions[0]).toEqual({
      partitionIndex: 1,
      errorCode: 0,
      timestamp: -1,
      offset: 7,
      leaderEpoch: 0,
    });
  });
});

describe('OffsetFetch v9 / OffsetCommit v9', () => {
  it('OffsetFetch carries the member id and epoch in its one group', () => {
    const body = buildRequest(OffsetFetch, 9, {
      groupId: 'g',
      memberId: 'm',
      memberEpoch: 4,
      topics: [{ name: 't', partitionIndexes: [0] }],
      requireStable: true,
    }).body;
    expect(body.toString('hex')).toBe(
      '02' + '0267' + '026d' + '00000004' + '02' + '0274' + '02' + '00000000' + '00' + '00' + '01' + '00',
    );
    const res = decode(
      OffsetFetch,
      '00000000' +
        '02' +
        '0267' +
        '02' +
        '0274' +
        '02' +
        '00000000' +
        '000000000000000c' +
        'ffffffff' +
        '00' +
        '0000' +
        '00' +
        '00' +
        '0000' +
        '00' +
        '00',
      9,
    );
    expect(res.groups[0]!.topics[0]!.partitions[0]).toEqual({
      partitionIndex: 0,
      committedOffset: 12,
      committedLeaderEpoch: -1,
      metadata: null,
      errorCode: 0,
    });
  });

  it('OffsetCommit writes the member epoch before the member id, and reads one error per partition', () => {
    const body = buildRequest(OffsetCommit, 9, {
      groupId: 'g',
      memberEpoch: 4,
      memberId: 'm',
      groupInstanceId: null,
      topics: [
        {
          name: 't',
          partitions: [
            { partitionIndex: 0, committedOffset: 12, committedLeaderEpoch: -1, committedMetadata: null },
          ],
        },
      ],
    }).body;
    expect(body.toString('hex')).toBe(
      '0267' +
        '00000004' +
        '026d' +
        '00' +
        '02' +
        '0274' +
        '02' +
        '00000000' +
        '000000000000000c' +
        'ffffffff' +
        '00' +
        '00' +
        '00' +
        '00',
    );
    const res = decode(
      OffsetCommit,
      '00000000' + '02' + '0274' + '02' + '00000000' + '0071' + '00' + '00' + '00',
      9,
    );
    expect(res.topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, errorCode: 113 });
  });
});
