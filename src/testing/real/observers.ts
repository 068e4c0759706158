/**
 * Observers: what a sink holds after a run, as text the kit finds record ids in. The kit knows the
 * built-in sinks (one module each under observers/); any other sink gives a module exporting
 * `observe(run)`.
 *
 * ```ts
 * // my-observer.ts: every row of the run's collection, as JSON
 * export async function observe(run) {
 *   const rows = await db.collection(run.connector.collection).find().toArray();
 *   return rows.map((r) => JSON.stringify(r));
 * }
 * ```
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILTIN_CONNECTORS, resolveConnectorModule } from '../../connect/connector-module.js';
import { KitUsageError } from '../usage.js';
import { fileObserver } from './observers/file.js';
import { jdbcObserver } from './observers/jdbc.js';
import { kafkaObserver } from './observers/kafka.js';
import { postgresObserver } from './observers/postgres.js';
import type { SinkObserver } from './observers/types.js';

export { countIds, type ObservedRun, type SinkObserver } from './observers/types.js';

const BUILTIN = new Map<string, SinkObserver>([
  [resolveConnectorModule('file'), fileObserver],
  [resolveConnectorModule('postgres'), postgresObserver],
  [resolveConnectorModule('jdbc'), jdbcObserver],
  [resolveConnectorModule('kafka'), kafkaObserver],
]);
const HTTP = resolveConnectorModule('http');

/** True for HttpSink (and its aliases): observed through the kit's recorder, `--record-http`. */
export function isHttpSink(connectorClass: string): boolean {
  return resolveConnectorModule(connectorClass) === HTTP;
}

/** The built-in observer for a connector.class, or undefined when there is none. */
export function builtinObserver(connectorClass: string): SinkObserver | undefined {
  return BUILTIN.get(resolveConnectorModule(connectorClass));
}

/** Loads `observe` from a module path (relative to cwd) or package name. */
export async function loadObserver(specifier: string, cwd: string = process.cwd()): Promise<SinkObserver> {
  const url =
    specifier.startsWith('.') || path.isAbsolute(specifier)
      ? pathToFileURL(path.resolve(cwd, specifier)).href
      : specifier;
  const ns = (await import(url)) as { observe?: unknown; default?: { observe?: unknown } };
  const observe = ns.observe ?? ns.default?.observe;
  if (typeof observe !== 'function')
    throw new KitUsageError(
      `sharesink check: the observer module ${specifier} must export a function observe(run)`,
    );
  return observe as SinkObserver;
}

/** The observer to use: given, else built-in, else a usage error naming the choices. */
export function observerFor(connectorClass: string, given: SinkObserver | undefined): SinkObserver {
  if (given !== undefined) return given;
  const builtin = builtinObserver(connectorClass);
  if (builtin !== undefined) return builtin;
  if (isHttpSink(connectorClass))
    throw new KitUsageError(
      'sharesink check: the kit cannot ask your HTTP server what it received: add --record-http ' +
        "(the kit's own recording server stands in for it) or give --observer <module> that asks your server",
    );
  const known = Object.keys(BUILTIN_CONNECTORS).filter((k) => builtinObserver(k) !== undefined);
  throw new KitUsageError(
    `sharesink check: no built-in observer for connector.class ${connectorClass} (built-in: ${known.join(', ')}); ` +
      'give one with --observer <module> (a module exporting observe(run), see docs/testing-kit.md)',
  );
}
