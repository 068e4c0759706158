import { NULL_SCHEMA_AND_VALUE, Schemas, type Schema, type SchemaAndValue } from '../schema.js';
import { asBuffer, type HeaderConverter } from './converter.js';

const INTEGER = /^-?\d+$/;
const FLOAT = /^-?(\d+\.\d*|\.\d+|\d+(\.\d*)?[eE][+-]?\d+)$/;

/**
 * Connect's SimpleHeaderConverter, basic form: header bytes are UTF-8 text, and text that reads as a
 * boolean, an integer (smallest fitting int type), a float, or a JSON array/object becomes that value.
 * Anything else stays a string. Writing goes the other way; Buffers are written as they are.
 */
export class SimpleHeaderConverter implements HeaderConverter {
  configure(): void {}

  toConnectHeader(_topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null) return NULL_SCHEMA_AND_VALUE;
    const text = asBuffer(bytes).toString('utf8');
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === 'false') return { schema: Schemas.BOOLEAN, value: lower === 'true' };
    if (INTEGER.test(text)) {
      const n = Number(text);
      if (Number.isSafeInteger(n)) return { schema: integerSchema(n), value: n };
    }
    if (FLOAT.test(text)) return { schema: Schemas.FLOAT64, value: Number(text) };
    const first = text[0];
    if (first === '[' || first === '{') {
      try {
        const value: unknown = JSON.parse(text);
        return { schema: { type: Array.isArray(value) ? 'array' : 'map', optional: false }, value };
      } catch {
        // not JSON after all: a plain string that happens to start with a bracket
      }
    }
    return { schema: Schemas.STRING, value: text };
  }

  fromConnectHeader(
    _topic: string,
    _headerKey: string,
    _schema: Schema | undefined,
    value: unknown,
  ): Uint8Array | null {
    if (value === null || value === undefined) return null;
    if (value instanceof Uint8Array) return value;
    if (value instanceof Date) return Buffer.from(value.toISOString(), 'utf8');
    if (typeof value === 'object')
      return Buffer.from(JSON.stringify(value instanceof Map ? Object.fromEntries(value) : value), 'utf8');
    return Buffer.from(String(value), 'utf8');
  }
}

function integerSchema(n: number): Schema {
  if (n >= -128 && n <= 127) return Schemas.INT8;
  if (n >= -32768 && n <= 32767) return Schemas.INT16;
  if (n >= -(2 ** 31) && n < 2 ** 31) return Schemas.INT32;
  return Schemas.INT64;
}
