/**
 * Connector lifecycle and its restart policy. The policy is data in the context and plain functions,
 * so a restart schedule can be checked without a clock: the owner waits `delayMs` of the
 * `scheduleRestart` / `scheduleTaskRestart` effects and then sends BACKOFF_ELAPSED / (a new task).
 *
 * Two ways to stop, kept apart on purpose: STOP is the worker shutting down and ends in the final
 * `stopped`; HALT is an operator's `PUT /connectors/{name}/stop` (Connect's STOPPED, KIP-875) and ends
 * in `halted`, from which RESUME or PAUSE start the connector again.
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
  /**
   * The operator asked for PAUSED (Connect's target state): a connector that starts, or starts again,
   * comes up paused. Kept apart from the state because a pause can arrive before the connector is up.
   */
  paused: boolean;
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
  /** Worker shutdown: ends in the final `stopped`. */
  | { type: 'STOP' }
  | { type: 'STOPPED' }
  /** Operator stop (REST `PUT /connectors/{name}/stop`): tasks go away, the connector stays registered. */
  | { type: 'HALT' }
  | { type: 'HALTED' };

export interface ConnectorEffects {
  startConnector(p: { name: string }): void;
  pauseConnector(p: { name: string }): void;
  resumeConnector(p: { name: string }): void;
  stopConnector(p: { name: string }): void;
  /** Stop the tasks and the connector instance for an operator stop; the owner answers HALTED. */
  haltConnector(p: { name: string }): void;
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
    startPaused: ({ context }) => context.paused,
  },
  actions: {
    startConnector: (_, _p: Name) => {},
    pauseConnector: (_, _p: Name) => {},
    resumeConnector: (_, _p: Name) => {},
    stopConnector: (_, _p: Name) => {},
    haltConnector: (_, _p: Name) => {},
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
    targetPaused: assign({ paused: true }),
    targetRunning: assign({ paused: false }),
  },
}).createMachine({
  id: 'connector',
  context: ({ input }) => ({
    name: input.name,
    policy: { ...DEFAULT_RESTART_POLICY, ...input.policy },
    restarts: 0,
    taskRestarts: {},
    error: undefined,
    paused: false,
  }),
  initial: 'created',
  states: {
    created: {
      on: {
        START: 'starting',
        STOP: 'stopped',
        // nothing runs yet, so there is nothing to stop: the worker's START is then ignored
        HALT: 'halted',
        PAUSE: { actions: 'targetPaused' },
        RESUME: { actions: 'targetRunning' },
      },
    },
    starting: {
      entry: { type: 'startConnector', params: named },
      on: {
        STARTED: [{ guard: 'startPaused', target: 'up.paused' }, { target: 'up' }],
        START_FAILED: [
          { guard: 'mayRestart', target: 'restarting', actions: 'keepError' },
          { target: 'failed', actions: 'keepError' },
        ],
        PAUSE: { actions: 'targetPaused' },
        RESUME: { actions: 'targetRunning' },
        STOP: 'stopping',
        HALT: 'halting',
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
        HALT: 'halting',
      },
      states: {
        running: {
          on: {
            STABLE: { actions: 'forgetFailures' },
            FAILED: [
              { guard: 'mayRestart', target: '#connector.restarting', actions: 'keepError' },
              { target: '#connector.failed', actions: 'keepError' },
            ],
            PAUSE: {
              target: 'paused',
              actions: ['targetPaused', { type: 'pauseConnector', params: named }],
            },
          },
        },
        paused: {
          on: {
            RESUME: {
              target: 'running',
              actions: ['targetRunning', { type: 'resumeConnector', params: named }],
            },
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
      on: { BACKOFF_ELAPSED: 'starting', STOP: 'stopped', HALT: 'halting' },
    },
    failed: {
      entry: {
        type: 'reportFailure',
        params: ({ context }) => ({ name: context.name, error: context.error ?? 'unknown error' }),
      },
      on: {
        RESTART: { target: 'starting', actions: 'forgetFailures' },
        STOP: 'stopped',
        // what is left of the failed start (tasks, pool) is torn down too
        HALT: 'halting',
      },
    },
    stopping: {
      entry: { type: 'stopConnector', params: named },
      on: { STOPPED: 'stopped' },
    },
    halting: {
      entry: { type: 'haltConnector', params: named },
      // a shutdown overtaking the halt still ends in `stopped`: the owner answers STOPPED once done
      on: { HALTED: 'halted', STOP: 'stopping' },
    },
    // Connect's STOPPED: no tasks, no instance, config kept. RESTART and HALT change nothing here, as in
    // Connect, where a restart keeps the target state STOPPED.
    halted: {
      on: {
        RESUME: { target: 'starting', actions: ['forgetFailures', 'targetRunning'] },
        PAUSE: { target: 'starting', actions: ['forgetFailures', 'targetPaused'] },
        STOP: 'stopped',
      },
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
      haltConnector: (_, p) => effects.haltConnector(p),
      scheduleRestart: (_, p) => effects.scheduleRestart(p),
      scheduleTaskRestart: (_, p) => effects.scheduleTaskRestart(p),
      taskGaveUp: (_, p) => effects.taskGaveUp(p),
      reportFailure: (_, p) => effects.reportFailure(p),
    },
  });
}
