/**
 * The checks that need a connector's code, not just its settings: the connector's own `validate()` and
 * the custom transform modules. `sharesink validate` runs them so that a config it calls valid also
 * starts; the runtime runs them again at start.
 */
import { loadConnectorModule } from '../connect/connector-module.js';
import type { SinkConnector } from '../connect/sink-connector.js';
import { TransformChain } from '../connect/transforms/chain.js';
import type { ConnectorConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';

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
