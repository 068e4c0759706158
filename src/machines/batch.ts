/**
 * The protocol of ONE acquired record batch, from acquisition to its single terminal disposition.
 *
 * Pure on purpose: events in, named effects out, no invoke/after/delays. The put, the lock timers and
 * the broker acks live in the owner (task runner + supervisor), which sends events here and supplies
 * the effects with `createBatchMachine(effects)`. That keeps the same definition usable by
 * `createTestModel`, by fast-check over `transition()`, and by the diagram generator.
 *
 * Shape: `active` is parallel — `work` (acquired → putting ⇄ retrying, in both modes) runs beside `lease`
 * (held ⇄ renewing), because a lock can be renewed while the batch waits for a worker as well as
 * while the put runs. Leaving `active` for `acknowledging` happens exactly once, which is what gives
 * every batch exactly one `sendAcks`.
 */
import { assign, setup, type SnapshotFrom } from 'xstate';

export type BatchMode = 'share' | 'classic';

/** Why records go back to the broker for redelivery. */
export type ReleaseReason = 'retriable' | 'put-timeout' | 'renew-unavailable' | 'aborted' | 'shutdown';
/** Why records are rejected (share: archived or sent to the group's DLQ; classic: the owner's policy). */
export type RejectReason = 'fatal' | 'all-records-rejected' | 'retries-exhausted';

/** What is acknowledged for the batch; decided once, never changed. */
export type AckDisposition =
  | { kind: 'accept' }
  | { kind: 'release'; reason: ReleaseReason }
  | { kind: 'reject'; reason: RejectReason }
  /** ACCEPT every record except `rejectedIndexes` (as identified in PUT_PER_RECORD), which are REJECTed. */
  | { kind: 'partial'; rejectedIndexes: readonly number[] };

/** `expired`: nothing is acknowledged, the broker already took the records back when the lock ran out. */
export type Disposition = AckDisposition | { kind: 'expired' };

export interface BatchInput {
  batchId: string;
  recordCount: number;
  mode: BatchMode;
  /** Clock time the acquisition was requested (the ShareFetch send time, so the estimate is pessimistic). */
  acquiredAt: number;
  /** Known lock deadline; when absent the supervisor derives it from the broker's lock duration. */
  lockDeadline?: number;
  deliveryCount?: number;
}

export interface BatchContext {
  batchId: string;
  recordCount: number;
  mode: BatchMode;
  acquiredAt: number;
  lockDeadline: number | undefined;
  deliveryCount: number;
  /** Puts started so far; classic mode retries the same batch in place. */
  attempt: number;
  renewCount: number;
  outcome: Disposition | undefined;
  /** Broker error code when the acknowledgement itself failed (e.g. INVALID_RECORD_STATE). */
  ackError: string | undefined;
}

export type BatchEvent =
  | { type: 'DISPATCH' }
  | { type: 'PUT_OK' }
  | { type: 'PUT_RETRIABLE'; error?: unknown }
  | { type: 'PUT_FATAL'; error?: unknown }
  /** `rejectedIndexes`: positions of the rejected records within the batch (a batch may span partitions). */
  | { type: 'PUT_PER_RECORD'; rejectedIndexes: readonly number[] }
  | { type: 'PUT_TIMEOUT' }
  /** The put ended because something outside this machine cancelled it (pool closing, task stopping). */
  | { type: 'ABORTED' }
  | { type: 'LOCK_RENEW_DUE' }
  | { type: 'RENEWED'; until: number }
  | { type: 'RENEW_UNAVAILABLE' }
  | { type: 'LOCK_EXPIRED' }
  | { type: 'RETRY' }
  | { type: 'RETRIES_EXHAUSTED' }
  | { type: 'ACKED' }
  | { type: 'ACK_FAILED'; errorCode: string }
  | { type: 'SHUTDOWN' };

export type BatchEventType = BatchEvent['type'];

export interface BatchOutput {
  batchId: string;
  disposition: Disposition;
  acked: boolean;
  ackError: string | undefined;
}

/** The effects the owner supplies. Each receives plain data, never XState internals. */
export interface BatchEffects {
  startPut(p: { batchId: string; attempt: number }): void;
  abortPut(p: { batchId: string; reason: ReleaseReason | 'lock-expired' }): void;
  sendAcks(p: { batchId: string; disposition: AckDisposition }): void;
  /** Acknowledge type 4 (RENEW) for every record of the batch; Kafka ≥ 4.2. */
  sendRenew(p: { batchId: string; renewCount: number }): void;
  /** Classic mode: wait out the backoff, then send RETRY or RETRIES_EXHAUSTED. */
  scheduleRetry(p: { batchId: string; attempt: number }): void;
  recordExpiry(p: { batchId: string; recordCount: number; deliveryCount: number; duringPut: boolean }): void;
  recordAckFailure(p: { batchId: string; errorCode: string; disposition: Disposition | undefined }): void;
}

type P<K extends keyof BatchEffects> = Parameters<BatchEffects[K]>[0];

const releaseWith = (reason: ReleaseReason) => ({ type: 'decideRelease', params: { reason } }) as const;
const rejectWith = (reason: RejectReason) => ({ type: 'decideReject', params: { reason } }) as const;
const abortFor = (reason: ReleaseReason | 'lock-expired') =>
  ({
    type: 'abortPut',
    params: ({ context }: { context: BatchContext }) => ({ batchId: context.batchId, reason }),
  }) as const;
const expiry = (duringPut: boolean) =>
  ({
    type: 'recordExpiry',
    params: ({ context }: { context: BatchContext }) => ({
      batchId: context.batchId,
      recordCount: context.recordCount,
      deliveryCount: context.deliveryCount,
      duringPut,
    }),
  }) as const;

/** A batch's context when it is acquired: what the machine's `context` factory makes of its input. */
export function batchContext(input: BatchInput): BatchContext {
  return {
    batchId: input.batchId,
    recordCount: input.recordCount,
    mode: input.mode,
    acquiredAt: input.acquiredAt,
    lockDeadline: input.lockDeadline,
    deliveryCount: input.deliveryCount ?? 1,
    attempt: 0,
    renewCount: 0,
    outcome: undefined,
    ackError: undefined,
  };
}

function distinctCount(offsets: readonly number[]): number {
  return new Set(offsets).size;
}

export const batchMachine = setup({
  types: {
    context: {} as BatchContext,
    events: {} as BatchEvent,
    input: {} as BatchInput,
    output: {} as BatchOutput,
  },
  guards: {
    isShare: ({ context }) => context.mode === 'share',
    noneRejected: ({ event }) => event.type === 'PUT_PER_RECORD' && event.rejectedIndexes.length === 0,
    allRejected: ({ context, event }) =>
      event.type === 'PUT_PER_RECORD' && distinctCount(event.rejectedIndexes) >= context.recordCount,
  },
  actions: {
    // Placeholders: the owner replaces every one through createBatchMachine(effects).
    startPut: (_, _p: P<'startPut'>) => {},
    abortPut: (_, _p: P<'abortPut'>) => {},
    sendAcks: (_, _p: P<'sendAcks'>) => {},
    sendRenew: (_, _p: P<'sendRenew'>) => {},
    scheduleRetry: (_, _p: P<'scheduleRetry'>) => {},
    recordExpiry: (_, _p: P<'recordExpiry'>) => {},
    recordAckFailure: (_, _p: P<'recordAckFailure'>) => {},

    decideAccept: assign({ outcome: (): Disposition => ({ kind: 'accept' }) }),
    decideRelease: assign({
      outcome: (_, p: { reason: ReleaseReason }): Disposition => ({ kind: 'release', ...p }),
    }),
    decideReject: assign({
      outcome: (_, p: { reason: RejectReason }): Disposition => ({ kind: 'reject', ...p }),
    }),
    decidePartial: assign({
      outcome: ({ event }): Disposition => ({
        kind: 'partial',
        rejectedIndexes: event.type === 'PUT_PER_RECORD' ? [...new Set(event.rejectedIndexes)] : [],
      }),
    }),
    decideExpired: assign({ outcome: (): Disposition => ({ kind: 'expired' }) }),
    countAttempt: assign({ attempt: ({ context }) => context.attempt + 1 }),
    countRenewal: assign({ renewCount: ({ context }) => context.renewCount + 1 }),
    extendLock: assign({
      // The broker's reply is the truth, even when shorter: a lock duration lowered in the group
      // config applies from the renewal on, and an optimistic deadline is how locks expire silently.
      lockDeadline: ({ context, event }) => (event.type === 'RENEWED' ? event.until : context.lockDeadline),
    }),
    keepAckError: assign({
      ackError: ({ event }) => (event.type === 'ACK_FAILED' ? event.errorCode : undefined),
    }),
  },
}).createMachine({
  id: 'batch',
  context: ({ input }) => batchContext(input),
  initial: 'active',
  states: {
    active: {
      type: 'parallel',
      states: {
        work: {
          initial: 'acquired',
          states: {
            acquired: {
              on: {
                DISPATCH: { target: 'putting' },
                SHUTDOWN: { target: '#batch.acknowledging', actions: releaseWith('shutdown') },
                RENEW_UNAVAILABLE: {
                  guard: 'isShare',
                  target: '#batch.acknowledging',
                  actions: releaseWith('renew-unavailable'),
                },
                LOCK_EXPIRED: {
                  guard: 'isShare',
                  target: '#batch.expired',
                  actions: [expiry(false), 'decideExpired'],
                },
              },
            },
            putting: {
              entry: [
                'countAttempt',
                {
                  type: 'startPut',
                  params: ({ context }) => ({ batchId: context.batchId, attempt: context.attempt }),
                },
              ],
              on: {
                PUT_OK: { target: '#batch.acknowledging', actions: 'decideAccept' },
                PUT_PER_RECORD: [
                  { guard: 'noneRejected', target: '#batch.acknowledging', actions: 'decideAccept' },
                  {
                    guard: 'allRejected',
                    target: '#batch.acknowledging',
                    actions: rejectWith('all-records-rejected'),
                  },
                  { target: '#batch.acknowledging', actions: 'decidePartial' },
                ],
                PUT_FATAL: { target: '#batch.acknowledging', actions: rejectWith('fatal') },
                // both modes retry in place; the owner decides when to give up (RETRIES_EXHAUSTED)
                PUT_RETRIABLE: { target: 'retrying' },
                PUT_TIMEOUT: [
                  {
                    guard: 'isShare',
                    target: '#batch.acknowledging',
                    actions: [abortFor('put-timeout'), releaseWith('put-timeout')],
                  },
                  { target: 'retrying', actions: abortFor('put-timeout') },
                ],
                ABORTED: { target: '#batch.acknowledging', actions: releaseWith('aborted') },
                RENEW_UNAVAILABLE: {
                  guard: 'isShare',
                  target: '#batch.acknowledging',
                  actions: [abortFor('renew-unavailable'), releaseWith('renew-unavailable')],
                },
                LOCK_EXPIRED: {
                  guard: 'isShare',
                  target: '#batch.expired',
                  actions: [abortFor('lock-expired'), expiry(true), 'decideExpired'],
                },
                SHUTDOWN: {
                  target: '#batch.acknowledging',
                  actions: [abortFor('shutdown'), releaseWith('shutdown')],
                },
              },
            },
            // A retriable failure waits here for the owner's backoff (share mode: locks still renewed),
            // then is put again. Given up, share mode releases (the broker redelivers) and classic rejects.
            retrying: {
              entry: {
                type: 'scheduleRetry',
                params: ({ context }) => ({ batchId: context.batchId, attempt: context.attempt }),
              },
              on: {
                RETRY: { target: 'putting' },
                RETRIES_EXHAUSTED: [
                  { guard: 'isShare', target: '#batch.acknowledging', actions: releaseWith('retriable') },
                  { target: '#batch.acknowledging', actions: rejectWith('retries-exhausted') },
                ],
                SHUTDOWN: { target: '#batch.acknowledging', actions: releaseWith('shutdown') },
                RENEW_UNAVAILABLE: {
                  guard: 'isShare',
                  target: '#batch.acknowledging',
                  actions: releaseWith('renew-unavailable'),
                },
                LOCK_EXPIRED: {
                  guard: 'isShare',
                  target: '#batch.expired',
                  actions: [expiry(false), 'decideExpired'],
                },
              },
            },
          },
        },
        lease: {
          initial: 'held',
          states: {
            held: {
              on: {
                LOCK_RENEW_DUE: {
                  guard: 'isShare',
                  target: 'renewing',
                  actions: [
                    'countRenewal',
                    {
                      type: 'sendRenew',
                      params: ({ context }) => ({ batchId: context.batchId, renewCount: context.renewCount }),
                    },
                  ],
                },
              },
            },
            renewing: {
              on: { RENEWED: { guard: 'isShare', target: 'held', actions: 'extendLock' } },
            },
          },
        },
      },
    },
    acknowledging: {
      entry: {
        type: 'sendAcks',
        params: ({ context }) => ({
          batchId: context.batchId,
          disposition: context.outcome as AckDisposition,
        }),
      },
      on: {
        ACKED: { target: 'done' },
        ACK_FAILED: {
          target: 'ackFailed',
          actions: [
            'keepAckError',
            {
              type: 'recordAckFailure',
              params: ({ context, event }) => ({
                batchId: context.batchId,
                errorCode: event.errorCode,
                disposition: context.outcome,
              }),
            },
          ],
        },
      },
    },
    done: { type: 'final' },
    // The ack did not land (lock already expired, session lost): the broker redelivers the records.
    ackFailed: { type: 'final' },
    expired: { type: 'final' },
  },
  output: ({ context }) => ({
    batchId: context.batchId,
    disposition: context.outcome ?? { kind: 'expired' },
    acked: context.ackError === undefined && context.outcome?.kind !== 'expired',
    ackError: context.ackError,
  }),
});

export type BatchMachine = typeof batchMachine;
export type BatchSnapshot = SnapshotFrom<BatchMachine>;

/** The batch machine with the owner's effects; every effect must be supplied. */
export function createBatchMachine(effects: BatchEffects): BatchMachine {
  return batchMachine.provide({
    actions: {
      startPut: (_, p) => effects.startPut(p),
      abortPut: (_, p) => effects.abortPut(p),
      sendAcks: (_, p) => effects.sendAcks(p),
      sendRenew: (_, p) => effects.sendRenew(p),
      scheduleRetry: (_, p) => effects.scheduleRetry(p),
      recordExpiry: (_, p) => effects.recordExpiry(p),
      recordAckFailure: (_, p) => effects.recordAckFailure(p),
    },
  });
}

/** The disposition decided for the batch, or undefined while it is still undecided. */
export function dispositionOf(snapshot: BatchSnapshot): Disposition | undefined {
  return snapshot.context.outcome;
}

type ActiveValue = { work?: string; lease?: string } | undefined;

/**
 * The state of the `work` region (`acquired`, `putting`, `retrying`) while the batch is active, else
 * undefined. Read off the snapshot's value: per batch and per snapshot this is cheaper than
 * `snapshot.matches()`, which parses its argument on every call.
 */
export function batchWork(snapshot: BatchSnapshot): string | undefined {
  const value = snapshot.value;
  return typeof value === 'string' ? undefined : (value.active as ActiveValue)?.work;
}

/** The state of the `lease` region (`held`, `renewing`) while the batch is active, else undefined. */
export function batchLease(snapshot: BatchSnapshot): string | undefined {
  const value = snapshot.value;
  return typeof value === 'string' ? undefined : (value.active as ActiveValue)?.lease;
}

/** A flat name for the current state, e.g. `putting/renewing`, for logs, counters and channels. */
export function batchStateName(snapshot: BatchSnapshot): string {
  const value = snapshot.value;
  if (typeof value === 'string') return value;
  const work = batchWork(snapshot);
  if (work === undefined) return 'active';
  return batchLease(snapshot) === 'renewing' ? `${work}/renewing` : work;
}
