// A coordinator that is still loading when the member first asks: the normal state of a freshly
// started broker. Its retries are debug; only a wait that outlasts 10 s is worth one WARN.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KafkaErrorCode } from '../../../../src/kafka/errors/error-codes.js';
import type {
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
} from '../../../../src/kafka/protocol/messages/share-group-heartbeat.js';
import { Membership } from '../../../../src/kafka/share/membership.js';
import type { ShareTransport } from '../../../../src/kafka/share/transport.js';
import { capturingLogger } from '../../cli/capturing-logger.js';

/** Answers COORDINATOR_LOAD_IN_PROGRESS until `loadedAfterMs` has passed, then lets the member join. */
function loadingCoordinator(loadedAfterMs: number) {
  const start = Date.now();
  let beats = 0;
  const heartbeat = async (
    _node: number,
    req: ShareGroupHeartbeatRequest,
  ): Promise<ShareGroupHeartbeatResponse> => {
    beats++;
    const loading = Date.now() - start < loadedAfterMs;
    return {
      throttleTimeMs: 0,
      errorCode: loading ? KafkaErrorCode.COORDINATOR_LOAD_IN_PROGRESS : 0,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: loading ? 0 : 1,
      heartbeatIntervalMs: 5000,
      assignment: loading ? null : { topicPartitions: [] },
    };
  };
  const transport = { groupCoordinator: async () => 1, heartbeat } as unknown as ShareTransport;
  return { transport, beats: () => beats };
}

async function run(loadedAfterMs: number, forMs: number) {
  const { transport, beats } = loadingCoordinator(loadedAfterMs);
  const { logger, lines } = capturingLogger('debug');
  const m = new Membership({
    groupId: 'orders',
    memberId: 'm',
    rackId: null,
    transport,
    logger,
    onAssignment: () => undefined,
    onFatal: (e) => {
      throw e;
    },
  });
  m.subscribe(['t']);
  await vi.advanceTimersByTimeAsync(forMs);
  await m.leave();
  return { lines, beats: beats() };
}

describe('Membership while the share group coordinator loads', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('a coordinator that loads within a few seconds: retries at debug, no WARN', async () => {
    const { lines, beats } = await run(3000, 8000);

    expect(beats).toBeGreaterThan(3);
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    const waits = lines.filter((l) => l.msg.startsWith('waiting for'));
    expect(waits.length).toBeGreaterThan(2);
    expect(waits[0]).toMatchObject({
      level: 20,
      msg: 'waiting for the share group coordinator of group orders: COORDINATOR_LOAD_IN_PROGRESS',
    });
    expect(lines.map((l) => l.msg)).toContain('joined share group');
  });

  it('one that stays loading past 10 s: exactly one WARN naming the group and the error', async () => {
    const { lines } = await run(25_000, 40_000);

    const warns = lines.filter((l) => l.level === 40);
    expect(warns).toHaveLength(1);
    expect(warns[0]!.msg).toMatch(
      /^still waiting for the share group coordinator of group orders after 1\d s: COORDINATOR_LOAD_IN_PROGRESS$/,
    );
    expect(lines.map((l) => l.msg)).toContain('joined share group');
    expect(lines.some((l) => l.level === 30 && /answered after 2\d s$/.test(l.msg))).toBe(true);
  });

  it('never loads: still one WARN however long it waits', async () => {
    const { lines, beats } = await run(Number.POSITIVE_INFINITY, 120_000);

    expect(beats).toBeGreaterThan(20);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
  });
});
