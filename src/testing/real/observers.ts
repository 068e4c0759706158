/**
 * Observers: what a sink holds after a run, as text the kit finds record ids in. The kit knows the
 * built-in file and PostgreSQL sinks; any other sink gives a module exporting `observe(run)`.
 *
 * ```ts
 * // my-observer.ts: every row of the run's collection, as JSON
 * export async function observe(run) {
 *   const rows = await db.collection(run.connector.collection).find().toArray();
 *   return rows.map((r) => JSON.stringify(r));
 * }
 * ```
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILTIN_CONNECTORS, resolveConnectorModule } from '../../connect/connector-module.js';
import { KitUsageError } from '../usage.js';
import { POSTGRES_SINK_CONFIG, poolConfig } from '../../sinks/postgres/config.js';

/** What an observer is told about the run it reads. */
export interface ObservedRun {
  /** 1-based run number (shrinking re-runs count too). */
  readonly index: number;
  /** The run's topic (fresh for each run). */
  readonly topic: string;
  readonly groupId: string;
  /** The connector's properties as the run used them (topics, group, and your own settings). */
  readonly connector: Readonly<Record<string, string>>;
  /** Every record id of this run starts with this; ids are found in what observe() returns. */
  readonly idPrefix: string;
}

/**
 * Reads the sink after a run (once the worker stopped). Returns what the sink holds as text: lines,
 * rows as JSON, request bodies; the kit counts the run's record ids in it, so one record written
 * twice must appear twice.
 */
export type SinkObserver = (
  run: ObservedRun,
) => Promise<Iterable<string> | string> | Iterable<string> | string;

const FILE = resolveConnectorModule('file');
const POSTGRES = resolveConnectorModule('postgres');

function fileObserver(run: ObservedRun): string {
  const file = run.connector['file'];
  if (file === undefined || file === '')
    throw new KitUsageError(
      'sharesink check: a FileStreamSink checked must write to a file (set file=…), not stdout',
    );
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

async function postgresObserver(run: ObservedRun): Promise<string[]> {
  const cfg = POSTGRES_SINK_CONFIG.parse(run.connector);
  const table = cfg['table'].replaceAll('${topic}', run.topic);
  const schema = cfg['table.schema'];
  const quote = (id: string) => `"${id.replace(/"/g, '""')}"`;
  const name = schema === null ? quote(table) : `${quote(schema)}.${quote(table)}`;
  // loaded on first use: `sharesink/testing` does not load pg for a sink that is not PostgreSQL
  const { default: pg } = await import('pg');
  const client = new pg.Client(poolConfig(cfg));
  await client.connect();
  try {
    const res = await client.query<{ r: string }>(`SELECT row_to_json(t)::text AS r FROM ${name} t`);
    return res.rows.map((row) => row.r);
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return []; // no table: nothing was written
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The built-in observer for a connector.class, or undefined when there is none. */
export function builtinObserver(connectorClass: string): SinkObserver | undefined {
  const resolved = resolveConnectorModule(connectorClass);
  if (resolved === FILE) return fileObserver;
  if (resolved === POSTGRES) return postgresObserver;
  return undefined;
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
  const known = Object.keys(BUILTIN_CONNECTORS).filter((k) => builtinObserver(k) !== undefined);
  throw new KitUsageError(
    `sharesink check: no built-in observer for connector.class ${connectorClass} (built-in: ${known.join(', ')}); ` +
      'give one with --observer <module> (a module exporting observe(run), see docs/testing-kit.md)',
  );
}

/** Counts each id of `ids` in the texts. */
export function countIds(texts: Iterable<string> | string, idPrefix: string): Map<string, number> {
  const counts = new Map<string, number>();
  const escaped = idPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`${escaped}\\d+(?!\\d)`, 'g');
  for (const text of typeof texts === 'string' ? [texts] : texts)
    for (const m of text.matchAll(re)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return counts;
}
