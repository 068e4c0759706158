/**
 * What the lock supervisor counts, per batch (a batch is one lock over all its records), except
 * `recordsRenewed`: the consumer's RENEW counts records, so the summary carries both units under names
 * that say which. A new counter is a field here plus its line in {@link LOCK_COUNTERS}.
 */
export interface LockCounters {
  batchesWatched: number;
  batchRenewalsRequested: number;
  batchRenewalsGranted: number;
  recordsRenewed: number;
  batchesReleasedEarly: number;
  putTimeouts: number;
  batchesLockExpired: number;
  batchesAckFailed: number;
}

/** What each counter counts: the summary's documentation and the `/metrics` help text. */
export const LOCK_COUNTERS = {
  batchesWatched: 'Batches put under lock supervision (every batch the connector’s tasks fetched).',
  batchRenewalsRequested: 'Lock renewals the supervisor asked a batch for (one RENEW of all its records).',
  batchRenewalsGranted: 'Lock renewals the broker granted: the batch’s lock deadline moved.',
  recordsRenewed: 'Records in the renewals granted (a batch renewed twice counts its records twice).',
  batchesReleasedEarly:
    'Batches released before their lock ran out (renewal unavailable, or put.timeout.ms).',
  putTimeouts: 'Puts aborted for running longer than put.timeout.ms.',
  batchesLockExpired: 'Batches whose acquisition lock ran out before they were acknowledged.',
  batchesAckFailed: 'Batches whose acknowledgement the broker refused.',
} as const satisfies Record<keyof LockCounters, string>;

export function zeroLockCounters(): LockCounters {
  const zero: Partial<LockCounters> = {};
  for (const k of Object.keys(LOCK_COUNTERS) as Array<keyof LockCounters>) zero[k] = 0;
  return zero as LockCounters;
}
