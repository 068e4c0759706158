/**
 * `npm run demo`: the whole product in two minutes. Starts the local Kafka broker when none answers,
 * fills a 3-partition topic, runs one share-mode connector with 6 tasks (more tasks than partitions,
 * which a classic consumer group cannot use) into a file, and into PostgreSQL when it is reachable,
 * shows live progress, and ends with a summary that accounts for every record.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { Worker } from '../src/actors/worker.js';
import { stopOnSignals } from '../src/actors/stop-on-signals.js';
import { compileConnectorConfig, compileWorkerConfig } from '../src/config/index.js';
import { formatProgress } from '../src/cli/progress.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BROKER = process.env.SHARESINK_DEMO_BROKER ?? '127.0.0.1:9092';
const RECORDS = Number(process.env.SHARESINK_DEMO_RECORDS ?? 20_000);
const PARTITIONS = 3;
const TASKS = 6;
const PG_URL = process.env.SHARESINK_DEMO_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

const say = (line: string) => process.stdout.write(`${line}\n`);

function reachable(address: string): Promise<boolean> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function ensureBroker(): Promise<void> {
  if (await reachable(BROKER)) {
    say(`1. Kafka answers at ${BROKER}: using it.`);
    return;
  }
  say(
    `1. No Kafka at ${BROKER}: starting the local broker (first run fetches the jars with Maven, about a minute)…`,
  );
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/kafka/start.sh')], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the local Kafka broker did not start; see the messages above');
}

async function produce(kafka: Kafka, topic: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
  });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  const chunk = 2000;
  for (let start = 0; start < RECORDS; start += chunk) {
    const messages = [];
    for (let i = start; i < Math.min(RECORDS, start + chunk); i++) {
      messages.push({
        key: `order-${i}`,
        value: JSON.stringify({ id: i, item: `sku-${i % 97}`, qty: (i % 5) + 1 }),
      });
    }
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
  say(`2. Produced ${RECORDS.toLocaleString('en')} orders to topic ${topic} (${PARTITIONS} partitions).`);
}

async function postgresReachable(): Promise<boolean> {
  const url = new URL(PG_URL);
  return reachable(`${url.hostname}:${url.port || 5432}`);
}

async function main(): Promise<void> {
  say('sharesink demo: Kafka share groups (KIP-932) feeding sink connectors on Node.js\n');
  await ensureBroker();
  const kafka = new Kafka({ clientId: 'sharesink-demo', brokers: [BROKER], logLevel: logLevel.NOTHING });
  const stamp = Date.now().toString(36);
  const topic = `demo-orders-${stamp}`;
  await produce(kafka, topic);

  const outDir = path.join(ROOT, 'demo-output');
  mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, `${topic}.txt`);
  const worker = compileWorkerConfig({
    'bootstrap.servers': BROKER,
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  const shared = {
    topics: topic,
    'tasks.max': String(TASKS),
    'consumer.override.group.protocol': 'share',
    'share.group.share.auto.offset.reset': 'earliest',
  };
  const connectors = [
    compileConnectorConfig(
      {
        ...shared,
        name: `demo-file-${stamp}`,
        'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
        file: outFile,
      },
      worker,
    ),
  ];
  const withPg = await postgresReachable();
  const table = `demo_orders_${stamp}`;
  if (withPg) {
    connectors.push(
      compileConnectorConfig(
        {
          ...shared,
          name: `demo-postgres-${stamp}`,
          'connector.class': 'PostgresSink',
          'connection.url': PG_URL,
          table,
          'insert.mode': 'idempotent',
          'auto.create': 'true',
          'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
          'value.converter.schemas.enable': 'false',
        },
        worker,
      ),
    );
  }
  say(
    `3. Starting ${connectors.length} share-mode connector(s), ${TASKS} tasks each on ${PARTITIONS} partitions:` +
      `\n   - ${outFile}` +
      (withPg
        ? `\n   - PostgreSQL table ${table} (idempotent: redeliveries cannot duplicate rows)`
        : '\n   - (PostgreSQL not reachable: skipped)'),
  );

  const logger = pino({ level: 'warn' }, pino.destination(2));
  const w = new Worker({ worker, connectors, logger });
  stopOnSignals(w, { onStopped: (code) => process.exit(code), logger });
  await w.start();
  const started = Date.now();
  const tty = process.stdout.isTTY === true;
  const deadline = started + 180_000;
  let lastPrint = 0;
  for (;;) {
    const s = w.summary();
    const done = s.connectors.every(
      (c) => c.counters.recordsAccepted + c.counters.recordsRejected >= RECORDS,
    );
    if (tty)
      process.stdout.write(`\r\x1b[2K   ${formatProgress(w).slice(0, (process.stdout.columns || 200) - 4)}`);
    else if (Date.now() - lastPrint > 2000) {
      lastPrint = Date.now();
      say(`   ${formatProgress(w)}`);
    }
    if (done || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  if (tty) process.stdout.write('\n');
  await w.stop();
  const seconds = (Date.now() - started) / 1000;

  say(`\n4. Summary after ${seconds.toFixed(1)} s`);
  const lines = readFileSync(outFile, 'utf8').split('\n').filter(Boolean);
  const distinct = new Set(lines.map((l) => (JSON.parse(l) as { id: number }).id));
  let lost = RECORDS - distinct.size;
  say(`   produced:            ${RECORDS.toLocaleString('en')}`);
  say(
    `   file lines:          ${lines.length.toLocaleString('en')} (${distinct.size.toLocaleString('en')} distinct orders)`,
  );
  if (withPg) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}"`);
    await client.end();
    const rows = Number(r.rows[0]?.n ?? 0);
    lost = Math.max(lost, RECORDS - rows);
    say(`   PostgreSQL rows:     ${rows.toLocaleString('en')}`);
  }
  for (const c of w.summary().connectors) {
    const k = c.counters;
    say(
      `   ${c.name}: accepted ${k.recordsAccepted}, rejected ${k.recordsRejected}, released ${k.recordsReleased}, ` +
        `redelivered ${k.recordsRedelivered}, locks renewed ${c.locks?.recordsRenewed ?? 0} (records), ` +
        `expired ${k.recordsLockExpired} (records)`,
    );
  }
  say(`   lost:                ${lost}`);
  say(
    lost === 0
      ? '\nEvery record arrived. Read README.md to run your own connector.'
      : '\nSome records did not arrive in time.',
  );
  process.exit(lost === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
