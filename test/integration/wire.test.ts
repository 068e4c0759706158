// The Kafka wire layer against the real broker: ApiVersions negotiation, Metadata with topic ids,
// FindCoordinator, group configs (IncrementalAlterConfigs / DescribeConfigs on resource type GROUP), a share
// group join by ShareGroupHeartbeat, ShareFetch + piggy-backed acks + ShareAcknowledge, and RecordBatch
// decoding of batches the broker compressed with each codec.
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaCluster, type TopicMetadata } from '../../src/kafka/cluster.js';
import type { BrokerConnection } from '../../src/kafka/connection.js';
import { UnsupportedVersionError } from '../../src/kafka/errors/kafka-errors.js';
import {
  AcknowledgeType,
  ApiKey,
  FindCoordinator,
  Metadata,
  ShareAcknowledge,
  ShareFetch,
  ShareGroupDescribe,
  ShareGroupHeartbeat,
  ZERO_UUID,
  isUuid,
  metadataForTopicIds,
  randomUuid,
  type AcknowledgementBatch,
  type ShareFetchResponse,
  type ShareTopicPartitions,
} from '../../src/kafka/protocol/index.js';
import { decodeRecordBatches } from '../../src/kafka/records/record-batches.js';
import { createTopic, produce, testBrokers, uniqueGroup, uniqueTopic } from './harness/kafka.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
let cluster: KafkaCluster;

beforeAll(async () => {
  cluster = new KafkaCluster({ brokers: testBrokers().split(','), clientId: 'sharesink-wire-test', logger });
  await cluster.connect();
});

afterAll(async () => {
  await cluster?.close();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** Joins `group` as a new member and heartbeats until the assignment covers every partition of `topic`. */
async function join(group: string, topic: TopicMetadata) {
  const coordinator = await cluster.findGroupCoordinator(group);
  const conn = await cluster.connectionTo(coordinator.nodeId);
  const memberId = randomUuid();
  let epoch = 0;
  let assignment: ShareTopicPartitions[] = [];
  const first = await conn.call(ShareGroupHeartbeat, {
    groupId: group,
    memberId,
    memberEpoch: 0,
    rackId: null,
    subscribedTopicNames: [topic.name],
  });
  expect(first.errorCode).toBe(0);
  expect(first.memberId).toBe(memberId); // v1: the client makes the member id
  expect(first.memberEpoch).toBeGreaterThan(0);
  expect(first.heartbeatIntervalMs).toBeGreaterThan(0);
  epoch = first.memberEpoch;
  if (first.assignment) assignment = first.assignment.topicPartitions;
  await eventually('a share assignment', async () => {
    const mine = assignment.find((a) => a.topicId === topic.topicId);
    if (mine && mine.partitions.length === topic.partitions.length) return true;
    await sleep(200);
    const hb = await conn.call(ShareGroupHeartbeat, {
      groupId: group,
      memberId,
      memberEpoch: epoch,
      rackId: null,
      subscribedTopicNames: null,
    });
    expect(hb.errorCode).toBe(0);
    epoch = hb.memberEpoch;
    if (hb.assignment) assignment = hb.assignment.topicPartitions;
    return undefined;
  });
  const leave = async (): Promise<void> => {
    const hb = await conn.call(ShareGroupHeartbeat, {
      groupId: group,
      memberId,
      memberEpoch: -1,
      rackId: null,
      subscribedTopicNames: null,
    });
    expect(hb.errorCode).toBe(0);
  };
  return { conn, memberId, assignment, leave };
}

describe('ApiVersions', () => {
  it('negotiates every API we speak, share APIs included', async () => {
    const conn = await cluster.anyConnection();
    expect(conn.apiVersions.errorCode).toBe(0);
    expect(conn.finalizedFeature('share.version')).toBeGreaterThanOrEqual(1);
    for (const api of [
      ShareGroupHeartbeat,
      ShareGroupDescribe,
      ShareFetch,
      ShareAcknowledge,
      Metadata,
      FindCoordinator,
    ]) {
      const v = conn.pickVersion(api);
      expect(v).toBeGreaterThanOrEqual(api.minVersion);
      expect(v).toBeLessThanOrEqual(api.maxVersion);
    }
    expect(conn.versions(ApiKey.ShareFetch)).toEqual({ min: 1, max: 2 });
  });

  it('names the API and both version ranges when none overlaps', async () => {
    const conn = await cluster.anyConnection();
    const fromTheFuture = { ...ShareFetch, minVersion: 7, maxVersion: 9 };
    expect(() => conn.pickVersion(fromTheFuture)).toThrow(UnsupportedVersionError);
    expect(() => conn.pickVersion(fromTheFuture)).toThrow(/ShareFetch \(key 78\).*v7–v9.*v1–v2/);
  });
});

describe('Metadata, FindCoordinator and group configs', () => {
  it('returns topic ids and leaders, by name and by id', async () => {
    const topic = uniqueTopic('wire-md');
    await createTopic(topic, { partitions: 3 });
    const [meta] = await cluster.refreshMetadata([topic]);
    expect(meta).toBeDefined();
    expect(isUuid(meta!.topicId)).toBe(true);
    expect(meta!.topicId).not.toBe(ZERO_UUID);
    expect(meta!.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    for (const p of meta!.partitions) expect(cluster.nodes().has(p.leaderId)).toBe(true);
    expect(cluster.topicById(meta!.topicId)?.name).toBe(topic);

    const conn = await cluster.anyConnection();
    const byId = await conn.call(Metadata, metadataForTopicIds([meta!.topicId]));
    expect(byId.topics.map((t) => [t.name, t.topicId, t.errorCode])).toEqual([[topic, meta!.topicId, 0]]);
    const unknown = await conn.call(Metadata, metadataForTopicIds([randomUuid()]));
    expect(unknown.topics[0]!.errorCode).toBe(100); // UNKNOWN_TOPIC_ID
  });

  it('finds the group coordinator', async () => {
    const node = await cluster.findGroupCoordinator(uniqueGroup('wire-fc'));
    expect(cluster.nodes().get(node.nodeId)).toMatchObject({ host: node.host, port: node.port });
  });

  it('sets and reads share-group configs (resource type GROUP)', async () => {
    const group = uniqueGroup('wire-cfg');
    await cluster.alterGroupConfigs(group, { 'share.auto.offset.reset': 'earliest' });
    await eventually('the group config to read back', async () => {
      const configs = await cluster.describeGroupConfigs(group, ['share.auto.offset.reset']);
      return configs.get('share.auto.offset.reset') === 'earliest' ? true : undefined;
    });
  });
});

describe('share group round trip', () => {
  it('joins, fetches acquired records, acknowledges them (piggy-backed and standalone)', async () => {
    const topic = uniqueTopic('wire-share');
    const group = uniqueGroup('wire-share');
    await createTopic(topic, { partitions: 2 });
    await cluster.alterGroupConfigs(group, { 'share.auto.offset.reset': 'earliest' });
    const values = Array.from({ length: 30 }, (_, i) => `value-${i}`);
    await produce(
      topic,
      values.map((v, i) => ({ key: `k${i}`, value: v, headers: { n: String(i) } })),
    );
    const [meta] = await cluster.refreshMetadata([topic]);
    const member = await join(group, meta!);

    const described = await member.conn.call(ShareGroupDescribe, {
      groupIds: [group],
      includeAuthorizedOperations: false,
    });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, groupId: group });
    expect(described.groups[0]!.members.map((m) => m.memberId)).toEqual([member.memberId]);
    expect(described.groups[0]!.members[0]!.assignment.topicPartitions[0]!.topicName).toBe(topic);

    // All partitions are led by the same broker here; group by leader anyway, as a consumer must.
    const leaderId = cluster.leaderFor(meta!.topicId, 0)!;
    const leader: BrokerConnection = await cluster.connectionTo(leaderId);
    const partitions = member.assignment.find((a) => a.topicId === meta!.topicId)!.partitions;
    for (const p of partitions) expect(cluster.leaderFor(meta!.topicId, p)).toBe(leaderId);

    const seen = new Map<string, number>(); // value → delivery count
    let pendingAcks = new Map<number, AcknowledgementBatch[]>();
    let epoch = 0;
    let lockMs = 0;
    await eventually('every produced record to be acquired', async () => {
      const res: ShareFetchResponse = await leader.call(
        ShareFetch,
        {
          groupId: group,
          memberId: member.memberId,
          shareSessionEpoch: epoch,
          maxWaitMs: 500,
          minBytes: 1,
          maxBytes: 1 << 20,
          maxRecords: 7,
          batchSize: 7,
          topics:
            epoch === 0
              ? [
                  {
                    topicId: meta!.topicId,
                    partitions: partitions.map((p) => ({ partitionIndex: p, acknowledgementBatches: [] })),
                  },
                ]
              : pendingAcks.size > 0
                ? [
                    {
                      topicId: meta!.topicId,
                      partitions: [...pendingAcks].map(([p, acks]) => ({
                        partitionIndex: p,
                        acknowledgementBatches: acks,
                      })),
                    },
                  ]
                : [],
          forgottenTopicsData: [],
        },
        { timeoutMs: 10_000 },
      );
      expect(res.errorCode).toBe(0);
      epoch++;
      lockMs = res.acquisitionLockTimeoutMs;
      pendingAcks = new Map();
      for (const t of res.responses) {
        expect(t.topicId).toBe(meta!.topicId);
        for (const p of t.partitions) {
          expect(p.errorCode).toBe(0);
          expect(p.acknowledgeErrorCode).toBe(0); // the previous round's piggy-backed ACCEPTs
          if (p.acquiredRecords.length === 0) continue;
          const decoded = await decodeRecordBatches(p.records);
          const offsets = new Map<number, string>();
          for (const b of decoded.batches)
            for (const r of b.records) offsets.set(r.offset, r.value!.toString());
          for (const a of p.acquiredRecords) {
            expect(a.deliveryCount).toBe(1);
            for (let o = a.firstOffset; o <= a.lastOffset; o++) {
              expect(offsets.has(o)).toBe(true);
              seen.set(offsets.get(o)!, a.deliveryCount);
            }
          }
          pendingAcks.set(
            p.partitionIndex,
            p.acquiredRecords.map((a) => ({
              firstOffset: a.firstOffset,
              lastOffset: a.lastOffset,
              acknowledgeTypes: [AcknowledgeType.ACCEPT],
            })),
          );
        }
      }
      return seen.size === values.length ? true : undefined;
    });
    expect([...seen.keys()].sort()).toEqual([...values].sort());
    expect(lockMs).toBeGreaterThan(0);

    // The last round's acks, standalone.
    const ack = await leader.call(ShareAcknowledge, {
      groupId: group,
      memberId: member.memberId,
      shareSessionEpoch: epoch,
      topics: [
        {
          topicId: meta!.topicId,
          partitions: [...pendingAcks].map(([p, acks]) => ({
            partitionIndex: p,
            acknowledgementBatches: acks,
          })),
        },
      ],
    });
    expect(ack.errorCode).toBe(0);
    for (const t of ack.responses) for (const p of t.partitions) expect(p.errorCode).toBe(0);
    await member.leave();
  });

  it.each(['gzip', 'snappy', 'lz4', 'zstd'])(
    'decodes batches the broker compressed with %s',
    async (codec) => {
      const topic = uniqueTopic(`wire-${codec}`);
      const group = uniqueGroup(`wire-${codec}`);
      await createTopic(topic, { partitions: 1, configs: { 'compression.type': codec } });
      await cluster.alterGroupConfigs(group, { 'share.auto.offset.reset': 'earliest' });
      const values = Array.from({ length: 40 }, (_, i) => `${codec}-${'x'.repeat(i)}-${i}`);
      await produce(topic, values);
      const [meta] = await cluster.refreshMetadata([topic]);
      const member = await join(group, meta!);
      const leader = await cluster.connectionTo(cluster.leaderFor(meta!.topicId, 0)!);
      const res = await leader.call(
        ShareFetch,
        {
          groupId: group,
          memberId: member.memberId,
          shareSessionEpoch: 0,
          maxWaitMs: 5000,
          minBytes: 1,
          maxBytes: 1 << 20,
          maxRecords: 500,
          batchSize: 500,
          topics: [
            { topicId: meta!.topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] },
          ],
          forgottenTopicsData: [],
        },
        { timeoutMs: 15_000 },
      );
      const p = res.responses[0]!.partitions[0]!;
      expect(p.acquiredRecords).toEqual([{ firstOffset: 0, lastOffset: 39, deliveryCount: 1 }]);
      const decoded = await decodeRecordBatches(p.records);
      expect(decoded.batches.map((b) => b.compression)).toEqual(
        decoded.batches.map(() => ({ gzip: 1, snappy: 2, lz4: 3, zstd: 4 })[codec]),
      );
      expect(decoded.batches.flatMap((b) => b.records.map((r) => r.value!.toString()))).toEqual(values);
      await member.leave();
    },
  );
});
