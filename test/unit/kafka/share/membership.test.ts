import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
  ShareTopicPartitions,
} from '../../../../src/kafka/protocol/messages/share-group-heartbeat.js';
import { formatLogMessage } from '../../../../src/cli/log-line.js';
import { KafkaConnectionError } from '../../../../src/kafka/errors/kafka-errors.js';
import { EARLY_HEARTBEAT_MS, Membership } from '../../../../src/kafka/share/membership.js';
import type { ShareTransport } from '../../../../src/kafka/share/transport.js';
import { capturingLogger } from '../../cli/capturing-logger.js';

const TOPIC = 'AAAAAAAAAAAAAAAAAAAAAA';

/**
 * A coordinator that, like KIP-1263's, answers the joining heartbeat without partitions and hands
 * them out on the first heartbeat at or after `assignAfterMs`.
 */
function coordinator(opts: { intervalMs: number; assignAfterMs: number | null }) {
  const beats: Array<{ at: number; epoch: number }> = [];
  let joinedAt = 0;
  let assigned = false;
  const heartbeat = async (
    _node: number,
    req: ShareGroupHeartbeatRequest,
  ): Promise<ShareGroupHeartbeatResponse> => {
    const now = Date.now();
    beats.push({ at: now, epoch: req.memberEpoch });
    let assignment: { topicPartitions: ShareTopicPartitions[] } | null = null;
    if (req.memberEpoch === 0) {
      joinedAt = now;
      assigned = false;
      assignment = { topicPartitions: [] };
    } else if (!assigned && opts.assignAfterMs !== null && now - joinedAt >= opts.assignAfterMs) {
      assigned = true;
      assignment = { topicPartitions: [{ topicId: TOPIC, partitions: [0, 1] }] };
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch === -1 ? -1 : 2,
      heartbeatIntervalMs: opts.intervalMs,
      assignment,
    };
  };
  const transport = {
    groupCoordinator: async () => 1,
    heartbeat,
  } as unknown as ShareTransport;
  return { transport, beats };
}

function member(transport: ShareTransport, assignments: ShareTopicPartitions[][]): Membership {
  return new Membership({
    groupId: 'g',
    memberId: 'm',
    rackId: null,
    transport,
    logger: pino({ level: 'silent' }),
    onAssignment: (a) => assignments.push(a),
    onFatal: (e) => {
      throw e;
    },
  });
}

describe('Membership heartbeat pace', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('asks early while waiting for its first partitions, then keeps the coordinator’s interval', async () => {
    const { transport, beats } = coordinator({ intervalMs: 5000, assignAfterMs: 1000 });
    const assignments: ShareTopicPartitions[][] = [];
    const m = member(transport, assignments);
    m.subscribe(['t']);
    await vi.advanceTimersByTimeAsync(12_000);
    await m.leave();

    const first = assignments.find((a) => a.length > 0);
    expect(first).toEqual([{ topicId: TOPIC, partitions: [0, 1] }]);
    const gaps = beats.slice(1).map((b, i) => b.at - beats[i]!.at);
    // joined at 0, early beats until the assignment at 1000 ms, then the regular 5 s
    expect(gaps.slice(0, 4)).toEqual([250, 250, 250, 250]);
    expect(beats[4]!.at - beats[0]!.at).toBe(1000);
    expect(gaps.slice(4, 6)).toEqual([5000, 5000]);
  });

  it('gives up the early pace after one interval when no partitions come', async () => {
    const { transport, beats } = coordinator({ intervalMs: 1000, assignAfterMs: null });
    const m = member(transport, []);
    m.subscribe(['t']);
    await vi.advanceTimersByTimeAsync(5000);
    await m.leave();
    const gaps = beats.slice(1, -1).map((b, i) => b.at - beats[i]!.at);
    expect(gaps.slice(0, 4)).toEqual([250, 250, 250, 250]);
    expect(gaps.slice(4).every((g) => g === 1000)).toBe(true);
    expect(gaps.length).toBeGreaterThan(5);
  });

  it('never beats faster than an interval shorter than the early period', async () => {
    const { transport, beats } = coordinator({ intervalMs: 100, assignAfterMs: 10_000 });
    const m = member(transport, []);
    m.subscribe(['t']);
    await vi.advanceTimersByTimeAsync(1000);
    await m.leave();
    const gaps = beats.slice(1, -1).map((b, i) => b.at - beats[i]!.at);
    expect(Math.min(...gaps)).toBe(100);
    expect(EARLY_HEARTBEAT_MS).toBeGreaterThan(100);
  });
});

describe('Membership leave', () => {
  it('a leave heartbeat that fails is one WARN giving the broker and the reason once', async () => {
    const { transport } = coordinator({ intervalMs: 5000, assignAfterMs: null });
    const address = '127.0.0.1:9092';
    // as translateKafkajsError makes it: kafkajs's error as the cause, its text in the message
    const kafkajs = Object.assign(new Error(`Connection error: connect ECONNREFUSED ${address}`), {
      name: 'KafkaJSConnectionError',
    });
    const refused = new KafkaConnectionError(address, kafkajs.message, { cause: kafkajs });
    const answering = transport.heartbeat.bind(transport);
    transport.heartbeat = (node, req) =>
      req.memberEpoch === -1 ? Promise.reject(refused) : answering(node, req);
    const { logger, lines } = capturingLogger('debug');
    const m = new Membership({
      groupId: 'g',
      memberId: 'm',
      rackId: null,
      transport,
      logger,
      onAssignment: () => {},
      onFatal: (e) => {
        throw e;
      },
    });
    m.subscribe(['t']);
    await m.joined;
    await m.leave();
    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]).toMatchObject({
      msg: 'leave heartbeat failed; the coordinator will expire the member',
      broker: address,
      err: 'connect ECONNREFUSED',
    });
    // pino's err serializer joined the cause chain's messages: the reason stood there twice, the address 4 times
    expect(JSON.stringify(warns[0]).match(/ECONNREFUSED/g)).toHaveLength(1);
    expect(formatLogMessage(warns[0]!, { stacks: false })).toBe(
      'leave heartbeat failed; the coordinator will expire the member  broker=127.0.0.1:9092 err="connect ECONNREFUSED"',
    );
  });
});

/**
 * Kafka 4.4's share coordinator as seen on the real broker (2026-12-05): it accepts the previous epoch
 * (a response may have been lost), and sends the assignment only to a joining member, on a change, or in
 * answer to a request that names the subscription. Here the one response that carries the partitions
 * is lost on the way back.
 */
function coordinatorLosingTheAssignment() {
  const requests: ShareGroupHeartbeatRequest[] = [];
  let epoch = 0;
  let previous = 0;
  let assigned = false;
  let lost = false;
  const heartbeat = async (
    _node: number,
    req: ShareGroupHeartbeatRequest,
  ): Promise<ShareGroupHeartbeatResponse> => {
    requests.push(req);
    if (req.memberEpoch !== 0 && req.memberEpoch !== epoch && req.memberEpoch !== previous) {
      throw new Error(`test coordinator: epoch ${req.memberEpoch} would be fenced`);
    }
    let assignment: { topicPartitions: ShareTopicPartitions[] } | null = null;
    if (req.memberEpoch === 0 && epoch === 0) {
      epoch = 2;
      assignment = { topicPartitions: [] };
    } else if (!assigned) {
      assigned = true;
      previous = epoch;
      epoch = 3;
      assignment = { topicPartitions: [{ topicId: TOPIC, partitions: [0, 1] }] };
    } else if (req.subscribedTopicNames !== null) {
      assignment = { topicPartitions: [{ topicId: TOPIC, partitions: [0, 1] }] };
    }
    if (assignment?.topicPartitions.length && !lost) {
      lost = true;
      throw new KafkaConnectionError('127.0.0.1:9092', 'read ECONNRESET');
    }
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch === -1 ? -1 : epoch,
      heartbeatIntervalMs: 5000,
      assignment,
    };
  };
  return { transport: { groupCoordinator: async () => 1, heartbeat } as unknown as ShareTransport, requests };
}

describe('Membership after a lost heartbeat response', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('sends a full heartbeat next, so partitions given in the lost answer still arrive', async () => {
    const { transport, requests } = coordinatorLosingTheAssignment();
    const assignments: ShareTopicPartitions[][] = [];
    const m = member(transport, assignments);
    m.subscribe(['t']);
    await vi.advanceTimersByTimeAsync(3000);
    await m.leave();
    expect(assignments.at(-1)).toEqual([{ topicId: TOPIC, partitions: [0, 1] }]);
    // the beat after the failure named the subscription (with the previous epoch, which 4.4 accepts)
    const failedAt = requests.findIndex((r, i) => i > 0 && r.memberEpoch === 2);
    expect(requests[failedAt + 1]).toMatchObject({ memberEpoch: 2, subscribedTopicNames: ['t'] });
  });
});
