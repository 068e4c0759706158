import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { createTestModel } from 'xstate/graph';
import {
  connectorMachine,
  createConnectorMachine,
  restartDelayMs,
  DEFAULT_RESTART_POLICY,
  type ConnectorEffects,
  type ConnectorEvent,
  type ConnectorInput,
  type ConnectorSnapshot,
} from '../../../src/machines/connector.js';
import { stateValueName } from '../../../src/observability/transition-counter.js';

const POLICY = { maxRestarts: 2, initialBackoffMs: 100, maxBackoffMs: 250 };

function run(
  events: ConnectorEvent[],
  input: ConnectorInput = { name: 'c', policy: POLICY },
): [ConnectorSnapshot, { type: string; params: unknown }[]] {
  let [s] = initialTransition(connectorMachine, input);
  const effects: { type: string; params: unknown }[] = [];
  for (const e of events) {
    const [next, actions] = transition(connectorMachine, s, e);
    s = next;
    effects.push(...actions.map((a) => ({ type: a.type, params: a.params })));
  }
  return [s, effects];
}

const up: ConnectorEvent[] = [{ type: 'START' }, { type: 'STARTED' }];
const fail: ConnectorEvent = { type: 'FAILED', error: 'boom' };
const elapsed: ConnectorEvent = { type: 'BACKOFF_ELAPSED' };

describe('restartDelayMs', () => {
  it('doubles from the initial backoff and caps at the maximum', () => {
    expect([0, 1, 2, 3].map((n) => restartDelayMs(POLICY, n))).toEqual([100, 200, 250, 250]);
    expect(restartDelayMs(DEFAULT_RESTART_POLICY, 1_000)).toBe(DEFAULT_RESTART_POLICY.maxBackoffMs);
  });
});

describe('connector machine', () => {
  it('starts, runs, pauses, resumes and stops', () => {
    const [s, fx] = run([
      ...up,
      { type: 'PAUSE' },
      { type: 'RESUME' },
      { type: 'STOP' },
      { type: 'STOPPED' },
    ]);
    expect(s.value).toBe('stopped');
    expect(fx.map((e) => e.type)).toEqual([
      'startConnector',
      'pauseConnector',
      'resumeConnector',
      'stopConnector',
    ]);
  });

  it('restarts with backoff until the budget is spent, then stays failed', () => {
    const [s, fx] = run([
      ...up,
      fail,
      elapsed,
      { type: 'STARTED' },
      fail,
      elapsed,
      { type: 'STARTED' },
      fail,
    ]);
    expect(s.value).toBe('failed');
    expect(s.context.error).toBe('boom');
    expect(fx.filter((e) => e.type === 'scheduleRestart').map((e) => e.params)).toEqual([
      { name: 'c', attempt: 1, delayMs: 100 },
      { name: 'c', attempt: 2, delayMs: 200 },
    ]);
    expect(fx.at(-1)).toEqual({ type: 'reportFailure', params: { name: 'c', error: 'boom' } });
  });

  it('a start failure uses the same budget', () => {
    const [s] = run([{ type: 'START' }, { type: 'START_FAILED', error: 'x' }]);
    expect(s.value).toBe('restarting');
    const [never] = run([{ type: 'START' }, { type: 'START_FAILED', error: 'x' }], {
      name: 'c',
      policy: { maxRestarts: 0 },
    });
    expect(never.value).toBe('failed');
  });

  it('STABLE forgets earlier failures; an operator RESTART starts afresh', () => {
    const [stable] = run([...up, fail, elapsed, { type: 'STARTED' }, { type: 'STABLE' }]);
    expect(stable.context.restarts).toBe(0);
    const [restarted, fx] = run([
      ...up,
      fail,
      elapsed,
      { type: 'STARTED' },
      fail,
      elapsed,
      { type: 'STARTED' },
      fail,
      {
        type: 'RESTART',
      },
    ]);
    expect(restarted.value).toBe('starting');
    expect(restarted.context).toMatchObject({ restarts: 0, error: undefined });
    expect(fx.at(-1)?.type).toBe('startConnector');
  });

  it('a failure while paused is not restarted automatically', () => {
    expect(run([...up, { type: 'PAUSE' }, fail])[0].value).toBe('failed');
  });

  it('budgets task restarts per task', () => {
    const tf = (taskId: number): ConnectorEvent => ({ type: 'TASK_FAILED', taskId, error: 'e' });
    const [s, fx] = run([...up, tf(0), tf(0), tf(1), tf(0)]);
    expect(s.value).toEqual({ up: 'running' });
    expect(fx.filter((e) => e.type !== 'startConnector')).toEqual([
      { type: 'scheduleTaskRestart', params: { name: 'c', taskId: 0, attempt: 1, delayMs: 100 } },
      { type: 'scheduleTaskRestart', params: { name: 'c', taskId: 0, attempt: 2, delayMs: 200 } },
      { type: 'scheduleTaskRestart', params: { name: 'c', taskId: 1, attempt: 1, delayMs: 100 } },
      { type: 'taskGaveUp', params: { name: 'c', taskId: 0, error: 'e' } },
    ]);
  });

  it('ignores task failures when the connector is not up', () => {
    const [s, fx] = run([{ type: 'START' }, { type: 'TASK_FAILED', taskId: 0, error: 'e' }]);
    expect(s.value).toBe('starting');
    expect(fx.map((e) => e.type)).toEqual(['startConnector']);
  });

  it('STOP during a restart backoff stops at once', () => {
    expect(run([...up, fail, { type: 'STOP' }])[0].value).toBe('stopped');
  });
});

describe('connector machine: operator stop (Connect STOPPED, KIP-875)', () => {
  const halt: ConnectorEvent[] = [{ type: 'HALT' }, { type: 'HALTED' }];

  it('HALT from running or paused asks the owner to halt, and HALTED lands in halted, which is not final', () => {
    for (const before of [up, [...up, { type: 'PAUSE' } as ConnectorEvent]]) {
      const [halting, fx] = run([...before, { type: 'HALT' }]);
      expect(halting.value).toBe('halting');
      expect(fx.at(-1)).toEqual({ type: 'haltConnector', params: { name: 'c' } });
      const [s] = run([...before, ...halt]);
      expect(s.value).toBe('halted');
      expect(s.status).toBe('active');
    }
  });

  it('HALT is distinct from the shutdown STOP: STOP from halted ends in the final stopped, no stop effect', () => {
    const [s, fx] = run([...up, ...halt, { type: 'STOP' }]);
    expect(s.value).toBe('stopped');
    expect(s.status).toBe('done');
    expect(fx.map((e) => e.type)).toEqual(['startConnector', 'haltConnector']);
  });

  it('a shutdown overtaking the halt goes through stopping, so the owner still answers STOPPED', () => {
    const [stopping, fx] = run([...up, { type: 'HALT' }, { type: 'STOP' }]);
    expect(stopping.value).toBe('stopping');
    expect(fx.at(-1)?.type).toBe('stopConnector');
    expect(run([...up, { type: 'HALT' }, { type: 'STOP' }, { type: 'HALTED' }])[0].value).toBe('stopping');
  });

  it('RESUME from halted starts afresh and comes up running', () => {
    const [starting, fx] = run([...up, ...halt, { type: 'RESUME' }]);
    expect(starting.value).toBe('starting');
    expect(fx.at(-1)).toEqual({ type: 'startConnector', params: { name: 'c' } });
    expect(run([...up, ...halt, { type: 'RESUME' }, { type: 'STARTED' }])[0].value).toEqual({
      up: 'running',
    });
  });

  it('PAUSE from halted starts it and comes up paused (tasks created paused); RESUME then runs it', () => {
    const [s, fx] = run([...up, ...halt, { type: 'PAUSE' }, { type: 'STARTED' }]);
    expect(s.value).toEqual({ up: 'paused' });
    expect(s.context.paused).toBe(true);
    // the owner starts the tasks paused from the context; there is no pause effect to replay
    expect(fx.map((e) => e.type)).toEqual(['startConnector', 'haltConnector', 'startConnector']);
    const [resumed] = run([...up, ...halt, { type: 'PAUSE' }, { type: 'STARTED' }, { type: 'RESUME' }]);
    expect(resumed.value).toEqual({ up: 'running' });
    expect(resumed.context.paused).toBe(false);
  });

  it('a paused connector that is stopped and resumed comes back running, not paused', () => {
    const [s] = run([...up, { type: 'PAUSE' }, ...halt, { type: 'RESUME' }, { type: 'STARTED' }]);
    expect(s.value).toEqual({ up: 'running' });
  });

  it('HALT and RESTART change nothing in halted (a restart keeps the target state, as in Connect)', () => {
    const [s, fx] = run([...up, ...halt, { type: 'HALT' }, { type: 'RESTART' }, { type: 'STARTED' }]);
    expect(s.value).toBe('halted');
    expect(fx.map((e) => e.type)).toEqual(['startConnector', 'haltConnector']);
  });

  it('a failed connector can be stopped; resuming it forgets the failure and the error', () => {
    const [halted] = run([...up, fail, ...halt], { name: 'c', policy: { maxRestarts: 0 } });
    expect(halted.value).toBe('halted');
    const [s] = run([...up, fail, ...halt, { type: 'RESUME' }], { name: 'c', policy: { maxRestarts: 0 } });
    expect(s.value).toBe('starting');
    expect(s.context).toMatchObject({ restarts: 0, error: undefined });
  });

  it('HALT before the worker starts goes straight to halted; the worker’s START is then ignored', () => {
    const [s, fx] = run([{ type: 'HALT' }, { type: 'START' }]);
    expect(s.value).toBe('halted');
    expect(fx).toEqual([]);
  });

  it('HALT while starting or in a restart backoff halts', () => {
    expect(run([{ type: 'START' }, { type: 'HALT' }])[0].value).toBe('halting');
    expect(run([...up, fail, { type: 'HALT' }])[0].value).toBe('halting');
    // a late BACKOFF_ELAPSED after the halt starts nothing
    expect(run([...up, fail, ...halt, elapsed])[0].value).toBe('halted');
  });

  it('a pause asked before the connector is up is kept: it comes up paused', () => {
    expect(run([{ type: 'PAUSE' }, ...up])[0].value).toEqual({ up: 'paused' });
    expect(run([{ type: 'START' }, { type: 'PAUSE' }, { type: 'STARTED' }])[0].value).toEqual({
      up: 'paused',
    });
    expect(run([{ type: 'PAUSE' }, { type: 'RESUME' }, ...up])[0].value).toEqual({ up: 'running' });
  });
});

describe('connector machine model', () => {
  const model = createTestModel(connectorMachine, {
    input: { name: 'c', policy: { maxRestarts: 1, initialBackoffMs: 10, maxBackoffMs: 10 } },
    events: [
      { type: 'START_FAILED', error: 'e' },
      { type: 'FAILED', error: 'e' },
      { type: 'TASK_FAILED', taskId: 0, error: 'e' },
    ],
  });
  const paths = model.getShortestPaths();

  it('reaches every state', () => {
    const reached = new Set(paths.flatMap((p) => p.steps.map((st) => stateValueName(st.state.value))));
    expect([...reached].sort()).toEqual(
      [
        'created',
        'starting',
        'up.running',
        'up.paused',
        'restarting',
        'failed',
        'stopping',
        'stopped',
        'halting',
        'halted',
      ].sort(),
    );
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_, path) => {
    const log: string[] = [];
    const effects = new Proxy({} as ConnectorEffects, {
      get: (_t, name) => () => log.push(String(name)),
    });
    const actor = createActor(createConnectorMachine(effects), {
      input: { name: 'c', policy: { maxRestarts: 1, initialBackoffMs: 10, maxBackoffMs: 10 } },
    });
    actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
    actor.start();
    const send = ({ event }: { event: { type: string } }) => actor.send(event as ConnectorEvent);
    const types: ConnectorEvent['type'][] = [
      'START',
      'STARTED',
      'START_FAILED',
      'FAILED',
      'TASK_FAILED',
      'STABLE',
      'BACKOFF_ELAPSED',
      'RESTART',
      'PAUSE',
      'RESUME',
      'STOP',
      'STOPPED',
      'HALT',
      'HALTED',
    ];
    await path.test({
      events: Object.fromEntries(types.map((t) => [t, send])),
      states: {
        '*': (state) => {
          const real = actor.getSnapshot();
          expect(real.value).toEqual(state.value);
          expect(real.context).toEqual(state.context);
          if (real.matches('restarting')) expect(log.at(-1)).toBe('scheduleRestart');
          if (real.matches('failed')) expect(log.at(-1)).toBe('reportFailure');
          if (real.matches('starting')) expect(log.at(-1)).toBe('startConnector');
          if (real.matches('halting')) expect(log.at(-1)).toBe('haltConnector');
          if (real.matches('halted')) expect(log).not.toContain('stopConnector');
        },
      },
    });
  });
});
