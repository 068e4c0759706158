import { ConfigDef, type ConfigType } from '../connect/config-def.js';

export interface ParsedValues<V> {
  /** Typed values; a broken key has its default, or null when it is required. */
  readonly values: V;
  /** Keys whose value is wrong or missing; their entry in `values` must not be used. */
  readonly broken: ReadonlySet<string>;
  readonly problems: string[];
}

const lenientDefs = new WeakMap<ConfigDef<never>, ConfigDef>();

/** The same keys with every required one optional, so that parsing what is valid never throws. */
function lenient(def: ConfigDef<Record<string, unknown>>): ConfigDef {
  const known = lenientDefs.get(def as ConfigDef<never>);
  if (known !== undefined) return known;
  let made = new ConfigDef() as ConfigDef<Record<string, unknown>>;
  for (const key of def.configKeys()) {
    made = made.define({
      name: key.name,
      type: key.type as ConfigType,
      importance: key.importance,
      documentation: key.documentation,
      validator: key.validator,
      default: key.required ? null : (key.default as null),
    });
  }
  lenientDefs.set(def as ConfigDef<never>, made);
  return made;
}

/**
 * ConfigDef.parse returns values or throws; compiling needs the good values *and* every problem, so
 * that checks across keys still run and one ConfigError lists everything.
 */
export function parseValues<V extends Record<string, unknown>>(
  def: ConfigDef<V>,
  props: Readonly<Record<string, string | undefined>>,
): ParsedValues<V> {
  const byKey = def.validate(props);
  const clean: Record<string, string | undefined> = { ...props };
  for (const name of byKey.keys()) delete clean[name];
  const values = lenient(def as ConfigDef<Record<string, unknown>>).parse(clean) as V;
  return { values, broken: new Set(byKey.keys()), problems: [...byKey.values()].flat() };
}
