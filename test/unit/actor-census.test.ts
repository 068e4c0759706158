// The census behind /machines and /metrics: an actor that ends without reaching a final state is not live.
import { createActor, type Snapshot } from 'xstate';
import { describe, expect, it } from 'vitest';
import { batchContext, createBatchMachine, type BatchEffects } from '../../src/machines/batch.js';
import { createActorCensus } from '../../src/observability/actor-census.js';

const input = { batchId: 'b1', recordCount: 3, mode: 'share' as const, acquiredAt: 0 };
const noop = () => undefined;
const effects = (startPut: BatchEffects['startPut']): BatchEffects => ({
  startPut,
  abortPut: noop,
  sendAcks: noop,
  sendRenew: noop,
  scheduleRetry: noop,
  recordExpiry: noop,
  recordAckFailure: noop,
});

/** A batch actor as the task-runner core makes one: from the `acquired` snapshot, counted either way. */
function batchActor(
  machine: ReturnType<typeof createBatchMachine>,
  census: ReturnType<typeof createActorCensus>,
  inspected: boolean,
) {
  const acquired = createActor(machine, { input: { ...input, batchId: '' } }).getPersistedSnapshot();
  const actor = createActor(machine, {
    input,
    snapshot: { ...(acquired as object), context: batchContext(input) } as unknown as Snapshot<unknown>,
    inspect: inspected ? census.inspect : undefined,
  });
  actor.subscribe({
    next: (snapshot) => {
      if (!inspected) census.observeBatch(actor, snapshot);
    },
    error: noop, // the runtime logs `batch actor failed` and moves on
  });
  return actor.start();
}

describe('createActorCensus', () => {
  for (const inspected of [false, true]) {
    const how = inspected ? 'inspected the XState way' : 'counted from its snapshots';
    it(`forgets a batch actor whose effect threw (${how}): no ghost batch in the live view`, () => {
      const census = createActorCensus();
      const machine = createBatchMachine(
        effects(() => {
          throw new Error('sink pool gone');
        }),
      );
      const actor = batchActor(machine, census, inspected);
      expect(census.counts()).toEqual({ batch: { acquired: 1 } });
      actor.send({ type: 'DISPATCH' });
      expect(actor.getSnapshot().status).toBe('error');
      expect(census.counts()).toEqual({});
    });

    it(`forgets a batch actor stopped before a final state (${how})`, () => {
      const census = createActorCensus();
      const actor = batchActor(createBatchMachine(effects(noop)), census, inspected);
      actor.send({ type: 'DISPATCH' });
      expect(census.counts()).toEqual({ batch: { putting: 1 } });
      actor.stop();
      expect(census.counts()).toEqual({});
    });
  }
});
