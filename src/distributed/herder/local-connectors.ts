/**
 * The connector runtimes this worker runs, one per connector it has tasks of, each started with the
 * task ids assigned here (`ConnectorRuntime`'s `taskIds`). A runtime whose tasks or config changed is
 * stopped and started again with the new ones; one no longer wanted is stopped. A config that does not
 * compile on this worker (a `${file:…}` it cannot read) fails its tasks here, with the reason as trace.
 */
import type { Logger } from 'pino';
import type { ConnectState, RestartOptions } from '../../actors/connector-runtime.js';
import { compileConnectorConfig } from '../../config/compile-connector.js';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import type { TargetState } from './config-records.js';

/** What the herder drives of a connector runtime (`ConnectorRuntime` has it; unit tests use fakes). */
export interface LocalRuntime {
  readonly config: ConnectorConfig;
  readonly state: ConnectState;
  readonly error: string | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  restart(options: RestartOptions): { connector: boolean; tasks: number[] };
  restartTask(id: number): Promise<void>;
  taskStates(): ReadonlyArray<{ id: number; state: ConnectState; trace: string | undefined }>;
  /** Moves to another set of task ids in place (only the moved tasks stop); false: not possible now. */
  setTaskIds?(ids: readonly number[]): Promise<boolean>;
  /** An active topic removed from the status topic: the next put of it reports it again (KIP-558). */
  forgetActiveTopic?(topic: string): void;
}

export type RuntimeFactory = (config: ConnectorConfig, taskIds: readonly number[]) => LocalRuntime;

export interface Wanted {
  readonly config: Readonly<Record<string, string>>;
  readonly version: number;
  readonly target: TargetState;
  readonly tasks: readonly number[];
}

interface Entry {
  readonly runtime: LocalRuntime | undefined;
  /** Why the config did not compile here (then no runtime). */
  readonly failure: string | undefined;
  readonly version: number;
  readonly tasks: readonly number[];
}

export interface LocalConnectorsOptions {
  readonly worker: WorkerConfig;
  readonly logger: Logger;
  readonly factory: RuntimeFactory;
}

export class LocalConnectors {
  readonly #o: LocalConnectorsOptions;
  readonly #log: Logger;
  readonly #entries = new Map<string, Entry>();
  #queue: Promise<void> = Promise.resolve();

  constructor(o: LocalConnectorsOptions) {
    this.#o = o;
    this.#log = o.logger.child({ component: 'herder' });
  }

  compile(config: Readonly<Record<string, string>>): ConnectorConfig {
    return compileConnectorConfig(config, this.#o.worker);
  }

  runtime(name: string): LocalRuntime | undefined {
    return this.#entries.get(name)?.runtime;
  }

  get runtimes(): LocalRuntime[] {
    return [...this.#entries.values()].flatMap((e) => (e.runtime === undefined ? [] : [e.runtime]));
  }

  /** The task ids this worker runs, by connector. */
  get tasks(): ReadonlyMap<string, readonly number[]> {
    return new Map([...this.#entries].map(([name, e]) => [name, e.tasks]));
  }

  reconcile(wanted: ReadonlyMap<string, Wanted>): Promise<void> {
    const step = this.#queue.then(() => this.#reconcile(wanted));
    this.#queue = step.catch((err: Error) => this.#log.error({ err }, 'reconcile failed'));
    return this.#queue;
  }

  stopAll(): Promise<void> {
    return this.reconcile(new Map());
  }

  async #reconcile(wanted: ReadonlyMap<string, Wanted>): Promise<void> {
    const stopping: Array<Promise<void>> = [];
    for (const [name, e] of [...this.#entries]) {
      const w = wanted.get(name);
      if (w !== undefined && w.version === e.version && sameIds(w.tasks, e.tasks)) continue;
      // the same config, other tasks: only the tasks that move stop (the runtime's others go on)
      if (w !== undefined && w.version === e.version && e.runtime?.setTaskIds !== undefined) {
        const moved = await e.runtime
          .setTaskIds(w.tasks)
          .catch((err: Error) => (this.#log.warn({ err, connector: name }, 'task move failed'), false));
        if (moved) {
          this.#log.info({ connector: name, from: e.tasks, to: w.tasks }, 'tasks moved in place');
          this.#entries.set(name, { ...e, tasks: w.tasks });
          continue;
        }
      }
      this.#entries.delete(name);
      if (e.runtime !== undefined) {
        this.#log.info({ connector: name, tasks: e.tasks }, 'stopping tasks moved away or reconfigured');
        stopping.push(
          e.runtime.stop().catch((err: Error) => this.#log.error({ err, connector: name }, 'stop failed')),
        );
      }
    }
    await Promise.all(stopping);
    for (const [name, w] of wanted) {
      const known = this.#entries.get(name);
      if (known !== undefined) {
        await this.#applyTarget(name, known, w.target);
        continue;
      }
      let config: ConnectorConfig;
      try {
        config = this.compile(w.config);
      } catch (err) {
        const failure = (err as Error).message;
        this.#log.error(
          { connector: name, err: failure },
          'connector config does not compile on this worker',
        );
        this.#entries.set(name, { runtime: undefined, failure, version: w.version, tasks: w.tasks });
        continue;
      }
      const runtime = this.#o.factory(config, w.tasks);
      const entry: Entry = { runtime, failure: undefined, version: w.version, tasks: w.tasks };
      this.#entries.set(name, entry);
      this.#log.info({ connector: name, tasks: w.tasks }, 'starting tasks assigned here');
      // a PAUSED connector's tasks come up paused, as Connect's: paused once started, they could
      // fetch and put records in between (after a rebalance, a config change or a worker restart)
      if (w.target === 'PAUSED') await runtime.pause();
      await runtime
        .start()
        .catch((err: Error) => this.#log.error({ err, connector: name }, 'connector failed to start'));
      await this.#applyTarget(name, entry, w.target);
    }
  }

  async #applyTarget(name: string, e: Entry, target: TargetState): Promise<void> {
    const r = e.runtime;
    if (r === undefined) return;
    if (target === 'PAUSED' && r.state === 'RUNNING') await r.pause();
    else if (target === 'STARTED' && r.state === 'PAUSED') await r.resume();
    else return;
    this.#log.info({ connector: name, target }, 'target state applied');
  }

  /** The connector's state as this worker reports it (it holds the connector in the assignment). */
  connectorState(name: string, target: TargetState): { state: string; trace: string | undefined } {
    if (target === 'STOPPED') return { state: 'STOPPED', trace: undefined };
    const e = this.#entries.get(name);
    if (e?.failure !== undefined) return { state: 'FAILED', trace: e.failure };
    const r = e?.runtime;
    if (r !== undefined) return { state: r.state, trace: r.state === 'FAILED' ? r.error : undefined };
    return { state: target === 'PAUSED' ? 'PAUSED' : 'RUNNING', trace: undefined };
  }

  taskStates(): Array<{
    name: string;
    tasks: Array<{ id: number; state: string; trace: string | undefined }>;
  }> {
    return [...this.#entries].map(([name, e]) => ({
      name,
      tasks:
        e.runtime === undefined
          ? e.tasks.map((id) => ({ id, state: 'FAILED', trace: e.failure }))
          : e.runtime.taskStates().map((t) => ({ id: t.id, state: t.state, trace: t.trace })),
    }));
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
