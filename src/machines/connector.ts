/**
 * Connector lifecycle and its restart policy. The policy is data in the context and plain functions,
 * so a restart schedule can be checked without a clock: the owner waits `delayMs` of the
 * `scheduleRestart` / `scheduleTaskRestart` effects and then sends BACKOFF_ELAPSED / (a new task).
 */
import { assign, setup, type SnapshotFrom } from 'xstate';

export interface RestartPolicy {
  /** Automatic restarts allowed before the connector (or a task) stays FAILED; 0 = Connect's behaviour. */
  maxRestarts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  maxRestarts: 3,
  initialBackoffMs: 1_000,
  maxBackoffMs: 60_000,
};

/** Exponential backoff: the n-th restart (0-based) waits initial·2ⁿ, capped. */
export function restartDelayMs(policy: RestartPolicy, restartsSoFar: number): number {
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** Math.min(restartsSoFar, 30));
}

export interface ConnectorInput {
  name: string;
  policy?: Partial<RestartPolicy>;
}

export interface ConnectorContext {
  name: string;
  policy: RestartPolicy;
  restarts: number;
  taskRestarts: Record<string, number>;
  error: string | undefined;
}

export type ConnectorEvent =
  | { type: 'START' }
  | { type: 'STARTED' }
  | { type: 'START_FAILED'; error: string }
  | { type: 'FAILED'; error: string }
  | { type: 'TASK_FAILED'; taskId: number; error: string }
  /** The connector has run long enough to forget earlier failures. */
  | { type: 'STABLE' }
  | { type: 'BACKOFF_ELAPSED' }
  /** Operator restart (REST `POST /connectors/{name}/restart`): starts afresh with a new budget. */
  | { type: 'RESTART' }
  | { type: 'PAUSE' }
  | { type: 'RESUME' }
  | { type: 'STOP' }
  | { type: 'STOPPED' };

export interface ConnectorEffects {
  startConnector(p: { name: string }): void;
  pauseConnector(p: { name: string }): void;
  resumeConnector(p: { name: string }): void;
  stopConnector(p: { name: string }): void;
  scheduleRestart(p: { name: string; attempt: number; delayMs: number }): void;
  scheduleTaskRestart(p: { name: string; taskId: number; attempt: number; delayMs: number }): void;
  /** A task used up its restart budget and stays FAILED until an operator restarts it. */
  taskGaveUp(p: { name: string; taskId: number; error: string }): void;
  reportFailure(p: { name: string; error: string }): void;
}

type Name = { name: string };
const named = ({ context }: { context: ConnectorContext }): Name => ({ name: context.name });
const taskRestartsOf = (context: ConnectorContext, taskId: number) =>
  context.taskRestarts[String(taskId)] ?? 0;

export const connectorMachine = setup({
  types: {
    context: {} as ConnectorContext,
    events: {} as ConnectorEvent,
    input: {} as ConnectorInput,
  },
  guards: {
    mayRestart: ({ context }) => context.restarts < context.policy.maxRestarts,
    mayRestartTask: ({ context, event }) =>
      event.type === 'TASK_FAILED' && taskRestartsOf(context, event.taskId) < context.policy.maxRestarts,
  },
  actions: {
    startConnector: (_, _p: Name) => {},
    pauseConnector: (_, _p: Name) => {},
    resumeConnector: (_, _p: Name) => {},
    stopConnector: (_, _p: Name) => {},
    scheduleRestart: (_, _p: Name & { attempt: number; delayMs: number }) => {},
    scheduleTaskRestart: (_, _p: Name & { taskId: number; attempt: number; delayMs: number }) => {},
    taskGaveUp: (_, _p: Name & { taskId: number; error: string }) => {},
    reportFailure: (_, _p: Name & { error: string }) => {},
    keepError: assign({ error: ({ event }) => ('error' in event ? event.error : undefined) }),
    countRestart: assign({ restarts: ({ context }) => context.restarts + 1 }),
    countTaskRestart: assign({
      taskRestarts: ({ context, event }) =>
        event.type === 'TASK_FAILED'
          ? { ...context.taskRestarts, [event.taskId]: taskRestartsOf(context, event.taskId) + 1 }
          : context.taskRestarts,
    }),
    forgetFailures: assign({ restarts: 0, taskRestarts: {}, error: undefined }),
  },
}).createMachine({
  id: 'connector',
  context: ({ input }) => ({
    name: input.name,
    policy: { ...DEFAULT_RESTART_POLICY, ...input.policy },
    restarts: 0,
    taskRestarts: {},
    error: undefined,
  }),
  initial: 'created',
  states: {
    created: {
      on: { START: 'starting', STOP: 'stopped' },
    },
    starting: {
      entry: { type: 'startConnector', params: named },
      on: {
        STARTED: 'up',
        START_FAILED: [
          { guard: 'mayRestart', target: 'restarting', actions: 'keepError' },
          { target: 'failed', actions: 'keepError' },
        ],
        STOP: 'stopping',
      },
    },
    // Tasks exist only while the connector is up; their failures are budgeted here.
    up: {
      initial: 'running',
      on: {
        TASK_FAILED: [
          {
            guard: 'mayRestartTask',
            actions: [
              {
                type: 'scheduleTaskRestart',
                params: ({ context, event }) => {
                  const attempt = taskRestartsOf(context, event.taskId);
                  return {
                    name: context.name,
                    taskId: event.taskId,
                    attempt: attempt + 1,
                    delayMs: restartDelayMs(context.policy, attempt),
                  };
                },
              },
              'countTaskRestart',
            ],
          },
          {
            actions: {
              type: 'taskGaveUp',
              params: ({ context, event }) => ({
                name: context.name,
                taskId: event.taskId,
                error: event.error,
              }),
            },
          },
        ],
        STOP: 'stopping',
      },
      states: {
        running: {
          on: {
            STABLE: { actions: 'forgetFailures' },
            FAILED: [
              { guard: 'mayRestart', target: '#connector.restarting', actions: 'keepError' },
              { target: '#connector.failed', actions: 'keepError' },
            ],
            PAUSE: { target: 'paused', actions: { type: 'pauseConnector', params: named } },
          },
        },
        paused: {
          on: {
            RESUME: { target: 'running', actions: { type: 'resumeConnector', params: named } },
            FAILED: { target: '#connector.failed', actions: 'keepError' },
          },
        },
      },
    },
    restarting: {
      entry: [
        {
          type: 'scheduleRestart',
          params: ({ context }) => ({
            name: context.name,
            attempt: context.restarts + 1,
            delayMs: restartDelayMs(context.policy, context.restarts),
          }),
        },
        'countRestart',
      ],
      on: { BACKOFF_ELAPSED: 'starting', STOP: 'stopped' },
    },
    failed: {
      entry: {
        type: 'reportFailure',
        params: ({ context }) => ({ name: context.name, error: context.error ?? 'unknown error' }),
      },
      on: {
        RESTART: { target: 'starting', actions: 'forgetFailures' },
        STOP: 'stopped',
      },
    },
    stopping: {
      entry: { type: 'stopConnector', params: named },
      on: { STOPPED: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});

export type ConnectorMachine = typeof connectorMachine;
export type ConnectorSnapshot = SnapshotFrom<ConnectorMachine>;

export function createConnectorMachine(effects: ConnectorEffects): ConnectorMachine {
  return connectorMachine.provide({
    actions: {
      startConnector: (_, p) => effects.startConnector(p),
      pauseConnector: (_, p) => effects.pauseConnector(p),
      resumeConnector: (_, p) => effects.resumeConnector(p),
      stopConnector: (_, p) => effects.stopConnector(p),
      scheduleRestart: (_, p) => effects.scheduleRestart(p),
      scheduleTaskRestart: (_, p) => effects.scheduleTaskRestart(p),
      taskGaveUp: (_, p) => effects.taskGaveUp(p),
      reportFailure: (_, p) => effects.reportFailure(p),
    },
  });
}
