/**
 * The leader's part of a config change: ask the connector for its task configs (`taskConfigs(tasks.max)`,
 * as Connect's leader does) so their number, and what each task is given, is written to the config
 * topic. Values the connector got from a config provider go back to their `${…}` reference before they
 * are stored, so a secret the connector copies into its tasks is not written in clear either.
 */
import type { Logger } from 'pino';
import { loadConnectorModule } from '../../connect/connector-module.js';
import type { ConnectorConfig } from '../../config/types.js';

export type TaskConfigsOf = (config: ConnectorConfig, log: Logger) => Promise<Array<Record<string, string>>>;

/** Starts a throwaway instance of the connector, asks for its task configs, stops it. */
export const connectorTaskConfigs: TaskConfigsOf = async (config, log) => {
  const module = await loadConnectorModule(config.connectorModule);
  const connector = new module.connector();
  connector.initialize({
    requestTaskReconfiguration: () => undefined,
    raiseError: (err) => log.warn({ err }, 'connector raised an error while computing its task configs'),
  });
  await connector.start(config.raw);
  try {
    return (await connector.taskConfigs(config.tasksMax)).slice(0, config.tasksMax);
  } finally {
    await Promise.resolve(connector.stop()).catch((err: Error) =>
      log.warn({ err }, 'connector failed to stop after computing its task configs'),
    );
  }
};

/** A task config as it may be stored: a value equal to a provider-resolved connector value is its reference. */
export function unresolvedTaskConfig(
  task: Readonly<Record<string, string>>,
  connector: Pick<ConnectorConfig, 'raw' | 'written'>,
): Record<string, string> {
  const out: Record<string, string> = { ...task };
  if (connector.written === undefined) return out;
  const byValue = new Map<string, string>();
  for (const [key, written] of Object.entries(connector.written)) {
    const raw = connector.raw[key];
    if (raw !== undefined && raw !== written) byValue.set(raw, written);
  }
  for (const [key, value] of Object.entries(out)) {
    const written = connector.written[key];
    if (written !== undefined && value === connector.raw[key]) out[key] = written;
    else if (byValue.has(value)) out[key] = byValue.get(value)!;
  }
  return out;
}
