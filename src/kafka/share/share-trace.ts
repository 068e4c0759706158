/**
 * One `node:diagnostics_channel` message per share request (ShareFetch, ShareAcknowledge), so the time a
 * request waited in its session's queue, on the wire and at the broker can be measured from outside
 * without patching. Per request, never per record; nothing is built while the channel has no subscriber.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

export const CHANNEL_SHARE_REQUEST = 'sharesink:share:request';

export interface ShareRequestMessage {
  readonly api: 'ShareFetch' | 'ShareAcknowledge';
  readonly nodeId: number;
  readonly epoch: number;
  /** Wall-clock ms (sub-ms precision): when the request was queued on its session, sent, answered. */
  readonly queuedAt: number;
  readonly sentAt: number;
  readonly answeredAt: number;
  /** MaxWaitMs the broker was given (ShareFetch), 0 otherwise. */
  readonly maxWaitMs: number;
  /** Offsets acknowledged by the request, and records it delivered (ShareFetch). */
  readonly ackedOffsets: number;
  readonly records: number;
  readonly renew: boolean;
  /** Top-level error code, or -1 when the request failed on the wire. */
  readonly errorCode: number;
}

export const shareRequestChannel = diagnosticsChannel.channel(CHANNEL_SHARE_REQUEST);

/** Wall-clock now with sub-ms precision, only worth taking while someone listens. */
export function traceNow(): number {
  return shareRequestChannel.hasSubscribers ? performance.timeOrigin + performance.now() : 0;
}

export function publishShareRequest(message: ShareRequestMessage): void {
  if (shareRequestChannel.hasSubscribers) shareRequestChannel.publish(message);
}
