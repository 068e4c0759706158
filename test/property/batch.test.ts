/**
 * Properties of the pure batch protocol, checked over `transition(machine, snapshot, event)` with
 * arbitrary event sequences in both modes. fast-check prints the seed and the shrunk sequence on
 * failure; replay with `test.prop(..., { seed, path })`.
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { batchStateName, dispositionOf, type BatchEvent, type BatchMode } from '../../src/machines/batch.js';
import { start, step, type Effect } from '../unit/machines/batch-helpers.js';

const offsets = fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 10 });

const eventArb: fc.Arbitrary<BatchEvent> = fc.oneof(
  fc.constantFrom<BatchEvent>(
    { type: 'DISPATCH' },
    { type: 'PUT_OK' },
    { type: 'PUT_RETRIABLE' },
    { type: 'PUT_FATAL' },
    { type: 'PUT_TIMEOUT' },
    { type: 'ABORTED' },
    { type: 'LOCK_RENEW_DUE' },
    { type: 'RENEW_UNAVAILABLE' },
    { type: 'LOCK_EXPIRED' },
    { type: 'RETRY' },
    { type: 'RETRIES_EXHAUSTED' },
    { type: 'ACKED' },
    { type: 'SHUTDOWN' },
  ),
  offsets.map((rejectedIndexes): BatchEvent => ({ type: 'PUT_PER_RECORD', rejectedIndexes })),
  fc.integer({ min: 0, max: 100_000 }).map((until): BatchEvent => ({ type: 'RENEWED', until })),
  fc.constantFrom('INVALID_RECORD_STATE', 'UNKNOWN_SERVER_ERROR').map((errorCode): BatchEvent => ({
    type: 'ACK_FAILED',
    errorCode,
  })),
);

const scenario = fc.record({
  mode: fc.constantFrom<BatchMode>('share', 'classic'),
  recordCount: fc.integer({ min: 1, max: 10 }),
  // Biased towards the interesting part: a dispatch early on.
  events: fc
    .tuple(fc.array(eventArb, { maxLength: 3 }), fc.array(eventArb, { maxLength: 25 }))
    .map(([head, tail]) => [...head, { type: 'DISPATCH' } as BatchEvent, ...tail]),
});

type Trace = { event: BatchEvent; effects: Effect[]; state: string; outcome: unknown }[];

function replay(mode: BatchMode, recordCount: number, events: readonly BatchEvent[]) {
  let snapshot = start({ mode, recordCount });
  const trace: Trace = [];
  for (const event of events) {
    const [next, effects] = step(snapshot, event);
    snapshot = next;
    trace.push({ event, effects, state: batchStateName(next), outcome: dispositionOf(next) });
  }
  return { snapshot, trace, effects: trace.flatMap((t) => t.effects) };
}

test.prop([scenario])(
  'a batch gets at most one ack disposition, and it never changes',
  ({ mode, recordCount, events }) => {
    const { snapshot, trace, effects } = replay(mode, recordCount, events);
    const acks = effects.filter((e) => e.type === 'sendAcks');
    expect(acks.length).toBeLessThanOrEqual(1);
    const decided = ['acknowledging', 'done', 'ackFailed'].includes(batchStateName(snapshot));
    expect(acks.length).toBe(decided ? 1 : 0);
    if (acks[0]) expect(acks[0].params.disposition).toEqual(dispositionOf(snapshot));
    // Once decided, the disposition is never rewritten.
    const firstDecided = trace.findIndex((t) =>
      t.effects.some((e) => e.type === 'sendAcks' || e.type === 'recordExpiry'),
    );
    if (firstDecided >= 0) {
      for (const t of trace.slice(firstDecided)) expect(t.outcome).toEqual(trace[firstDecided]?.outcome);
      expect(trace.slice(firstDecided + 1).flatMap((t) => t.effects.map((e) => e.type))).not.toContain(
        'startPut',
      );
    }
  },
);

test.prop([scenario])(
  'ACCEPT only after a successful put; REJECT only after a fatal outcome',
  ({ mode, recordCount, events }) => {
    const { trace } = replay(mode, recordCount, events);
    for (const { event, effects } of trace) {
      const ack = effects.find((e) => e.type === 'sendAcks');
      if (ack?.type !== 'sendAcks') continue;
      const d = ack.params.disposition;
      if (d.kind === 'accept') {
        expect(
          event.type === 'PUT_OK' || (event.type === 'PUT_PER_RECORD' && event.rejectedIndexes.length === 0),
        ).toBe(true);
      }
      if (d.kind === 'reject')
        expect(['PUT_FATAL', 'PUT_PER_RECORD', 'RETRIES_EXHAUSTED']).toContain(event.type);
      if (d.kind === 'partial') {
        expect(event.type).toBe('PUT_PER_RECORD');
        // every record is accounted for: some rejected, the rest accepted, none twice
        expect(d.rejectedIndexes.length).toBeGreaterThan(0);
        expect(d.rejectedIndexes.length).toBeLessThan(recordCount);
        expect(new Set(d.rejectedIndexes).size).toBe(d.rejectedIndexes.length);
      }
      if (d.kind === 'release' && d.reason === 'retriable') expect(mode).toBe('share');
    }
  },
);

test.prop([scenario])(
  'lock expiry under a put aborts it and acknowledges nothing',
  ({ mode, recordCount, events }) => {
    const { snapshot, trace, effects } = replay(mode, recordCount, events);
    const expiredAt = trace.findIndex((t) => t.state === 'expired');
    if (expiredAt < 0) {
      expect(effects.filter((e) => e.type === 'recordExpiry')).toHaveLength(0);
      return;
    }
    expect(mode).toBe('share');
    const expiry = trace[expiredAt];
    const wasPutting = expiredAt > 0 && trace[expiredAt - 1]?.state.startsWith('putting');
    expect(expiry?.effects.map((e) => e.type)).toEqual(
      wasPutting ? ['abortPut', 'recordExpiry'] : ['recordExpiry'],
    );
    expect(effects.filter((e) => e.type === 'sendAcks')).toHaveLength(0);
    expect(snapshot.output?.disposition).toEqual({ kind: 'expired' });
  },
);

test.prop([scenario])('classic batches never renew and never expire', ({ recordCount, events }) => {
  const { effects, trace } = replay('classic', recordCount, events);
  expect(effects.map((e) => e.type)).not.toContain('sendRenew');
  expect(trace.map((t) => t.state)).not.toContain('expired');
});

test.prop([scenario])(
  'no batch is ever stuck: SHUTDOWN then the ack result always finishes it',
  ({ mode, recordCount, events }) => {
    const { snapshot } = replay(mode, recordCount, events);
    let s = snapshot;
    for (const e of [{ type: 'SHUTDOWN' }, { type: 'ACKED' }] satisfies BatchEvent[]) s = step(s, e)[0];
    expect(s.status).toBe('done');
    expect(s.output?.disposition).toBeDefined();
  },
);

test.prop([scenario])(
  'renews are sent one at a time and the deadline is the one the broker last granted',
  ({ mode, recordCount, events }) => {
    let s = start({ mode, recordCount, lockDeadline: 1_000 });
    let pending = false;
    let granted = 1_000;
    for (const event of events) {
      const [next, effects] = step(s, event);
      if (effects.some((e) => e.type === 'sendRenew')) {
        expect(pending).toBe(false);
        pending = true;
      }
      if (event.type === 'RENEWED' && pending && mode === 'share') {
        granted = event.until;
        pending = false;
      }
      if (!next.matches({ active: { lease: 'renewing' } })) pending = false;
      expect(next.context.lockDeadline).toBe(granted);
      s = next;
    }
  },
);
