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
