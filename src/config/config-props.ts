/**
 * Settings as a user writes them in code: Kafka Connect's names, string values. A key whose value is
 * `undefined` counts as not set, so an object literal with optional keys (or a union of such literals)
 * is accepted under `exactOptionalPropertyTypes` too.
 */
export type ConfigProps = Readonly<Record<string, string | undefined>>;

/** The settings that are set. */
export function definedProps(props: ConfigProps): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(props)) if (value !== undefined) out[key] = value;
  return out;
}
