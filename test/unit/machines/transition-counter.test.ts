import diagnosticsChannel from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { batchMachine, type BatchEvent } from '../../../src/machines/batch.js';
import { taskMachine } from '../../../src/machines/task.js';
import {
  CHANNEL_BATCH_TRANSITION,
  type BatchTransitionMessage,
} from '../../../src/observability/channels.js';
import { createTransitionCounter, stateValueName } from '../../../src/observability/transition-counter.js';
import { input } from './batch-helpers.js';

describe('stateValueName', () => {
  it('names flat, nested and parallel values', () => {
    expect(stateValueName('idle')).toBe('idle');
    expect(stateValueName({ up: 'running' })).toBe('up.running');
    expect(stateValueName({ active: { work: 'putting', lease: 'held' } })).toBe(
      'active.(work.putting,lease.held)',
    );
  });
});

describe('transition counter', () => {
  const messages: BatchTransitionMessage[] = [];
  const listener = (m: unknown) => messages.push(m as BatchTransitionMessage);
  afterEach(() => {
    diagnosticsChannel.unsubscribe(CHANNEL_BATCH_TRANSITION, listener);
    messages.length = 0;
  });

  it('counts transitions per machine and (from, to), ignoring events that change nothing', () => {
    const counter = createTransitionCounter();
    for (let i = 0; i < 3; i++) {
      const batch = createActor(batchMachine, {
        input: input({ batchId: `b-${i}` }),
        inspect: counter.inspect,
      });
      batch.start();
      for (const e of [
        { type: 'PUT_OK' }, // ignored: not putting yet
        { type: 'DISPATCH' },
        { type: 'LOCK_RENEW_DUE' },
        { type: 'RENEWED', until: 99_999 },
        { type: 'PUT_OK' },
        { type: 'ACKED' },
      ] satisfies BatchEvent[])
        batch.send(e);
    }
    const task = createActor(taskMachine, { input: { connector: 'c', taskId: 0 }, inspect: counter.inspect });
    task.start();
    task.send({ type: 'ASSIGN' });

    expect(counter.count('batch', 'acquired', 'putting')).toBe(3);
    expect(counter.count('batch', 'putting', 'putting/renewing')).toBe(3);
    expect(counter.count('batch', 'putting/renewing', 'putting')).toBe(3);
    expect(counter.count('batch', 'acknowledging', 'done')).toBe(3);
    expect(counter.count('task', 'unassigned', 'starting')).toBe(1);
    expect(counter.counts()).toHaveLength(6);
    expect(counter.counts().reduce((n, c) => n + c.count, 0)).toBe(16);
    counter.reset();
    expect(counter.counts()).toEqual([]);
  });

  it('publishes batch transitions with the event only while someone listens', () => {
    const counter = createTransitionCounter();
    const quiet = createActor(batchMachine, { input: input(), inspect: counter.inspect }).start();
    quiet.send({ type: 'DISPATCH' });
    expect(messages).toEqual([]);

    diagnosticsChannel.subscribe(CHANNEL_BATCH_TRANSITION, listener);
    const batch = createActor(batchMachine, {
      input: input({ batchId: 'b-7' }),
      inspect: counter.inspect,
    }).start();
    batch.send({ type: 'DISPATCH' });
    batch.send({ type: 'PUT_FATAL' });
    expect(messages).toEqual([
      { batchId: 'b-7', from: 'acquired', to: 'putting', event: 'DISPATCH' },
      { batchId: 'b-7', from: 'putting', to: 'acknowledging', event: 'PUT_FATAL' },
    ]);
  });
});
