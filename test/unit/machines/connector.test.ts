import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { createTestModel } from 'xstate/graph';
import {
  connectorMachine,
  createConnectorMachine,
  type ConnectorEffects,
  type ConnectorEvent,
  type ConnectorInput,
  type ConnectorSnapshot,
} from '../../../src/machines/connector.js';
import { stateValueName } from '../../../src/observability/transition-counter.js';

function run(
  events: ConnectorEvent[],
  input: ConnectorInput = { name: 'c' },
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
/** A connector whose start failed: `failed`, no automatic restart (Connect's behaviour). */
const failedStart: ConnectorEvent[] = [{ type: 'START' }, { type: 'START_FAILED', error: 'boom' }];

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

  it('a failed start stays failed and is reported once; only an operator RESTART starts it again', () => {
    const [s, fx] = run(failedStart);
    expect(s.value).toBe('failed');
    expect(s.context.error).toBe('boom');
    expect(fx).toEqual([
      { type: 'startConnector', params: { name: 'c' } },
      { type: 'reportFailure', params: { name: 'c', error: 'boom' } },
    ]);
    const [restarted, rfx] = run([...failedStart, { type: 'RESTART' }]);
    expect(restarted.value).toBe('starting');
    expect(restarted.context.error).toBeUndefined();
    expect(rfx.at(-1)).toEqual({ type: 'startConnector', params: { name: 'c' } });
  });

  it('RESTART of a running connector restarts its instance and comes back as it was (running or paused)', () => {
    const [restarting, fx] = run([...up, { type: 'RESTART' }]);
    expect(restarting.value).toBe('restarting');
    expect(fx.at(-1)).toEqual({ type: 'restartConnector', params: { name: 'c' } });
    expect(run([...up, { type: 'RESTART' }, { type: 'STARTED' }])[0].value).toEqual({ up: 'running' });
    expect(run([...up, { type: 'PAUSE' }, { type: 'RESTART' }, { type: 'STARTED' }])[0].value).toEqual({
      up: 'paused',
    });
    // a second RESTART joins the first: no second restart effect
    const [, twice] = run([...up, { type: 'RESTART' }, { type: 'RESTART' }]);
    expect(twice.filter((e) => e.type === 'restartConnector')).toHaveLength(1);
  });

  it('an instance that fails to restart is FAILED with the error', () => {
    const [s, fx] = run([...up, { type: 'RESTART' }, { type: 'START_FAILED', error: 'again' }]);
    expect(s.value).toBe('failed');
    expect(fx.at(-1)).toEqual({ type: 'reportFailure', params: { name: 'c', error: 'again' } });
  });

  it('PAUSE / RESUME while tasks may exist but the connector is not up pause them now and set the target', () => {
    for (const before of [
      [{ type: 'START' }],
      [...up, { type: 'RESTART' }],
      failedStart,
    ] as ConnectorEvent[][]) {
      const [paused, fx] = run([...before, { type: 'PAUSE' }]);
      expect(paused.context.paused).toBe(true);
      expect(fx.at(-1)?.type).toBe('pauseConnector');
      const [resumed, rfx] = run([...before, { type: 'PAUSE' }, { type: 'RESUME' }]);
      expect(resumed.context.paused).toBe(false);
      expect(rfx.at(-1)?.type).toBe('resumeConnector');
    }
    // before the start nothing runs: only the target
    const [created, fx] = run([{ type: 'PAUSE' }]);
    expect(created.context.paused).toBe(true);
    expect(fx).toEqual([]);
  });

  it('STOP from a failed start goes through stopping, so what the start left is torn down', () => {
    const [s, fx] = run([...failedStart, { type: 'STOP' }]);
    expect(s.value).toBe('stopping');
    expect(fx.at(-1)?.type).toBe('stopConnector');
    expect(run([...failedStart, { type: 'STOP' }, { type: 'STOPPED' }])[0].status).toBe('done');
  });

  it('STOP before the start ends at once, with no stop effect', () => {
    const [s, fx] = run([{ type: 'STOP' }]);
    expect(s.value).toBe('stopped');
    expect(fx).toEqual([]);
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
    const [halted] = run([...failedStart, ...halt]);
    expect(halted.value).toBe('halted');
    const [s] = run([...failedStart, ...halt, { type: 'RESUME' }]);
    expect(s.value).toBe('starting');
    expect(s.context).toMatchObject({ error: undefined });
  });

  it('HALT before the worker starts goes straight to halted; the worker’s START is then ignored', () => {
    const [s, fx] = run([{ type: 'HALT' }, { type: 'START' }]);
    expect(s.value).toBe('halted');
    expect(fx).toEqual([]);
  });

  it('HALT while starting, restarting the instance or failed halts', () => {
    expect(run([{ type: 'START' }, { type: 'HALT' }])[0].value).toBe('halting');
    expect(run([...up, { type: 'RESTART' }, { type: 'HALT' }])[0].value).toBe('halting');
    expect(run([...failedStart, { type: 'HALT' }])[0].value).toBe('halting');
    // a late answer of the start or restart after the halt changes nothing
    expect(run([{ type: 'START' }, ...halt, { type: 'STARTED' }])[0].value).toBe('halted');
    expect(run([...up, { type: 'RESTART' }, ...halt, { type: 'START_FAILED', error: 'x' }])[0].value).toBe(
      'halted',
    );
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
    input: { name: 'c' },
    events: [{ type: 'START_FAILED', error: 'e' }],
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
      input: { name: 'c' },
    });
    actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
    actor.start();
    const send = ({ event }: { event: { type: string } }) => actor.send(event as ConnectorEvent);
    const types: ConnectorEvent['type'][] = [
      'START',
      'STARTED',
      'START_FAILED',
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
          // pausing and resuming tasks may come between a state's entry effect and now
          const lifecycle = log.filter((e) => e !== 'pauseConnector' && e !== 'resumeConnector');
          expect(real.value).toEqual(state.value);
          expect(real.context).toEqual(state.context);
          if (real.matches('restarting')) expect(lifecycle.at(-1)).toBe('restartConnector');
          if (real.matches('failed')) expect(lifecycle.at(-1)).toBe('reportFailure');
          if (real.matches('starting')) expect(lifecycle.at(-1)).toBe('startConnector');
          if (real.matches('halting')) expect(lifecycle.at(-1)).toBe('haltConnector');
          if (real.matches('halted')) expect(log).not.toContain('stopConnector');
        },
      },
    });
  });
});
