/**
 * Which request a free share session sends next (ADR 0005). Pure, so every branch is unit-tested on
 * its own; `ShareConsumer.pump` gathers the inputs from the session and the consumer and runs the
 * answer (the acknowledgement kinds through acknowledger.ts, a fetch through share-fetcher.ts).
 *
 * Order: acknowledgements left over from a session that was reset fail first (they cannot open a
 * new session); then RENEW, in its own ShareAcknowledge, because a ShareFetch with IsRenewAck does
 * not fetch (ADR 0003) and renewals are due at half the lock; then a ShareFetch when a poll waits,
 * carrying the pending final acknowledgements; else a ShareAcknowledge with them, once they are due:
 * final acknowledgements may linger a little for a ShareFetch to carry them (ADR 0021).
 */

/** What the choice depends on, for one session. */
export interface SessionState {
  /** A request of this session is queued or in flight: its epoch allows one at a time. */
  readonly busy: boolean;
  readonly consumerClosed: boolean;
  /** Fatal error: nothing more is fetched, but acknowledgements still go out. */
  readonly consumerFailed: boolean;
  /** Epoch 0: before the first answer, or after a reset. */
  readonly sessionIsNew: boolean;
  /** ACCEPT / RELEASE / REJECT / GAP entries waiting for this session. */
  readonly pendingAcks: number;
  /** RENEW entries waiting for this session. */
  readonly pendingRenewals: number;
  /**
   * When the pending final acks may go in a ShareAcknowledge of their own (ms, `now`'s clock): the
   * oldest one's queue time plus `ackLingerMs`. Until then they wait for a ShareFetch to carry them.
   */
  readonly acksDueAt: number;
  /** `commit()` asked for the pending acks: no lingering. */
  readonly flushAcks: boolean;
  /** Some `poll()` waits for records. */
  readonly pollWaits: boolean;
  /** Leaders may have moved: no fetch until metadata is refreshed. */
  readonly metadataStale: boolean;
  /** Assigned partitions this session's leader leads. */
  readonly partitions: number;
  /** After a failed request, no fetch before this time (ms, the caller's clock)... */
  readonly backoffUntil: number;
  /** ...and this is that clock now. */
  readonly now: number;
}

export type NextRequest =
  /** Nothing to send, or the session cannot send now. */
  | 'none'
  /** No request: settle the pending acks and renewals with SHARESINK_SHARE_SESSION_RESET. */
  | 'fail-reset-acks'
  /** ShareAcknowledge with IsRenewAck (pending final acks go first, in a ShareAcknowledge of their own). */
  | 'renew'
  /** ShareFetch carrying the pending final acks. */
  | 'fetch'
  /** ShareAcknowledge with the pending final acks (due: see {@link acksDue}). */
  | 'acknowledge';

export function nextRequest(s: SessionState): NextRequest {
  if (s.busy || s.consumerClosed) return 'none';
  const acks = s.pendingAcks > 0;
  const renewals = s.pendingRenewals > 0;
  if (s.sessionIsNew && (acks || renewals)) return 'fail-reset-acks';
  if (renewals) return 'renew';
  if (wantsFetch(s)) return 'fetch';
  return acks && acksDue(s) ? 'acknowledge' : 'none';
}

/**
 * Final acks go in a ShareAcknowledge of their own once they have lingered until `acksDueAt` without a
 * ShareFetch to carry them, at once when flushed, and at once after a fatal error (no fetch will come).
 */
function acksDue(s: SessionState): boolean {
  return s.consumerFailed || s.flushAcks || s.now >= s.acksDueAt;
}

function wantsFetch(s: SessionState): boolean {
  return s.pollWaits && !s.consumerFailed && !s.metadataStale && s.partitions > 0 && s.backoffUntil <= s.now;
}

/** An `ackLingerMs` option as the sessions' due times use it: a finite number above 0, else 0 (no linger). */
export function lingerMs(option: number | undefined): number {
  return option !== undefined && Number.isFinite(option) && option > 0 ? option : 0;
}
