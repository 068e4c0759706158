import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FetchLoops, partitionKey, type Asked } from '../../../../src/kafka/consumer/fetch-loops.js';
import {
  dropReadAhead,
  newPartitionState,
  type PartitionState,
  type ReadAhead,
} from '../../../../src/kafka/consumer/partition-state.js';
import type { FetchResponse } from '../../../../src/kafka/protocol/messages/fetch.js';
import { fetchAnswer, partitionAnswer, quietHost } from './fetch-answers.js';
import { encodeBatch, simpleBatch } from '../records/record-batch-builder.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const PER_FETCH = 10;
const tick = () => new Promise<void>((r) => setTimeout(r, 5));

function batch(baseOffset: number, count: number): Buffer {
  return encodeBatch(
    simpleBatch(
      baseOffset,
      Array.from({ length: count }, (_, i) => String(baseOffset + i)),
    ),
  );
}

/** A partition log of `size` records, fetched PER_FETCH at a time; the test drives each fetch's end. */
function harness(size: number, chunkRecords?: number) {
  const parts = new Map<string, PartitionState>();
  const s = newPartitionState('t', TOPIC_ID, 0, 0);
  parts.set(partitionKey(TOPIC_ID, 0), s);
  const paused = new Set<string>();
  const asked: number[] = [];
  const handed: Array<{ from: number; last: number; end: (resolveUpTo?: number) => void }> = [];
  let release: (() => void) | undefined;
  const loops = new FetchLoops({
    log: pino({ level: 'silent' }),
    parts,
    concurrency: 4,
    chunkRecords,
    isRunning: () => true,
    isPaused: (t) => paused.has(t),
    leaderOf: () => 1,
    refreshMetadata: () => Promise.resolve(),
    resetPosition: () => Promise.resolve(),
    fetch: async (_node, _lane, as: readonly Asked[]): Promise<FetchResponse> => {
      const offset = as[0]!.offset;
      asked.push(offset);
      // hold the response when the test asks to (a fetch in flight across a pause or an early end)
      if (release === undefined) await tick();
      else await new Promise<void>((r) => (release = r));
      const count = Math.min(PER_FETCH, size - offset);
      if (count <= 0) await new Promise(() => undefined); // nothing more: the long poll never answers
      return fetchAnswer(TOPIC_ID, [partitionAnswer(0, size, batch(offset, count))]);
    },
    deliver: (st, b: ReadAhead) =>
      new Promise<void>((resolve) => {
        handed.push({
          from: b.records[0]!.offset,
          last: b.lastOffset,
          end: (upTo = b.lastOffset) => {
            if (upTo >= b.from) st.resolvedNext = upTo + 1;
            resolve();
          },
        });
      }),
  });
  return {
    s,
    loops,
    paused,
    asked,
    handed,
    holdResponses: () => (release = () => undefined),
    releaseResponse: () => {
      const r = release;
      release = undefined;
      r?.();
    },
  };
}

describe('FetchLoops read-ahead', () => {
  it('reads the next fetch while one is with the application and hands it over after it', async () => {
    const h = harness(40);
    h.loops.kick();
    await tick();
    await tick();
    expect(h.handed.map((f) => f.from)).toEqual([0]);
    expect(h.s.buffered?.from).toBe(10); // read ahead, one response only
    expect(h.asked).toEqual([0, 10]);
    h.handed[0]!.end();
    await tick();
    await tick();
    expect(h.handed.map((f) => f.from)).toEqual([0, 10]);
    expect(h.s.position).toBe(20);
    expect(h.s.buffered?.from).toBe(20);
  });

  it('an early end drops the read-ahead: the partition is read again from what was resolved', async () => {
    const h = harness(40);
    h.loops.kick();
    await tick();
    await tick();
    expect(h.s.buffered?.from).toBe(10);
    h.handed[0]!.end(4); // resolved 0..4 only
    await tick();
    await tick();
    expect(h.handed.map((f) => f.from)).toEqual([0, 5]);
    expect(h.asked).toContain(5);
    expect(h.s.position).toBe(15);
  });

  it('a response asked before a pause is discarded; resuming reads from the position', async () => {
    const h = harness(40);
    h.loops.kick();
    await tick();
    await tick();
    h.handed[0]!.end();
    await tick(); // 10..19 handed over, 20.. asked for
    h.holdResponses();
    await tick();
    h.paused.add('t');
    dropReadAhead(h.s);
    h.handed[1]!.end(14); // ends early while paused
    h.releaseResponse();
    await tick();
    await tick();
    expect(h.s.buffered).toBeUndefined();
    expect(h.handed).toHaveLength(2);
    h.paused.delete('t');
    h.loops.kick();
    await tick();
    await tick();
    expect(h.handed.map((f) => f.from)).toEqual([0, 10, 15]);
  });

  it('cuts a small last chunk off a fetch; the next fetch reads it again, and nothing is skipped', async () => {
    const h = harness(40, 3); // fetches of 10 = chunks of 3, 3, 3 and 1: the 1 waits for the next fetch
    const ends: Array<[number, number]> = [];
    h.loops.kick();
    for (let i = 0; i < 12 && h.s.position < 40; i++) {
      await tick();
      await tick();
      const f = h.handed[ends.length];
      if (f === undefined) continue;
      ends.push([f.from, f.last]);
      f.end();
    }
    expect(ends).toEqual([
      [0, 8],
      [9, 17],
      [18, 26],
      [27, 35],
      [36, 39], // the fetch reaching the log's end is not cut: its tail would only come back alone
    ]);
    expect(h.asked.slice(0, 3)).toEqual([0, 9, 18]);
  });

  it('keeps a last chunk of half max.poll.records or more', async () => {
    const h = harness(40, 4); // 10 = 4, 4 and 2
    h.loops.kick();
    await tick();
    await tick();
    expect(h.handed[0]!.last).toBe(9);
  });
});

describe('FetchLoops lanes', () => {
  it("puts a caught-up partition's long poll on a lane of its own: partitions with data never wait for it", async () => {
    // partition 0 is drained from the start, 2 after two fetches (their Fetch then waits for data), 1 has 40 records
    const sizes = [0, 40, 20];
    const parts = new Map<string, PartitionState>();
    for (const [p] of sizes.entries())
      parts.set(partitionKey(TOPIC_ID, p), newPartitionState('t', TOPIC_ID, p, 0));
    const hung: Array<{ lane: number; partitions: number[] }> = [];
    const handed: number[] = [];
    const loops = new FetchLoops({
      ...quietHost(parts),
      fetch: async (_node, lane, as: readonly Asked[]): Promise<FetchResponse> => {
        await tick();
        const withData = as.filter((a) => a.offset < sizes[a.s.partition]!);
        if (withData.length === 0) {
          // a long poll: no record comes in this test, so it never answers
          hung.push({ lane, partitions: as.map((a) => a.s.partition) });
          await new Promise(() => undefined);
        }
        return fetchAnswer(
          TOPIC_ID,
          as.map((a) => {
            const size = sizes[a.s.partition]!;
            const count = Math.min(PER_FETCH, size - a.offset);
            return partitionAnswer(a.s.partition, size, count > 0 ? batch(a.offset, count) : undefined);
          }),
        );
      },
      deliver: async (st, b: ReadAhead) => {
        if (st.partition === 1) handed.push(b.from);
        await tick();
        st.resolvedNext = b.lastOffset + 1;
      },
    });
    loops.kick();
    for (let i = 0; i < 30; i++) await tick();
    expect(handed).toEqual([0, 10, 20, 30]);
    expect(hung.length).toBeGreaterThan(0);
    expect(hung.every((h) => h.lane === 2)).toBe(true);
  });
});

describe('FetchLoops caught-up lane', () => {
  it('goes on fetching a partition that caught up, with nothing else to start a fetch', async () => {
    let size = 0; // an empty partition: each Fetch answers empty (its wait ran out), until records come
    const parts = new Map<string, PartitionState>();
    const s = newPartitionState('t', TOPIC_ID, 0, 0);
    parts.set(partitionKey(TOPIC_ID, 0), s);
    const lanes: number[] = [];
    const handed: number[] = [];
    const loops = new FetchLoops({
      ...quietHost(parts),
      fetch: async (_node, lane, as: readonly Asked[]): Promise<FetchResponse> => {
        lanes.push(lane);
        await tick();
        const offset = as[0]!.offset;
        const count = Math.min(PER_FETCH, size - offset);
        return fetchAnswer(TOPIC_ID, [
          partitionAnswer(0, size, count > 0 ? batch(offset, count) : undefined),
        ]);
      },
      deliver: (st, b: ReadAhead) => {
        handed.push(b.from);
        st.resolvedNext = b.lastOffset + 1;
        return Promise.resolve();
      },
    });
    loops.kick();
    await tick();
    await tick();
    await tick();
    expect(lanes[0]).toBe(0);
    expect(lanes.slice(1)).toContain(2); // caught up: on its own lane from then on
    size = 10;
    for (let i = 0; i < 10 && handed.length === 0; i++) await tick();
    expect(handed).toEqual([0]);
  });
});
