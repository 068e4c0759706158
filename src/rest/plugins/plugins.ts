/**
 * `PUT /connector-plugins/{class}/config/validate`: config validation in Connect's ConfigInfos shape
 * (the plugin list and `/config` are in plugin-catalog.ts).
 */
import { HIDDEN } from '../../config/printable.js';
import { isSecretSecurityKey } from '../../kafka/security/index.js';
import { resolveConnectorModule } from '../../connect/connector-module.js';
import type { ConfigKey } from '../../connect/config-def.js';
import { CONNECTOR_CONFIG_DEF } from '../../config/connector-def.js';
import { validateConnectorConfig } from '../../config/compile-connector.js';
import { asProblem, validateConnector } from '../../config/validate-configs.js';
import type { WorkerConfig } from '../../config/types.js';
import { badRequest } from '../server/errors.js';
import {
  configKeyInfo,
  isKnownConnector,
  outsidePluginPath,
  unknownConnectorMessage,
  type ConfigKeyInfo,
} from './plugin-catalog.js';
import { onPluginPath, otherModules } from './plugin-path.js';

export { listPlugins, pluginConfig, type LoadableConnectors, type PluginInfo } from './plugin-catalog.js';

interface ConfigValueInfo {
  definition: ConfigKeyInfo;
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

function entry(
  key: ConfigKey,
  order: number,
  props: Readonly<Record<string, string>>,
  errors: string[],
): ConfigValueInfo {
  return {
    definition: configKeyInfo(key, order),
    value: { name: key.name, value: shownValue(key, props), recommended_values: [], errors, visible: true },
  };
}

/** As Connect shows a Password: `[hidden]`; so are security secrets under any client prefix. */
function shownValue(key: ConfigKey, props: Readonly<Record<string, string>>): string | null {
  const value = props[key.name];
  if (value === undefined) return null;
  return key.type === 'password' || isSecretSecurityKey(key.name) ? HIDDEN : value;
}

/**
 * Validates a connector config as `start` would: the runtime's settings, then the connector's own
 * `validate()`. Connect answers 200 with `error_count`, also when the config is invalid.
 */
/** Connect's rule, `FileStreamSinkConnector` matches `FileStreamSink`, or the same built-in module by another name. */
function samePlugin(included: string, requested: string): boolean {
  const normal = (n: string) =>
    n.endsWith('Connector') && n.length > 'Connector'.length ? n.slice(0, -9) : n;
  return (
    normal(included).endsWith(normal(requested)) ||
    resolveConnectorModule(included) === resolveConnectorModule(requested)
  );
}

export async function validateConfig(
  connectorClass: string,
  props: Readonly<Record<string, string>>,
  worker: WorkerConfig,
  running: readonly string[] = [],
): Promise<ConfigInfos> {
  const included = props['connector.class'];
  if (included !== undefined && !samePlugin(included, connectorClass))
    throw badRequest(`Included connector type ${included} does not match request type ${connectorClass}`);
  const full = { ...props, 'connector.class': included ?? connectorClass };
  const pluginPath = worker.pluginPath ?? [];
  const keys: ConfigKey[] = [...CONNECTOR_CONFIG_DEF.configKeys()];
  const problems = new Map<string, string[]>();
  const file = (key: string, message: string) => problems.set(key, [...(problems.get(key) ?? []), message]);
  // a module no running connector uses, outside plugin.path, is not imported for a request: that
  // would run code of the request's choosing
  const settings = validateConnectorConfig(full, worker);
  // a converter, transform or predicate module would be imported by the tasks: the same rule as connectors
  const outside = (settings.config === undefined ? [] : otherModules(full, settings.config)).filter(
    ([, module]) => !onPluginPath(module, pluginPath),
  );
  for (const [key, module] of outside)
    file(key, outsidePluginPath((full as Record<string, string>)[key] ?? module, pluginPath));
  if (!isKnownConnector(full['connector.class'], { running, pluginPath })) {
    for (const p of settings.problems) file(asProblem('', p).key, asProblem('', p).message);
    file('connector.class', unknownConnectorMessage(full['connector.class'], pluginPath));
  } else if (outside.length > 0) {
    for (const p of settings.problems) file(asProblem('', p).key, asProblem('', p).message);
  } else {
    // what `sharesink validate` and the worker's start check: settings, module, ConfigDef, validate(),
    // custom transforms (all on plugin.path, or used by a running connector: checked above)
    const check = await validateConnector(full, worker);
    for (const p of check.problems) file(p.key, p.message);
    keys.push(...(check.definition?.configKeys() ?? []));
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
