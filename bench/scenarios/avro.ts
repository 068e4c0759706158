/**
 * Scenario 9: what decoding Avro costs. The same rows are written twice, Avro in the Confluent wire
 * format (schema registered with the local registry, scripts/registry/start.sh) and JSON envelopes for
 * JsonConverter with schemas, each to its own topic; a share-mode NoopSink drains each (1 task, default
 * pool threads), best of plan.repeats in alternating order. The ratio `avroDecodeVsJson` is Avro's CPU
 * µs per record over JSON's (goal ≤ 1.5): the converter runs in the pool thread before the put, so the
 * difference is the decode.
 */
import path from 'node:path';
import avro from 'avsc';
import type { ChildResult, WorkerRunSpec } from '../child-protocol.js';
import { createTopic, kafkaClient, ROOT, round, runProcess, tail } from '../common.js';
import { runChild, type BenchContext } from '../context.js';
import type { AvroResults } from './avro-results.js';

const REGISTRY_URL = `http://127.0.0.1:${process.env.REGISTRY_PORT ?? 18081}/apis/ccompat/v7`;

const AVRO_SCHEMA = {
  type: 'record',
  name: 'BenchOrder',
  namespace: 'sharesink.bench',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'customer', type: 'string' },
    { name: 'qty', type: 'int' },
    { name: 'price', type: { type: 'bytes', logicalType: 'decimal', precision: 10, scale: 2 } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'paid', type: 'boolean' },
    { name: 'weight', type: 'double' },
    { name: 'note', type: ['null', 'string'], default: null },
  ],
};

/** The same record as a Connect JSON envelope (JsonConverter with schemas.enable=true). */
const JSON_SCHEMA = {
  type: 'struct',
  name: 'sharesink.bench.BenchOrder',
  optional: false,
  fields: [
    { field: 'id', type: 'int64', optional: false },
    { field: 'customer', type: 'string', optional: false },
    { field: 'qty', type: 'int32', optional: false },
    {
      field: 'price',
      type: 'bytes',
      optional: false,
      name: 'org.apache.kafka.connect.data.Decimal',
      version: 1,
      parameters: { scale: '2' },
    },
    {
      field: 'at',
      type: 'int64',
      optional: false,
      name: 'org.apache.kafka.connect.data.Timestamp',
      version: 1,
    },
    { field: 'paid', type: 'boolean', optional: false },
    { field: 'weight', type: 'float64', optional: false },
    { field: 'note', type: 'string', optional: true },
  ],
};

function row(i: number) {
  const cents = 1000 + (i % 100_000);
  return {
    id: i,
    customer: `customer-${i % 5000}`,
    qty: i % 17,
    cents,
    at: 1_700_000_000_000 + i,
    paid: i % 3 === 0,
    weight: (i % 1000) / 8,
    note: i % 4 === 0 ? null : `note ${i % 97}`,
  };
}

/** Two's-complement big-endian bytes of a small non-negative unscaled decimal. */
function unscaledBytes(n: number): Buffer {
  const bytes: number[] = [];
  let v = n;
  do {
    bytes.unshift(v & 0xff);
    v = Math.floor(v / 256);
  } while (v > 0);
  if ((bytes[0]! & 0x80) !== 0) bytes.unshift(0);
  return Buffer.from(bytes);
}

async function ensureRegistry(): Promise<void> {
  const ok = async () => {
    try {
      return (await fetch(`${REGISTRY_URL}/subjects`, { signal: AbortSignal.timeout(3000) })).status === 200;
    } catch {
      return false;
    }
  };
  if (await ok()) return;
  const r = await runProcess('bash', [path.join(ROOT, 'scripts', 'registry', 'start.sh')], {
    timeoutMs: 600_000,
  });
  if (r.code !== 0 || !(await ok()))
    throw new Error(`the schema registry did not start:\n${tail(r.stderr + r.stdout, 20)}`);
}

async function register(subject: string): Promise<number> {
  const res = await fetch(`${REGISTRY_URL}/subjects/${subject}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema: JSON.stringify(AVRO_SCHEMA) }),
  });
  const body = (await res.json()) as { id?: number };
  if (typeof body.id !== 'number')
    throw new Error(`registering ${subject}: HTTP ${res.status} ${JSON.stringify(body)}`);
  return body.id;
}

export async function runAvro(ctx: BenchContext): Promise<void> {
  const { plan, results, brokers, measured, step, topicName, createdTopics, wants } = ctx;
  if (!wants(9)) return;
  const records = plan.converterRecords;
  const filled = await step('Avro and JSON topics (registry, fill)', async () => {
    await ensureRegistry();
    const avroTopic = topicName('avro');
    const jsonTopic = topicName('json-schemas');
    for (const t of [avroTopic, jsonTopic]) {
      await createTopic(brokers, t, 1);
      createdTopics.push(t);
    }
    const schemaId = await register(`${avroTopic}-value`);
    const type = avro.Type.forSchema(AVRO_SCHEMA as avro.Schema);
    const header = Buffer.alloc(5);
    header.writeUInt32BE(schemaId, 1);
    const producer = kafkaClient(brokers).producer();
    await producer.connect();
    let avroBytes = 0;
    let jsonBytes = 0;
    for (let start = 0; start < records; start += 1000) {
      const avroMessages = [];
      const jsonMessages = [];
      for (let i = start; i < Math.min(records, start + 1000); i++) {
        const r = row(i);
        const price = unscaledBytes(r.cents);
        const a = Buffer.concat([header, type.toBuffer({ ...r, price, cents: undefined, note: r.note })]);
        const payload = {
          id: r.id,
          customer: r.customer,
          qty: r.qty,
          price: price.toString('base64'),
          at: r.at,
          paid: r.paid,
          weight: r.weight,
          note: r.note,
        };
        const j = Buffer.from(JSON.stringify({ schema: JSON_SCHEMA, payload }));
        avroBytes += a.length;
        jsonBytes += j.length;
        avroMessages.push({ value: a });
        jsonMessages.push({ value: j });
      }
      await producer.send({ topic: avroTopic, acks: 1, messages: avroMessages });
      await producer.send({ topic: jsonTopic, acks: 1, messages: jsonMessages });
    }
    await producer.disconnect();
    return { avroTopic, jsonTopic, schemaId, avroBytes, jsonBytes };
  });
  if (filled === undefined) return;
  const out: AvroResults = {
    records,
    schemaId: filled.schemaId,
    avroBytesPerRecord: round(filled.avroBytes / records, 1),
    jsonBytesPerRecord: round(filled.jsonBytes / records, 1),
    samples: { avroCpuUs: [], jsonCpuUs: [], avroRate: [], jsonRate: [] },
  };
  results.scenarios.avro = out;
  const spec = (format: 'avro' | 'json'): WorkerRunSpec => ({
    kind: 'worker',
    label: `avro-vs-json-${format}`,
    brokers,
    topic: format === 'avro' ? filled.avroTopic : filled.jsonTopic,
    topicRecords: records,
    mode: 'share',
    tasks: 1,
    connectorClass: 'NoopSink',
    connectorProps: { 'consumer.override.max.poll.records': '500' },
    workerProps:
      format === 'avro'
        ? {
            'value.converter': 'io.confluent.connect.avro.AvroConverter',
            'value.converter.schema.registry.url': REGISTRY_URL,
          }
        : {
            'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
            'value.converter.schemas.enable': 'true',
          },
    measure: { kind: 'drain', records },
    timeoutMs: 300_000,
  });
  const keep = (format: 'avro' | 'json', r: ChildResult) => {
    out.samples[`${format}CpuUs`].push(round(r.cpuUsPerRecord, 2));
    out.samples[`${format}Rate`].push(round(r.steadyRecordsPerSec ?? r.recordsPerSec));
    const best = out[format];
    if (best === undefined || r.cpuUsPerRecord < best.cpuUsPerRecord) out[format] = r;
  };
  for (let rep = 0; rep < plan.repeats; rep++) {
    const order: Array<'avro' | 'json'> = rep % 2 === 0 ? ['avro', 'json'] : ['json', 'avro'];
    for (const format of order)
      await measured(`${format} drain, NoopSink (${rep + 1}/${plan.repeats})`, async () =>
        keep(format, await runChild(spec(format))),
      );
  }
}
