/**
 * An in-memory model of ONE share partition, written to be a test ORACLE: it says what a KIP-932
 * broker should do with each record, so tests can compare what a runtime or a connector did against
 * it. It is not the broker: no sessions, no epochs, no fetch sizes, no batches, no DLQ topic, no
 * persistence. Time is whatever the caller passes as `now`, which is what lets tests run lock
 * expiry deterministically.
 *
 * Rules (docs/share-consumer.md, the protocol reference §4):
 * - a record is Available, Acquired (by one member, until a deadline, with a delivery count),
 *   Acknowledged (ACCEPTed) or Archived (REJECTed, or its delivery limit reached);
 * - acquiring takes Available records in offset order and adds one to their delivery count;
 * - ACCEPT / RELEASE / REJECT / RENEW apply only to records the same member holds under a lock that
 *   has not expired, else the whole call fails with INVALID_RECORD_STATE and changes nothing;
 * - RELEASE and lock expiry make a record Available again, or Archived when its count reached the limit;
 * - RENEW restarts the lock from `now`.
 */

export type ModelAckType = 'accept' | 'release' | 'reject' | 'renew';

export type ArchiveReason = 'rejected' | 'delivery-limit';

export type ModelRecordState =
  | { readonly state: 'available'; readonly deliveryCount: number }
  | {
      readonly state: 'acquired';
      readonly member: string;
      readonly deadline: number;
      readonly deliveryCount: number;
    }
  | { readonly state: 'acknowledged'; readonly deliveryCount: number }
  | { readonly state: 'archived'; readonly deliveryCount: number; readonly reason: ArchiveReason };

export type RecordStateName = ModelRecordState['state'];

export interface ModelAcquiredRecord {
  readonly offset: number;
  readonly deliveryCount: number;
  readonly deadline: number;
}

/** `INVALID_RECORD_STATE` lists the offsets that were not held by the member under a live lock. */
export type ModelAckResult =
  { readonly error: null } | { readonly error: 'INVALID_RECORD_STATE'; readonly offsets: readonly number[] };

export interface SharePartitionModelOptions {
  /** `group.share.delivery.count.limit`; Kafka's default is 5. */
  readonly deliveryCountLimit?: number;
  /** `group.share.record.lock.duration.ms`; Kafka's default is 30 s. */
  readonly lockDurationMs?: number;
  /** `group.share.partition.max.record.locks`: records acquired at once, at most. Default unlimited. */
  readonly maxInFlightRecords?: number;
  /** Records already in the partition, at offsets 0…records-1. */
  readonly records?: number;
}

export interface PartitionSnapshot {
  readonly now: number;
  /** Share-partition start offset: the first offset not yet Acknowledged or Archived. */
  readonly startOffset: number;
  /** One past the last record. */
  readonly endOffset: number;
  readonly records: readonly (ModelRecordState & { readonly offset: number })[];
  readonly counts: Readonly<Record<RecordStateName, number>>;
}

const EMPTY_COUNTS = (): Record<RecordStateName, number> => ({
  available: 0,
  acquired: 0,
  acknowledged: 0,
  archived: 0,
});

export class SharePartitionModel {
  readonly deliveryCountLimit: number;
  readonly lockDurationMs: number;
  readonly maxInFlightRecords: number;
  readonly #records: ModelRecordState[] = [];
  #now = Number.NEGATIVE_INFINITY;

  constructor(options: SharePartitionModelOptions = {}) {
    this.deliveryCountLimit = options.deliveryCountLimit ?? 5;
    this.lockDurationMs = options.lockDurationMs ?? 30_000;
    this.maxInFlightRecords = options.maxInFlightRecords ?? Number.POSITIVE_INFINITY;
    if (!(Number.isInteger(this.deliveryCountLimit) && this.deliveryCountLimit >= 1))
      throw new RangeError(`deliveryCountLimit: ${this.deliveryCountLimit} must be an integer ≥ 1`);
    if (!(this.lockDurationMs > 0))
      throw new RangeError(`lockDurationMs: ${this.lockDurationMs} must be > 0`);
    this.append(options.records ?? 0);
  }

  /** The latest time any call passed in; time never goes back. */
  get now(): number {
    return this.#now;
  }

  get endOffset(): number {
    return this.#records.length;
  }

  /** Produces `count` records; returns their offsets. */
  append(count = 1): number[] {
    const first = this.#records.length;
    for (let i = 0; i < count; i++) this.#records.push({ state: 'available', deliveryCount: 0 });
    return Array.from({ length: count }, (_, i) => first + i);
  }

  state(offset: number): ModelRecordState {
    const s = this.#records[offset];
    if (s === undefined) throw new RangeError(`offset ${offset} is outside [0, ${this.endOffset})`);
    return s;
  }

  /** Acquires up to `maxRecords` Available records in offset order for `member`. */
  acquire(member: string, maxRecords: number, now: number): ModelAcquiredRecord[] {
    this.expireLocks(now);
    let inFlight = this.count('acquired');
    const out: ModelAcquiredRecord[] = [];
    for (let offset = 0; offset < this.#records.length && out.length < maxRecords; offset++) {
      if (inFlight >= this.maxInFlightRecords) break;
      const s = this.#records[offset]!;
      if (s.state !== 'available') continue;
      const acquired = {
        state: 'acquired',
        member,
        deadline: now + this.lockDurationMs,
        deliveryCount: s.deliveryCount + 1,
      } as const;
      this.#records[offset] = acquired;
      inFlight++;
      out.push({ offset, deliveryCount: acquired.deliveryCount, deadline: acquired.deadline });
    }
    return out;
  }

  /**
   * Applies one acknowledgement call. Like the broker it is all or nothing: one offset that `member`
   * does not hold under a live lock fails the whole call and nothing changes.
   */
  acknowledge(member: string, offsets: readonly number[], type: ModelAckType, now: number): ModelAckResult {
    this.expireLocks(now);
    const bad = offsets.filter((o) => {
      const s = this.#records[o];
      return s === undefined || s.state !== 'acquired' || s.member !== member;
    });
    if (bad.length > 0) return { error: 'INVALID_RECORD_STATE', offsets: bad };
    for (const offset of new Set(offsets)) {
      const s = this.#records[offset] as Extract<ModelRecordState, { state: 'acquired' }>;
      this.#records[offset] = this.#afterAck(s, type, now);
    }
    return { error: null };
  }

  /** Ends every lock whose deadline is `now` or earlier; returns those offsets. Called by every other method. */
  expireLocks(now: number): number[] {
    if (Number.isNaN(now) || now < this.#now)
      throw new RangeError(`time went back: ${now} after ${this.#now}; the model needs a monotonic clock`);
    this.#now = now;
    const expired: number[] = [];
    this.#records.forEach((s, offset) => {
      if (s.state !== 'acquired' || s.deadline > now) return;
      this.#records[offset] = this.#giveBack(s.deliveryCount);
      expired.push(offset);
    });
    return expired;
  }

  /** The earliest lock deadline still pending, if any: where to move time to see the next expiry. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const s of this.#records) {
      if (s.state === 'acquired' && (next === undefined || s.deadline < next)) next = s.deadline;
    }
    return next;
  }

  snapshot(): PartitionSnapshot {
    const counts = EMPTY_COUNTS();
    for (const s of this.#records) counts[s.state]++;
    let startOffset = 0;
    while (startOffset < this.#records.length && isTerminal(this.#records[startOffset]!)) startOffset++;
    return {
      now: this.#now,
      startOffset,
      endOffset: this.#records.length,
      records: this.#records.map((s, offset) => ({ ...s, offset })),
      counts,
    };
  }

  /** Every rule the model keeps about its own state, checked; [] when all hold. For property tests. */
  invariantViolations(): string[] {
    const problems: string[] = [];
    const limit = this.deliveryCountLimit;
    let inFlight = 0;
    this.#records.forEach((s, offset) => {
      const at = `offset ${offset} (${JSON.stringify(s)})`;
      if (!Number.isInteger(s.deliveryCount) || s.deliveryCount < 0 || s.deliveryCount > limit)
        problems.push(`${at}: delivery count outside [0, ${limit}]`);
      switch (s.state) {
        case 'available':
          if (s.deliveryCount >= limit) problems.push(`${at}: available at the delivery limit`);
          break;
        case 'acquired':
          inFlight++;
          if (s.deliveryCount < 1) problems.push(`${at}: acquired but never delivered`);
          if (s.deadline <= this.#now)
            problems.push(`${at}: lock expired at ${s.deadline}, now ${this.#now}`);
          if (s.deadline > this.#now + this.lockDurationMs)
            problems.push(`${at}: lock longer than the duration`);
          break;
        case 'acknowledged':
          if (s.deliveryCount < 1) problems.push(`${at}: acknowledged but never delivered`);
          break;
        case 'archived':
          if (s.reason === 'delivery-limit' && s.deliveryCount !== limit)
            problems.push(`${at}: archived for the delivery limit below it`);
          if (s.reason === 'rejected' && s.deliveryCount < 1)
            problems.push(`${at}: rejected but never delivered`);
          break;
        default:
          problems.push(`${at}: unknown state`);
      }
    });
    if (inFlight > this.maxInFlightRecords) problems.push(`${inFlight} records acquired, above the limit`);
    return problems;
  }

  #afterAck(
    s: Extract<ModelRecordState, { state: 'acquired' }>,
    type: ModelAckType,
    now: number,
  ): ModelRecordState {
    switch (type) {
      case 'accept':
        return { state: 'acknowledged', deliveryCount: s.deliveryCount };
      case 'reject':
        return { state: 'archived', deliveryCount: s.deliveryCount, reason: 'rejected' };
      case 'release':
        return this.#giveBack(s.deliveryCount);
      case 'renew':
        return { ...s, deadline: now + this.lockDurationMs };
    }
  }

  /** Released or expired: the count went up when it was acquired, so the limit is checked here. */
  #giveBack(deliveryCount: number): ModelRecordState {
    return deliveryCount >= this.deliveryCountLimit
      ? { state: 'archived', deliveryCount, reason: 'delivery-limit' }
      : { state: 'available', deliveryCount };
  }

  /** How many records are in `state`. */
  count(state: RecordStateName): number {
    let n = 0;
    for (const s of this.#records) if (s.state === state) n++;
    return n;
  }
}

function isTerminal(s: ModelRecordState): boolean {
  return s.state === 'acknowledged' || s.state === 'archived';
}
