/** Connect's SetSchemaMetadata: sets the key or value schema's name and/or version. */
import { ConfigDef } from '../config-def.js';
import { DataError } from '../errors.js';
import type { Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { problem, replaceNullDef } from './common-config.js';
import { SchemaCache, type Operating } from './data.js';
import type { Transformation } from './transformation.js';

export const SET_SCHEMA_METADATA_DEF = new ConfigDef()
  .define({
    name: 'schema.name',
    type: 'string',
    default: null,
    importance: 'high',
    documentation: 'Schema name to set.',
  })
  .define({
    name: 'schema.version',
    type: 'int',
    default: null,
    importance: 'high',
    documentation: 'Schema version to set.',
  })
  .merge(replaceNullDef());

export class SetSchemaMetadata implements Transformation {
  readonly #side: Operating;
  readonly #cache = new SchemaCache();
  #name: string | null = null;
  #version: number | null = null;

  constructor(side: Operating) {
    this.#side = side;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = SET_SCHEMA_METADATA_DEF.parse(props);
    this.#name = v['schema.name'];
    this.#version = v['schema.version'];
    if (this.#name === null && this.#version === null)
      throw problem('schema.name', 'neither schema.name nor schema.version is set', 'at least one of them');
  }

  apply(record: SinkRecord): SinkRecord {
    const schema = this.#side.schema(record);
    const value = this.#side.value(record);
    if (schema === undefined && (value === null || value === undefined)) return record;
    if (schema === undefined) throw new DataError('Schema required for [updating schema metadata]');
    const updated = this.#cache.get(schema, (s): Schema => ({
      ...s,
      ...(this.#name !== null ? { name: this.#name } : {}),
      ...(this.#version !== null ? { version: this.#version } : {}),
    }));
    // structs are plain objects here, not bound to their schema, so the value needs no rebuilding
    return this.#side.update(record, updated, value);
  }
}
