import { describe, expect, it } from 'vitest';
import {
  compileConnectorConfig,
  compileWorkerConfig,
  validateWorkerConfig,
} from '../../../src/config/index.js';
import { base, problemsOf, worker } from './config-helpers.js';

/** The problem's text before `; accepted: …` (the list of built-ins, unchanged). */
const said = (problem: string | undefined) => problem?.split('; accepted: ')[0];

describe('Java class names from Connect files say that sharesink runs no Java, and what to use', () => {
  it("another vendor's JDBC sink: Confluent's or Aiven's class name, which run as they are", () => {
    const [problem] = problemsOf(() =>
      compileConnectorConfig(
        { ...base, 'connector.class': 'io.debezium.connector.jdbc.JdbcSinkConnector' },
        worker,
      ),
    );
    expect(said(problem)).toBe(
      'connector.class: "io.debezium.connector.jdbc.JdbcSinkConnector" is a Java class, and sharesink runs no Java: sharesink runs Confluent\'s and Aiven\'s JDBC sink files as they are (connector.class=io.confluent.connect.jdbc.JdbcSinkConnector or io.aiven.connect.jdbc.JdbcSinkConnector, PostgreSQL and MySQL/MariaDB; docs/jdbc-sink.md): name one of those, with the same settings',
    );
  });

  it('an HTTP sink: HttpSink, with http.url rather than http.api.url', () => {
    const [problem] = problemsOf(() =>
      compileConnectorConfig(
        { ...base, 'connector.class': 'io.confluent.connect.http.HttpSinkConnector' },
        worker,
      ),
    );
    expect(said(problem)).toContain(
      'use connector.class=HttpSink, which has its own settings (http.url rather than http.api.url',
    );
  });

  it('a source connector: sharesink runs sink connectors only', () => {
    for (const name of [
      'org.apache.kafka.connect.file.FileStreamSourceConnector',
      'io.debezium.connector.postgresql.PostgresConnector',
    ]) {
      const [problem] = problemsOf(() =>
        compileConnectorConfig({ ...base, 'connector.class': name }, worker),
      );
      expect(said(problem)).toBe(
        `connector.class: ${JSON.stringify(name)} is a Java class, and sharesink runs no Java: it is a source connector, and sharesink runs sink connectors only`,
      );
    }
  });

  it('any other Java sink: a built-in sink or a module', () => {
    const [problem] = problemsOf(() =>
      compileConnectorConfig(
        { ...base, 'connector.class': 'io.confluent.connect.s3.S3SinkConnector' },
        worker,
      ),
    );
    expect(said(problem)).toBe(
      'connector.class: "io.confluent.connect.s3.S3SinkConnector" is a Java class, and sharesink runs no Java: use a built-in sink (FileStreamSink, PostgresSink, JdbcSinkConnector, HttpSink, KafkaSink, NoopSink; docs/sinks.md) or a Node module whose default export is { connector, task } (docs/connector-authoring.md)',
    );
  });

  it('a typo of a built-in is a typo, not a Java class', () => {
    const [bare] = problemsOf(() =>
      compileConnectorConfig({ ...base, 'connector.class': 'PostgresSinkConector' }, worker),
    );
    expect(said(bare)).toBe(
      'connector.class: "PostgresSinkConector" is not a sink connector sharesink has (did you mean PostgresSinkConnector?)',
    );
    const [wrongPackage] = problemsOf(() =>
      compileConnectorConfig(
        { ...base, 'value.converter': 'org.apache.kafka.connect.storage.JsonConverter' },
        worker,
      ),
    );
    expect(said(wrongPackage)).toBe(
      'value.converter: "org.apache.kafka.connect.storage.JsonConverter" is not a converter sharesink has (did you mean org.apache.kafka.connect.json.JsonConverter?)',
    );
  });

  it("Schema Registry's AvroConverter in a worker file: a converter module, or JSON", () => {
    const check = validateWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'value.converter': 'io.confluent.connect.avro.AvroConverter',
      'value.converter.schema.registry.url': 'http://localhost:8081',
    });
    expect(check.problems.map(said)).toEqual([
      'value.converter: "io.confluent.connect.avro.AvroConverter" is a Java class, and sharesink runs no Java: records in Schema Registry formats need a converter module that decodes them (a Node module whose default export is a Converter class); or have the producers write JSON and use JsonConverter',
    ]);
  });

  it("Debezium's ExtractNewRecordState is built in; its other transforms are not", () => {
    const config = compileConnectorConfig(
      {
        ...base,
        transforms: 'unwrap',
        'transforms.unwrap.type': 'io.debezium.transforms.ExtractNewRecordState',
      },
      worker,
    );
    expect(config.transforms.transforms).toHaveLength(1);
    const [problem] = problemsOf(() =>
      compileConnectorConfig(
        { ...base, transforms: 'r', 'transforms.r.type': 'io.debezium.transforms.ByLogicalTableRouter' },
        worker,
      ),
    );
    expect(said(problem)).toMatch(
      /^transforms\.r\.type: "io\.debezium\.transforms\.ByLogicalTableRouter" is a Java class, and sharesink runs no Java: transforms from outside Apache Kafka are not built in/,
    );
  });

  it('a .jar in plugin.path (as Kafka’s quickstart has it) is named once: it cannot provide a connector', () => {
    const config = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'plugin.path': 'libs/connect-file-4.0.0.jar,/opt/sharesink/plugins',
    });
    expect(config.warnings).toEqual([
      'plugin.path: libs/connect-file-4.0.0.jar: a Java archive, which sharesink cannot load (it runs no Java); no effect. plugin.path names directories of Node connector, converter and transform modules that REST requests may name; the built-in sinks (FileStreamSink, PostgresSink, the JDBC sink, HttpSink, KafkaSink, NoopSink) need none',
    ]);
  });
});
