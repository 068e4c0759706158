/** The connector contract: everything a connector author imports. */
export { SinkConnector, type SinkConnectorContext } from './sink-connector.js';
export { SinkTask, type SinkTaskContext, type ErrantRecordReporter } from './sink-task.js';
export {
  SinkRecord,
  ALL_PARTITIONS,
  type SinkRecordInit,
  type TimestampType,
  type TopicPartition,
  type TopicPartitionOffset,
} from './sink-record.js';
export { ConnectHeaders, type Header } from './headers.js';
export { Schemas, LOGICAL, type Schema, type SchemaType, type Field, type SchemaAndValue } from './schema.js';
export { ConnectError, RetriableError, DataError, ConverterError, isRetriableError } from './errors.js';
export {
  AvroConverter,
  JsonSchemaConverter,
  ProtobufConverter,
} from './converters/schema-registry/converters.js';
export { RegistryUnreachableError } from './converters/schema-registry/client.js';
export {
  ConfigDef,
  Password,
  type ConfigType,
  type Importance,
  type ConfigKey,
  type ConfigValues,
} from './config-def.js';
export { atLeast, between, oneOf, nonEmptyString, listOf, all, type Validator } from './config-validators.js';
export {
  BUILTIN_CONNECTORS,
  resolveConnectorModule,
  loadConnectorModule,
  type ConnectorModule,
} from './connector-module.js';
export type { RawRecord, RawHeader } from './raw-record.js';
export type { Converter, HeaderConverter } from './converters/converter.js';
export { StringConverter } from './converters/string-converter.js';
export { ByteArrayConverter } from './converters/byte-array-converter.js';
export { JsonConverter } from './converters/json-converter.js';
export { SimpleHeaderConverter } from './converters/simple-header-converter.js';
export {
  DEFAULT_CONVERTERS,
  convertersFromProps,
  createConverters,
  type ConverterSpec,
  type ConvertersConfig,
  type LoadedConverters,
} from './converters/registry.js';
export { convertBatch, type ConvertedBatch, type ConversionFailure } from './converters/convert-batch.js';
export type {
  Transformation,
  Predicate,
  TransformationClass,
  PredicateClass,
} from './transforms/transformation.js';
export { TransformError, TransformModuleError } from './transforms/errors.js';
export { TransformChain, type ChainResult } from './transforms/chain.js';
export type { TransformsConfig, TransformSpec, PluginSpec } from './transforms/spec.js';
