// The pieces ConnectorRuntime is built from, without a broker: the job queue its slow effects run on,
// the counters ledger that outlives restarts, and the REST controls over the real connector machine.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { CountersLedger, sumCounters } from '../../../src/actors/connector/counters-ledger.js';
import { LifecycleJobs } from '../../../src/actors/connector/lifecycle-jobs.js';
import { OperatorControls } from '../../../src/actors/connector/operator-controls.js';
import { TaskSlots } from '../../../src/actors/connector/task-slots.js';
import type { TaskCountersSnapshot } from '../../../src/actors/task/core/task-counters.js';
import { createConnectorMachine, type ConnectorEvent } from '../../../src/machines/connector.js';

const flush = () => new Promise<void>((r) => setTimeout(r, 0));

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('LifecycleJobs', () => {
  it('runs jobs one after another; shutdown waits for operator jobs, not for the worker’s first start alone', async () => {
    const jobs = new LifecycleJobs();
    const order: string[] = [];
    const start = deferred();
    const first = jobs.run(() => start.promise.then(() => void order.push('start')), { byOperator: false });
    let idle = false;
    void jobs.operatorIdle().then(() => (idle = true));
    await flush();
    expect(idle).toBe(true);

    const halt = jobs.run(async () => void order.push('halt'), { byOperator: true });
    let haltIdle = false;
    void jobs.operatorIdle().then(() => (haltIdle = true));
    await flush();
    // the halt waits for the start under way, and shutdown for the halt
    expect(order).toEqual([]);
    expect(haltIdle).toBe(false);
    start.resolve();
    await Promise.all([first, halt]);
    await flush();
    expect(order).toEqual(['start', 'halt']);
    expect(haltIdle).toBe(true);
  });

  it('a failing job rejects its own answer; the jobs after it still run', async () => {
    const jobs = new LifecycleJobs();
    const failing = jobs.run(() => Promise.reject(new Error('boom')), { byOperator: true });
    const next = jobs.run(async () => undefined, { byOperator: true });
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBeUndefined();
    await expect(jobs.idle()).resolves.toBeUndefined();
  });
});

describe('CountersLedger', () => {
  const counters = (n: number, max: number): TaskCountersSnapshot =>
    ({ recordsAccepted: n, putMsMax: max, lagLast: n }) as unknown as TaskCountersSnapshot;

  it('adds the counts of every retired instance of a task to the current one (Max: largest, Last: latest)', () => {
    const ledger = new CountersLedger();
    ledger.retireTask(0, counters(10, 50), undefined);
    ledger.retireTask(0, counters(5, 80), undefined);
    expect(ledger.taskCounters(0, counters(1, 20))).toEqual({
      recordsAccepted: 16,
      putMsMax: 80,
      lagLast: 1,
    });
    // another task's counts are its own
    expect(ledger.taskCounters(1, counters(2, 3))).toEqual(counters(2, 3));
  });

  it('counts tasks that are gone (an operator stop) until they are back', () => {
    const ledger = new CountersLedger();
    ledger.retireTask(0, counters(10, 1), undefined);
    ledger.retireTask(1, counters(7, 1), undefined);
    expect(ledger.goneTasks(() => false).map((c) => c.recordsAccepted)).toEqual([10, 7]);
    expect(ledger.goneTasks((id) => id === 0).map((c) => c.recordsAccepted)).toEqual([7]);
  });

  it('keeps the lock counters of closed supervisors', () => {
    const ledger = new CountersLedger();
    expect(ledger.lockCounters(undefined)).toBeUndefined();
    ledger.retireLocks({ batchesWatched: 3 });
    expect(ledger.lockCounters(undefined)).toEqual({ batchesWatched: 3 });
    expect(ledger.lockCounters({ batchesWatched: 2 })).toEqual({ batchesWatched: 5 });
  });

  it('sumCounters adds plain counters', () => {
    expect(sumCounters([{ a: 1 }, { a: 2 }])).toEqual({ a: 3 });
  });
});

/** The real connector machine, with effects that run as jobs the test finishes by hand. */
function controlled() {
  const jobs = new LifecycleJobs();
  const effects: string[] = [];
  const gates: Array<() => void> = [];
  let started: Promise<void> | undefined;
  const logger = pino({ level: 'silent' });
  // each slow effect waits for the test, then answers as the runtime would
  const slow = (name: string, answer: ConnectorEvent) => () => {
    effects.push(name);
    const gate = deferred();
    gates.push(gate.resolve);
    started = jobs.run(() => gate.promise.then(() => actor.send(answer)), { byOperator: true });
  };
  const actor = createActor(
    createConnectorMachine({
      startConnector: slow('startConnector', { type: 'STARTED' }),
      restartConnector: slow('restartConnector', { type: 'STARTED' }),
      haltConnector: slow('haltConnector', { type: 'HALTED' }),
      stopConnector: slow('stopConnector', { type: 'STOPPED' }),
      pauseConnector: () => effects.push('pauseConnector'),
      resumeConnector: () => effects.push('resumeConnector'),
      reportFailure: () => effects.push('reportFailure'),
    }),
    { input: { name: 'c' } },
  );
  actor.start();
  const slots = new TaskSlots({
    connector: 'c',
    logger,
    inspect: undefined,
    ledger: new CountersLedger(),
    paused: () => actor.getSnapshot().context.paused,
    onTaskFailed: () => undefined,
  });
  const act = (event: ConnectorEvent) => {
    started = undefined;
    actor.send(event);
    return started;
  };
  const controls = new OperatorControls({
    name: 'c',
    log: logger,
    slots,
    jobs,
    connectState: () => (actor.getSnapshot().matches('failed') ? 'FAILED' : 'RUNNING'),
    snapshot: () => actor.getSnapshot(),
    act,
  });
  /** Lets every job waiting so far finish. */
  const finish = async () => {
    while (gates.length > 0) {
      gates.shift()!();
      await flush();
    }
  };
  return { actor, controls, effects, act, finish };
}

describe('OperatorControls over the connector machine', () => {
  it('pause of a STOPPED connector starts it paused and answers once it is up', async () => {
    const { actor, controls, act, finish } = controlled();
    void act({ type: 'START' });
    await finish();
    void controls.halt();
    await finish();
    expect(actor.getSnapshot().value).toBe('halted');
    let answered = false;
    const pause = controls.pause().then(() => (answered = true));
    await flush();
    expect(actor.getSnapshot().value).toBe('starting');
    expect(answered).toBe(false);
    await finish();
    await pause;
    expect(actor.getSnapshot().value).toEqual({ up: 'paused' });
  });

  it('a resume that arrives while the stop is under way starts the connector once the stop is done', async () => {
    const { actor, controls, effects, act, finish } = controlled();
    void act({ type: 'START' });
    await finish();
    const halt = controls.halt();
    const resume = controls.resume();
    await flush();
    expect(actor.getSnapshot().value).toBe('halting');
    await finish();
    await Promise.all([halt, resume]);
    expect(actor.getSnapshot().value).toEqual({ up: 'running' });
    expect(effects.filter((e) => e === 'startConnector')).toHaveLength(2);
  });

  it('two stops at once halt once, and both answer once the connector is STOPPED', async () => {
    const { actor, controls, effects, act, finish } = controlled();
    void act({ type: 'START' });
    await finish();
    const both = Promise.all([controls.halt(), controls.halt()]);
    await finish();
    await both;
    expect(actor.getSnapshot().value).toBe('halted');
    expect(effects.filter((e) => e === 'haltConnector')).toHaveLength(1);
  });

  it('restart: the instance of a running connector, nothing while STOPPED, only a failed one with onlyFailed', async () => {
    const { actor, controls, effects, act, finish } = controlled();
    void act({ type: 'START' });
    await finish();
    expect(controls.restart({ onlyFailed: true })).toEqual({ connector: false, tasks: [] });
    expect(controls.restart()).toEqual({ connector: true, tasks: [] });
    expect(actor.getSnapshot().value).toBe('restarting');
    expect(effects.at(-1)).toBe('restartConnector');
    await finish();
    expect(actor.getSnapshot().value).toEqual({ up: 'running' });
    void controls.halt();
    await finish();
    expect(controls.restart({ includeTasks: true })).toEqual({ connector: false, tasks: [] });
    expect(actor.getSnapshot().value).toBe('halted');
  });

  it('restartTask of a task that does not exist is refused', async () => {
    const { controls } = controlled();
    await expect(controls.restartTask(3)).rejects.toThrow(RangeError);
  });
});
