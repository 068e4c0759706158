import { DataError } from '../errors.js';
import { Schemas, type Schema, type SchemaAndValue } from '../schema.js';
import { asBuffer, ValueAndHeaderConverter } from './converter.js';

/**
 * Connect's ByteArrayConverter: the bytes pass through untouched, as a Buffer. Also a header converter,
 * as in Connect: `header.converter=ByteArrayConverter` hands header bytes to the sink as they are.
 */
export class ByteArrayConverter extends ValueAndHeaderConverter {
  configure(): void {}

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    return { schema: Schemas.OPTIONAL_BYTES, value: bytes === null ? null : asBuffer(bytes) };
  }

  fromConnectData(_topic: string, schema: Schema | undefined, value: unknown): Uint8Array | null {
    if (schema !== undefined && schema.type !== 'bytes') {
      throw new DataError(`ByteArrayConverter needs a bytes schema, got ${schema.type}`);
    }
    if (value === null || value === undefined) return null;
    if (value instanceof Uint8Array) return value;
    throw new DataError(`ByteArrayConverter needs a Uint8Array or Buffer, got ${typeof value}`);
  }
}
