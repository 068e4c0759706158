/**
 * What to tell a Kafka Connect user whose file names a Java class sharesink cannot load: that it runs
 * no Java, and what to write instead. A connector file written for Connect names Confluent's JDBC or
 * HTTP sink, Schema Registry's converters, Debezium's transforms; "not a … sharesink has" and a list of
 * built-ins leaves the person guessing whether it is a typo, a missing plugin or a missing feature.
 */
import { closestName } from './did-you-mean.js';

export type PluginKind = 'sink connector' | 'converter' | 'header converter' | 'transform' | 'predicate';

const WHAT_TO_WRITE: Readonly<Record<PluginKind, string>> = {
  'sink connector':
    'use a built-in sink (FileStreamSink, PostgresSink, JdbcSinkConnector, HttpSink, KafkaSink, NoopSink; docs/sinks.md) or a Node module whose default export is { connector, task } (docs/connector-authoring.md)',
  converter:
    'use JsonConverter, StringConverter, ByteArrayConverter, or the Schema Registry converters (io.confluent.connect.avro.AvroConverter, io.confluent.connect.protobuf.ProtobufConverter, io.confluent.connect.json.JsonSchemaConverter; docs/converters.md), or a Node module whose default export is a Converter class (configure, toConnectData)',
  'header converter':
    'use SimpleHeaderConverter, JsonConverter, StringConverter or ByteArrayConverter, or a Node module whose default export is a HeaderConverter class',
  transform:
    "use Kafka's built-in transforms (docs/transforms.md) or a Node module whose default export is a Transformation class (docs/transforms.md#custom-transforms)",
  predicate:
    "use Kafka's built-in predicates (docs/transforms.md) or a Node module whose default export is a Predicate class (docs/transforms.md#custom-transforms)",
};

interface Known {
  readonly test: RegExp;
  readonly hint: string;
}

const JDBC =
  "sharesink runs Confluent's and Aiven's JDBC sink files as they are (connector.class=io.confluent.connect.jdbc.JdbcSinkConnector or io.aiven.connect.jdbc.JdbcSinkConnector, PostgreSQL and MySQL/MariaDB; docs/jdbc-sink.md): name one of those, with the same settings";
const HTTP =
  'use connector.class=HttpSink, which has its own settings (http.url rather than http.api.url, http.headers, batch.max.size, retry.on.status.codes; docs/sinks.md#httpsink)';
const REGISTRY =
  "sharesink reads the Confluent wire format (magic byte 0, 4-byte schema id) with io.confluent.connect.avro.AvroConverter, io.confluent.connect.protobuf.ProtobufConverter or io.confluent.connect.json.JsonSchemaConverter and schema.registry.url (docs/converters.md). Apicurio's own converters use Apicurio's API and framing: have the producers write Confluent-compatible framing (Apicurio serdes: a 4-byte id handler, headers off) and point schema.registry.url at Apicurio's /apis/ccompat/v7";

const KNOWN_CONNECTORS: readonly Known[] = [
  {
    test: /(?:^|\.)\w*SourceConnector$|^io\.debezium\.connector\.(?!jdbc\.)|^org\.apache\.kafka\.connect\.mirror\./,
    hint: 'it is a source connector, and sharesink runs sink connectors only',
  },
  { test: /\.jdbc\.\w*SinkConnector$/, hint: JDBC },
  { test: /\.http\.\w*SinkConnector$|\.HttpSinkConnector$/, hint: HTTP },
];

const KNOWN_CONVERTERS: readonly Known[] = [
  {
    test: /AvroConverter$|ProtobufConverter$|JsonSchemaConverter$|^io\.apicurio\./,
    hint: REGISTRY,
  },
  {
    test: /^org\.apache\.kafka\.connect\.converters\.(Integer|Long|Short|Float|Double|Boolean|Number)Converter$/,
    hint: "Kafka's number and boolean converters are not built in: ByteArrayConverter hands the bytes to the sink as they are, or a converter module decodes them",
  },
];

const KNOWN_TRANSFORMS: readonly Known[] = [
  {
    test: /^io\.(confluent|debezium)\./,
    hint: 'transforms from outside Apache Kafka are not built in; write a transform module that does the same (docs/transforms.md#custom-transforms)',
  },
];

const KNOWN: Readonly<Record<PluginKind, readonly Known[]>> = {
  'sink connector': KNOWN_CONNECTORS,
  converter: KNOWN_CONVERTERS,
  'header converter': KNOWN_CONVERTERS,
  transform: KNOWN_TRANSFORMS,
  predicate: [],
};

/**
 * Why a class name cannot be loaded and what to write instead, e.g. for
 * `io.confluent.connect.jdbc.JdbcSinkConnector`: `is a Java class, and sharesink runs no Java …; for
 * PostgreSQL use connector.class=PostgresSink …`. A bare capitalised name that is a near miss of a
 * built-in (`PostgresSinkConector`) is a typo, not a Java class: `is not a sink connector sharesink
 * has (did you mean PostgresSinkConnector?)`.
 */
export function javaClassProblem(kind: PluginKind, name: string, builtins: readonly string[]): string {
  const dotted = name.includes('.');
  const short = name.slice(name.lastIndexOf('.') + 1);
  if (!dotted) {
    const meant = closestName(name, builtins, 3);
    if (meant !== undefined) return `is not a ${kind} sharesink has (did you mean ${meant}?)`;
  }
  const known = KNOWN[kind].find((k) => k.test.test(name));
  if (known !== undefined) return `is a Java class, and sharesink runs no Java: ${known.hint}`;
  if (dotted && builtins.includes(short)) {
    // Kafka's own name in the wrong package is a typo; another vendor's class of the same name is not
    if (name.startsWith('org.apache.kafka.')) {
      const kafkas = builtins.find((b) => b.startsWith('org.apache.kafka.') && b.endsWith(`.${short}`));
      return `is not a ${kind} sharesink has (did you mean ${kafkas ?? short}?)`;
    }
    return `is a Java class, and sharesink runs no Java; sharesink's own ${short} is a different implementation with settings of its own: check them before naming it`;
  }
  return dotted
    ? `is a Java class, and sharesink runs no Java: ${WHAT_TO_WRITE[kind]}`
    : `is not a ${kind} sharesink has, nor a module path or npm package name (those are lowercase): ${WHAT_TO_WRITE[kind]}`;
}
