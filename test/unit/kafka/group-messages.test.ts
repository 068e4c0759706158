// Classic group protocol and CreateTopics codecs against bytes written out by hand from Kafka 4.4's JSON
// schemas (JoinGroupRequest.json etc.): compact strings are uvarint(len + 1), null is 00, every struct ends
// with an empty tagged-field section (00).
import { describe, expect, it } from 'vitest';
import {
  CreateTopics,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  Reader,
  SyncGroup,
  buildRequest,
} from '../../../src/kafka/protocol/index.js';

const hex = (s: string): string => s.replace(/[\s|]/g, '');
const bytes = (s: string): Buffer => Buffer.from(hex(s), 'hex');

describe('JoinGroup', () => {
  const request = {
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 60_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'sharesink',
    protocols: [{ name: 'p', metadata: Uint8Array.from([1, 2]) }],
    reason: 'r',
  };

  it('v9 request: reason after the protocols; v6/v7 leave it out', () => {
    const head = '0267 00002710 0000ea60 01 00 0a7368617265 73696e6b 02 0270 030102 00';
    const v9 = buildRequest(JoinGroup, 9, request);
    expect(v9.flexibleRequestHeader).toBe(true);
    expect(v9.body.toString('hex')).toBe(hex(head + ' 0272 00'));
    expect(buildRequest(JoinGroup, 7, request).body.toString('hex')).toBe(hex(head + ' 00'));
  });

  it('v9 response: protocol type, skip-assignment flag and the members the leader gets', () => {
    const body = '00000000 0000 00000007 0273 0270 026d 00 026e 02 | 026d 00 02ab 00 | 00';
    const res = buildRequest(JoinGroup, 9, request).decode(bytes(body));
    expect(res).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 7,
      protocolType: 's',
      protocolName: 'p',
      leader: 'm',
      skipAssignment: false,
      memberId: 'n',
      members: [{ memberId: 'm', groupInstanceId: null, metadata: Buffer.from([0xab]) }],
    });
  });

  it('v6 response: no protocol type, no skip flag; MEMBER_ID_REQUIRED carries the id to use', () => {
    const body = '00000000 004f ffffffff 01 01 026e 01 00';
    const res = buildRequest(JoinGroup, 6, request).decode(bytes(body));
    expect(res).toMatchObject({ errorCode: 79, generationId: -1, protocolType: null, protocolName: '' });
    expect(res.memberId).toBe('n');
    expect(res.members).toEqual([]);
  });

  it('a truncated response is a decode error, not a partial answer', () => {
    expect(() => buildRequest(JoinGroup, 9, request).decode(bytes('00000000 0000 0000'))).toThrow(
      /truncated/,
    );
  });
});

describe('SyncGroup', () => {
  const request = {
    groupId: 'g',
    generationId: 3,
    memberId: 'm',
    groupInstanceId: null,
    protocolType: 'sharesink',
    protocolName: 'p',
    assignments: [{ memberId: 'm', assignment: Uint8Array.from([9]) }],
  };

  it('v5 request carries protocol type and name; v4 does not', () => {
    const tail = '02 026d 0209 00 00';
    expect(buildRequest(SyncGroup, 5, request).body.toString('hex')).toBe(
      hex('0267 00000003 026d 00 0a7368617265 73696e6b 0270 ' + tail),
    );
    expect(buildRequest(SyncGroup, 4, request).body.toString('hex')).toBe(
      hex('0267 00000003 026d 00 ' + tail),
    );
  });

  it('v5 response', () => {
    const res = buildRequest(SyncGroup, 5, request).decode(bytes('00000000 001b 0273 0270 03 0102 00'));
    expect(res).toEqual({
      throttleTimeMs: 0,
      errorCode: 27,
      protocolType: 's',
      protocolName: 'p',
      assignment: Buffer.from([1, 2]),
    });
  });
});

describe('Heartbeat', () => {
  it('v4 request and response', () => {
    const req = buildRequest(Heartbeat, 4, {
      groupId: 'g',
      generationId: 2,
      memberId: 'm',
      groupInstanceId: null,
    });
    expect(req.body.toString('hex')).toBe(hex('0267 00000002 026d 00 00'));
    expect(req.decode(bytes('00000064 0016 00'))).toEqual({ throttleTimeMs: 100, errorCode: 22 });
  });
});

describe('LeaveGroup', () => {
  const request = { groupId: 'g', members: [{ memberId: 'm', groupInstanceId: null, reason: 'bye' }] };

  it('v5 request carries each member reason; v4 does not', () => {
    expect(buildRequest(LeaveGroup, 5, request).body.toString('hex')).toBe(
      hex('0267 02 026d 00 04627965 00 00'),
    );
    expect(buildRequest(LeaveGroup, 4, request).body.toString('hex')).toBe(hex('0267 02 026d 00 00 00'));
  });

  it('response with a per-member error', () => {
    const res = buildRequest(LeaveGroup, 5, request).decode(bytes('00000000 0000 02 026d 00 0019 00 00'));
    expect(res).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      members: [{ memberId: 'm', groupInstanceId: null, errorCode: 25 }],
    });
  });
});

describe('CreateTopics', () => {
  const request = {
    topics: [
      {
        name: 't',
        numPartitions: 1,
        replicationFactor: -1,
        assignments: [],
        configs: [{ name: 'cleanup.policy', value: 'compact' }],
      },
    ],
    timeoutMs: 30_000,
    validateOnly: false,
  };

  it('v7 request', () => {
    const body =
      '02 0274 00000001 ffff 01 02 0f636c65616e75702e706f6c696379 08636f6d70616374 00 00 | 00007530 00 00';
    expect(buildRequest(CreateTopics, 7, request).body.toString('hex')).toBe(hex(body));
  });

  it('v7 response: topic id, configs and the tagged TopicConfigErrorCode', () => {
    const id = '123e4567e89b12d3a456426614174000';
    const body =
      '00000000 02 | 0274 ' +
      id +
      ' 0000 00 00000001 0001 02 | 0f636c65616e75702e706f6c696379 08636f6d70616374 00 05 00 00 | 01 00 02 0000 | 00';
    const res = buildRequest(CreateTopics, 7, request).decode(bytes(body));
    expect(res.topics).toEqual([
      {
        name: 't',
        topicId: 'Ej5FZ-ibEtOkVkJmFBdAAA',
        errorCode: 0,
        errorMessage: null,
        topicConfigErrorCode: 0,
        numPartitions: 1,
        replicationFactor: 1,
        configs: [
          { name: 'cleanup.policy', value: 'compact', readOnly: false, configSource: 5, isSensitive: false },
        ],
      },
    ]);
  });

  it('v5 response: TOPIC_ALREADY_EXISTS with a message, configs null, the tagged config error read', () => {
    const body = '00000000 02 0274 0024 03 6f6b ffffffff ffff 00 01 00 02 0029 00';
    const res = buildRequest(CreateTopics, 5, request).decode(bytes(body));
    expect(res.topics[0]).toMatchObject({
      errorCode: 36,
      errorMessage: 'ok',
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      numPartitions: -1,
      configs: null,
      topicConfigErrorCode: 41,
    });
  });
});

it('Reader leaves nothing unread after a v9 JoinGroup response', () => {
  const r = new Reader(bytes('00000000 0000 00000007 0273 0270 026d 00 026e 01 00'));
  JoinGroup.decodeResponse(r, 9);
  expect(r.remaining()).toBe(0);
});
