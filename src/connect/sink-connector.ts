import type { ConfigDef } from './config-def.js';

/** What the runtime offers a connector (Connect's ConnectorContext). */
export interface SinkConnectorContext {
  /** Ask for `taskConfigs()` to be called again, e.g. when the downstream system changed shape. */
  requestTaskReconfiguration(): void;
  /** Fail the connector from a background activity. */
  raiseError(error: Error): void;
}

type Awaitable<T> = T | Promise<T>;

/** A line a connector asks the runtime to log once at start: `warn` for what may surprise, else a notice. */
export interface ConnectorNote {
  readonly level: 'warn' | 'notice';
  readonly message: string;
}

/**
 * The configuration side of a sink connector: declares its settings, validates them and splits the
 * work into task configurations. It runs on the main thread; its tasks run in the pool's threads.
 */
export abstract class SinkConnector {
  protected context!: SinkConnectorContext;

  initialize(context: SinkConnectorContext): void {
    this.context = context;
  }

  abstract version(): string;
  /** The connector's settings; sharesink validates connector configs against it before `start()`. */
  abstract config(): ConfigDef<Record<string, unknown>>;
  abstract start(props: Readonly<Record<string, string>>): Awaitable<void>;
  /** At most `maxTasks` property maps, one per task. */
  abstract taskConfigs(maxTasks: number): Awaitable<Record<string, string>[]>;
  abstract stop(): Awaitable<void>;

  /**
   * Lines for the operator, said once at start (not in Connect): settings the connector reads and does
   * not use, each with why, and what it does differently in share mode. Called on the main thread
   * with settings that passed `validate()`.
   */
  notes?(
    props: Readonly<Record<string, string>>,
    context: { readonly share: boolean },
  ): readonly ConnectorNote[];

  /**
   * True when each task's puts should all run on one pool thread's instance of it, one after another,
   * as a Connect task runs (not in Connect: it has one thread per task anyway). By default (false) a
   * task's puts spread over the pool's threads, each thread with its own instance, so a CPU-bound put
   * gets a core of its own and an I/O-bound one another instance to wait in. A sink whose instance
   * writes through a connection of its own into a database that does the work (the JDBC sink,
   * PostgresSink) gains nothing from a second instance but a second connection, a second copy of its
   * code to warm up and a second thread to wake per put: it says true, and `tasks.max` is what adds
   * connections, as in Connect. Called on the main thread with settings that passed `validate()`.
   */
  oneThreadPerTask?(props: Readonly<Record<string, string>>): boolean;

  /** Problems per key, empty when valid; override to add cross-key checks. */
  validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    return this.config().validate(props);
  }
}
