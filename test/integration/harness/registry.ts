/**
 * The local schema registry (scripts/registry/start.sh: Apicurio Registry with the Confluent API) and
 * a producer that is not sharesink's: Apache Avro's Java library and Kafka's Java producer
 * (test/integration/java/AvroProducer.java). `schemaRegistry()` starts the registry when nothing
 * answers, and fails — never skips — when it cannot.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './broker.js';

const PORT = Number(process.env.REGISTRY_PORT ?? 18081);
/** What a converter's schema.registry.url takes. */
export const REGISTRY_URL = `http://127.0.0.1:${PORT}/apis/ccompat/v7`;

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

async function answers(): Promise<boolean> {
  try {
    const res = await fetch(`${REGISTRY_URL}/subjects`, { signal: AbortSignal.timeout(3_000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

let ready: Promise<string> | undefined;

/** The registry's Confluent-API URL, starting the registry if nothing answers there. */
export function schemaRegistry(): Promise<string> {
  ready ??= (async () => {
    if (await answers()) return REGISTRY_URL;
    const result = await run('bash', [path.join(REPO_ROOT, 'scripts', 'registry', 'start.sh')], {
      REGISTRY_PORT: String(PORT),
    });
    if (result.code !== 0 || !(await answers()))
      throw new Error(
        `could not start the schema registry (scripts/registry/start.sh exit ${result.code}); it needs Java 17+ and Maven (Apicurio Registry from Maven Central). Output:\n${result.output}`,
      );
    return REGISTRY_URL;
  })();
  return ready;
}

/** Registers a schema under `subject`; returns its id. */
export async function registerSchema(
  subject: string,
  schema: string,
  schemaType: 'AVRO' | 'PROTOBUF' | 'JSON' = 'AVRO',
): Promise<number> {
  const res = await fetch(`${REGISTRY_URL}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify(schemaType === 'AVRO' ? { schema } : { schema, schemaType }),
  });
  const body = (await res.json()) as { id?: number };
  if (res.status !== 200 || typeof body.id !== 'number')
    throw new Error(`registering ${subject}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

let producerClasspath: Promise<string> | undefined;

/** The classpath of AvroProducer.java (Avro + kafka-clients), resolved with Maven once. */
function avroProducerClasspath(): Promise<string> {
  producerClasspath ??= (async () => {
    const dir = path.join(REPO_ROOT, '.registry');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'avro-producer.cp');
    if (
      existsSync(file) &&
      readFileSync(file, 'utf8')
        .split(':')
        .every((jar) => existsSync(jar))
    )
      return readFileSync(file, 'utf8');
    const result = await run('mvn', [
      '-B',
      '-q',
      '-f',
      path.join(REPO_ROOT, 'test', 'integration', 'java', 'pom.xml'),
      'dependency:build-classpath',
      '-Dmdep.includeScope=runtime',
      `-Dmdep.outputFile=${file}`,
    ]);
    if (result.code !== 0 || !existsSync(file))
      throw new Error(
        `Maven could not resolve the Avro producer's jars (org.apache.avro:avro, kafka-clients):\n${result.output}`,
      );
    return readFileSync(file, 'utf8');
  })();
  return producerClasspath;
}

/**
 * Writes `records` (one JSON object each; decimals as strings, dates as ISO days, timestamps and times
 * as epoch / day millis) to `topic` with Apache Avro's Java encoder and Kafka's Java producer, after
 * registering `schema` as `<topic>-value`. Returns the schema id the producer used. With `keySchema`
 * (registered as `<topic>-key`), each record is `{ key, value }` and a null value is a tombstone.
 */
export async function produceAvroWithJava(
  brokers: string,
  topic: string,
  schema: object,
  records: readonly object[],
  keySchema?: object,
): Promise<number> {
  const cp = await avroProducerClasspath();
  const dir = path.join(REPO_ROOT, '.registry', 'producer-input');
  mkdirSync(dir, { recursive: true });
  const schemaFile = path.join(dir, `${topic}.avsc`);
  const recordsFile = path.join(dir, `${topic}.jsonl`);
  writeFileSync(schemaFile, JSON.stringify(schema));
  writeFileSync(recordsFile, records.map((r) => JSON.stringify(r)).join('\n'));
  const keySchemaFile = path.join(dir, `${topic}.key.avsc`);
  if (keySchema !== undefined) writeFileSync(keySchemaFile, JSON.stringify(keySchema));
  // a single-file Java program: java compiles and runs it in one go
  const result = await run('java', [
    '-Xmx256m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-cp',
    cp,
    path.join(REPO_ROOT, 'test', 'integration', 'java', 'AvroProducer.java'),
    brokers,
    REGISTRY_URL,
    topic,
    schemaFile,
    recordsFile,
    ...(keySchema === undefined ? [] : [keySchemaFile]),
  ]);
  const match = /sent (\d+) records with schema id (\d+)/.exec(result.output);
  if (result.code !== 0 || match === null || Number(match[1]) !== records.length)
    throw new Error(
      `AvroProducer (exit ${result.code}) did not report ${records.length} records sent:\n${result.output}`,
    );
  return Number(match[2]);
}
