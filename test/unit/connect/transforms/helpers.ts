import { ConnectHeaders, type Header } from '../../../../src/connect/headers.js';
import type { Schema } from '../../../../src/connect/schema.js';
import { SinkRecord, type SinkRecordInit } from '../../../../src/connect/sink-record.js';
import { BUILTIN_PREDICATES, BUILTIN_TRANSFORMS } from '../../../../src/connect/transforms/builtins.js';
import type { Predicate, Transformation } from '../../../../src/connect/transforms/transformation.js';

export function rec(init: Partial<SinkRecordInit> & { headerList?: Header[] } = {}, index = 0): SinkRecord {
  const { headerList, ...rest } = init;
  return new SinkRecord(
    {
      topic: 'orders',
      partition: 3,
      offset: 42,
      timestamp: Date.UTC(2026, 0, 29, 13, 45, 6, 789),
      timestampType: 'CreateTime',
      key: null,
      value: null,
      ...(headerList ? { headers: new ConnectHeaders(headerList) } : {}),
      ...rest,
    },
    index,
  );
}

export function transform(type: string, props: Record<string, string> = {}): Transformation {
  const builtin = BUILTIN_TRANSFORMS.get(type);
  if (builtin === undefined) throw new Error(`no builtin ${type}`);
  const t = builtin.create();
  t.configure(props);
  return t;
}

export function predicate(type: string, props: Record<string, string> = {}): Predicate {
  const p = BUILTIN_PREDICATES.get(type)!.create();
  p.configure(props);
  return p;
}

export const struct = (fields: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({
  type: 'struct',
  optional: false,
  fields: Object.entries(fields).map(([name, schema]) => ({ name, schema })),
  ...extra,
});

export const STRING: Schema = { type: 'string', optional: false };
export const OPT_STRING: Schema = { type: 'string', optional: true };
export const INT32: Schema = { type: 'int32', optional: false };
export const INT64: Schema = { type: 'int64', optional: false };
export const FLOAT64: Schema = { type: 'float64', optional: false };
export const BOOLEAN: Schema = { type: 'boolean', optional: false };
