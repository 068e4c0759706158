/**
 * What the three Schema Registry converters share: the wire format, the registry client and the cache
 * of compiled schemas by id. Decoding is synchronous and per record; the registry is asked once per
 * batch, in `prepareBatch`, for the ids of the batch that are not cached yet (concurrently), so no
 * record waits on the network. Each converter instance has its own cache: instances live in the pool
 * thread that runs the task, and each thread fetches a schema once.
 */
import { DataError } from '../../errors.js';
import { dropOldest } from '../../../bounded.js';
import { NULL_SCHEMA_AND_VALUE, type Schema, type SchemaAndValue } from '../../schema.js';
import { asBuffer, type Converter } from '../converter.js';
import type { CompiledSchema, ResolvedReference } from './avro-data.js';
import { RegistryClient, type RegisteredSchema } from './client.js';
import { parseRegistrySettings } from './settings.js';
import { HEADER_BYTES, MAGIC_BYTE } from './wire.js';
import { schemaIdOf } from './wire.js';

type Entry =
  | { readonly kind: 'schema'; readonly compiled: CompiledSchema }
  | { readonly kind: 'bad'; readonly message: string; readonly at: number };

/** How long an id the registry did not know (or a schema that cannot be read) stays a bad record before it is asked again. */
const BAD_ID_RECHECK_MS = 30_000;

export abstract class SchemaRegistryConverter implements Converter {
  /** The registry's schemaType this converter reads: AVRO, PROTOBUF or JSON. */
  protected abstract readonly schemaType: string;
  protected abstract readonly className: string;
  protected abstract compile(schema: string, references: readonly ResolvedReference[]): CompiledSchema;

  #client: RegistryClient | undefined;
  #cacheSize = 1000;
  readonly #cache = new Map<number, Entry>();
  readonly #inFlight = new Map<number, Promise<void>>();

  configure(configs: Readonly<Record<string, string>>, _isKey = false): void {
    const settings = parseRegistrySettings(configs);
    this.#client?.close();
    this.#client = new RegistryClient(settings);
    this.#cacheSize = settings.cacheSize;
  }

  /**
   * Fetches and compiles the schemas of `values` that are not cached yet, all at once. Throws a
   * RegistryUnreachableError (retriable) when the registry cannot be asked; an id it does not know
   * becomes a bad record in `toConnectData`.
   */
  async prepareBatch(values: readonly (Uint8Array | null)[]): Promise<void> {
    const now = Date.now();
    let wanted: Set<number> | undefined;
    let lastId = -1;
    for (let i = 0; i < values.length; i++) {
      const bytes = values[i];
      if (bytes === null || bytes === undefined || bytes.byteLength < HEADER_BYTES || bytes[0] !== MAGIC_BYTE)
        continue;
      const id = ((bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!) >>> 0;
      if (id === lastId) continue;
      lastId = id;
      const entry = this.#cache.get(id);
      if (entry !== undefined && (entry.kind === 'schema' || now - entry.at < BAD_ID_RECHECK_MS)) continue;
      (wanted ??= new Set()).add(id);
    }
    if (wanted === undefined) return;
    await Promise.all([...wanted].map((id) => this.#fetch(id)));
  }

  toConnectData(_topic: string, bytes: Uint8Array | null): SchemaAndValue {
    if (bytes === null || bytes.byteLength === 0) return NULL_SCHEMA_AND_VALUE;
    const id = schemaIdOf(bytes);
    const entry = this.#cache.get(id);
    if (entry === undefined)
      throw new DataError(
        `schema id ${id} was not fetched before decoding (prepareBatch was not called for this batch)`,
      );
    if (entry.kind === 'bad') throw new DataError(entry.message);
    return entry.compiled.decode(asBuffer(bytes), HEADER_BYTES);
  }

  fromConnectData(_topic: string, _schema: Schema | undefined, _value: unknown): Uint8Array | null {
    throw new DataError(
      `${this.className} in sharesink decodes records only; it cannot serialize Connect data`,
    );
  }

  #fetch(id: number): Promise<void> {
    let running = this.#inFlight.get(id);
    if (running === undefined) {
      running = this.#load(id).finally(() => this.#inFlight.delete(id));
      this.#inFlight.set(id, running);
    }
    return running;
  }

  async #load(id: number): Promise<void> {
    const client = this.#client!;
    const found = await client.schemaById(id);
    if (found === undefined) {
      this.#remember(id, {
        kind: 'bad',
        at: Date.now(),
        message: `schema id ${id} is not known to the schema registry at ${client.describe()} (404): the record was written against another registry, or the schema was deleted`,
      });
      return;
    }
    if (found.schemaType.toUpperCase() !== this.schemaType) {
      this.#remember(id, {
        kind: 'bad',
        at: Date.now(),
        message: `schema id ${id} is a ${found.schemaType} schema, and ${this.className} reads ${this.schemaType} schemas: is this the right converter for the topic?`,
      });
      return;
    }
    const references = await this.#references(found, new Set());
    try {
      this.#remember(id, { kind: 'schema', compiled: this.compile(found.schema, references) });
    } catch (error) {
      this.#remember(id, {
        kind: 'bad',
        at: Date.now(),
        message: `schema id ${id} cannot be read: ${(error as Error).message}`,
      });
    }
  }

  /** Every schema `schema` references, dependencies first, each once. */
  async #references(schema: RegisteredSchema, seen: Set<string>): Promise<ResolvedReference[]> {
    const out: ResolvedReference[] = [];
    for (const ref of schema.references) {
      const key = `${ref.subject}\u0000${ref.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const found = await this.#client!.schemaByVersion(ref.subject, ref.version);
      if (found === undefined) continue; // compile then names what is missing
      out.push(...(await this.#references(found, seen)), { name: ref.name, schema: found.schema });
    }
    return out;
  }

  #remember(id: number, entry: Entry): void {
    this.#cache.delete(id);
    this.#cache.set(id, entry);
    dropOldest(this.#cache, this.#cacheSize);
  }
}
