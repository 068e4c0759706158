/** Fetch responses as a leader would answer, for the fetch-loop tests. */
import type { FetchPartitionData, FetchResponse } from '../../../../src/kafka/protocol/messages/fetch.js';

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
