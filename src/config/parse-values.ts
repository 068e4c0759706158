import type { ConfigDef } from '../connect/config-def.js';
import { ConfigError } from '../errors.js';

const PLACEHOLDER: Readonly<Record<string, string>> = {
  string: 'x',
  class: 'x',
  password: 'x',
  list: 'x',
  int: '1',
  long: '1',
  double: '1',
  boolean: 'false',
};

export interface ParsedValues<V> {
  readonly values: V;
  /** Keys whose value is wrong or missing; their entry in `values` must not be used. */
  readonly broken: ReadonlySet<string>;
  readonly problems: string[];
}

/**
 * ConfigDef.parse returns values or throws; compiling needs the good values *and* every problem, so
 * that checks across keys still run and one ConfigError lists everything. Broken keys are left
 * out (their default applies), and broken required keys get a placeholder only so that parsing can
 * go on: callers check `broken` and throw anyway.
 */
export function parseValues<V extends Record<string, unknown>>(
  def: ConfigDef<V>,
  props: Readonly<Record<string, string | undefined>>,
): ParsedValues<V> {
  const byKey = def.validate(props);
  const clean: Record<string, string | undefined> = { ...props };
  for (const name of byKey.keys()) delete clean[name];
  for (const key of def.configKeys()) {
    if (key.required && byKey.has(key.name)) clean[key.name] = PLACEHOLDER[key.type];
  }
  let values: V;
  try {
    values = def.parse(clean);
  } catch (error) {
    // a validator refused the placeholder: nothing more can be checked, report what is known
    if (error instanceof ConfigError) throw new ConfigError([...byKey.values()].flat());
    throw error;
  }
  return { values, broken: new Set(byKey.keys()), problems: [...byKey.values()].flat() };
}
