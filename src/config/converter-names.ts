/**
 * The converter names `createConverters` (src/connect/converters/registry.ts) builds in. Validation
 * runs synchronously, before anything is imported, so it needs the names without the registry's async
 * loader; a unit test checks that the registry accepts every name listed here.
 */
const PLAIN_CONVERTERS: readonly string[] = [
  'org.apache.kafka.connect.json.JsonConverter',
  'JsonConverter',
  'org.apache.kafka.connect.storage.StringConverter',
  'StringConverter',
  'org.apache.kafka.connect.converters.ByteArrayConverter',
  'ByteArrayConverter',
];

/** Connect's Schema Registry converters: key and value converters only, as in Connect. */
export const REGISTRY_CONVERTER_NAMES: readonly string[] = [
  'io.confluent.connect.avro.AvroConverter',
  'AvroConverter',
  'io.confluent.connect.protobuf.ProtobufConverter',
  'ProtobufConverter',
  'io.confluent.connect.json.JsonSchemaConverter',
  'JsonSchemaConverter',
];

export const BUILTIN_VALUE_CONVERTERS: readonly string[] = [...PLAIN_CONVERTERS, ...REGISTRY_CONVERTER_NAMES];

export const BUILTIN_HEADER_CONVERTERS: readonly string[] = [
  'org.apache.kafka.connect.storage.SimpleHeaderConverter',
  'SimpleHeaderConverter',
  ...PLAIN_CONVERTERS,
];
