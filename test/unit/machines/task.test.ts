import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { createTestModel } from 'xstate/graph';
import {
  createTaskMachine,
  taskMachine,
  type TaskEffects,
  type TaskEvent,
  type TaskSnapshot,
} from '../../../src/machines/task.js';

const INPUT = { connector: 'c', taskId: 0 };
const REF = { connector: 'c', taskId: 0 };

function run(events: TaskEvent[]): [TaskSnapshot, string[]] {
  let [s] = initialTransition(taskMachine, INPUT);
  const effects: string[] = [];
  for (const e of events) {
    const [next, actions] = transition(taskMachine, s, e);
    s = next;
    effects.push(...actions.map((a) => a.type));
  }
  return [s, effects];
}

describe('task machine', () => {
  it.each<[string, TaskEvent[], string, string[]]>([
    ['starts unassigned', [], 'unassigned', []],
    ['ASSIGN starts the task', [{ type: 'ASSIGN' }], 'starting', ['startTask']],
    ['STOP before assignment stops at once', [{ type: 'STOP' }], 'stopped', []],
    ['STARTED runs', [{ type: 'ASSIGN' }, { type: 'STARTED' }], 'running', ['startTask']],
    [
      'START_FAILED fails',
      [{ type: 'ASSIGN' }, { type: 'START_FAILED', error: 'boom' }],
      'failed',
      ['startTask', 'reportFailure'],
    ],
    [
      'STOP while starting stops',
      [{ type: 'ASSIGN' }, { type: 'STOP' }],
      'stopping',
      ['startTask', 'stopTask'],
    ],
    [
      'PAUSE pauses fetching',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'PAUSE' }],
      'paused',
      ['startTask', 'pauseTask'],
    ],
    [
      'RESUME resumes',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'PAUSE' }, { type: 'RESUME' }],
      'running',
      ['startTask', 'pauseTask', 'resumeTask'],
    ],
    [
      'FAIL while running fails',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'FAIL', error: 'x' }],
      'failed',
      ['startTask', 'reportFailure'],
    ],
    [
      'FAIL while paused fails',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'PAUSE' }, { type: 'FAIL', error: 'x' }],
      'failed',
      ['startTask', 'pauseTask', 'reportFailure'],
    ],
    [
      'STOP then STOPPED stops',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'STOP' }, { type: 'STOPPED' }],
      'stopped',
      ['startTask', 'stopTask'],
    ],
    [
      'STOP from paused',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'PAUSE' }, { type: 'STOP' }],
      'stopping',
      ['startTask', 'pauseTask', 'stopTask'],
    ],
    [
      'STOP_FAILED fails',
      [{ type: 'ASSIGN' }, { type: 'STARTED' }, { type: 'STOP' }, { type: 'STOP_FAILED', error: 'x' }],
      'failed',
      ['startTask', 'stopTask', 'reportFailure'],
    ],
    ['PAUSE is ignored while starting', [{ type: 'ASSIGN' }, { type: 'PAUSE' }], 'starting', ['startTask']],
  ])('%s', (_, events, state, effects) => {
    const [s, fx] = run(events);
    expect(s.value).toBe(state);
    expect(fx).toEqual(effects);
  });

  it('outputs how it ended', () => {
    expect(run([{ type: 'STOP' }])[0].output).toEqual({ ...REF, state: 'stopped', error: undefined });
    const [failed] = run([{ type: 'ASSIGN' }, { type: 'START_FAILED', error: 'no such class' }]);
    expect(failed.output).toEqual({ ...REF, state: 'failed', error: 'no such class' });
  });
});

describe('task machine model', () => {
  const model = createTestModel(taskMachine, {
    input: INPUT,
    events: [
      { type: 'START_FAILED', error: 'e' },
      { type: 'FAIL', error: 'e' },
      { type: 'STOP_FAILED', error: 'e' },
    ],
  });
  const paths = model.getShortestPaths();

  it('reaches every state', () => {
    const reached = new Set(paths.flatMap((p) => p.steps.map((st) => String(st.state.value))));
    expect([...reached].sort()).toEqual(
      ['failed', 'paused', 'running', 'starting', 'stopped', 'stopping', 'unassigned'].sort(),
    );
  });

  it.each(paths.map((p) => [p.description, p] as const))('%s', async (_, path) => {
    const log: { type: string; params: unknown }[] = [];
    const rec = (type: keyof TaskEffects) => (params: unknown) => log.push({ type, params });
    const effects = {
      startTask: rec('startTask'),
      pauseTask: rec('pauseTask'),
      resumeTask: rec('resumeTask'),
      stopTask: rec('stopTask'),
      reportFailure: rec('reportFailure'),
    } as TaskEffects;
    const actor = createActor(createTaskMachine(effects), { input: INPUT });
    actor.subscribe({ error: (e) => expect.unreachable(String(e)) });
    actor.start();
    const send = ({ event }: { event: { type: string } }) => actor.send(event as TaskEvent);
    const types: TaskEvent['type'][] = [
      'ASSIGN',
      'STARTED',
      'START_FAILED',
      'PAUSE',
      'RESUME',
      'FAIL',
      'STOP',
      'STOPPED',
      'STOP_FAILED',
    ];
    await path.test({
      events: Object.fromEntries(types.map((t) => [t, send])),
      states: {
        '*': (state) => {
          const real = actor.getSnapshot();
          expect(real.value).toEqual(state.value);
          const starts = log.filter((e) => e.type === 'startTask').length;
          expect(starts).toBe(real.matches('unassigned') || path.steps[1]?.event.type === 'STOP' ? 0 : 1);
          const failures = log.filter((e) => e.type === 'reportFailure');
          expect(failures).toHaveLength(real.matches('failed') ? 1 : 0);
          if (real.matches('stopping')) expect(log.at(-1)?.type).toBe('stopTask');
          if (real.matches('paused')) expect(log.at(-1)).toEqual({ type: 'pauseTask', params: REF });
        },
      },
    });
  });
});
