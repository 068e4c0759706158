/**
 * A batch actor starts from the machine's initial state computed once per core, with its own context
 * (ADR 0011): it must be the state the machine itself would start in, seen by inspection the same way,
 * and no two batches may share a context.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { pino } from 'pino';
import { createActor, initialTransition, type InspectionEvent } from 'xstate';
import { describe, expect, it } from 'vitest';
import { TaskCounters } from '../../../../../src/actors/task/core/task-counters.js';
import {
  TaskRunnerCore,
  type CoreBatch,
  type RunnerMode,
} from '../../../../../src/actors/task/core/task-runner-core.js';
import { batchMachine } from '../../../../../src/machines/batch.js';
import { createActorCensus } from '../../../../../src/observability/actor-census.js';
import {
  CHANNEL_BATCH_TRANSITION,
  type BatchTransitionMessage,
} from '../../../../../src/observability/channels.js';
import { createRuntimeInspector } from '../../../../../src/observability/runtime-inspector.js';
import { createTransitionCounter } from '../../../../../src/observability/transition-counter.js';
import type { PutPool } from '../../../../../src/pool/put-pool.js';

function coreWith(mode: 'share' | 'classic', inspect?: (e: InspectionEvent) => void) {
  const runnerMode = {
    mode,
    tolerance: 'none',
    settle: () => Promise.resolve(null),
    onBatchDone: () => {},
    recordExpiry: () => {},
    recordAckFailure: () => {},
  } as unknown as RunnerMode<CoreBatch>;
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

  it('relies on a first state that runs no action: the machine starting afresh runs none either', () => {
    // a batch started from the persisted first state skips the machine's initial actions; if one is
    // ever added to `acquired` or `held`, this fails and actorFor must start batches afresh again
    for (const mode of ['share', 'classic'] as const) {
      const [, actions] = initialTransition(batchMachine, { ...input, mode });
      expect(actions.filter((a) => !a.type.startsWith('xstate.'))).toEqual([]);
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

describe('TaskRunnerCore batch observation', () => {
  /** One batch through the core: put, accepted, acknowledged (the mode's settle answers at once). */
  const run = async (core: TaskRunnerCore<CoreBatch>) => {
    const actor = core.actorFor(input);
    core.track({
      id: input.batchId,
      records: [],
      actor,
      put: undefined,
      lastPut: undefined,
      reasons: new Map(),
    });
    actor.start();
    actor.send({ type: 'DISPATCH' });
    actor.send({ type: 'PUT_OK' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(actor.getSnapshot().status).toBe('done');
  };

  it('feeds the counts from the batch snapshots, without XState inspection, when nobody listens', async () => {
    const counter = createTransitionCounter();
    const census = createActorCensus();
    const events: string[] = [];
    const inspector = createRuntimeInspector(counter, census);
    const hook = Object.assign(
      (e: InspectionEvent) => {
        events.push(e.type);
        inspector(e);
      },
      { observeBatch: inspector.observeBatch },
    );
    await run(coreWith('share', hook));
    expect(events).toEqual([]);
    expect(counter.count('batch', 'acquired', 'putting')).toBe(1);
    expect(counter.count('batch', 'putting', 'acknowledging')).toBe(1);
    expect(counter.count('batch', 'acknowledging', 'done')).toBe(1);
    expect(census.counts().batch ?? {}).toEqual({});
  });

  it('inspects batch actors the XState way while the batch transition channel has a subscriber', async () => {
    const messages: BatchTransitionMessage[] = [];
    const listener = (m: unknown) => messages.push(m as BatchTransitionMessage);
    diagnosticsChannel.subscribe(CHANNEL_BATCH_TRANSITION, listener);
    try {
      const counter = createTransitionCounter();
      await run(coreWith('share', createRuntimeInspector(counter, createActorCensus())));
      expect(messages.map((m) => `${m.from}>${m.to} on ${m.event}`)).toEqual([
        'acquired>putting on DISPATCH',
        'putting>acknowledging on PUT_OK',
        'acknowledging>done on ACKED',
      ]);
      // counted once, by inspection only
      expect(counter.count('batch', 'acquired', 'putting')).toBe(1);
    } finally {
      diagnosticsChannel.unsubscribe(CHANNEL_BATCH_TRANSITION, listener);
    }
  });
});

describe('TaskRunnerCore batch end', () => {
  it('leaves an ended batch pointing at no records, after the mode has seen them', async () => {
    const seen: number[] = [];
    const core = new TaskRunnerCore(
      {
        pool: {} as PutPool,
        counters: new TaskCounters(),
        log: pino({ level: 'silent' }),
        fail: () => {},
      },
      {
        mode: 'share',
        tolerance: 'none',
        settle: () => Promise.resolve(null),
        onBatchDone: (b: CoreBatch) => seen.push(b.records.length),
        recordExpiry: () => {},
        recordAckFailure: () => {},
      } as unknown as RunnerMode<CoreBatch>,
    );
    const actor = core.actorFor(input);
    // an ended batch's object may be old: its records must not be kept alive through it
    const batch: CoreBatch = {
      id: input.batchId,
      records: [1, 2, 3],
      actor,
      put: undefined,
      lastPut: undefined,
      reasons: new Map(),
    };
    core.track(batch);
    actor.start();
    actor.send({ type: 'DISPATCH' });
    actor.send({ type: 'PUT_OK' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(actor.getSnapshot().status).toBe('done');
    expect(seen).toEqual([3]);
    expect(batch.records).toEqual([]);
  });
});
