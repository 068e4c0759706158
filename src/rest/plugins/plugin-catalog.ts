/**
 * The plugins this worker has, as Connect's `/connector-plugins` lists them (KIP-769): the built-in
 * sinks (one entry per module, under the name Connect users know), the classes of the running
 * connectors and the connector modules under `plugin.path`, and with `connectorsOnly=false` the
 * built-in transformations, predicates, converters and header converters under Connect's class names.
 * Only these are looked at over REST: a module path outside `plugin.path` that no running connector
 * uses is never imported on a request's behalf.
 */
import { readFileSync } from 'node:fs';
import type { ConfigKey } from '../../connect/config-def.js';
import {
  BUILTIN_CONNECTORS,
  loadConnectorModule,
  resolveConnectorModule,
} from '../../connect/connector-module.js';
import {
  BUILTIN_PREDICATE_LIST,
  BUILTIN_PREDICATES,
  BUILTIN_TRANSFORM_LIST,
  BUILTIN_TRANSFORMS,
} from '../../connect/transforms/builtins.js';
import { BUILTIN_HEADER_CONVERTERS, BUILTIN_VALUE_CONVERTERS } from '../../config/converter-names.js';
import { onPluginPath, pluginPathConnectors } from './plugin-path.js';

export type PluginType = 'sink' | 'converter' | 'header_converter' | 'transformation' | 'predicate';

export interface PluginInfo {
  class: string;
  type: PluginType;
  version: string;
}

/** Connect's ConfigKeyInfo: one setting's definition. */
export interface ConfigKeyInfo {
  name: string;
  type: string;
  required: boolean;
  default_value: string | null;
  importance: string;
  documentation: string;
  group: string | null;
  width: string;
  display_name: string;
  dependents: string[];
  order: number;
}

/** The version built-in transforms and converters report, as Connect's report Kafka's: sharesink's. */
export function packageVersion(): string {
  try {
    // src/rest/plugins and dist/rest/plugins both sit three levels below the package root
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function defaultText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return Array.isArray(value) ? value.join(',') : String(value);
}

export function configKeyInfo(key: ConfigKey, order: number): ConfigKeyInfo {
  return {
    name: key.name,
    type: key.type.toUpperCase(),
    required: key.required,
    default_value: defaultText(key.default),
    importance: key.importance.toUpperCase(),
    documentation: key.documentation,
    group: key.group ?? null,
    width: 'NONE',
    display_name: key.displayName ?? key.name,
    dependents: [],
    order,
  };
}

/** The first name of each built-in module, in declaration order, is the one listed. */
function builtinConnectorClasses(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [name, module] of Object.entries(BUILTIN_CONNECTORS)) {
    if (seen.has(module)) continue;
    seen.add(module);
    out.push(name);
  }
  return out;
}

/** What a worker may load for a REST request besides its built-ins. */
export interface LoadableConnectors {
  /** The `connector.class` of every connector this worker (or cluster) runs. */
  readonly running: readonly string[];
  /** The worker's `plugin.path` directories. */
  readonly pluginPath: readonly string[];
}

/**
 * A connector class this worker may load for a request: a built-in name, a running connector's class,
 * or a module under `plugin.path`.
 */
export function isKnownConnector(name: string, loadable: LoadableConnectors): boolean {
  return (
    BUILTIN_CONNECTORS[name] !== undefined ||
    loadable.running.includes(name) ||
    onPluginPath(name, loadable.pluginPath)
  );
}

function pluginPathNow(pluginPath: readonly string[]): string {
  return pluginPath.length === 0
    ? 'plugin.path is not set in the worker file'
    : `plugin.path is ${pluginPath.join(',')}`;
}

/** Why {@link isKnownConnector} said no, with what would make it say yes. */
export function unknownConnectorMessage(name: string, pluginPath: readonly string[]): string {
  return `${name} is not a connector this worker has; accepted: a built-in sink (GET /connector-plugins), the connector.class of a running connector, or a module under a plugin.path directory (${pluginPathNow(pluginPath)}; add the directory that holds the module to plugin.path on every worker, or check the module with sharesink validate)`;
}

/** A converter, transform or predicate module a request names outside `plugin.path`. */
export function outsidePluginPath(module: string, pluginPath: readonly string[]): string {
  return `${module} is a module outside plugin.path (${pluginPathNow(pluginPath)}); over REST only built-ins and modules under a plugin.path directory are loaded: add the directory that holds it to plugin.path on every worker`;
}

async function connectorVersion(connectorClass: string): Promise<string> {
  try {
    const module = await loadConnectorModule(resolveConnectorModule(connectorClass));
    return new module.connector().version();
  } catch {
    return 'unknown';
  }
}

const fullNames = (names: readonly string[]) => names.filter((n) => n.includes('.'));

export async function listPlugins(
  running: readonly string[],
  options: { connectorsOnly?: boolean; pluginPath?: readonly string[] } = {},
): Promise<PluginInfo[]> {
  const classes = builtinConnectorClasses();
  // one entry per module: a running connector named by a relative path is the plugin.path file too
  const modules = new Set(classes.map((c) => resolveConnectorModule(c)));
  for (const c of [...running, ...(await pluginPathConnectors(options.pluginPath ?? []))]) {
    const module = resolveConnectorModule(c);
    if (modules.has(module)) continue;
    modules.add(module);
    classes.push(c);
  }
  const connectors = await Promise.all(
    classes.map(async (c) => ({ class: c, type: 'sink' as const, version: await connectorVersion(c) })),
  );
  if (options.connectorsOnly !== false) return connectors;
  const version = packageVersion();
  const of = (type: PluginType, names: readonly string[]): PluginInfo[] =>
    names.map((c) => ({ class: c, type, version }));
  return [
    ...connectors,
    ...of('converter', fullNames(BUILTIN_VALUE_CONVERTERS)),
    ...of('header_converter', fullNames(BUILTIN_HEADER_CONVERTERS)),
    ...of(
      'transformation',
      BUILTIN_TRANSFORM_LIST.map((t) => t.className),
    ),
    ...of(
      'predicate',
      BUILTIN_PREDICATE_LIST.map((p) => p.className),
    ),
  ];
}

/**
 * `GET /connector-plugins/{plugin}/config`: the plugin's own settings, by any name it is known by
 * (Connect's class name, the short name). Converters declare none here (as Connect's that do not
 * implement config()); undefined for a plugin this worker does not have.
 */
export async function pluginConfig(
  name: string,
  loadable: LoadableConnectors,
): Promise<ConfigKeyInfo[] | undefined> {
  const transform = BUILTIN_TRANSFORMS.get(name) ?? BUILTIN_PREDICATES.get(name);
  if (transform !== undefined)
    return transform.def.configKeys().map((k) => configKeyInfo(k as ConfigKey, -1));
  if (BUILTIN_HEADER_CONVERTERS.includes(name)) return [];
  if (!isKnownConnector(name, loadable)) return undefined;
  const module = await loadConnectorModule(resolveConnectorModule(name));
  return new module.connector()
    .config()
    .configKeys()
    .map((k) => configKeyInfo(k, -1));
}
