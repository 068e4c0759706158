/**
 * Lifecycle of one sink task (Connect's task states). Pure like the batch machine: the task runner
 * does the I/O (worker start, fetch pause, stop) and reports back with events.
 */
import { assign, setup, type SnapshotFrom } from 'xstate';

export interface TaskInput {
  connector: string;
  taskId: number;
}

export interface TaskContext {
  connector: string;
  taskId: number;
  /** The message of the error that failed the task; the REST status shows it as the trace. */
  error: string | undefined;
}

export type TaskEvent =
  | { type: 'ASSIGN' }
  | { type: 'STARTED' }
  | { type: 'START_FAILED'; error: string }
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'FAIL'; error: string }
  | { type: 'STOP' }
  | { type: 'STOPPED' }
  | { type: 'STOP_FAILED'; error: string };

export interface TaskOutput {
  connector: string;
  taskId: number;
  state: 'stopped' | 'failed';
  error: string | undefined;
}

type TaskRef = { connector: string; taskId: number };

export interface TaskEffects {
  startTask(p: TaskRef): void;
  /** Stop fetching (share: stop ShareFetch; classic: consumer.pause); in-flight batches finish. */
  pauseTask(p: TaskRef): void;
  resumeTask(p: TaskRef): void;
  stopTask(p: TaskRef): void;
  reportFailure(p: TaskRef & { error: string }): void;
}

const ref = ({ context }: { context: TaskContext }): TaskRef => ({
  connector: context.connector,
  taskId: context.taskId,
});

export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    events: {} as TaskEvent,
    input: {} as TaskInput,
    output: {} as TaskOutput,
  },
  actions: {
    startTask: (_, _p: TaskRef) => {},
    pauseTask: (_, _p: TaskRef) => {},
    resumeTask: (_, _p: TaskRef) => {},
    stopTask: (_, _p: TaskRef) => {},
    reportFailure: (_, _p: TaskRef & { error: string }) => {},
    keepError: assign({
      error: ({ event }) => ('error' in event ? event.error : undefined),
    }),
  },
}).createMachine({
  id: 'task',
  context: ({ input }) => ({ connector: input.connector, taskId: input.taskId, error: undefined }),
  initial: 'unassigned',
  states: {
    unassigned: {
      on: { ASSIGN: 'starting', STOP: 'stopped' },
    },
    starting: {
      entry: { type: 'startTask', params: ref },
      on: {
        STARTED: 'running',
        START_FAILED: 'failed',
        STOP: 'stopping',
      },
    },
    running: {
      on: {
        PAUSE: { target: 'paused', actions: { type: 'pauseTask', params: ref } },
        FAIL: 'failed',
        STOP: 'stopping',
      },
    },
    paused: {
      on: {
        RESUME: { target: 'running', actions: { type: 'resumeTask', params: ref } },
        FAIL: 'failed',
        STOP: 'stopping',
      },
    },
    stopping: {
      entry: { type: 'stopTask', params: ref },
      on: {
        STOPPED: 'stopped',
        STOP_FAILED: 'failed',
      },
    },
    stopped: { type: 'final' },
    failed: {
      type: 'final',
      entry: [
        'keepError',
        {
          type: 'reportFailure',
          params: ({ context }) => ({ ...ref({ context }), error: context.error ?? 'unknown error' }),
        },
      ],
    },
  },
  // Every way into `failed` carries an error and nothing else sets one, so the error tells the two apart.
  output: ({ context }) => ({
    connector: context.connector,
    taskId: context.taskId,
    state: context.error === undefined ? 'stopped' : 'failed',
    error: context.error,
  }),
});

export type TaskMachine = typeof taskMachine;
export type TaskSnapshot = SnapshotFrom<TaskMachine>;

export function createTaskMachine(effects: TaskEffects): TaskMachine {
  return taskMachine.provide({
    actions: {
      startTask: (_, p) => effects.startTask(p),
      pauseTask: (_, p) => effects.pauseTask(p),
      resumeTask: (_, p) => effects.resumeTask(p),
      stopTask: (_, p) => effects.stopTask(p),
      reportFailure: (_, p) => effects.reportFailure(p),
    },
  });
}
