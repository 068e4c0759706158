/**
 * The converter names `createConverters` (src/connect/converters/registry.ts) builds in. Validation
 * runs synchronously, before anything is imported, so it needs the names without the registry's async
 * loader; a unit test checks that the registry accepts every name listed here.
 */
export const BUILTIN_VALUE_CONVERTERS: readonly string[] = [
  'org.apache.kafka.connect.json.JsonConverter',
  'JsonConverter',
  'org.apache.kafka.connect.storage.StringConverter',
  'StringConverter',
  'org.apache.kafka.connect.converters.ByteArrayConverter',
  'ByteArrayConverter',
];

export const BUILTIN_HEADER_CONVERTERS: readonly string[] = [
  'org.apache.kafka.connect.storage.SimpleHeaderConverter',
  'SimpleHeaderConverter',
  ...BUILTIN_VALUE_CONVERTERS,
];
