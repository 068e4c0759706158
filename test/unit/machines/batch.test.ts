import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  batchLease,
  batchStateName,
  batchWork,
  createBatchMachine,
  dispositionOf,
  type BatchEvent,
  type BatchMode,
} from '../../../src/machines/batch.js';
import { ALL_EVENTS, run, start, step, recordingEffects, type Effect } from './batch-helpers.js';

const ack = (disposition: unknown): Effect =>
  ({ type: 'sendAcks', params: { batchId: 'b-1', disposition } }) as Effect;
const abort = (reason: string): Effect =>
  ({ type: 'abortPut', params: { batchId: 'b-1', reason } }) as Effect;

describe('batch machine: acquired', () => {
  it('starts acquired with the lease held and nothing decided', () => {
    const s = start();
    expect(batchStateName(s)).toBe('acquired');
    expect(dispositionOf(s)).toBeUndefined();
    expect(s.context).toMatchObject({ attempt: 0, renewCount: 0, deliveryCount: 1, lockDeadline: 30_000 });
  });

  it('DISPATCH starts the first put', () => {
    const [s, fx] = run([{ type: 'DISPATCH' }]);
    expect(batchStateName(s)).toBe('putting');
    expect(fx).toEqual([{ type: 'startPut', params: { batchId: 'b-1', attempt: 1 } }]);
  });

  it.each<BatchMode>(['share', 'classic'])('SHUTDOWN releases without a put (%s)', (mode) => {
    const [s, fx] = run([{ type: 'SHUTDOWN' }], { mode });
    expect(batchStateName(s)).toBe('acknowledging');
    expect(fx).toEqual([ack({ kind: 'release', reason: 'shutdown' })]);
  });

  it('RENEW_UNAVAILABLE releases early (share) and means nothing in classic mode', () => {
    expect(run([{ type: 'RENEW_UNAVAILABLE' }])[1]).toEqual([
      ack({ kind: 'release', reason: 'renew-unavailable' }),
    ]);
    const [s, fx] = run([{ type: 'RENEW_UNAVAILABLE' }], { mode: 'classic' });
    expect(batchStateName(s)).toBe('acquired');
    expect(fx).toEqual([]);
  });

  it('LOCK_EXPIRED before dispatch records the expiry and acknowledges nothing', () => {
    const [s, fx] = run([{ type: 'LOCK_EXPIRED' }], { deliveryCount: 2 });
    expect(s.value).toBe('expired');
    expect(s.status).toBe('done');
    expect(fx).toEqual([
      {
        type: 'recordExpiry',
        params: { batchId: 'b-1', recordCount: 3, deliveryCount: 2, duringPut: false },
      },
    ]);
    expect(s.output).toEqual({
      batchId: 'b-1',
      disposition: { kind: 'expired' },
      acked: false,
      ackError: undefined,
    });
  });

  it('renews while waiting for a worker; a stray reply with no renew pending is ignored', () => {
    const [renewing, fx] = run([{ type: 'LOCK_RENEW_DUE' }]);
    let s = renewing;
    expect(batchStateName(s)).toBe('acquired/renewing');
    expect(fx).toEqual([{ type: 'sendRenew', params: { batchId: 'b-1', renewCount: 1 } }]);
    [s] = step(s, { type: 'RENEWED', until: 45_000 });
    expect(batchStateName(s)).toBe('acquired');
    expect(s.context.lockDeadline).toBe(45_000);
    [s] = step(s, { type: 'RENEWED', until: 40_000 });
    expect(s.context.lockDeadline).toBe(45_000);
  });

  it('ignores lock events in classic mode', () => {
    const [s, fx] = run(
      [{ type: 'LOCK_RENEW_DUE' }, { type: 'RENEWED', until: 9 }, { type: 'LOCK_EXPIRED' }],
      {
        mode: 'classic',
      },
    );
    expect(batchStateName(s)).toBe('acquired');
    expect(s.context.lockDeadline).toBe(30_000);
    expect(fx).toEqual([]);
  });

  it.each(['PUT_OK', 'PUT_FATAL', 'PUT_RETRIABLE', 'PUT_TIMEOUT', 'ABORTED', 'RETRY', 'ACKED'] as const)(
    'ignores %s before dispatch',
    (type) => {
      const [s, fx] = run([{ type } as BatchEvent]);
      expect(batchStateName(s)).toBe('acquired');
      expect(fx).toEqual([]);
    },
  );
});

describe('batch machine: putting', () => {
  const putting = (mode: BatchMode = 'share') => run([{ type: 'DISPATCH' }], { mode })[0];

  it.each<[string, BatchEvent, unknown]>([
    ['PUT_OK accepts', { type: 'PUT_OK' }, { kind: 'accept' }],
    [
      'per-record with none rejected accepts',
      { type: 'PUT_PER_RECORD', rejectedIndexes: [] },
      { kind: 'accept' },
    ],
    [
      'per-record with some rejected is partial (offsets deduplicated)',
      { type: 'PUT_PER_RECORD', rejectedIndexes: [7, 5, 7] },
      { kind: 'partial', rejectedIndexes: [7, 5] },
    ],
    [
      'per-record with every record rejected rejects',
      { type: 'PUT_PER_RECORD', rejectedIndexes: [1, 2, 3] },
      { kind: 'reject', reason: 'all-records-rejected' },
    ],
    ['PUT_FATAL rejects', { type: 'PUT_FATAL' }, { kind: 'reject', reason: 'fatal' }],
    ['ABORTED releases', { type: 'ABORTED' }, { kind: 'release', reason: 'aborted' }],
  ])('%s (share)', (_, event, disposition) => {
    const [s, fx] = step(putting(), event);
    expect(batchStateName(s)).toBe('acknowledging');
    expect(dispositionOf(s)).toEqual(disposition);
    expect(fx).toEqual([ack(disposition)]);
  });

  it.each<[BatchEvent, string]>([
    [{ type: 'PUT_TIMEOUT' }, 'put-timeout'],
    [{ type: 'RENEW_UNAVAILABLE' }, 'renew-unavailable'],
    [{ type: 'SHUTDOWN' }, 'shutdown'],
  ])('%j aborts the put, then releases', (event, reason) => {
    const [s, fx] = step(putting(), event);
    expect(batchStateName(s)).toBe('acknowledging');
    expect(fx).toEqual([abort(reason), ack({ kind: 'release', reason })]);
  });

  it('LOCK_EXPIRED aborts the put, records the expiry and acknowledges nothing', () => {
    const [s, fx] = step(putting(), { type: 'LOCK_EXPIRED' });
    expect(s.value).toBe('expired');
    expect(dispositionOf(s)).toEqual({ kind: 'expired' });
    expect(fx).toEqual([
      abort('lock-expired'),
      { type: 'recordExpiry', params: { batchId: 'b-1', recordCount: 3, deliveryCount: 1, duringPut: true } },
    ]);
  });

  it('renews while the put runs, and the put result still lands while a renew is pending', () => {
    let [s, fx] = step(putting(), { type: 'LOCK_RENEW_DUE' });
    expect(batchStateName(s)).toBe('putting/renewing');
    expect(fx).toEqual([{ type: 'sendRenew', params: { batchId: 'b-1', renewCount: 1 } }]);
    [s, fx] = step(s, { type: 'LOCK_RENEW_DUE' });
    expect(fx).toEqual([]);
    [s] = step(s, { type: 'RENEWED', until: 50_000 });
    expect(batchStateName(s)).toBe('putting');
    [s, fx] = step(s, { type: 'LOCK_RENEW_DUE' });
    expect(fx).toEqual([{ type: 'sendRenew', params: { batchId: 'b-1', renewCount: 2 } }]);
    [s, fx] = step(s, { type: 'PUT_OK' });
    expect(fx).toEqual([ack({ kind: 'accept' })]);
    expect(s.context.renewCount).toBe(2);
  });

  it('classic: a retriable error retries the same batch in place', () => {
    let [s, fx] = step(putting('classic'), { type: 'PUT_RETRIABLE' });
    expect(batchStateName(s)).toBe('retrying');
    expect(fx).toEqual([{ type: 'scheduleRetry', params: { batchId: 'b-1', attempt: 1 } }]);
    [s, fx] = step(s, { type: 'RETRY' });
    expect(batchStateName(s)).toBe('putting');
    expect(fx).toEqual([{ type: 'startPut', params: { batchId: 'b-1', attempt: 2 } }]);
  });

  it('classic: a put timeout aborts the put and retries', () => {
    const [s, fx] = step(putting('classic'), { type: 'PUT_TIMEOUT' });
    expect(batchStateName(s)).toBe('retrying');
    expect(fx).toEqual([
      abort('put-timeout'),
      { type: 'scheduleRetry', params: { batchId: 'b-1', attempt: 1 } },
    ]);
  });

  it.each(['RENEW_UNAVAILABLE', 'LOCK_EXPIRED', 'LOCK_RENEW_DUE'] as const)('classic: ignores %s', (type) => {
    const [s, fx] = step(putting('classic'), { type } as BatchEvent);
    expect(batchStateName(s)).toBe('putting');
    expect(fx).toEqual([]);
  });
});

describe('batch machine: retrying (classic)', () => {
  const retrying = () => run([{ type: 'DISPATCH' }, { type: 'PUT_RETRIABLE' }], { mode: 'classic' })[0];

  it('RETRIES_EXHAUSTED rejects', () => {
    const [s, fx] = step(retrying(), { type: 'RETRIES_EXHAUSTED' });
    expect(fx).toEqual([ack({ kind: 'reject', reason: 'retries-exhausted' })]);
    expect(batchStateName(s)).toBe('acknowledging');
  });

  it('SHUTDOWN releases', () => {
    expect(step(retrying(), { type: 'SHUTDOWN' })[1]).toEqual([ack({ kind: 'release', reason: 'shutdown' })]);
  });

  it('a late put result is ignored', () => {
    const [s, fx] = step(retrying(), { type: 'PUT_OK' });
    expect(batchStateName(s)).toBe('retrying');
    expect(fx).toEqual([]);
  });
});

describe('batch machine: retrying (share)', () => {
  const retrying = () => run([{ type: 'DISPATCH' }, { type: 'PUT_RETRIABLE' }])[0];

  it('PUT_RETRIABLE waits in retrying with the owner asked to schedule the retry, the locks still held', () => {
    const [s, fx] = step(run([{ type: 'DISPATCH' }])[0], { type: 'PUT_RETRIABLE' });
    expect(batchStateName(s)).toBe('retrying');
    expect(fx).toEqual([{ type: 'scheduleRetry', params: { batchId: 'b-1', attempt: 1 } }]);
  });

  it('RETRY puts again: a second attempt', () => {
    const [s, fx] = step(retrying(), { type: 'RETRY' });
    expect(batchStateName(s)).toBe('putting');
    expect(fx).toEqual([{ type: 'startPut', params: { batchId: 'b-1', attempt: 2 } }]);
  });

  it('RETRIES_EXHAUSTED releases: the broker redelivers, nothing is rejected', () => {
    const [, fx] = step(retrying(), { type: 'RETRIES_EXHAUSTED' });
    expect(fx).toEqual([ack({ kind: 'release', reason: 'retriable' })]);
  });

  it('a lock that cannot be renewed while waiting releases early; one that ran out expires', () => {
    expect(step(retrying(), { type: 'RENEW_UNAVAILABLE' })[1]).toEqual([
      ack({ kind: 'release', reason: 'renew-unavailable' }),
    ]);
    expect(step(retrying(), { type: 'LOCK_EXPIRED' })[0].value).toBe('expired');
  });

  it('renews its locks while it waits', () => {
    const [s, fx] = step(retrying(), { type: 'LOCK_RENEW_DUE' });
    expect(batchStateName(s)).toBe('retrying/renewing');
    expect(fx.map((f) => f.type)).toEqual(['sendRenew']);
  });
});

describe('batch machine: acknowledging and final states', () => {
  const acking = () => run([{ type: 'DISPATCH' }, { type: 'PUT_OK' }])[0];

  it('ACKED finishes with the disposition as output', () => {
    const [s, fx] = step(acking(), { type: 'ACKED' });
    expect(s.value).toBe('done');
    expect(fx).toEqual([]);
    expect(s.output).toEqual({
      batchId: 'b-1',
      disposition: { kind: 'accept' },
      acked: true,
      ackError: undefined,
    });
  });

  it('ACK_FAILED (lock already expired) is recorded and final', () => {
    const [s, fx] = step(acking(), { type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' });
    expect(s.value).toBe('ackFailed');
    expect(fx).toEqual([
      {
        type: 'recordAckFailure',
        params: { batchId: 'b-1', errorCode: 'INVALID_RECORD_STATE', disposition: { kind: 'accept' } },
      },
    ]);
    expect(s.output).toMatchObject({ acked: false, ackError: 'INVALID_RECORD_STATE' });
  });

  it.each(ALL_EVENTS.filter((e) => e.type !== 'ACKED' && e.type !== 'ACK_FAILED'))(
    'ignores %j while the ack is in flight',
    (event) => {
      const [s, fx] = step(acking(), event);
      expect(batchStateName(s)).toBe('acknowledging');
      expect(dispositionOf(s)).toEqual({ kind: 'accept' });
      expect(fx).toEqual([]);
    },
  );

  it.each(ALL_EVENTS)('final states ignore %j', (event) => {
    for (const events of [
      [{ type: 'DISPATCH' }, { type: 'PUT_OK' }, { type: 'ACKED' }],
      [{ type: 'DISPATCH' }, { type: 'PUT_OK' }, { type: 'ACK_FAILED', errorCode: 'X' }],
      [{ type: 'LOCK_EXPIRED' }],
    ] satisfies BatchEvent[][]) {
      const [before] = run(events);
      const [after, fx] = step(before, event);
      expect(after.value).toEqual(before.value);
      expect(fx).toEqual([]);
    }
  });
});

describe('createBatchMachine', () => {
  it('routes every effect to the owner with plain params', () => {
    const log: Effect[] = [];
    const actor = createActor(createBatchMachine(recordingEffects(log)), {
      input: { batchId: 'b-9', recordCount: 2, mode: 'share', acquiredAt: 0, lockDeadline: 100 },
    });
    actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
    actor.start();
    for (const e of [
      { type: 'LOCK_RENEW_DUE' },
      { type: 'DISPATCH' },
      { type: 'RENEWED', until: 200 },
      { type: 'PUT_PER_RECORD', rejectedIndexes: [4] },
      { type: 'ACK_FAILED', errorCode: 'INVALID_RECORD_STATE' },
    ] satisfies BatchEvent[]) {
      actor.send(e);
    }
    expect(log.map((e) => e.type)).toEqual(['sendRenew', 'startPut', 'sendAcks', 'recordAckFailure']);
    expect(actor.getSnapshot().output).toMatchObject({
      disposition: { kind: 'partial', rejectedIndexes: [4] },
    });
  });
});

describe('batchWork and batchLease', () => {
  it('agree with snapshot.matches() in every state three events can reach, in both modes', () => {
    let checked = 0;
    for (const mode of ['share', 'classic'] as const)
      for (const a of ALL_EVENTS)
        for (const b of ALL_EVENTS)
          for (const c of ALL_EVENTS) {
            const [s] = run([a, b, c], { mode });
            for (const work of ['acquired', 'putting', 'retrying'])
              expect(batchWork(s) === work).toBe(s.matches({ active: { work } } as never));
            for (const lease of ['held', 'renewing'])
              expect(batchLease(s) === lease).toBe(s.matches({ active: { lease } } as never));
            expect(batchWork(s) !== undefined).toBe(s.matches('active'));
            checked++;
          }
    expect(checked).toBe(2 * ALL_EVENTS.length ** 3);
    // 8,192 machine runs take ~2 s alone on 2 cores, past the 5 s default when the machine is busy
  }, 30_000);
});
