/**
 * The checks that need a connector's code, not just its settings: the connector's own `validate()` and
 * the custom transform modules. `sharesink validate` runs them so that a config it calls valid also
 * starts; the runtime runs them again at start.
 */
import type { Logger } from 'pino';
import { loadConnectorModule } from '../connect/connector-module.js';
import type { ConnectorNote, SinkConnector } from '../connect/sink-connector.js';
import { TransformChain } from '../connect/transforms/chain.js';
import { CONNECTOR_CONFIG_DEF } from '../config/connector-def.js';
import { closestName } from '../config/did-you-mean.js';
import type { ConnectorConfig } from '../config/types.js';
import { jsonEnvelopeNotices } from '../config/converter-notices.js';
import { ConfigError, ConfigProblem } from '../errors.js';
import { notice } from '../logger.js';

/**
 * One line per problem, `<connector>: <key>: <problem>`. ConfigDef problems already start with their
 * key; a connector's own `validate()` may not, so the key is added only where it is missing.
 */
export function describeConnectorProblems(
  connectorName: string,
  problems: ReadonlyMap<string, readonly string[]>,
): string[] {
  const lines: string[] = [];
  for (const [key, list] of problems) {
    for (const p of list) {
      const keyed = key === '' || p.startsWith(`${key}:`) ? p : `${key}: ${p}`;
      lines.push(`${connectorName}: ${keyed}`);
    }
  }
  return lines;
}

/**
 * Lines as {@link describeConnectorProblems} writes them, as {@link ConfigProblem}s of `connector`: each
 * problem's `key` is its setting, not the connector's name, and it prints as the line did.
 */
export function connectorProblems(connector: string, lines: readonly string[]): ConfigProblem[] {
  const prefix = `${connector}: `;
  return lines.map((l) => new ConfigProblem(l.startsWith(prefix) ? l.slice(prefix.length) : l, connector));
}

/** Runs `connector.validate()` on the config; the problems as {@link describeConnectorProblems} writes them. */
export function connectorOwnProblems(connector: SinkConnector, config: ConnectorConfig): string[] {
  return describeConnectorProblems(config.name, connector.validate(config.raw));
}

/**
 * Every problem the connector's code finds: its module cannot be imported, its `validate()` refuses the
 * settings, or a custom transform or predicate module fails to load or to configure.
 */
export async function checkConnectorCode(config: ConnectorConfig): Promise<string[]> {
  const problems: string[] = [];
  try {
    const module = await loadConnectorModule(config.connectorModule);
    problems.push(...connectorOwnProblems(new module.connector(), config));
  } catch (err) {
    problems.push(`${config.name}: connector.class: ${(err as Error).message}`);
  }
  try {
    (await TransformChain.load(config.transforms)).close();
  } catch (err) {
    if (err instanceof ConfigError) problems.push(...err.problems.map((p) => `${config.name}: ${p}`));
    else problems.push(`${config.name}: transforms: ${(err as Error).message}`);
  }
  return problems;
}

/** Keys whose names are open-ended (client overrides, converter and transform settings) or checked elsewhere. */
const OPEN_PREFIXES = [
  'consumer.override.',
  'producer.override.',
  'admin.override.',
  'key.converter.',
  'value.converter.',
  'header.converter.',
  'transforms.',
  'predicates.',
  'share.',
];
const FRAMEWORK_KEYS = CONNECTOR_CONFIG_DEF.configKeys().map((key) => key.name);

/**
 * "Did you mean" warnings for connector settings that neither sharesink nor the connector declares and
 * that are one or two edits from one that is (`tasks.mx`). Other unknown keys stay quiet: connectors may
 * read settings they do not declare, and a near miss is what is worth a warning. Short names get one
 * edit only, so `file` is never taken for `name`.
 */
export function connectorKeyWarnings(connector: SinkConnector, config: ConnectorConfig): string[] {
  const own = connector
    .config()
    .configKeys()
    .map((key) => key.name);
  const known = new Set([...FRAMEWORK_KEYS, ...own]);
  const warnings: string[] = [];
  for (const key of Object.keys(config.raw)) {
    if (known.has(key) || OPEN_PREFIXES.some((prefix) => key.startsWith(prefix))) continue;
    const meant = closestName(key, known, key.length >= 8 ? 2 : 1);
    if (meant !== undefined)
      warnings.push(
        `${key}: not a setting of sharesink or of ${config.connectorClass}; ignored (did you mean ${meant}?)`,
      );
  }
  return warnings;
}

/**
 * Says once, on `log`, what a connector's settings will do that its author may not expect: keys that
 * look like typos (warn) and converters that reject plain JSON (notice). `standalone` says it at start;
 * a distributed worker when a connector is created or its config replaced through the REST API.
 */
export async function reportConnectorNotes(log: Logger, config: ConnectorConfig): Promise<void> {
  const { warnings, notices } = await connectorNotes(config);
  for (const w of warnings) log.warn({ connector: config.name }, w);
  for (const n of notices) notice(log, { connector: config.name }, n);
}

/** What {@link reportConnectorNotes} says, for `sharesink validate` to print. */
export async function connectorNotes(
  config: ConnectorConfig,
): Promise<{ warnings: string[]; notices: string[] }> {
  const own = await connectorOwnNotes(config);
  return {
    warnings: [
      ...(await connectorKeyWarningsOf(config)),
      ...own.filter((n) => n.level === 'warn').map((n) => n.message),
    ],
    notices: [
      ...jsonEnvelopeNotices(config),
      ...own.filter((n) => n.level === 'notice').map((n) => n.message),
    ],
  };
}

/** The connector's own {@link SinkConnector.notes}; none when it has none, cannot be loaded or refuses its settings (the start reports those). */
async function connectorOwnNotes(config: ConnectorConfig): Promise<ConnectorNote[]> {
  try {
    const module = await loadConnectorModule(config.connectorModule);
    const connector = new module.connector();
    if (connector.notes === undefined || connector.validate(config.raw).size > 0) return [];
    return [...connector.notes(config.raw, { share: config.groupProtocol === 'share' })];
  } catch {
    return [];
  }
}

/** {@link connectorKeyWarnings} after loading the connector's module; none when it cannot be loaded (the start reports that). */
export async function connectorKeyWarningsOf(config: ConnectorConfig): Promise<string[]> {
  try {
    const module = await loadConnectorModule(config.connectorModule);
    return connectorKeyWarnings(new module.connector(), config);
  } catch {
    return [];
  }
}
