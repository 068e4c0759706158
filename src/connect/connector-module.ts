import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SharesinkError } from '../errors.js';
import type { SinkConnector } from './sink-connector.js';
import type { SinkTask } from './sink-task.js';

/**
 * What a connector module exports as its default export:
 *
 * ```ts
 * export default { connector: MySinkConnector, task: MySinkTask } satisfies ConnectorModule;
 * ```
 *
 * The main thread instantiates `connector`; every pool thread imports the same module and
 * instantiates `task`, so the module must be importable without side effects beyond definitions.
 */
export interface ConnectorModule {
  readonly connector: new () => SinkConnector;
  readonly task: new () => SinkTask;
}

// Sources run under tsx in tests and as .js once built; siblings have the same extension as this file.
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const builtin = (path: string): string => new URL(`../sinks/${path}${EXT}`, import.meta.url).href;

/** Built-in connectors by every name a Connect user might write in `connector.class`. */
export const BUILTIN_CONNECTORS: Readonly<Record<string, string>> = Object.freeze({
  'org.apache.kafka.connect.file.FileStreamSinkConnector': builtin('file/index'),
  FileStreamSinkConnector: builtin('file/index'),
  FileStreamSink: builtin('file/index'),
  file: builtin('file/index'),
  NoopSinkConnector: builtin('noop/index'),
  NoopSink: builtin('noop/index'),
  noop: builtin('noop/index'),
  PostgresSinkConnector: builtin('postgres/index'),
  PostgresSink: builtin('postgres/index'),
  postgres: builtin('postgres/index'),
  'io.confluent.connect.jdbc.JdbcSinkConnector': builtin('jdbc/index'),
  'io.aiven.connect.jdbc.JdbcSinkConnector': builtin('jdbc/index'),
  JdbcSinkConnector: builtin('jdbc/index'),
  JdbcSink: builtin('jdbc/index'),
  jdbc: builtin('jdbc/index'),
  KafkaSinkConnector: builtin('kafka/index'),
  KafkaSink: builtin('kafka/index'),
  kafka: builtin('kafka/index'),
  HttpSinkConnector: builtin('http/index'),
  HttpSink: builtin('http/index'),
  http: builtin('http/index'),
});

/**
 * Turns `connector.class` into something `import()` accepts in any thread: a built-in alias becomes
 * its module URL, a path becomes a file URL (relative to `cwd`), a package name stays as it is.
 */
export function resolveConnectorModule(connectorClass: string, cwd: string = process.cwd()): string {
  const name = connectorClass.trim();
  const known = BUILTIN_CONNECTORS[name];
  if (known !== undefined) return known;
  if (name.startsWith('file:')) return name;
  if (isAbsolute(name) || name.startsWith('./') || name.startsWith('../'))
    return pathToFileURL(resolve(cwd, name)).href;
  return name;
}

/** Imports a connector module and checks its shape; throws SHARESINK_CONNECTOR_MODULE_INVALID otherwise. */
export async function loadConnectorModule(
  specifier: string,
  importModule: (specifier: string) => Promise<unknown> = (s) => import(s),
): Promise<ConnectorModule> {
  let ns: { default?: unknown };
  try {
    ns = (await importModule(specifier)) as { default?: unknown };
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new SharesinkError(
      'SHARESINK_CONNECTOR_MODULE_INVALID',
      `Cannot import connector module ${specifier}: ${reason}`,
      { cause },
    );
  }
  return asConnectorModule(ns.default, specifier);
}

export function asConnectorModule(value: unknown, specifier: string): ConnectorModule {
  const candidate = value as Partial<Record<'connector' | 'task', unknown>> | undefined;
  if (typeof candidate?.connector !== 'function' || typeof candidate.task !== 'function') {
    throw new SharesinkError(
      'SHARESINK_CONNECTOR_MODULE_INVALID',
      `Connector module ${specifier} must have a default export { connector: SinkConnector class, task: SinkTask class }`,
    );
  }
  const missing = [
    ...missingMethods(candidate.connector, 'connector', CONNECTOR_METHODS),
    ...missingMethods(candidate.task, 'task', TASK_METHODS),
  ];
  if (missing.length > 0) {
    throw new SharesinkError(
      'SHARESINK_CONNECTOR_MODULE_INVALID',
      `Connector module ${specifier} lacks ${missing.join(', ')}: its connector class must implement ` +
        `${CONNECTOR_METHODS.join('(), ')}() (extend SinkConnector) and its task class ` +
        `${TASK_METHODS.join('(), ')}() (extend SinkTask)`,
    );
  }
  return candidate as ConnectorModule;
}

// The abstract methods of SinkConnector and SinkTask: TypeScript checks them, a JavaScript module is
// only found out when the method is first called, as "this.config is not a function".
const CONNECTOR_METHODS = ['version', 'config', 'start', 'taskConfigs', 'stop'] as const;
const TASK_METHODS = ['version', 'start', 'put', 'stop'] as const;

/** Per class, the methods an instance of it has (a class is instantiated for this once at most). */
const ON_INSTANCE = new WeakMap<object, ReadonlySet<string>>();

function missingMethods(cls: unknown, role: string, methods: readonly string[]): string[] {
  const proto = (cls as { prototype?: Record<string, unknown> }).prototype;
  let missing = methods.filter((m) => typeof proto?.[m] !== 'function');
  // methods written as instance fields (`put = async (records) => …`) show only on an instance: made
  // once per class (every load checks), and a constructor that throws leaves the prototype's answer
  if (missing.length > 0 && typeof cls === 'function') {
    let found = ON_INSTANCE.get(cls);
    if (found === undefined) {
      try {
        const instance = new (cls as new () => Record<string, unknown>)();
        found = new Set(methods.filter((m) => typeof instance[m] === 'function'));
      } catch {
        found = new Set();
      }
      ON_INSTANCE.set(cls, found);
    }
    missing = missing.filter((m) => !found.has(m));
  }
  return missing.map((m) => `${role}.${m}()`);
}
