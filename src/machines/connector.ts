/**
 * Connector lifecycle, as Connect's REST status reports it. The owner (`ConnectorRuntime`) does the
 * work in the effects and answers with an event once it is done: `startConnector` → STARTED /
 * START_FAILED, `restartConnector` → STARTED / START_FAILED, `stopConnector` → STOPPED,
 * `haltConnector` → HALTED.
 *
 * There are no automatic restarts, as in Connect: a connector that fails to start stays `failed` until
 * an operator RESTART (REST) starts it afresh. (An automatic restart policy with backoff was once
 * drawn here but never applied; ADR 0008 says why it was removed.)
 *
 * Two ways to stop, kept apart on purpose: STOP is the worker shutting down and ends in the final
 * `stopped`; HALT is an operator's `PUT /connectors/{name}/stop` (Connect's STOPPED, KIP-875) and ends
 * in `halted`, from which RESUME or PAUSE start the connector again.
 */
import { assign, setup, type SnapshotFrom } from 'xstate';

export interface ConnectorInput {
  name: string;
}

export interface ConnectorContext {
  name: string;
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
  /**
   * Operator restart (REST `POST /connectors/{name}/restart`): a running connector's instance is
   * stopped and started again (its tasks go on); a failed one starts afresh.
   */
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
  /** Start the connector instance and its tasks (what a failed start left is torn down first). */
  startConnector(p: { name: string }): void;
  /** Stop and start the connector instance again; its tasks keep running. */
  restartConnector(p: { name: string }): void;
  /** Stop / resume fetching in the tasks that exist; tasks created later follow `context.paused`. */
  pauseConnector(p: { name: string }): void;
  resumeConnector(p: { name: string }): void;
  /** Stop the tasks, the pool and the instance for the worker's shutdown; the owner answers STOPPED. */
  stopConnector(p: { name: string }): void;
  /** Stop the tasks and the connector instance for an operator stop; the owner answers HALTED. */
  haltConnector(p: { name: string }): void;
  reportFailure(p: { name: string; error: string }): void;
}

type Name = { name: string };
const named = ({ context }: { context: ConnectorContext }): Name => ({ name: context.name });

/** PAUSE / RESUME where tasks may exist but the connector is not `up`: the target, and the tasks now. */
const pauseTasks = { actions: ['targetPaused', { type: 'pauseConnector', params: named }] } as const;
const resumeTasks = { actions: ['targetRunning', { type: 'resumeConnector', params: named }] } as const;
/** STARTED comes up paused when the operator asked for it meanwhile. */
const cameUp = [
  { guard: 'startPaused', target: '#connector.up.paused' },
  { target: '#connector.up' },
] as const;
/** `starting` and `restarting` answer alike: the instance is (re)starting while tasks may exist. */
const whileStarting = {
  STARTED: cameUp,
  START_FAILED: { target: 'failed', actions: 'keepError' },
  PAUSE: pauseTasks,
  RESUME: resumeTasks,
  STOP: 'stopping',
  HALT: 'halting',
} as const;

export const connectorMachine = setup({
  types: {
    context: {} as ConnectorContext,
    events: {} as ConnectorEvent,
    input: {} as ConnectorInput,
  },
  guards: {
    startPaused: ({ context }) => context.paused,
  },
  actions: {
    startConnector: (_, _p: Name) => {},
    restartConnector: (_, _p: Name) => {},
    pauseConnector: (_, _p: Name) => {},
    resumeConnector: (_, _p: Name) => {},
    stopConnector: (_, _p: Name) => {},
    haltConnector: (_, _p: Name) => {},
    reportFailure: (_, _p: Name & { error: string }) => {},
    keepError: assign({ error: ({ event }) => ('error' in event ? event.error : undefined) }),
    forgetFailure: assign({ error: undefined }),
    targetPaused: assign({ paused: true }),
    targetRunning: assign({ paused: false }),
  },
}).createMachine({
  id: 'connector',
  context: ({ input }) => ({ name: input.name, error: undefined, paused: false }),
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
      on: whileStarting,
    },
    // Tasks run while the connector is up (and while its instance restarts).
    up: {
      initial: 'running',
      on: {
        RESTART: 'restarting',
        STOP: 'stopping',
        HALT: 'halting',
      },
      states: {
        running: {
          on: {
            PAUSE: { target: 'paused', ...pauseTasks },
          },
        },
        paused: {
          on: {
            RESUME: { target: 'running', ...resumeTasks },
          },
        },
      },
    },
    // Connect's RESTARTING: the instance stops and starts again; a second RESTART joins this one.
    restarting: {
      entry: { type: 'restartConnector', params: named },
      on: whileStarting,
    },
    failed: {
      entry: {
        type: 'reportFailure',
        params: ({ context }) => ({ name: context.name, error: context.error ?? 'unknown error' }),
      },
      on: {
        // a fresh start: what the failed start left (tasks, pool) is torn down first
        RESTART: { target: 'starting', actions: 'forgetFailure' },
        // tasks of a failed instance restart may still run
        PAUSE: pauseTasks,
        RESUME: resumeTasks,
        // what is left of the failed start (tasks, pool) is torn down either way
        STOP: 'stopping',
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
        RESUME: { target: 'starting', actions: ['forgetFailure', 'targetRunning'] },
        PAUSE: { target: 'starting', actions: ['forgetFailure', 'targetPaused'] },
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
      restartConnector: (_, p) => effects.restartConnector(p),
      pauseConnector: (_, p) => effects.pauseConnector(p),
      resumeConnector: (_, p) => effects.resumeConnector(p),
      stopConnector: (_, p) => effects.stopConnector(p),
      haltConnector: (_, p) => effects.haltConnector(p),
      reportFailure: (_, p) => effects.reportFailure(p),
    },
  });
}
