/** Fetch responses as a leader would answer, and a quiet host, for the fetch-loop tests. */
import pino from 'pino';
import type { PartitionState } from '../../../../src/kafka/consumer/partition-state.js';
import type { FetchPartitionData, FetchResponse } from '../../../../src/kafka/protocol/messages/fetch.js';

/** A running host with one leader (node 1), nothing paused, metadata and resets that succeed. */
export function quietHost(parts: Map<string, PartitionState>) {
  return {
    log: pino({ level: 'silent' }),
    parts,
    concurrency: 4,
    isRunning: () => true,
    isPaused: () => false,
    leaderOf: () => 1,
    refreshMetadata: () => Promise.resolve(),
    resetPosition: () => Promise.resolve(),
  };
}

/** One partition's answer: `records` up to `highWatermark`, or an error code with none. */
export function partitionAnswer(
  partitionIndex: number,
  highWatermark: number,
  records: Buffer = Buffer.alloc(0),
  errorCode = 0,
): FetchPartitionData {
  return {
    partitionIndex,
    errorCode,
    highWatermark,
    lastStableOffset: highWatermark,
    logStartOffset: errorCode === 0 ? 0 : -1,
    currentLeader: { leaderId: 1, leaderEpoch: 0 },
    abortedTransactions: null,
    preferredReadReplica: -1,
    records,
  };
}

/** A Fetch response for one topic. */
export function fetchAnswer(topicId: string, partitions: FetchPartitionData[]): FetchResponse {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    nodeEndpoints: [],
    responses: [{ topicId, partitions }],
  };
}
