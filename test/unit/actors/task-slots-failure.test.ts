/**
 * A task's failure keeps its SharesinkError code on its way out of the task slots. The slots threw a
 * plain Error when every task failed to start, so `Worker.start()` answered
 * `SHARESINK_CONNECTOR_START_FAILED` with an untyped cause for, say, a missing topic
 * (`SHARESINK_UNKNOWN_TOPIC`), and the REST status's trace held the message without the code.
 */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CountersLedger } from '../../../src/actors/connector/counters-ledger.js';
import { TaskSlots } from '../../../src/actors/connector/task-slots.js';
import type { TaskRunner } from '../../../src/actors/connector/types.js';
import { TaskFailedError } from '../../../src/actors/errors/task-failed.js';
import { isSharesinkError } from '../../../src/errors.js';
import { UnknownTopicError } from '../../../src/kafka/share/share-errors.js';
import { offlineWorker } from '../../fixtures/offline-worker.js';

const flush = () => new Promise<void>((r) => setTimeout(r, 0));

/** Task slots of connector `c` whose runners start as `start` says; the failures they reported. */
function slotsWith(start: (id: number) => Promise<void>) {
  const failed: Array<[number, string]> = [];
  const causes: Array<Error | undefined> = [];
  const failures: Array<(e: Error) => void> = [];
  const slots = new TaskSlots({
    connector: 'c',
    logger: pino({ level: 'silent' }),
    inspect: undefined,
    ledger: new CountersLedger(),
    paused: () => false,
    onTaskFailed: (id, error, cause) => {
      failed.push([id, error]);
      causes.push(cause);
    },
  });
  const factory = (id: number, _props: Record<string, string>, onFailure: (e: Error) => void) => {
    failures[id] = onFailure;
    const runner: TaskRunner = {
      start: () => start(id),
      stop: async () => undefined,
      inFlight: 0,
      counters: { snapshot: () => ({}) as never },
    };
    return { runner, consumer: undefined };
  };
  const startAll = (tasks: number) =>
    slots.start(
      factory,
      {} as never,
      Array.from({ length: tasks }, () => ({})),
    );
  return { slots, failed, causes, failures, startAll };
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => expect.fail('it started'),
    (e: unknown) => e as Error,
  );
}

describe('TaskSlots: the failure of a task keeps its code', () => {
  it('every task failing to start with a SharesinkError: the start fails with its code, the error as cause', async () => {
    const missing = new UnknownTopicError(['orders'], { readBy: 'connector c', mode: 'classic' });
    const { slots, failed, startAll } = slotsWith(() => Promise.reject(missing));
    const err = await rejection(startAll(2));

    expect(isSharesinkError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'SHARESINK_UNKNOWN_TOPIC' });
    expect(err.cause).toBe(missing);
    // the message as before: the worker and the CLI show it
    expect(err.message).toBe(`c: every task failed to start: ${missing.message}`);
    expect(slots.states()).toEqual([
      { id: 0, state: 'FAILED', trace: `SHARESINK_UNKNOWN_TOPIC: ${missing.message}` },
      { id: 1, state: 'FAILED', trace: `SHARESINK_UNKNOWN_TOPIC: ${missing.message}` },
    ]);
    // what the worker lists of its failed tasks stays the message
    expect(failed).toEqual([
      [0, missing.message],
      [1, missing.message],
    ]);
    await slots.stopAll();
  });

  it('every task failing to start with an error of its own: SHARESINK_CONNECTOR_START_FAILED, the error as cause', async () => {
    const own = new Error('the sink refused the password');
    const { slots, startAll } = slotsWith(() => Promise.reject(own));
    const err = await rejection(startAll(1));

    expect(err).toMatchObject({ code: 'SHARESINK_CONNECTOR_START_FAILED' });
    expect(err.cause).toBe(own);
    expect(err.message).toBe('c: every task failed to start: the sink refused the password');
    expect(slots.states()).toEqual([{ id: 0, state: 'FAILED', trace: 'the sink refused the password' }]);
    await slots.stopAll();
  });

  it('a running task that fails: its trace carries the code', async () => {
    const { slots, failed, causes, failures, startAll } = slotsWith(() => Promise.resolve());
    await startAll(2);
    const why = new TaskFailedError('a poison record (errors.tolerance=none; the batch was rejected)');
    failures[1]!(why);
    await flush();

    expect(slots.states()).toEqual([
      { id: 0, state: 'RUNNING', trace: undefined },
      { id: 1, state: 'FAILED', trace: `SHARESINK_TASK_FAILED: ${why.message}` },
    ]);
    expect(failed).toEqual([[1, why.message]]);
    expect(causes).toEqual([why]);
    await slots.stopAll();
  });
});

describe('ConnectorRuntime: a connector that fails to start with a SharesinkError', () => {
  it('rejects the start with its code and shows the code in its trace', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/typed-failing-connector.ts', import.meta.url));
    const w = offlineWorker('typed', fixture);
    const err = await rejection(w.start());
    expect(err).toMatchObject({ code: 'SHARESINK_CONNECT_ERROR', message: 'the sink has no table "orders"' });
    const c = w.connector('typed')!;
    expect(c.state).toBe('FAILED');
    expect(c.error).toBe('SHARESINK_CONNECT_ERROR: the sink has no table "orders"');
    await w.stop();
  });
});
