import { ConfigDef } from '../config-def.js';
import { oneOf } from '../config-validators.js';
import { DataError } from '../errors.js';
import { NULL_SCHEMA_AND_VALUE, type Schema, type SchemaAndValue } from '../schema.js';
import { asBuffer, ValueAndHeaderConverter } from './converter.js';
import {
  schemaFromJson,
  schemaToJson,
  valueFromJson,
  valueToJson,
  type JsonDataOptions,
} from './json-data.js';

const CONFIG = new ConfigDef()
  .define({
    name: 'schemas.enable',
    type: 'boolean',
    default: true,
    importance: 'high',
    documentation: 'Read and write the {"schema":…,"payload":…} envelope. false for plain JSON.',
  })
  .define({
    name: 'decimal.format',
    type: 'string',
    default: 'BASE64',
    validator: oneOf(['BASE64', 'NUMERIC'], { caseInsensitive: true }),
    importance: 'low',
    documentation: 'How Decimal values are written: base64 of the unscaled bytes, or a JSON number.',
  })
  .define({
    name: 'replace.null.with.default',
    type: 'boolean',
    default: true,
    importance: 'low',
    documentation: 'Read a null payload field as its schema default when the schema has one.',
  })
  .define({
    name: 'schemas.cache.size',
    type: 'int',
    default: 1000,
    importance: 'low',
    documentation: 'Accepted for compatibility with Connect; schemas are not cached.',
  });

const ENVELOPE_HINT =
  'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional ' +
  'fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.';

/**
 * Connect's JsonConverter. With `schemas.enable=true` (the default, as in Connect) every message must be
 * an envelope `{"schema": …, "payload": …}`; with false the bytes are plain JSON and the value is
 * schemaless. Integers beyond 2^53 lose precision, as JSON.parse does. Also a header converter, as in
 * Connect.
 */
export class JsonConverter extends ValueAndHeaderConverter {
  #schemasEnabled = true;
  #options: JsonDataOptions = { decimalFormat: 'BASE64', replaceNullWithDefault: true };

  configure(configs: Readonly<Record<string, string>>, _isKey = false): void {
    const parsed = CONFIG.parse(configs);
    this.#schemasEnabled = parsed['schemas.enable'];
    this.#options = {
      decimalFormat: parsed['decimal.format'].toUpperCase() === 'NUMERIC' ? 'NUMERIC' : 'BASE64',
      replaceNullWithDefault: parsed['replace.null.with.default'],
    };
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null || bytes.byteLength === 0) return NULL_SCHEMA_AND_VALUE;
    let json: unknown;
    try {
      json = JSON.parse(asBuffer(bytes).toString('utf8'));
    } catch (cause) {
      throw new DataError('Converting byte[] to Kafka Connect data failed due to serialization error', {
        cause,
      });
    }
    if (!this.#schemasEnabled) return { schema: undefined, value: json };
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new DataError(ENVELOPE_HINT);
    const keys = Object.keys(json);
    if (keys.length !== 2 || !keys.includes('schema') || !keys.includes('payload'))
      throw new DataError(ENVELOPE_HINT);
    const envelope = json as { schema: never; payload: never };
    const schema = schemaFromJson(envelope.schema, this.#options);
    if (schema === undefined) return { schema: undefined, value: envelope.payload };
    return { schema, value: valueFromJson(schema, envelope.payload, this.#options) };
  }

  fromConnectData(_topic: string, schema: Schema | undefined, value: unknown): Uint8Array | null {
    if (schema === undefined && (value === null || value === undefined)) return null;
    const payload = valueToJson(schema, value, this.#options);
    const json = this.#schemasEnabled ? { schema: schemaToJson(schema), payload } : payload;
    return Buffer.from(JSON.stringify(json), 'utf8');
  }
}
