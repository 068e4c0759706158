/**
 * A connector's properties fit to print (REST config views, logs): values from config providers as
 * their `${provider:…}` reference, as Connect shows them, and every security secret (`sasl.jaas.config`,
 * `ssl.*.password`, inline keys, under any client prefix) as `[hidden]`.
 */
import { isSecretSecurityKey } from '../kafka/security/index.js';

export const HIDDEN = '[hidden]';

export function printableConfig(config: {
  readonly raw: Readonly<Record<string, string>>;
  readonly written?: Readonly<Record<string, string>> | undefined;
}): Record<string, string> {
  const out: Record<string, string> = { ...(config.written ?? config.raw) };
  for (const key of Object.keys(out)) if (isSecretSecurityKey(key)) out[key] = HIDDEN;
  return out;
}

/**
 * A task's config fit to print: connectors hand their tasks the values they were given, so a value the
 * connector got from a config provider is shown as the connector's reference, and secrets as `[hidden]`.
 */
export function printableTaskConfig(
  task: Readonly<Record<string, string>>,
  connector: {
    readonly raw: Readonly<Record<string, string>>;
    readonly written?: Readonly<Record<string, string>> | undefined;
  },
): Record<string, string> {
  const out: Record<string, string> = { ...task };
  for (const [key, value] of Object.entries(out)) {
    const written = connector.written?.[key];
    if (isSecretSecurityKey(key)) out[key] = HIDDEN;
    else if (written !== undefined && value === connector.raw[key]) out[key] = written;
  }
  return out;
}
