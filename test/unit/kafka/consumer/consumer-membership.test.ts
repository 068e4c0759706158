import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { KafkaCluster } from '../../../../src/kafka/cluster.js';
import {
  ConsumerMembership,
  type OwnedPartition,
} from '../../../../src/kafka/consumer/consumer-membership.js';
import { ConsumerGroupRefusedError } from '../../../../src/kafka/consumer/group-errors.js';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
} from '../../../../src/kafka/protocol/index.js';

const T = 'Ej5FZ-ibEtOkVkJmFBdAAA';
type Answer = Partial<ConsumerGroupHeartbeatResponse>;

/** A coordinator that answers each heartbeat from `script` (then with no change), recording the requests. */
function fakeCluster(script: Answer[]) {
  const sent: ConsumerGroupHeartbeatRequest[] = [];
  const cluster = {
    findGroupCoordinator: () => Promise.resolve({ nodeId: 1, host: 'h', port: 1, rack: null }),
    resolveTopicIds: (ids: string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, { name: 'topic', topicId: id, partitions: [] }]))),
    connectionTo: () =>
      Promise.resolve({
        call: (_api: unknown, req: ConsumerGroupHeartbeatRequest) => {
          sent.push(structuredClone(req));
          const a = script.shift() ?? {};
          return Promise.resolve({
            throttleTimeMs: 0,
            errorCode: 0,
            errorMessage: null,
            memberId: req.memberId,
            memberEpoch: req.memberEpoch <= 0 ? 1 : req.memberEpoch,
            heartbeatIntervalMs: 20,
            assignment: null,
            ...a,
          });
        },
      }),
  } as unknown as KafkaCluster;
  return { cluster, sent };
}

function member(cluster: KafkaCluster, instanceId: string | null = null) {
  const events: string[] = [];
  const fatal: Error[] = [];
  const m = new ConsumerMembership({
    cluster,
    groupId: 'g',
    memberId: 'm',
    instanceId,
    rackId: null,
    rebalanceTimeoutMs: 1000,
    serverAssignor: 'uniform',
    logger: pino({ level: 'silent' }),
    onRevoke: (ps: OwnedPartition[], lost: boolean) => {
      events.push(`${lost ? 'lost' : 'revoke'} ${ps.map((p) => p.partition).join(',')}`);
      return Promise.resolve();
    },
    onAssign: (ps: OwnedPartition[]) => {
      events.push(`assign ${ps.map((p) => p.partition).join(',')}`);
      return Promise.resolve();
    },
    onFatal: (e) => fatal.push(e),
  });
  return { m, events, fatal };
}

const until = async (ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(ok()).toBe(true);
};

describe('ConsumerMembership', () => {
  it('joins with the full request, takes the assignment, reports what it owns, gives up only what it lost', async () => {
    const { cluster, sent } = fakeCluster([
      { memberEpoch: 1, assignment: { topicPartitions: [{ topicId: T, partitions: [0, 1] }] } },
      {},
      { memberEpoch: 2, assignment: { topicPartitions: [{ topicId: T, partitions: [1] }] } },
    ]);
    const { m, events } = member(cluster);
    m.subscribe(['topic']);
    await until(() => events.length >= 2);
    expect(events).toEqual(['assign 0,1', 'revoke 0']);
    expect(sent[0]).toMatchObject({
      memberEpoch: 0,
      serverAssignor: 'uniform',
      rebalanceTimeoutMs: 1000,
      subscribedTopicNames: ['topic'],
      topicPartitions: [],
    });
    await until(() =>
      sent.some((r) => r.memberEpoch === 2 && r.topicPartitions?.[0]?.partitions.length === 1),
    );
    const later = sent.at(-1)!;
    expect([later.serverAssignor, later.rebalanceTimeoutMs]).toEqual([null, -1]); // unchanged: not resent
    await m.leave();
    expect(sent.at(-1)!.memberEpoch).toBe(-1);
    expect(events.at(-1)).toBe('revoke 1');
  });

  it('fenced: loses its partitions without a commit and rejoins at epoch 0 with the same member id', async () => {
    const { cluster, sent } = fakeCluster([
      { memberEpoch: 3, assignment: { topicPartitions: [{ topicId: T, partitions: [2] }] } },
      { errorCode: 110, memberEpoch: -1 }, // FENCED_MEMBER_EPOCH
    ]);
    const { m, events } = member(cluster);
    m.subscribe(['topic']);
    await until(() => events.includes('lost 2') && sent.filter((r) => r.memberEpoch === 0).length >= 2);
    const rejoin = sent.filter((r) => r.memberEpoch === 0)[1]!;
    expect([rejoin.memberId, rejoin.topicPartitions]).toEqual(['m', []]);
    await m.leave();
  });

  it('after a failed heartbeat the next is a full one, so a lost answer’s partitions are sent again', async () => {
    const { cluster, sent } = fakeCluster([
      { memberEpoch: 1 },
      { errorCode: 15, memberEpoch: -1 }, // COORDINATOR_NOT_AVAILABLE
    ]);
    const { m } = member(cluster);
    m.subscribe(['topic']);
    await until(() => sent.length >= 4);
    await m.leave();
    // join (full), regular (epoch 1, not full), refused, then full at epoch 1, then regular again
    expect(sent.slice(0, 4).map((r) => [r.memberEpoch, r.rebalanceTimeoutMs])).toEqual([
      [0, 1000],
      [1, -1],
      [1, 1000],
      [1, -1],
    ]);
  });

  it('a static member leaves with epoch -2', async () => {
    const { cluster, sent } = fakeCluster([{ memberEpoch: 1 }]);
    const { m } = member(cluster, 'i-1');
    m.subscribe(['topic']);
    await m.joinedOnce;
    expect(sent[0]!.instanceId).toBe('i-1');
    await m.leave();
    expect(sent.at(-1)!.memberEpoch).toBe(-2);
  });

  it('a group held by a classic group is one coded refusal, not a retry loop', async () => {
    const { cluster, sent } = fakeCluster([
      { errorCode: 69, errorMessage: 'Group g is not a consumer group.', memberEpoch: -1 },
    ]);
    const { m, fatal } = member(cluster);
    m.subscribe(['topic']);
    await until(() => fatal.length === 1);
    const e = fatal[0] as ConsumerGroupRefusedError;
    expect(e).toBeInstanceOf(ConsumerGroupRefusedError);
    expect([e.code, e.reason, e.brokerMessage]).toEqual([
      'SHARESINK_CONSUMER_GROUP_REFUSED',
      'classic-group',
      'Group g is not a consumer group.',
    ]);
    expect(e.message).toMatch(/consumer\.override\.group\.protocol=classic/);
    await new Promise((r) => setTimeout(r, 100));
    expect(sent).toHaveLength(1);
  });
});
