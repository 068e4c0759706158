/**
 * The share-group member a connector's tasks read through on this worker (`share.member.scope`).
 *
 * With `connector` (the default) the tasks of one connector on one worker lease one member: one group
 * membership, one share session per leader, one ShareFetch at a time per leader whose answer goes to
 * whichever task polls next. A share group hands any record to any member, so nothing about delivery
 * changes; what changes is cost. At a steady, moderate rate every ShareFetch answers with the few
 * records the producer sent since the last one, and each answer costs a wake-up, a decode, a batch and
 * a put whatever it holds: four members on four partitions pay that four times for the records one
 * member fetches in one answer (ADR 0012). With `task` each task has a member of its own, as Kafka
 * Connect runs share consumers (KIP-1302).
 *
 * A lease is a {@link ShareSource} with its own fetch gate (pause, stop) and its own counters; the
 * member leaves the group when its last lease closes, and the next lease joins again with a new member.
 */
import type { AcknowledgeType } from '../../kafka/share/ack-batches.js';
import type {
  PartitionAckResult,
  PollOptions,
  ShareConsumer,
  ShareRecord,
} from '../../kafka/share/share-consumer.js';
import {
  ShareConsumerMetrics,
  type ShareConsumerMetricsSnapshot,
} from '../../kafka/share/share-consumer-metrics.js';
import { FetchGate } from '../task/share/fetch-gate.js';
import type { ShareSource } from '../task/share/share-source.js';

type Counter = Exclude<keyof ShareConsumerMetricsSnapshot, 'fetchLatencyMsLast' | 'fetchLatencyMsMax'>;

/** Counted by the member as it fetches; a lease takes what accrued when a poll hands it records. */
const FETCH_SIDE: readonly Counter[] = [
  'fetches',
  'recordsAcquired',
  'fetchLatencyMsTotal',
  'gapOffsets',
  'sessionResets',
];
/** Counted by each lease from its own acknowledgements' answers; the last lease takes the rest. */
const ACK_SIDE: readonly Counter[] = [
  'recordsAccepted',
  'recordsReleased',
  'recordsRejected',
  'recordsRenewed',
  'recordsAckFailed',
];

export class ShareMember {
  private current: MemberGeneration | undefined;

  constructor(private readonly make: () => ShareConsumer) {}

  /** A lease for one task; joins the group with a new member when no usable one is held. */
  lease(): TaskShareConsumer {
    let g = this.current;
    if (g === undefined || !g.usable) this.current = g = new MemberGeneration(this.make());
    return g.lease();
  }
}

/** One ShareConsumer and the leases on it. */
class MemberGeneration {
  /** Everything handed to leases' counters so far, per counter. */
  readonly attributed = new ShareConsumerMetrics();
  private readonly leases = new Set<TaskShareConsumer>();
  private held = false;
  private closing = false;
  private failed = false;
  private subscribed: Promise<void> | undefined;

  constructor(readonly consumer: ShareConsumer) {}

  get usable(): boolean {
    return !this.closing && !this.failed;
  }

  lease(): TaskShareConsumer {
    const l = new TaskShareConsumer(this);
    this.leases.add(l);
    this.gatesChanged();
    return l;
  }

  /**
   * The member holds while every lease is paused (one being released for a stop does not count):
   * otherwise the polls that were waiting in it when the pause came each fetch again the records the
   * one before gave back, a delivery attempt per poll (ShareConsumer.hold).
   */
  gatesChanged(): void {
    let paused = false;
    for (const l of this.leases) {
      if (l.gate.isPaused) paused = true;
      else if (!l.gate.isReleased) return this.setHeld(false);
    }
    this.setHeld(paused);
  }

  private setHeld(held: boolean): void {
    if (held === this.held || this.closing) return;
    this.held = held;
    this.consumer.hold(held, (records) => this.giveBack(records));
  }

  /** What the held member fetched anyway: a paused lease gives it back, so its task counts it. */
  private giveBack(records: ShareRecord[]): void {
    const lease = [...this.leases].find((l) => l.gate.isPaused) ?? this.leases.values().next().value;
    // no lease: the member is closing, and its close releases what is outstanding
    lease?.giveBack(records);
  }

  subscribe(topics: readonly string[]): Promise<void> {
    this.subscribed ??= this.consumer.subscribe(topics).catch((err: unknown) => {
      this.failed = true;
      throw err;
    });
    return this.subscribed;
  }

  /** A poll failed: the consumer failed or closed, so the next lease needs a new member. */
  markFailed(): void {
    this.failed = true;
  }

  /** Moves what the member counted and no lease has yet from `fields` into `into`. */
  attribute(into: ShareConsumerMetrics, fields: readonly Counter[]): void {
    const total = this.consumer.metrics;
    for (const f of fields) {
      const delta = total[f] - this.attributed[f];
      if (delta <= 0) continue;
      into[f] += delta;
      this.attributed[f] += delta;
    }
    into.fetchLatencyMsLast = total.fetchLatencyMsLast;
    into.fetchLatencyMsMax = Math.max(into.fetchLatencyMsMax, total.fetchLatencyMsLast);
  }

  /** The last lease closes the consumer (it releases what it still holds and leaves the group). */
  async release(from: TaskShareConsumer): Promise<void> {
    this.leases.delete(from);
    if (this.leases.size > 0) return this.gatesChanged();
    this.closing = true;
    await this.consumer.close();
    // acknowledgements no lease made: records released at close, undecodable records rejected
    this.attribute(from.metrics, [...FETCH_SIDE, ...ACK_SIDE]);
  }
}

/** One task's lease on a {@link ShareMember}: a gate, counters and the member's consumer. */
export class TaskShareConsumer implements ShareSource {
  readonly gate = new FetchGate(() => this.g.gatesChanged());
  readonly metrics = new ShareConsumerMetrics();
  private closed: Promise<void> | undefined;

  constructor(private readonly g: MemberGeneration) {}

  get acquisitionLockTimeoutMs(): number | undefined {
    return this.g.consumer.acquisitionLockTimeoutMs;
  }

  subscribe(topics: readonly string[]): Promise<void> {
    return this.g.subscribe(topics);
  }

  acquiredAt(records: readonly ShareRecord[]): number | undefined {
    return this.g.consumer.acquiredAt(records);
  }

  renewSupported(): Promise<boolean> {
    return this.g.consumer.renewSupported();
  }

  /**
   * Waits while the gate is closed (returns [] once it is released for a stop). A ShareFetch already at
   * the broker when the gate closes can still answer with records: they are released at once (another
   * task, or this one after resume, gets them with the delivery count the broker keeps) instead of
   * being put after the operator paused the connector.
   */
  async poll(options?: PollOptions): Promise<ShareRecord[]> {
    for (;;) {
      if (!(await this.gate.whenOpen())) return [];
      let records: ShareRecord[];
      try {
        records = await this.g.consumer.poll(options);
      } catch (err) {
        this.g.markFailed();
        throw err;
      }
      if (records.length === 0) return records;
      if (!this.gate.isPaused) {
        this.g.attribute(this.metrics, FETCH_SIDE);
        return records;
      }
      this.giveBack(records);
    }
  }

  /** Records the member fetched for a later poll, taken at once; none while the gate is not open. */
  takeReady(): ShareRecord[] | undefined {
    if (this.gate.isPaused || this.gate.isReleased) return undefined;
    const records = this.g.consumer.takeReady();
    if (records) this.g.attribute(this.metrics, FETCH_SIDE);
    return records;
  }

  /** Records fetched for this lease while it is paused: released at once, and counted as this task's. */
  giveBack(records: ShareRecord[]): void {
    this.g.attribute(this.metrics, FETCH_SIDE);
    // the answer reports per partition and never rejects; a member closing meanwhile lets the locks lapse
    try {
      void this.acknowledge(records, 'release');
    } catch {
      /* closed: the broker releases the records when their locks expire */
    }
  }

  acknowledge(records: readonly ShareRecord[], type: AcknowledgeType): Promise<PartitionAckResult[]> {
    return this.g.consumer.acknowledge(records, type).then((results) => {
      for (const r of results) {
        const failed = r.error !== null;
        this.metrics.onAck(r.type, r.offsets.length, failed);
        this.g.attributed.onAck(r.type, r.offsets.length, failed);
      }
      return results;
    });
  }

  /** Ends the lease once; the last one closes the member. */
  close(): Promise<void> {
    this.closed ??= this.g.release(this);
    return this.closed;
  }
}
