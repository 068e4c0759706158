/**
 * The built-in transforms and predicates, by every name a Connect user may write in `type`: Connect's
 * class name (`org.apache.kafka.connect.transforms.InsertField$Value`) and the short one
 * (`InsertField$Value`), as converters are named (src/config/converter-names.ts).
 */
import type { ConfigDef } from '../config-def.js';
import { CAST_DEF, Cast } from './cast.js';
import { KEY, VALUE, type Operating } from './data.js';
import { DROP_HEADERS_DEF, DropHeaders } from './drop-headers.js';
import { EXTRACT_FIELD_DEF, ExtractField } from './extract-field.js';
import { FILTER_DEF, Filter } from './filter.js';
import { EXTRACT_NEW_RECORD_STATE_DEF, ExtractNewRecordState } from './extract-new-record-state.js';
import { FLATTEN_DEF, Flatten } from './flatten.js';
import { HEADER_FROM_DEF, HeaderFrom } from './header-from.js';
import { HOIST_FIELD_DEF, HoistField } from './hoist-field.js';
import { INSERT_FIELD_DEF, InsertField } from './insert-field.js';
import { INSERT_HEADER_DEF, InsertHeader } from './insert-header.js';
import { MASK_FIELD_DEF, MaskField } from './mask-field.js';
import {
  HAS_HEADER_KEY_DEF,
  HasHeaderKey,
  RECORD_IS_TOMBSTONE_DEF,
  RecordIsTombstone,
  TOPIC_NAME_MATCHES_DEF,
  TopicNameMatches,
} from './predicates.js';
import { REGEX_ROUTER_DEF, RegexRouter } from './regex-router.js';
import { REPLACE_FIELD_DEF, ReplaceField } from './replace-field.js';
import { SET_SCHEMA_METADATA_DEF, SetSchemaMetadata } from './set-schema-metadata.js';
import { TIMESTAMP_CONVERTER_DEF, TimestampConverter } from './timestamp-converter.js';
import { TIMESTAMP_ROUTER_DEF, TimestampRouter } from './timestamp-router.js';
import type { Predicate, Transformation } from './transformation.js';
import { VALUE_TO_KEY_DEF, ValueToKey } from './value-to-key.js';

export const TRANSFORMS_PACKAGE = 'org.apache.kafka.connect.transforms.';
export const PREDICATES_PACKAGE = 'org.apache.kafka.connect.transforms.predicates.';

// the declarations are typed by their keys; the registry only needs their shared surface
type AnyDef = ConfigDef<never>;

export interface BuiltinTransform {
  /** The short name, `InsertField$Value`; also the canonical one. */
  readonly name: string;
  /** Connect's class name. */
  readonly className: string;
  readonly def: AnyDef;
  /** One line for the generated documentation. */
  readonly summary: string;
  readonly create: () => Transformation;
}

export interface BuiltinPredicate {
  readonly name: string;
  readonly className: string;
  readonly def: AnyDef;
  readonly summary: string;
  readonly create: () => Predicate;
}

interface Family {
  readonly name: string;
  readonly def: AnyDef;
  readonly summary: string;
  /** Connect has `$Key` and `$Value` classes for it. */
  readonly sided: boolean;
  readonly create: (side: Operating) => Transformation;
}

const FAMILIES: readonly Family[] = [
  {
    name: 'InsertField',
    def: INSERT_FIELD_DEF as AnyDef,
    sided: true,
    summary: 'Adds the topic, partition, offset, timestamp and/or a static value as fields.',
    create: (side) => new InsertField(side),
  },
  {
    name: 'ReplaceField',
    def: REPLACE_FIELD_DEF as AnyDef,
    sided: true,
    summary: 'Keeps, drops and renames fields.',
    create: (side) => new ReplaceField(side),
  },
  {
    name: 'MaskField',
    def: MASK_FIELD_DEF as AnyDef,
    sided: true,
    summary: "Replaces fields with their type's empty value or a replacement.",
    create: (side) => new MaskField(side),
  },
  {
    name: 'ValueToKey',
    def: VALUE_TO_KEY_DEF as AnyDef,
    sided: false,
    summary: "Replaces the key with a map/struct of some of the value's fields.",
    create: () => new ValueToKey(),
  },
  {
    name: 'ExtractField',
    def: EXTRACT_FIELD_DEF as AnyDef,
    sided: true,
    summary: 'Replaces the key or value with one of its fields.',
    create: (side) => new ExtractField(side),
  },
  {
    name: 'HoistField',
    def: HOIST_FIELD_DEF as AnyDef,
    sided: true,
    summary: 'Wraps the key or value in a map/struct with one field.',
    create: (side) => new HoistField(side),
  },
  {
    name: 'Cast',
    def: CAST_DEF as AnyDef,
    sided: true,
    summary: 'Casts the whole key/value or some fields to another primitive type.',
    create: (side) => new Cast(side),
  },
  {
    name: 'TimestampConverter',
    def: TIMESTAMP_CONVERTER_DEF as AnyDef,
    sided: true,
    summary: 'Converts timestamps between unix times, formatted strings and Date/Time/Timestamp.',
    create: (side) => new TimestampConverter(side),
  },
  {
    name: 'RegexRouter',
    def: REGEX_ROUTER_DEF as AnyDef,
    sided: false,
    summary: 'Renames the topic the sink sees when the whole name matches a regular expression.',
    create: () => new RegexRouter(),
  },
  {
    name: 'TimestampRouter',
    def: TIMESTAMP_ROUTER_DEF as AnyDef,
    sided: false,
    summary: "Renames the topic the sink sees after the topic and the record's timestamp.",
    create: () => new TimestampRouter(),
  },
  {
    name: 'Filter',
    def: FILTER_DEF as AnyDef,
    sided: false,
    summary: 'Drops the record (with a predicate: the records it matches).',
    create: () => new Filter(),
  },
  {
    name: 'Flatten',
    def: FLATTEN_DEF as AnyDef,
    sided: true,
    summary: 'Flattens nested maps/structs into top-level fields named with a delimiter.',
    create: (side) => new Flatten(side),
  },
  {
    name: 'SetSchemaMetadata',
    def: SET_SCHEMA_METADATA_DEF as AnyDef,
    sided: true,
    summary: "Sets the key or value schema's name and/or version.",
    create: (side) => new SetSchemaMetadata(side),
  },
  {
    name: 'InsertHeader',
    def: INSERT_HEADER_DEF as AnyDef,
    sided: false,
    summary: 'Adds a header with a literal value.',
    create: () => new InsertHeader(),
  },
  {
    name: 'DropHeaders',
    def: DROP_HEADERS_DEF as AnyDef,
    sided: false,
    summary: 'Removes headers by name.',
    create: () => new DropHeaders(),
  },
  {
    name: 'HeaderFrom',
    def: HEADER_FROM_DEF as AnyDef,
    sided: true,
    summary: 'Copies or moves fields of the key or value into headers.',
    create: (side) => new HeaderFrom(side),
  },
];

function expand(family: Family): BuiltinTransform[] {
  if (!family.sided)
    return [{ ...family, className: TRANSFORMS_PACKAGE + family.name, create: () => family.create(VALUE) }];
  return (['Key', 'Value'] as const).map((variant) => {
    const name = `${family.name}$${variant}`;
    const side = variant === 'Key' ? KEY : VALUE;
    return { ...family, name, className: TRANSFORMS_PACKAGE + name, create: () => family.create(side) };
  });
}

/** Transforms from outside Apache Kafka that Connect pipelines commonly name, under their own class names. */
const OTHERS: readonly BuiltinTransform[] = [
  {
    name: 'ExtractNewRecordState',
    className: 'io.debezium.transforms.ExtractNewRecordState',
    def: EXTRACT_NEW_RECORD_STATE_DEF as AnyDef,
    summary:
      "Debezium's event flattening: a change event becomes the row state after the change; deletes as configured.",
    create: () => new ExtractNewRecordState(),
  },
];

/** Every built-in transform, in documentation order, Key before Value. */
export const BUILTIN_TRANSFORM_LIST: readonly BuiltinTransform[] = [...FAMILIES.flatMap(expand), ...OTHERS];

/** Families with `$Key`/`$Value` classes, for "use InsertField$Value" when the bare name is written. */
export const SIDED_FAMILIES: ReadonlySet<string> = new Set(
  FAMILIES.filter((f) => f.sided).map((f) => f.name),
);

export const BUILTIN_PREDICATE_LIST: readonly BuiltinPredicate[] = [
  {
    name: 'TopicNameMatches',
    def: TOPIC_NAME_MATCHES_DEF as AnyDef,
    summary: 'True when the whole topic name matches a regular expression.',
    create: () => new TopicNameMatches(),
  },
  {
    name: 'HasHeaderKey',
    def: HAS_HEADER_KEY_DEF as AnyDef,
    summary: 'True when the record has at least one header with the name.',
    create: () => new HasHeaderKey(),
  },
  {
    name: 'RecordIsTombstone',
    def: RECORD_IS_TOMBSTONE_DEF as AnyDef,
    summary: 'True when the record value is null.',
    create: () => new RecordIsTombstone(),
  },
].map((p) => ({ ...p, className: PREDICATES_PACKAGE + p.name }));

function byEveryName<T extends { name: string; className: string }>(
  list: readonly T[],
): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const item of list) {
    map.set(item.className, item);
    map.set(item.name, item);
  }
  return map;
}

export const BUILTIN_TRANSFORMS: ReadonlyMap<string, BuiltinTransform> = byEveryName(BUILTIN_TRANSFORM_LIST);
export const BUILTIN_PREDICATES: ReadonlyMap<string, BuiltinPredicate> = byEveryName(BUILTIN_PREDICATE_LIST);
