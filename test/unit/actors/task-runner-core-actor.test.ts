/**
 * A batch actor starts from the machine's initial state computed once per core, with its own context
 * (ADR 0011): it must be the state the machine itself would start in, seen by inspection the same way,
 * and no two batches may share a context.
 */
import { pino } from 'pino';
import { createActor, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TaskCounters } from '../../../src/actors/task-counters.js';
import { TaskRunnerCore, type CoreBatch, type RunnerMode } from '../../../src/actors/task-runner-core.js';
import { batchMachine } from '../../../src/machines/batch.js';
import { createActorCensus } from '../../../src/observability/actor-census.js';
import { createTransitionCounter } from '../../../src/observability/transition-counter.js';
import type { PutPool } from '../../../src/pool/put-pool.js';

function coreWith(mode: 'share' | 'classic', inspect?: (e: InspectionEvent) => void) {
  const runnerMode = { mode, tolerance: 'none' } as unknown as RunnerMode<CoreBatch>;
  return new TaskRunnerCore(
    {
      pool: {} as PutPool,
      counters: new TaskCounters(),
      log: pino({ level: 'silent' }),
      inspect,
      fail: () => {},
    },
    runnerMode,
  );
}

const input = { batchId: 'c-0-1', recordCount: 3, acquiredAt: 42, deliveryCount: 2, lockDeadline: 30_042 };

describe('TaskRunnerCore.actorFor', () => {
  it('starts in the state and with the context the machine computes from the same input', () => {
    for (const mode of ['share', 'classic'] as const) {
      const actor = coreWith(mode).actorFor(input);
      actor.start();
      const fresh = createActor(batchMachine, { input: { ...input, mode } });
      fresh.start();
      expect(actor.getSnapshot().value).toEqual({ active: { work: 'acquired', lease: 'held' } });
      expect(actor.getSnapshot().value).toEqual(fresh.getSnapshot().value);
      expect(actor.getSnapshot().context).toEqual(fresh.getSnapshot().context);
      expect(actor.getSnapshot().context).toMatchObject({ batchId: 'c-0-1', mode, deliveryCount: 2 });
      expect(actor.getSnapshot().status).toBe('active');
    }
  });

  it('gives every batch a context of its own', () => {
    const core = coreWith('share');
    const a = core.actorFor({ ...input, batchId: 'a' });
    const b = core.actorFor({ ...input, batchId: 'b' });
    a.start();
    b.start();
    a.send({ type: 'DISPATCH' });
    expect(a.getSnapshot().context.attempt).toBe(1);
    expect(b.getSnapshot().context).toMatchObject({ batchId: 'b', attempt: 0 });
    expect(b.getSnapshot().value).toEqual({ active: { work: 'acquired', lease: 'held' } });
  });

  it('is seen by the transition counter and the census from its first state on', () => {
    const counter = createTransitionCounter();
    const census = createActorCensus();
    const core = coreWith('share', (e) => {
      counter.inspect(e);
      census.inspect(e);
    });
    const actor = core.actorFor(input);
    actor.start();
    expect(census.counts().batch?.acquired).toBe(1);
    actor.send({ type: 'DISPATCH' });
    expect(counter.count('batch', 'acquired', 'putting')).toBe(1);
    actor.send({ type: 'PUT_OK' });
    actor.send({ type: 'ACKED' });
    expect(counter.count('batch', 'acknowledging', 'done')).toBe(1);
    expect(actor.getSnapshot().output).toMatchObject({ batchId: 'c-0-1', disposition: { kind: 'accept' } });
    expect(census.counts().batch?.acquired ?? 0).toBe(0);
  });
});
