/**
 * The connector module a worker started by `checkConnector` runs in place of the author's (its
 * `connector.class` is this file): the author's connector as it is, and its task wrapped by the kit's
 * hook (hooked-task.ts). The author's module is loaded before the worker starts (see installCheckHooks)
 * on the main thread, and by each task in its own thread.
 */
import type { ConnectorModule } from '../../connect/connector-module.js';
import type { ConfigDef } from '../../connect/config-def.js';
import { SinkConnector, type SinkConnectorContext } from '../../connect/sink-connector.js';
import { HookedTask } from './hooked-task.js';

const INNER = Symbol.for('sharesink.check.innerConnector');

type WithInner = { [INNER]?: ConnectorModule };

/** Called by the worker process before the runtime starts (the main thread's copy of the module). */
export function setInnerConnector(module: ConnectorModule): void {
  (globalThis as WithInner)[INNER] = module;
}

function innerConnector(): SinkConnector {
  const module = (globalThis as WithInner)[INNER];
  if (module === undefined)
    throw new Error('sharesink check: the hooked connector was loaded outside a check worker');
  return new module.connector();
}

/** The author's connector, every call passed through. */
export class HookedConnector extends SinkConnector {
  readonly #inner = innerConnector();

  override initialize(context: SinkConnectorContext): void {
    super.initialize(context);
    this.#inner.initialize(context);
  }

  version(): string {
    return this.#inner.version();
  }

  override notes(props: Readonly<Record<string, string>>, context: { readonly share: boolean }) {
    return this.#inner.notes?.(props, context) ?? [];
  }

  config(): ConfigDef<Record<string, unknown>> {
    return this.#inner.config();
  }

  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    return this.#inner.validate(props);
  }

  start(props: Readonly<Record<string, string>>): void | Promise<void> {
    return this.#inner.start(props);
  }

  taskConfigs(maxTasks: number): Record<string, string>[] | Promise<Record<string, string>[]> {
    return this.#inner.taskConfigs(maxTasks);
  }

  stop(): void | Promise<void> {
    return this.#inner.stop();
  }
}

export default { connector: HookedConnector, task: HookedTask } satisfies ConnectorModule;
