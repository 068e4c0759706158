import { initialTransition, transition } from 'xstate';
import {
  batchMachine,
  type BatchEffects,
  type BatchEvent,
  type BatchInput,
  type BatchSnapshot,
} from '../../../src/machines/batch.js';

export type EffectName = keyof BatchEffects;
export type Effect = { [K in EffectName]: { type: K; params: Parameters<BatchEffects[K]>[0] } }[EffectName];

const EFFECT_NAMES: ReadonlySet<string> = new Set<EffectName>([
  'startPut',
  'abortPut',
  'sendAcks',
  'sendRenew',
  'scheduleRetry',
  'recordExpiry',
  'recordAckFailure',
]);

export function input(overrides: Partial<BatchInput> = {}): BatchInput {
  return { batchId: 'b-1', recordCount: 3, mode: 'share', acquiredAt: 0, lockDeadline: 30_000, ...overrides };
}

function effectsOf(actions: readonly { type: string; params: unknown }[]): Effect[] {
  return actions
    .filter((a) => EFFECT_NAMES.has(a.type))
    .map((a) => ({ type: a.type, params: a.params }) as Effect);
}

export function start(overrides: Partial<BatchInput> = {}): BatchSnapshot {
  return initialTransition(batchMachine, input(overrides))[0];
}

/** One pure step: the next snapshot and the owner effects it asks for, in order. */
export function step(snapshot: BatchSnapshot, event: BatchEvent): [BatchSnapshot, Effect[]] {
  const [next, actions] = transition(batchMachine, snapshot, event);
  return [next, effectsOf(actions)];
}

/** Run events from the initial state; returns the final snapshot and every effect emitted. */
export function run(
  events: readonly BatchEvent[],
  overrides: Partial<BatchInput> = {},
): [BatchSnapshot, Effect[]] {
  let snapshot = start(overrides);
  const all: Effect[] = [];
  for (const event of events) {
    const [next, effects] = step(snapshot, event);
    snapshot = next;
    all.push(...effects);
  }
  return [snapshot, all];
}

/** Effects recorded by a real actor, in the order the owner would see them. */
export function recordingEffects(log: Effect[]): BatchEffects {
  const rec =
    <K extends EffectName>(type: K) =>
    (params: Parameters<BatchEffects[K]>[0]) =>
      log.push({ type, params } as Effect);
  return {
    startPut: rec('startPut'),
    abortPut: rec('abortPut'),
    sendAcks: rec('sendAcks'),
    sendRenew: rec('sendRenew'),
    scheduleRetry: rec('scheduleRetry'),
    recordExpiry: rec('recordExpiry'),
    recordAckFailure: rec('recordAckFailure'),
  };
}

/** One event of every type (PUT_PER_RECORD rejecting a record), for walks over the machine's states. */
export const ALL_EVENTS: BatchEvent[] = [
  { type: 'DISPATCH' },
  { type: 'PUT_OK' },
  { type: 'PUT_RETRIABLE' },
  { type: 'PUT_FATAL' },
  { type: 'PUT_PER_RECORD', rejectedIndexes: [1] },
  { type: 'PUT_TIMEOUT' },
  { type: 'ABORTED' },
  { type: 'LOCK_RENEW_DUE' },
  { type: 'RENEWED', until: 60_000 },
  { type: 'RENEW_UNAVAILABLE' },
  { type: 'LOCK_EXPIRED' },
  { type: 'RETRY' },
  { type: 'RETRIES_EXHAUSTED' },
  { type: 'ACKED' },
  { type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' },
  { type: 'SHUTDOWN' },
];
