/**
 * `node:diagnostics_channel` channels sharesink publishes on, so APMs and tests can observe lock
 * supervision and batch progress without patching. Messages are plain objects; publishing costs
 * nothing while a channel has no subscriber.
 */
import diagnosticsChannel from 'node:diagnostics_channel';

export const CHANNEL_LOCK_RENEWED = 'sharesink:lock:renewed';
export const CHANNEL_LOCK_RELEASED = 'sharesink:lock:released';
export const CHANNEL_LOCK_EXPIRED = 'sharesink:lock:expired';
export const CHANNEL_BATCH_TRANSITION = 'sharesink:batch:transition';

export interface LockRenewedMessage {
  batchId: string;
  /** The new lock deadline on the owner's clock. */
  until: number;
  renewCount: number;
  at: number;
}

export interface LockReleasedMessage {
  batchId: string;
  /** Why the batch was released before its lock ran out. */
  reason: 'put-timeout' | 'renew-unavailable';
  deadline: number | undefined;
  at: number;
}

export interface LockExpiredMessage {
  batchId: string;
  deadline: number | undefined;
  /** True when a put was still running: it was aborted and its result will be ignored. */
  duringPut: boolean;
  recordCount: number;
  at: number;
}

export interface BatchTransitionMessage {
  batchId: string;
  from: string;
  to: string;
  event: string;
}

export const lockRenewedChannel = diagnosticsChannel.channel(CHANNEL_LOCK_RENEWED);
export const lockReleasedChannel = diagnosticsChannel.channel(CHANNEL_LOCK_RELEASED);
export const lockExpiredChannel = diagnosticsChannel.channel(CHANNEL_LOCK_EXPIRED);
export const batchTransitionChannel = diagnosticsChannel.channel(CHANNEL_BATCH_TRANSITION);

export function publishLockRenewed(message: LockRenewedMessage): void {
  if (lockRenewedChannel.hasSubscribers) lockRenewedChannel.publish(message);
}

export function publishLockReleased(message: LockReleasedMessage): void {
  if (lockReleasedChannel.hasSubscribers) lockReleasedChannel.publish(message);
}

export function publishLockExpired(message: LockExpiredMessage): void {
  if (lockExpiredChannel.hasSubscribers) lockExpiredChannel.publish(message);
}
