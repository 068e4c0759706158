/**
 * The fetching half of a consumer-protocol member: one Fetch loop per partition leader, and the hand-over
 * of fetched records to the application, one fetch per partition at a time.
 *
 * Read-ahead: while a partition's fetch is with the application, its loop fetches the next one (from
 * `fetchNext`) and holds it (`buffered`, one response at most, bounded by max.partition.fetch.bytes), so
 * the round trip and the decoding overlap the puts instead of following them. The held response is
 * handed over only when the fetch before it ended with everything resolved; an early end (a put given
 * back, a stop, a failure), a pause, a revocation or a loss drops it, and a response that comes back
 * for a partition no longer owned, at another offset or under another generation (`gen`) is discarded.
 * `position` moves only when records are handed over, and commits store only what the application
 * resolved, so reading ahead never commits or skips a record that was not put.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { KafkaError, KafkaErrorCode } from '../errors/kafka-errors.js';
import { failureFields } from '../errors/failure-reason.js';
import type { FetchPartitionData, FetchResponse } from '../protocol/messages/fetch.js';
import { decodeRecordBatches, type KafkaRecord } from '../records/record-batches.js';
import { dropReadAhead, type PartitionState, type ReadAhead } from './partition-state.js';

/** One partition in a Fetch request, as asked: a response is used only if all of this still holds. */
export interface Asked {
  readonly s: PartitionState;
  readonly gen: number;
  readonly offset: number;
}

export interface FetchLoopsHost {
  readonly log: Logger;
  readonly parts: ReadonlyMap<string, PartitionState>;
  /** Fetches with the application at once. */
  readonly concurrency: number;
  /**
   * The application takes a fetch in chunks of this many records (`max.poll.records`): a fetch whose
   * last chunk would be under half of it ends before that chunk, which the next fetch reads again.
   */
  readonly chunkRecords?: number;
  isRunning(): boolean;
  isPaused(topic: string): boolean;
  /** The partition's leader, -1 when unknown. */
  leaderOf(s: PartitionState): number;
  /** One Fetch of these partitions from `node` on connection `lane` (throws on a connection failure). */
  fetch(node: number, lane: number, asked: readonly Asked[]): Promise<FetchResponse>;
  refreshMetadata(): Promise<void>;
  /** OFFSET_OUT_OF_RANGE on a partition not with the application: the new position (auto.offset.reset). */
  resetPosition(s: PartitionState): Promise<void>;
  /** Hands a fetch to the application; resolves when it is done with it. */
  deliver(s: PartitionState, fetch: ReadAhead): Promise<void>;
}

export const partitionKey = (topicId: string, partition: number): string => `${topicId}:${partition}`;

/**
 * Fetches in flight per leader, each on a connection of its own (a broker answers one request per
 * connection at a time). With read-ahead, partitions become fetchable one by one as the task takes their
 * held response; one Fetch at a time then asks for one or two partitions per round trip, and the
 * round trip (stretched by the busy event loop reading the response) bounded the drain: 1 KiB records
 * on 6 partitions spent the whole drain in Fetch, 73 ms a request.
 */
const LANES = 2;
/**
 * The lane of partitions that were caught up (fetched to their high watermark) at their last answer:
 * their Fetch waits up to fetch.max.wait.ms for data. On the data lanes such a long poll held the lane,
 * and partitions with data waited for it: 1 KiB × 6p spent the last 40 % of a drain (2.5 s) with no
 * put under way, fetching once per 500 ms, after the first partitions had been drained.
 */
const CAUGHT_UP_LANE = LANES;

export class FetchLoops {
  private readonly loops = new Map<string, Promise<void>>();
  /** Partitions holding a read-ahead, oldest first: handed over in that order, so none starves. */
  private readonly waiting = new Set<PartitionState>();
  private busyCount = 0;

  constructor(private readonly h: FetchLoopsHost) {}

  /** Resolves once every loop ended (after the member stopped running). */
  async ended(): Promise<void> {
    while (this.loops.size > 0) await Promise.all([...this.loops.values()]);
  }

  /** A partition whose next fetch may be asked for now. */
  private fetchable(s: PartitionState): boolean {
    return (
      !s.revoked &&
      !this.h.isPaused(s.topic) &&
      s.buffered === undefined &&
      !s.asking &&
      !(s.busy && s.holdReadAhead)
    );
  }

  /**
   * Hands over what was read ahead where it may go, then starts a loop for a leader with a partition to
   * fetch and a lane free (one loop per kick and leader: the partitions go to the loop started first).
   */
  kick(): void {
    if (!this.h.isRunning()) return;
    this.pump();
    const started = new Set<string>();
    for (const s of this.h.parts.values()) {
      if (!this.fetchable(s)) continue;
      const node = this.h.leaderOf(s);
      const kind = `${node}/${s.caughtUp}`;
      if (started.has(kind)) continue;
      started.add(kind);
      const lanes = s.caughtUp ? [CAUGHT_UP_LANE] : Array.from({ length: LANES }, (_, i) => i);
      for (const lane of lanes) {
        const key = `${node}/${lane}`;
        if (this.loops.has(key)) continue;
        this.loops.set(
          key,
          this.loop(node, lane).finally(() => this.loops.delete(key)),
        );
        break;
      }
    }
  }

  /** A partition this lane of its leader fetches: the caught-up ones have a lane of their own. */
  private onLane(s: PartitionState, node: number, lane: number): boolean {
    return this.fetchable(s) && this.h.leaderOf(s) === node && s.caughtUp === (lane === CAUGHT_UP_LANE);
  }

  private async loop(node: number, lane: number): Promise<void> {
    let backoffMs = 100;
    while (this.h.isRunning()) {
      const ready = [...this.h.parts.values()].filter((s) => this.onLane(s, node, lane));
      // partitions that moved to the other kind of lane (caught up, or data again) are its to fetch
      if (ready.length === 0) return this.kick();
      const asked: Asked[] = ready.map((s) => ({ s, gen: s.gen, offset: s.fetchNext }));
      for (const s of ready) s.asking = true;
      let next: 'fetch' | 'stale' | 'moved' = 'fetch';
      try {
        if (node < 0) throw new KafkaError(KafkaErrorCode.LEADER_NOT_AVAILABLE, { api: 'Fetch' });
        const res = await this.h.fetch(node, lane, asked);
        if (res.errorCode !== 0) throw new KafkaError(res.errorCode, { api: 'Fetch' });
        if (await this.takeAll(res, asked)) next = 'stale';
        backoffMs = 100;
      } catch (err) {
        this.h.log.debug({ ...failureFields(err), node }, 'fetch failed; retrying');
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 5000);
        await this.h.refreshMetadata().catch(() => undefined);
        if (this.h.leaderOf(ready[0]!) !== node) next = 'moved';
      } finally {
        // only once its response is taken: another lane must not ask for the same offset meanwhile
        for (const s of ready) s.asking = false;
      }
      // a partition asked here that belongs to the other lane now (its read-ahead was dropped, or it
      // caught up) was skipped by that lane's kick while it was being asked: the other lane must
      // start for it, or nothing fetches it again while this lane keeps polling
      if (ready.some((s) => this.fetchable(s) && !this.onLane(s, node, lane))) this.kick();
      if (next === 'stale') await this.h.refreshMetadata().catch(() => undefined);
      if (next !== 'fetch') return this.kick();
    }
  }

  /** Takes a response's partitions that are still wanted; true when one answered with an error to refresh on. */
  private async takeAll(res: FetchResponse, asked: readonly Asked[]): Promise<boolean> {
    const byKey = new Map(asked.map((a) => [partitionKey(a.s.topicId, a.s.partition), a]));
    let stale = false;
    for (const t of res.responses)
      for (const p of t.partitions) {
        const a = byKey.get(partitionKey(t.topicId, p.partitionIndex));
        if (a === undefined || !this.current(a)) continue;
        if (p.errorCode === KafkaErrorCode.OFFSET_OUT_OF_RANGE) await this.outOfRange(a.s);
        else if (p.errorCode !== 0) stale = true;
        else {
          await this.take(a, p);
          // fetched to the end (or dropped meanwhile: fetchNext went back) decides its lane next time
          a.s.caughtUp = a.s.fetchNext >= p.highWatermark;
        }
      }
    return stale;
  }

  /** The response to `a` is still wanted: same partition state, generation and offset, nothing held. */
  private current(a: Asked): boolean {
    const { s } = a;
    return (
      this.h.parts.get(partitionKey(s.topicId, s.partition)) === s &&
      s.gen === a.gen &&
      s.fetchNext === a.offset &&
      s.buffered === undefined &&
      !s.revoked &&
      !this.h.isPaused(s.topic)
    );
  }

  /** Out of range: reset now when nothing is with the application; otherwise once its fetch ended. */
  private async outOfRange(s: PartitionState): Promise<void> {
    if (s.busy) {
      s.holdReadAhead = true;
      return;
    }
    await this.h.resetPosition(s);
    dropReadAhead(s);
  }

  /** Decodes a response and holds it as the partition's read-ahead, then hands it over if it may go. */
  private async take(a: Asked, p: FetchPartitionData): Promise<void> {
    const { s } = a;
    if (p.records.length === 0) return;
    const { batches } = await decodeRecordBatches(p.records, {
      topic: s.topic,
      partition: s.partition,
      includeControl: true,
    });
    // decoding yields: a pause, a revocation or an early end may have come meanwhile
    if (!this.current(a)) return;
    const last = batches[batches.length - 1];
    if (last === undefined || last.lastOffset < a.offset) return;
    const records: KafkaRecord[] = [];
    for (const b of batches) {
      if (b.isControl) continue;
      for (const r of b.records) if (r.offset >= a.offset) records.push(r);
    }
    // at the log's end a cut tail would only come back alone, one Fetch and decode later
    const atLogEnd = last.lastOffset + 1 >= p.highWatermark;
    const lastOffset = (atLogEnd ? undefined : this.trimTail(records)) ?? last.lastOffset;
    s.buffered = { from: a.offset, records, lastOffset };
    s.fetchNext = lastOffset + 1;
    this.waiting.add(s);
    this.pump();
  }

  /**
   * A fetch of 1 MiB holds 1,005 records of 1 KiB: puts of 500, 500 and 5, the last one costing a put
   * and its round trip for nothing. Such a small last chunk (under half of `chunkRecords`) is cut off
   * here and read again by the next fetch (a producer batch or so more to fetch and decode). Returns the
   * new last offset, or undefined when nothing was cut.
   */
  private trimTail(records: KafkaRecord[]): number | undefined {
    const chunk = this.h.chunkRecords;
    if (chunk === undefined || records.length <= chunk) return undefined;
    const tail = records.length % chunk;
    if (tail === 0 || tail * 2 >= chunk) return undefined;
    records.length -= tail;
    return records[records.length - 1]!.offset;
  }

  /**
   * Hands held read-aheads whose partition is free over, within the concurrency, the longest held first:
   * in map order the first partitions would always win, and the last ones would be drained at the end
   * with fewer fetches with the application at once.
   */
  private pump(): void {
    for (const s of this.waiting) {
      if (this.busyCount >= this.h.concurrency) return;
      if (s.buffered === undefined || s.revoked) {
        this.waiting.delete(s); // dropped meanwhile
        continue;
      }
      if (s.busy || this.h.isPaused(s.topic)) continue;
      this.waiting.delete(s);
      this.handOver(s, s.buffered);
    }
  }

  private handOver(s: PartitionState, b: ReadAhead): void {
    s.buffered = undefined;
    if (b.from !== s.position) {
      // not where the application is: read again from its position (not expected; kept safe)
      dropReadAhead(s);
      return;
    }
    s.position = b.lastOffset + 1;
    if (b.records.length === 0) return; // control records or compacted gaps only
    s.busy = true;
    this.busyCount++;
    s.idle = new Promise<void>((r) => (s.markIdle = r));
    void this.h
      .deliver(s, b)
      .catch((err: unknown) => this.h.log.debug(failureFields(err), 'fetch ended with an error'))
      .finally(() => {
        const done = b.lastOffset + 1;
        if (s.resolvedNext === undefined || s.resolvedNext < done) {
          // ended early: what it did not resolve is read again, and what was read ahead after it too
          s.position = Math.max(b.from, s.resolvedNext ?? b.from);
          dropReadAhead(s);
        }
        s.busy = false;
        s.holdReadAhead = false;
        this.busyCount--;
        s.markIdle();
        this.kick();
      });
  }
}
