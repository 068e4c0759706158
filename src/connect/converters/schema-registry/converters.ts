/**
 * Connect's Schema Registry converters by their Java class names: AvroConverter, ProtobufConverter and
 * JsonSchemaConverter read the Confluent wire format (magic byte 0, 4-byte schema id) with the schema
 * fetched from the registry by id. They decode only (a sink runtime never serializes with them).
 */
import { compileAvro, type CompiledSchema, type ResolvedReference } from './avro-data.js';
import { compileJsonSchema } from './json-schema-data.js';
import { compileProtobuf } from './protobuf-data.js';
import { SchemaRegistryConverter } from './registry-converter.js';

export class AvroConverter extends SchemaRegistryConverter {
  protected readonly schemaType = 'AVRO';
  protected readonly className = 'AvroConverter';
  protected compile(schema: string, references: readonly ResolvedReference[]): CompiledSchema {
    return compileAvro(schema, references);
  }
}

export class ProtobufConverter extends SchemaRegistryConverter {
  protected readonly schemaType = 'PROTOBUF';
  protected readonly className = 'ProtobufConverter';
  protected compile(schema: string, references: readonly ResolvedReference[]): CompiledSchema {
    return compileProtobuf(schema, references);
  }
}

export class JsonSchemaConverter extends SchemaRegistryConverter {
  protected readonly schemaType = 'JSON';
  protected readonly className = 'JsonSchemaConverter';
  protected compile(schema: string, references: readonly ResolvedReference[]): CompiledSchema {
    return compileJsonSchema(schema, references);
  }
}

/** The class names Connect files use, and the short names, to the converters. */
export const REGISTRY_CONVERTERS: Readonly<Record<string, () => SchemaRegistryConverter>> = {
  'io.confluent.connect.avro.AvroConverter': () => new AvroConverter(),
  AvroConverter: () => new AvroConverter(),
  'io.confluent.connect.protobuf.ProtobufConverter': () => new ProtobufConverter(),
  ProtobufConverter: () => new ProtobufConverter(),
  'io.confluent.connect.json.JsonSchemaConverter': () => new JsonSchemaConverter(),
  JsonSchemaConverter: () => new JsonSchemaConverter(),
};
