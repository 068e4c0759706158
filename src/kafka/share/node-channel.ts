/**
 * Everything the consumer keeps per partition leader: the share session, the acknowledgements waiting to
 * be sent there, and a queue that keeps that session's requests strictly one at a time (the session
 * epoch makes concurrent requests invalid).
 */
import type { AckEntry } from './ack-entries.js';
import { FetchPacing } from './fetch-pacing.js';
import { ShareSession, type TopicIdPartition } from './share-session.js';

export class NodeChannel {
  readonly nodeId: number;
  readonly session: ShareSession;
  /** MaxWaitMs of this session's next ShareFetch. */
  readonly pacing = new FetchPacing();
  /** ACCEPT / RELEASE / REJECT / GAP waiting to be sent (piggy-backed on a fetch or in a ShareAcknowledge). */
  terminal: AckEntry[] = [];
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

  takeTerminal(): AckEntry[] {
    const t = this.terminal;
    this.terminal = [];
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
