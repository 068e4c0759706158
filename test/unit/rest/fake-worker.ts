// A RestWorker without Kafka: two connectors whose state the tests set, recording the controls called.
import type { ConnectState, RestartOptions, TaskMetrics } from '../../../src/actors/connector-runtime.js';
import { zeroLockCounters } from '../../../src/actors/task/share/lock-counters.js';
import { TaskCounters, type TaskCountersSnapshot } from '../../../src/actors/task/core/task-counters.js';
import { compileWorkerConfig } from '../../../src/config/compile-worker.js';
import type { ActorLike, RestConnector, RestWorker } from '../../../src/rest/worker-view.js';

// from the class, so a counter added to TaskCounters needs no change here
export const ZERO_COUNTERS: TaskCountersSnapshot = new TaskCounters().snapshot();

const actor = (value: unknown): ActorLike => ({ getSnapshot: () => ({ value, status: 'active' }) });

export class FakeConnector implements RestConnector {
  readonly calls: string[] = [];
  state: ConnectState = 'RUNNING';
  error: string | undefined = undefined;
  tasks: Array<{ id: number; state: ConnectState; trace: string | undefined }>;
  counters: TaskCountersSnapshot = { ...ZERO_COUNTERS };
  readonly config;
  readonly poolThreads = 2;
  readonly lockCounters = { ...zeroLockCounters(), batchRenewalsGranted: 3, batchesReleasedEarly: 1 };

  constructor(name: string, tasks: number, mode: 'share' | 'classic' = 'share') {
    this.config = {
      name,
      connectorClass: 'FileStreamSink',
      topics: ['orders'],
      groupProtocol: mode,
      raw: { name, 'connector.class': 'FileStreamSink', topics: 'orders', 'tasks.max': String(tasks) },
    };
    this.tasks = Array.from({ length: tasks }, (_, id) => ({
      id,
      state: 'RUNNING' as ConnectState,
      trace: undefined,
    }));
  }

  get taskConfigs() {
    return this.tasks.map((t) => ({ ...this.config.raw, 'task.id': String(t.id) }));
  }

  get actors() {
    return {
      connector: actor(
        this.state === 'STOPPED' ? 'halted' : { up: this.state === 'PAUSED' ? 'paused' : 'running' },
      ),
      tasks: this.tasks.map((t) => actor(t.state === 'FAILED' ? 'failed' : 'running')),
    };
  }

  taskStates() {
    return this.tasks;
  }

  taskMetrics(): TaskMetrics[] {
    return this.tasks.map((t) => ({
      id: t.id,
      state: t.state,
      counters: this.counters,
      inFlight: 1,
      consumer:
        this.config.groupProtocol === 'share'
          ? {
              fetches: 5,
              recordsAcquired: 50,
              recordsAccepted: 40,
              recordsReleased: 5,
              recordsRejected: 5,
              recordsRenewed: 0,
              gapOffsets: 0,
              recordsAckFailed: 0,
              sessionResets: 0,
              fetchLatencyMsLast: 2,
              fetchLatencyMsMax: 9,
              fetchLatencyMsTotal: 20,
            }
          : undefined,
    }));
  }

  /** The tasks an operator stop took away, given back (in the new state) by resume / pause. */
  private stoppedTasks = 0;

  async pause(): Promise<void> {
    this.calls.push('pause');
    this.comeBack('PAUSED');
    this.state = 'PAUSED';
  }

  async resume(): Promise<void> {
    this.calls.push('resume');
    this.comeBack('RUNNING');
    this.state = 'RUNNING';
  }

  async halt(): Promise<void> {
    this.calls.push('halt');
    if (this.state === 'STOPPED') return;
    this.stoppedTasks = this.tasks.length;
    this.tasks = [];
    this.state = 'STOPPED';
  }

  private comeBack(state: ConnectState): void {
    if (this.state !== 'STOPPED') return;
    this.tasks = Array.from({ length: this.stoppedTasks }, (_, id) => ({ id, state, trace: undefined }));
  }

  restart(o: RestartOptions) {
    this.calls.push(`restart includeTasks=${o.includeTasks} onlyFailed=${o.onlyFailed}`);
    if (this.state === 'STOPPED') return { connector: false, tasks: [] };
    const tasks = o.includeTasks
      ? this.tasks.filter((t) => !o.onlyFailed || t.state === 'FAILED').map((t) => t.id)
      : [];
    return { connector: !o.onlyFailed || this.state === 'FAILED', tasks };
  }

  async restartTask(id: number): Promise<void> {
    this.calls.push(`restartTask ${id}`);
  }

  /** What the tasks have put records of (KIP-558), as the test sets it. */
  topicsSeen: string[] = [];

  activeTopics(): readonly string[] {
    return this.topicsSeen;
  }

  topicResets = 0;

  resetActiveTopics(): void {
    this.topicResets++;
    this.topicsSeen = [];
  }
}

export function fakeWorker(connectors: FakeConnector[]): RestWorker & { stopping: boolean } {
  const worker = {
    stopping: false,
    config: compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '1' }),
    connectors,
    connector: (name: string) => connectors.find((c) => c.config.name === name),
    // the runtime changes of a standalone worker (REST create, update, delete): the new connector
    // takes the config's name and tasks.max, in the place of the one it replaces
    addConnector: async (config: { name: string; raw: Readonly<Record<string, string>> }) => {
      connectors.push(new FakeConnector(config.name, Number(config.raw['tasks.max'] ?? '1')));
    },
    replaceConnector: async (config: { name: string; raw: Readonly<Record<string, string>> }) => {
      const i = connectors.findIndex((c) => c.config.name === config.name);
      connectors[i] = new FakeConnector(config.name, Number(config.raw['tasks.max'] ?? '1'));
    },
    removeConnector: async (name: string) => {
      connectors.splice(
        connectors.findIndex((c) => c.config.name === name),
        1,
      );
    },
    transitionCounter: {
      counts: () => [
        { machine: 'batch', from: 'acquired', to: 'putting', count: 7 },
        { machine: 'task', from: 'starting', to: 'running', count: 2 },
      ],
    },
    actorCensus: { counts: () => ({ batch: { putting: 2, 'putting/renewing': 1 } }) },
    get isStopping() {
      return worker.stopping;
    },
  };
  return worker;
}
