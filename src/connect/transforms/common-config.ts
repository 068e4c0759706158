import { ConfigError } from '../../errors.js';
import { ConfigDef } from '../config-def.js';

/** KIP-1040's setting, shared by the field transforms: whether a null struct field reads as its default. */
export const REPLACE_NULL_WITH_DEFAULT = 'replace.null.with.default';

export const replaceNullDef = (): ConfigDef<{ 'replace.null.with.default': boolean }> =>
  new ConfigDef().define({
    name: REPLACE_NULL_WITH_DEFAULT,
    type: 'boolean',
    default: true,
    importance: 'medium',
    documentation:
      "Whether a null field with a default value reads as that default (Connect's Struct.get) or stays null.",
  });

/**
 * KIP-821's nested-field syntax (`field.syntax.version=V2`) addresses fields inside structs with dotted
 * paths; sharesink has V1 only, so V2 is refused at start rather than read as a top-level field name.
 */
export const fieldSyntaxDef = (): ConfigDef<{ 'field.syntax.version': string }> =>
  new ConfigDef().define({
    name: 'field.syntax.version',
    type: 'string',
    default: 'V1',
    validator: {
      check: (v) =>
        v === null || v.toUpperCase() === 'V1'
          ? undefined
          : 'is not supported yet (V2 nested field paths are not implemented in sharesink)',
      describe: () => 'V1 (top-level field names)',
    },
    importance: 'high',
    documentation:
      'How field names are read. Only `V1` (top-level fields, the Connect default) is supported; `V2` is refused.',
  });

/** One problem, in the `key: problem; accepted: …` form every ConfigError problem has. */
export function problem(key: string, text: string, accepted: string): ConfigError {
  return new ConfigError([`${key}: ${text}; accepted: ${accepted}`]);
}
