/**
 * Model-based tests: `createTestModel` walks the batch machine's graph and every shortest path to
 * every reachable state is replayed against a REAL actor built with `createBatchMachine(effects)`.
 * After each step the actor must be in the model's state and the effects the owner has seen so far
 * must be exactly those that state implies.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createTestModel } from 'xstate/graph';
import {
  batchMachine,
  createBatchMachine,
  dispositionOf,
  type BatchEvent,
  type BatchMode,
  type BatchSnapshot,
} from '../../../src/machines/batch.js';
import { input, recordingEffects, type Effect } from './batch-helpers.js';

const EVENTS: BatchEvent[] = [
  { type: 'PUT_PER_RECORD', rejectedIndexes: [] },
  { type: 'PUT_PER_RECORD', rejectedIndexes: [2] },
  { type: 'PUT_PER_RECORD', rejectedIndexes: [1, 2, 3] },
  { type: 'RENEWED', until: 60_000 },
  { type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' },
];

/** States are the value and the decision; counters (attempt, renewCount) would make the graph infinite. */
const serializeState = (s: BatchSnapshot) =>
  JSON.stringify({ value: s.value, outcome: s.context.outcome, ackError: s.context.ackError });

type Edge = { event: BatchEvent; state: BatchSnapshot };
const isInit = (e: { type: string }) => e.type === 'xstate.init';

const count = (log: Effect[], type: Effect['type']) => log.filter((e) => e.type === type).length;

function expectEffectsMatch(s: BatchSnapshot, log: Effect[]): void {
  const acked = s.matches('acknowledging') || s.matches('done') || s.matches('ackFailed');
  const acks = log.filter((e) => e.type === 'sendAcks');
  expect(acks).toHaveLength(acked ? 1 : 0);
  if (acked) expect(acks[0]?.params).toEqual({ batchId: 'b-1', disposition: dispositionOf(s) });
  if (dispositionOf(s)?.kind === 'accept') {
    expect(log.findLastIndex((e) => e.type === 'startPut')).toBeLessThan(log.indexOf(acks[0] as Effect));
  }
  expect(count(log, 'startPut')).toBe(s.context.attempt);
  expect(count(log, 'sendRenew')).toBe(s.context.renewCount);
  expect(count(log, 'recordExpiry')).toBe(s.matches('expired') ? 1 : 0);
  expect(count(log, 'recordAckFailure')).toBe(s.matches('ackFailed') ? 1 : 0);
  const retries = count(log, 'scheduleRetry');
  if (s.matches({ active: { work: 'retrying' } })) expect(retries).toBe(s.context.attempt);
  else if (s.matches({ active: { work: 'putting' } })) expect(retries).toBe(s.context.attempt - 1);
  else expect(retries).toBeLessThanOrEqual(s.context.attempt);
  // A put is aborted at most once, and only on the way out of `putting`.
  const aborts = count(log, 'abortPut');
  expect(aborts).toBeLessThanOrEqual(s.context.attempt);
  if (s.matches({ active: { work: 'putting' } })) expect(aborts).toBe(0);
}

describe.each<BatchMode>(['share', 'classic'])('batch machine model (%s mode)', (mode) => {
  const model = createTestModel(batchMachine, { events: EVENTS, input: input({ mode }), serializeState });
  const paths = model.getShortestPaths();

  it('reaches every state the mode allows', () => {
    const reached = new Set(paths.flatMap((p) => p.steps.map((st) => JSON.stringify(st.state.value))));
    const expected = [
      '"done"',
      '"ackFailed"',
      '"acknowledging"',
      JSON.stringify({ active: { work: 'acquired', lease: 'held' } }),
      JSON.stringify({ active: { work: 'putting', lease: 'held' } }),
    ];
    // both modes retry in place (share mode renews the locks meanwhile)
    expected.push(JSON.stringify({ active: { work: 'retrying', lease: 'held' } }));
    if (mode === 'share') {
      expected.push(
        '"expired"',
        JSON.stringify({ active: { work: 'acquired', lease: 'renewing' } }),
        JSON.stringify({ active: { work: 'putting', lease: 'renewing' } }),
        JSON.stringify({ active: { work: 'retrying', lease: 'renewing' } }),
      );
    }
    expect([...reached].sort()).toEqual(expected.sort());
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_, path) => {
    const log: Effect[] = [];
    const actor = createActor(createBatchMachine(recordingEffects(log)), { input: input({ mode }) });
    actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
    actor.start();
    const send = ({ event }: { event: { type: string } }) => actor.send(event as BatchEvent);
    await path.test({
      events: Object.fromEntries(EVENT_TYPES.map((t) => [t, send])),
      states: {
        '*': (state) => {
          const real = actor.getSnapshot();
          expect(real.value).toEqual(state.value);
          expect(dispositionOf(real)).toEqual(dispositionOf(state));
          expectEffectsMatch(real, log);
        },
      },
    });
    expect(actor.getSnapshot().status).toBe(path.state.status);
  });

  // Shortest paths reach every state; this covers every edge: replay the path to each state, then
  // take each transition the model offers there and compare the real actor with the model.
  it('takes every transition of the graph on a real actor', () => {
    const adjacency = model.getAdjacencyMap();
    const pathTo = new Map(
      model.getShortestPaths({ allowDuplicatePaths: true }).map((p) => [serializeState(p.state), p] as const),
    );
    let edges = 0;
    for (const { state, transitions } of Object.values(adjacency)) {
      const path = pathTo.get(serializeState(state));
      expect(path, serializeState(state)).toBeDefined();
      for (const { event, state: next } of Object.values(transitions) as Edge[]) {
        const log: Effect[] = [];
        const actor = createActor(createBatchMachine(recordingEffects(log)), { input: input({ mode }) });
        actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
        actor.start();
        for (const step of path?.steps ?? []) if (!isInit(step.event)) actor.send(step.event);
        actor.send(event);
        expect(actor.getSnapshot().value, `${serializeState(state)} + ${event.type}`).toEqual(next.value);
        expectEffectsMatch(actor.getSnapshot(), log);
        edges++;
      }
    }
    expect(edges).toBeGreaterThan(20);
  });
});

const EVENT_TYPES: BatchEvent['type'][] = [
  'DISPATCH',
  'PUT_OK',
  'PUT_RETRIABLE',
  'PUT_FATAL',
  'PUT_PER_RECORD',
  'PUT_TIMEOUT',
  'ABORTED',
  'LOCK_RENEW_DUE',
  'RENEWED',
  'RENEW_UNAVAILABLE',
  'LOCK_EXPIRED',
  'RETRY',
  'RETRIES_EXHAUSTED',
  'ACKED',
  'ACK_FAILED',
  'SHUTDOWN',
];
