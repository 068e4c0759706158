/**
 * `GET /connector-plugins` and `PUT /connector-plugins/{class}/config/validate`: the built-in sinks
 * (one entry per module, under the name Connect users know), plus the classes of the running
 * connectors, and config validation in Connect's ConfigInfos shape.
 */
import { HIDDEN } from '../config/printable.js';
import { isSecretSecurityKey } from '../kafka/security/index.js';
import {
  BUILTIN_CONNECTORS,
  loadConnectorModule,
  resolveConnectorModule,
} from '../connect/connector-module.js';
import type { ConfigKey } from '../connect/config-def.js';
import { CONNECTOR_CONFIG_DEF } from '../config/connector-def.js';
import { validateConnectorConfig } from '../config/compile-connector.js';
import type { WorkerConfig } from '../config/types.js';

export interface PluginInfo {
  class: string;
  type: 'sink';
  version: string;
}

/** The first name of each built-in module, in declaration order, is the one listed. */
function builtinClasses(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const [name, module] of Object.entries(BUILTIN_CONNECTORS)) {
    if (seen.has(module)) continue;
    seen.add(module);
    out.push(name);
  }
  return out;
}

async function versionOf(connectorClass: string): Promise<string> {
  try {
    const module = await loadConnectorModule(resolveConnectorModule(connectorClass));
    return new module.connector().version();
  } catch {
    return 'unknown';
  }
}

export async function listPlugins(running: readonly string[]): Promise<PluginInfo[]> {
  const classes = builtinClasses();
  for (const c of running) {
    if (BUILTIN_CONNECTORS[c] === undefined && !classes.includes(c)) classes.push(c);
  }
  return Promise.all(
    classes.map(async (c) => ({ class: c, type: 'sink' as const, version: await versionOf(c) })),
  );
}

interface ConfigValueInfo {
  definition: {
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
  };
  value: {
    name: string;
    value: string | null;
    recommended_values: string[];
    errors: string[];
    visible: boolean;
  };
}

export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: ConfigValueInfo[];
}

function defaultText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return Array.isArray(value) ? value.join(',') : String(value);
}

function entry(
  key: ConfigKey,
  order: number,
  props: Readonly<Record<string, string>>,
  errors: string[],
): ConfigValueInfo {
  return {
    definition: {
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
    },
    value: { name: key.name, value: shownValue(key, props), recommended_values: [], errors, visible: true },
  };
}

/** As Connect shows a Password: `[hidden]`; so are security secrets under any client prefix. */
function shownValue(key: ConfigKey, props: Readonly<Record<string, string>>): string | null {
  const value = props[key.name];
  if (value === undefined) return null;
  return key.type === 'password' || isSecretSecurityKey(key.name) ? HIDDEN : value;
}

/** Problems come as `key: what is wrong`; they are filed under their key. */
function byKey(problems: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of problems) {
    const i = p.indexOf(': ');
    const key = i > 0 ? p.slice(0, i) : '';
    const list = out.get(key) ?? [];
    list.push(i > 0 ? p.slice(i + 2) : p);
    out.set(key, list);
  }
  return out;
}

/**
 * Validates a connector config as `start` would: the runtime's settings, then the connector's own
 * `validate()`. Connect answers 200 with `error_count`, also when the config is invalid.
 */
export async function validateConfig(
  connectorClass: string,
  props: Readonly<Record<string, string>>,
  worker: WorkerConfig,
): Promise<ConfigInfos> {
  const full = { ...props, 'connector.class': props['connector.class'] ?? connectorClass };
  const check = validateConnectorConfig(full, worker);
  const problems = byKey(check.problems);
  const keys: ConfigKey[] = [...CONNECTOR_CONFIG_DEF.configKeys()];
  try {
    const module = await loadConnectorModule(resolveConnectorModule(full['connector.class']));
    const connector = new module.connector();
    keys.push(...connector.config().configKeys());
    for (const [key, list] of connector.validate(full))
      problems.set(key, [...(problems.get(key) ?? []), ...list]);
  } catch (err) {
    const list = problems.get('connector.class') ?? [];
    list.push(err instanceof Error ? err.message : String(err));
    problems.set('connector.class', list);
  }
  const configs: ConfigValueInfo[] = [];
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key.name)) continue;
    seen.add(key.name);
    configs.push(entry(key, configs.length + 1, full, problems.get(key.name) ?? []));
  }
  // problems about keys no definition declares (cross-key checks) still need a place in the answer
  for (const [name, errors] of problems) {
    if (seen.has(name)) continue;
    const key: ConfigKey = {
      name: name === '' ? 'config' : name,
      type: 'string',
      importance: 'high',
      documentation: '',
      required: false,
      default: null,
      validator: undefined,
      group: undefined,
      displayName: undefined,
    } as ConfigKey;
    configs.push(entry(key, configs.length + 1, full, errors));
  }
  const groups = [...new Set(keys.map((k) => k.group).filter((g): g is string => g !== undefined))];
  return {
    name: full['connector.class'],
    error_count: configs.reduce((n, c) => n + c.value.errors.length, 0),
    groups,
    configs,
  };
}
