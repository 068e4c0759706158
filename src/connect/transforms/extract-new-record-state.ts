/**
 * Debezium's ExtractNewRecordState (event flattening): a change event's envelope
 * (`before`, `after`, `source`, `op`, `ts_ms`) becomes the row state after the change, so that a sink
 * writes rows. Deletes and tombstones follow `delete.tombstone.handling.mode` (or the older
 * `delete.handling.mode` and `drop.tombstones`); `add.fields` / `add.headers` copy envelope fields.
 * Records that are not change events (heartbeats, schema changes without `op`) pass unchanged.
 */
import { ConfigError } from '../../errors.js';
import { ConfigDef } from '../config-def.js';
import { oneOf } from '../config-validators.js';
import type { Field, Schema } from '../schema.js';
import type { SinkRecord } from '../sink-record.js';
import { fieldOf, get, isData, put, structSchema, type Data } from './data.js';
import type { Transformation } from './transformation.js';

const HANDLING = ['drop', 'tombstone', 'rewrite', 'rewrite-with-tombstone', 'delete'] as const;
type Handling = (typeof HANDLING)[number];
/** What a delete event becomes. */
type DeleteAs = 'drop' | 'tombstone' | 'rewrite' | 'null';
const DELETE_AS: Readonly<Record<Handling, DeleteAs>> = {
  drop: 'drop',
  tombstone: 'tombstone',
  rewrite: 'rewrite',
  'rewrite-with-tombstone': 'rewrite',
  delete: 'null',
};

export const EXTRACT_NEW_RECORD_STATE_DEF = new ConfigDef()
  .define({
    name: 'delete.tombstone.handling.mode',
    type: 'string',
    default: null,
    validator: oneOf(HANDLING),
    importance: 'high',
    documentation:
      'drop: delete events and tombstones are dropped. tombstone (the default when neither older key is set): a delete event becomes a tombstone, tombstones pass. rewrite: a delete event becomes its `before` state with `__deleted=true` (every other event gets `__deleted=false`), tombstones are dropped. rewrite-with-tombstone: rewrite, and tombstones pass. delete: a delete event becomes a null value that keeps its value schema, tombstones pass.',
  })
  .define({
    name: 'delete.handling.mode',
    type: 'string',
    default: null,
    validator: oneOf(['drop', 'rewrite', 'none']),
    importance: 'medium',
    documentation:
      'The older setting: drop, rewrite, or none (a delete event becomes a tombstone). Ignored when delete.tombstone.handling.mode is set.',
  })
  .define({
    name: 'drop.tombstones',
    type: 'boolean',
    default: null,
    importance: 'medium',
    documentation:
      'The older setting (default true): drop tombstones. Ignored when delete.tombstone.handling.mode is set.',
  })
  .define({
    name: 'add.fields',
    type: 'list',
    default: [],
    importance: 'medium',
    documentation:
      'Envelope fields added to the value, named add.fields.prefix + the name with dots as underscores: `op`, `ts_ms`, a `source` field by its name (`table`, `lsn`) or path (`source.ts_ms`); `name:alias` renames.',
  })
  .define({
    name: 'add.fields.prefix',
    type: 'string',
    default: '__',
    importance: 'low',
    documentation: 'Prefix of the added fields.',
  })
  .define({
    name: 'add.headers',
    type: 'list',
    default: [],
    importance: 'medium',
    documentation: 'Envelope fields added as headers, named as add.fields names them.',
  })
  .define({
    name: 'add.headers.prefix',
    type: 'string',
    default: '__',
    importance: 'low',
    documentation: 'Prefix of the added headers.',
  })
  .define({
    name: 'route.by.field',
    type: 'string',
    default: null,
    importance: 'low',
    documentation: 'Not supported: refused when set (use RegexRouter).',
  });

/** One envelope field to copy: where it is and what it is called. */
interface Added {
  /** `['op']` or `['source', 'table']`; a bare name not in the envelope is looked up in `source`. */
  readonly path: readonly string[];
  readonly name: string;
}

const DELETED = '__deleted';
const DELETED_SCHEMA: Schema = { type: 'string', optional: true };

export class ExtractNewRecordState implements Transformation {
  #deletes: DeleteAs = 'tombstone';
  #keepTombstones = true;
  #rewrite = false;
  #fields: Added[] = [];
  #headers: Added[] = [];
  readonly #schemas = new WeakMap<Schema, WeakMap<Schema, Schema>>();

  config(): typeof EXTRACT_NEW_RECORD_STATE_DEF {
    return EXTRACT_NEW_RECORD_STATE_DEF;
  }

  configure(props: Readonly<Record<string, string>>): void {
    const v = EXTRACT_NEW_RECORD_STATE_DEF.parse(props);
    if (v['route.by.field'] !== null)
      throw new ConfigError([
        "route.by.field: is not supported by sharesink's ExtractNewRecordState; accepted: unset (route with RegexRouter instead)",
      ]);
    const mode = v['delete.tombstone.handling.mode'] as Handling | null;
    if (mode !== null) {
      this.#deletes = DELETE_AS[mode];
      this.#keepTombstones = mode !== 'drop' && mode !== 'rewrite';
    } else if (v['delete.handling.mode'] !== null || v['drop.tombstones'] !== null) {
      const legacy = v['delete.handling.mode'] ?? 'drop';
      this.#deletes = legacy === 'none' ? 'tombstone' : (legacy as 'drop' | 'rewrite');
      this.#keepTombstones = v['drop.tombstones'] === false;
    }
    this.#rewrite = this.#deletes === 'rewrite';
    this.#fields = v['add.fields'].map((f) => added(f, v['add.fields.prefix']));
    this.#headers = v['add.headers'].map((f) => added(f, v['add.headers.prefix']));
  }

  apply(record: SinkRecord): SinkRecord | null {
    const envelope = record.value;
    if (envelope === null || envelope === undefined) return this.#keepTombstones ? record : null;
    if (!isData(envelope) || !Object.hasOwn(envelope, 'op')) return record;
    const op = get(envelope, 'op');
    const schema = record.valueSchema;
    let headers = record.headers;
    for (const h of this.#headers) {
      const { value, schema: s } = lookup(envelope, schema, h.path);
      headers = headers.with(h.name, value, s);
    }
    if (op === 'd') {
      if (this.#deletes === 'drop') return null;
      if (this.#deletes === 'tombstone')
        return record.newRecord({ valueSchema: undefined, value: null, headers });
      if (this.#deletes === 'null')
        return record.newRecord({ valueSchema: stateSchema(schema, 'before'), value: null, headers });
    }
    const side = op === 'd' ? 'before' : 'after';
    const state = get(envelope, side);
    // truncate and message events carry no row
    if (!isData(state)) return null;
    const value: Data = { ...state };
    for (const f of this.#fields) put(value, f.name, lookup(envelope, schema, f.path).value);
    if (this.#rewrite) put(value, DELETED, op === 'd' ? 'true' : 'false');
    const valueSchema = schema === undefined ? undefined : this.#schemaOf(schema, side);
    return record.newRecord({ valueSchema, value, headers });
  }

  /** The row state's schema with the added fields, derived once per envelope schema. */
  #schemaOf(envelope: Schema, side: 'before' | 'after'): Schema | undefined {
    const row = stateSchema(envelope, side);
    if (row === undefined) return undefined;
    let bySide = this.#schemas.get(envelope);
    if (bySide === undefined) this.#schemas.set(envelope, (bySide = new WeakMap()));
    let derived = bySide.get(row);
    if (derived === undefined) {
      const fields: Field[] = [...(row.fields ?? [])];
      for (const f of this.#fields) {
        const s = lookup({}, envelope, f.path).schema;
        fields.push({ name: f.name, schema: { ...(s ?? { type: 'string' }), optional: true } });
      }
      if (this.#rewrite) fields.push({ name: DELETED, schema: DELETED_SCHEMA });
      derived = structSchema(row, fields);
      bySide.set(row, derived);
    }
    return derived;
  }

  close(): void {}
}

function added(spec: string, prefix: string): Added {
  const [field, alias] = spec.split(':', 2) as [string, string | undefined];
  const path = field.trim().split('.');
  return { path, name: prefix + (alias?.trim() ?? path.join('_')) };
}

function stateSchema(envelope: Schema | undefined, side: 'before' | 'after'): Schema | undefined {
  return envelope === undefined ? undefined : fieldOf(envelope, side)?.schema;
}

/** An envelope field's value and schema; a bare name the envelope lacks is looked up in `source`. */
function lookup(
  envelope: Data,
  schema: Schema | undefined,
  path: readonly string[],
): { value: unknown; schema: Schema | undefined } {
  const resolved =
    path.length === 1 &&
    !Object.hasOwn(envelope, path[0]!) &&
    (schema === undefined || fieldOf(schema, path[0]!) === undefined)
      ? ['source', path[0]!]
      : path;
  let value: unknown = envelope;
  let s = schema;
  for (const name of resolved) {
    value = isData(value) ? get(value, name) : null;
    s = s === undefined ? undefined : fieldOf(s, name)?.schema;
  }
  return { value: value ?? null, schema: s };
}
