/**
 * Connect's data schemas, as plain objects: the shape JsonConverter reads from and writes to its
 * `{"schema":…,"payload":…}` envelope. Values are plain JS: a struct is an object, bytes a Buffer,
 * int64 a number, the Date/Time/Timestamp logical types a Date, Decimal a decimal string.
 */
export type SchemaType =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'float32'
  | 'float64'
  | 'boolean'
  | 'string'
  | 'bytes'
  | 'array'
  | 'map'
  | 'struct';

export interface Field {
  readonly name: string;
  readonly schema: Schema;
}

export interface Schema {
  readonly type: SchemaType;
  readonly optional?: boolean;
  readonly name?: string;
  readonly version?: number;
  readonly doc?: string;
  readonly parameters?: Readonly<Record<string, string>>;
  readonly default?: unknown;
  /** struct only */
  readonly fields?: readonly Field[];
  /** map only */
  readonly keySchema?: Schema;
  /** array and map */
  readonly valueSchema?: Schema;
}

export const LOGICAL = {
  decimal: 'org.apache.kafka.connect.data.Decimal',
  date: 'org.apache.kafka.connect.data.Date',
  time: 'org.apache.kafka.connect.data.Time',
  timestamp: 'org.apache.kafka.connect.data.Timestamp',
} as const;

const primitive = (type: SchemaType, optional: boolean): Schema => Object.freeze({ type, optional });

/** The primitive schemas Connect names as constants (`Schema.STRING_SCHEMA`, `OPTIONAL_STRING_SCHEMA`, ...). */
export const Schemas = Object.freeze({
  INT8: primitive('int8', false),
  INT16: primitive('int16', false),
  INT32: primitive('int32', false),
  INT64: primitive('int64', false),
  FLOAT32: primitive('float32', false),
  FLOAT64: primitive('float64', false),
  BOOLEAN: primitive('boolean', false),
  STRING: primitive('string', false),
  BYTES: primitive('bytes', false),
  OPTIONAL_INT8: primitive('int8', true),
  OPTIONAL_INT16: primitive('int16', true),
  OPTIONAL_INT32: primitive('int32', true),
  OPTIONAL_INT64: primitive('int64', true),
  OPTIONAL_FLOAT32: primitive('float32', true),
  OPTIONAL_FLOAT64: primitive('float64', true),
  OPTIONAL_BOOLEAN: primitive('boolean', true),
  OPTIONAL_STRING: primitive('string', true),
  OPTIONAL_BYTES: primitive('bytes', true),
});

/** A value with the schema it was read with; `schema` is undefined for schemaless data. */
export interface SchemaAndValue {
  readonly schema: Schema | undefined;
  readonly value: unknown;
}

export const NULL_SCHEMA_AND_VALUE: SchemaAndValue = Object.freeze({ schema: undefined, value: null });
