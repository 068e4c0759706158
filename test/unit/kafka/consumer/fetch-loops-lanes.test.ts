// The caught-up lane (fetch-loops.ts): a partition that leaves it while it is being asked is not stranded.
import pino from 'pino';
import { expect, it } from 'vitest';
import { FetchLoops, partitionKey, type Asked } from '../../../../src/kafka/consumer/fetch-loops.js';
import {
  newPartitionState,
  type PartitionState,
  type ReadAhead,
} from '../../../../src/kafka/consumer/partition-state.js';
import type { FetchResponse } from '../../../../src/kafka/protocol/messages/fetch.js';
import { KafkaErrorCode } from '../../../../src/kafka/errors/kafka-errors.js';
import { fetchAnswer, partitionAnswer } from './fetch-answers.js';
import { encodeBatch, simpleBatch } from '../records/record-batch-builder.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const tick = (ms = 5) => new Promise<void>((r) => setTimeout(r, ms));
const batch = (base: number, n: number) =>
  encodeBatch(
    simpleBatch(
      base,
      Array.from({ length: n }, (_, i) => String(base + i)),
    ),
  );

function setup() {
  const state = { oor: false };
  const sizes = [10, 0]; // p0 has 10 records, p1 none (idle, caught up)
  const paused = new Set<string>();
  const parts = new Map<string, PartitionState>();
  for (const p of [0, 1]) parts.set(partitionKey(TOPIC_ID, p), newPartitionState('t', TOPIC_ID, p, 0));
  const asks: Array<{ lane: number; ps: string[] }> = [];
  const handed: Array<{ p: number; from: number; end: (upTo: number) => void }> = [];
  const loops = new FetchLoops({
    log: pino({ level: 'silent' }),
    parts,
    concurrency: 4,
    isRunning: () => true,
    isPaused: (t) => paused.has(t),
    leaderOf: () => 1,
    refreshMetadata: () => Promise.resolve(),
    resetPosition: (st) => {
      st.position = 0;
      return Promise.resolve();
    },
    fetch: async (_n, lane, as: readonly Asked[]): Promise<FetchResponse> => {
      asks.push({ lane, ps: as.map((a) => `${a.s.partition}@${a.offset}`) });
      await tick();
      if (as.every((a) => a.offset >= sizes[a.s.partition]!)) await tick(30); // long poll: fetch.max.wait.ms runs out
      return fetchAnswer(
        TOPIC_ID,
        as.map((a) => {
          const size = sizes[a.s.partition]!;
          const n = Math.max(0, Math.min(10, size - a.offset));
          if (state.oor && a.s.partition === 0) {
            state.oor = false;
            return partitionAnswer(0, -1, undefined, KafkaErrorCode.OFFSET_OUT_OF_RANGE);
          }
          return partitionAnswer(a.s.partition, size, n > 0 ? batch(a.offset, n) : undefined);
        }),
      );
    },
    deliver: (st, b: ReadAhead) =>
      new Promise<void>((resolve) => {
        handed.push({
          p: st.partition,
          from: b.from,
          end: (upTo) => {
            st.resolvedNext = upTo + 1;
            resolve();
          },
        });
      }),
  });
  return { parts, paused, asks, handed, loops, state };
}

it('a partition whose put ended early while it was in the caught-up long poll is fetched again', async () => {
  const { asks, handed, loops } = setup();
  loops.kick();
  for (let i = 0; i < 6; i++) await tick();
  expect(handed.map((h) => `${h.p}@${h.from}`)).toEqual(['0@0']);
  expect(asks.at(-1)).toEqual({ lane: 2, ps: ['0@10', '1@0'] }); // both in the caught-up lane's long poll
  handed[0]!.end(4); // the fetch ends early: 5..9 to read again
  for (let i = 0; i < 40; i++) await tick();
  expect(handed.map((h) => `${h.p}@${h.from}`)).toEqual(['0@0', '0@5']);
});

it('a caught-up partition reset after OFFSET_OUT_OF_RANGE is fetched again', async () => {
  const { asks, handed, loops, state } = setup();
  loops.kick();
  for (let i = 0; i < 6; i++) await tick();
  state.oor = true; // the next answer for p0 (in the caught-up long poll) is OFFSET_OUT_OF_RANGE
  handed[0]!.end(9);
  for (let i = 0; i < 40; i++) await tick();
  expect(asks.slice(2).some((a) => a.ps.includes('0@0'))).toBe(true); // read again from the reset position
});
