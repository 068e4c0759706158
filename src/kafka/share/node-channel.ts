/**
 * Everything the consumer keeps per partition leader: the share session, the acknowledgements waiting to
 * be sent there, and a queue that keeps that session's requests strictly one at a time (the session
 * epoch makes concurrent requests invalid).
 */
import type { AckEntry } from './ack-entries.js';
import { FetchPacing } from './fetch-pacing.js';
import type { SessionState } from './next-request.js';
import { ShareSession, type TopicIdPartition } from './share-session.js';

type ChannelState = Pick<
  SessionState,
  | 'busy'
  | 'sessionIsNew'
  | 'pendingAcks'
  | 'pendingRenewals'
  | 'acksDueAt'
  | 'flushAcks'
  | 'partitions'
  | 'backoffUntil'
>;

export class NodeChannel {
  readonly nodeId: number;
  readonly session: ShareSession;
  /** MaxWaitMs of this session's next ShareFetch. */
  readonly pacing = new FetchPacing();
  /** ACCEPT / RELEASE / REJECT / GAP waiting to be sent (piggy-backed on a fetch or in a ShareAcknowledge). */
  terminal: AckEntry[] = [];
  /** When the oldest of `terminal` was queued (Date.now() ms); undefined while none waits. */
  terminalSince: number | undefined;
  /** `commit()` asked for the pending acks: they go with the next request, whichever it is. */
  flushAcks = false;
  /** RENEW waiting to be sent; only ever in a ShareAcknowledge with IsRenewAck. */
  renew: AckEntry[] = [];
  /** A request of this session is queued or in flight (see ShareConsumer.pump). */
  busy = false;
  backoffUntil = 0;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(nodeId: number) {
    this.nodeId = nodeId;
    this.session = new ShareSession(nodeId);
  }

  /** Runs `job` after every job queued before it; its failure does not stop later jobs. */
  run<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** This session's part of what `nextRequest` decides on, final acks lingering up to `lingerMs`. */
  sessionState(lingerMs: number): ChannelState {
    return {
      busy: this.busy,
      sessionIsNew: this.session.isNew,
      pendingAcks: this.terminal.length,
      pendingRenewals: this.renew.length,
      acksDueAt: this.acksDueAt(lingerMs),
      flushAcks: this.flushAcks,
      partitions: this.session.wantedPartitions.size,
      backoffUntil: this.backoffUntil,
    };
  }

  /** When a free session's backoff ends (ms); Infinity when it is busy or not backing off. */
  backoffEndsAt(now: number): number {
    return !this.busy && this.backoffUntil > now ? this.backoffUntil : Infinity;
  }

  /** When the lingering final acks may go alone (ADR 0021, Date.now() ms); Infinity when none wait. */
  acksDueAt(lingerMs: number): number {
    return this.terminalSince === undefined ? Infinity : this.terminalSince + lingerMs;
  }

  /** Queues a final acknowledgement (ACCEPT / RELEASE / REJECT / GAP) for this session. */
  addTerminal(entry: AckEntry, now = Date.now()): void {
    if (this.terminal.length === 0) this.terminalSince = now;
    this.terminal.push(entry);
  }

  takeTerminal(): AckEntry[] {
    const t = this.terminal;
    this.terminal = [];
    this.terminalSince = undefined;
    this.flushAcks = false;
    return t;
  }

  takeRenew(): AckEntry[] {
    const r = this.renew;
    this.renew = [];
    return r;
  }
}

/**
 * Gives each leader's session the assigned partitions it leads (none for a leader that leads none now),
 * with a channel for each new leader; answers the new leaders' ids.
 */
export function placeSessions(
  perNode: ReadonlyMap<number, TopicIdPartition[]>,
  channels: Map<number, NodeChannel>,
): number[] {
  const added: number[] = [];
  for (const nodeId of perNode.keys()) {
    if (channels.has(nodeId)) continue;
    channels.set(nodeId, new NodeChannel(nodeId));
    added.push(nodeId);
  }
  for (const [nodeId, ch] of channels) ch.session.setWanted(perNode.get(nodeId) ?? []);
  return added;
}
