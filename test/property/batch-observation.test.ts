/**
 * A batch actor's transition counts and census entry are the same whether they come from XState's
 * inspection events or from the actor's own snapshots (runtime-inspector.ts): for any sequence of
 * events, in both modes, after every event.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { batchMachine, type BatchEvent, type BatchMode } from '../../src/machines/batch.js';
import { createActorCensus } from '../../src/observability/actor-census.js';
import { createTransitionCounter } from '../../src/observability/transition-counter.js';
import { ALL_EVENTS } from '../unit/machines/batch-helpers.js';

// every event type, and a per-record result that rejects nothing
const EVENTS: BatchEvent[] = [...ALL_EVENTS, { type: 'PUT_PER_RECORD', rejectedIndexes: [] }];

describe('batch observation from snapshots', () => {
  it('counts the same transitions and keeps the same census as XState inspection', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<BatchMode>('share', 'classic'),
        fc.array(fc.constantFrom(...EVENTS), { maxLength: 10 }),
        (mode, events) => {
          const byInspection = { counter: createTransitionCounter(), census: createActorCensus() };
          const bySnapshots = { counter: createTransitionCounter(), census: createActorCensus() };
          const input = { batchId: 'b', recordCount: 3, mode, acquiredAt: 0, lockDeadline: 30_000 };
          const inspected = createActor(batchMachine, {
            input,
            inspect: (e) => {
              byInspection.counter.inspect(e);
              byInspection.census.inspect(e);
            },
          });
          const observed = createActor(batchMachine, { input });
          let first = true;
          observed.subscribe({
            next: (s) => {
              bySnapshots.counter.observeBatch(observed, s, first);
              bySnapshots.census.observeBatch(observed, s);
              first = false;
            },
          });
          inspected.start();
          observed.start();
          for (const e of events) {
            // a batch in a final state takes no events (XState would warn on stderr for each)
            if (inspected.getSnapshot().status !== 'active') break;
            inspected.send(e);
            observed.send(e);
            expect(bySnapshots.counter.counts()).toEqual(byInspection.counter.counts());
            expect(bySnapshots.census.counts()).toEqual(byInspection.census.counts());
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
