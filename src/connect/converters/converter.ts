import type { Schema, SchemaAndValue } from '../schema.js';

/**
 * Connect's Converter: bytes of a key or value to a Connect value and back. `configure` receives the
 * converter's own settings with the `key.converter.` / `value.converter.` prefix already removed.
 * `toConnectData` throws on bad bytes; the batch converter catches that per record.
 */
export interface Converter {
  configure(configs: Readonly<Record<string, string>>, isKey: boolean): void;
  toConnectData(topic: string, bytes: Uint8Array | null): SchemaAndValue;
  fromConnectData(topic: string, schema: Schema | undefined, value: unknown): Uint8Array | null;
  /**
   * Optional: called once per batch, before `toConnectData` runs on its records, with the bytes of
   * this converter's part (keys or values, nulls included). A converter that needs something from the
   * network to decode (a schema by id) fetches it here, so no record waits on I/O. Throwing a
   * RetriableError retries the whole batch.
   */
  prepareBatch?(bytes: readonly (Uint8Array | null)[]): Promise<void>;
}

/** Connect's HeaderConverter: one header value's bytes to a Connect value and back. */
export interface HeaderConverter {
  configure(configs: Readonly<Record<string, string>>): void;
  toConnectHeader(topic: string, headerKey: string, bytes: Uint8Array | null): SchemaAndValue;
  fromConnectHeader(
    topic: string,
    headerKey: string,
    schema: Schema | undefined,
    value: unknown,
  ): Uint8Array | null;
}

/**
 * A Converter that converts header values too, the same way: Connect's StringConverter,
 * ByteArrayConverter and JsonConverter are header converters as well.
 */
export abstract class ValueAndHeaderConverter implements Converter, HeaderConverter {
  abstract configure(configs: Readonly<Record<string, string>>, isKey?: boolean): void;
  abstract toConnectData(topic: string, bytes: Uint8Array | null): SchemaAndValue;
  abstract fromConnectData(topic: string, schema: Schema | undefined, value: unknown): Uint8Array | null;

  toConnectHeader(topic: string, _headerKey: string, bytes: Uint8Array | null): SchemaAndValue {
    return this.toConnectData(topic, bytes);
  }

  fromConnectHeader(
    topic: string,
    _headerKey: string,
    schema: Schema | undefined,
    value: unknown,
  ): Uint8Array | null {
    return this.fromConnectData(topic, schema, value);
  }
}

/** Buffer view over the same memory, so converters can use Buffer's decoders without copying. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
