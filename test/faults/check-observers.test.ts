// The built-in observers of `sharesink check` for the JDBC sink (MariaDB, PostgreSQL), KafkaSink and
// HttpSink (through the kit's recorder), each on the real broker and the real service, one run each
// (the fault suite's budget): a record written twice fails a sink declared idempotent, a sink keyed by
// the record's id passes the same kill, and a record the sink never wrote is reported lost.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkConnector,
  type CheckConnectorOptions,
  type CheckConnectorReport,
  type RunSchedule,
} from '../../src/testing/index.js';
import { TEST_DBS, type TestDb } from '../integration/harness/jdbc-dbs.js';
import { createTopic, deleteTopics, REPO_ROOT, testBrokers } from '../integration/harness/kafka.js';

const worker = {
  'bootstrap.servers': testBrokers(),
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'value.converter.schemas.enable': 'false',
  'pool.threads': '1',
};
const share = { topics: 'replaced', 'consumer.override.group.protocol': 'share' };
const killAfterPut: RunSchedule = {
  partitions: 1,
  lockRenewal: 'auto',
  steps: [{ records: 2, fault: { kind: 'kill-after-put' } }],
};
const quiet: RunSchedule = {
  partitions: 1,
  lockRenewal: 'auto',
  steps: [{ records: 2, fault: { kind: 'none' } }],
};

/**
 * One run of the given schedule. A failing one is not shrunk: the time limit (checked before each run)
 * has passed when the first run ends, and the examples are minimal already.
 */
/** The check failed on a record written twice, and on nothing lost. */
function expectCaughtDuplicating(report: CheckConnectorReport): void {
  expect(report.failure?.run.duplicated.length).toBeGreaterThan(0);
  expect(report.failure?.run.lost).toEqual([]);
}

/** The one run passed with its 2 records checked (and, when given, that many kills after put fired). */
function expectPassed(report: CheckConnectorReport, killsAfterPut?: number): void {
  expect(report.failure).toBeUndefined();
  expect(report.recordsChecked).toBe(2);
  if (killsAfterPut !== undefined) expect(report.faults['kill-after-put']).toBe(killsAfterPut);
}

const once = (
  name: string,
  connector: Record<string, string>,
  schedule: RunSchedule,
  more: Partial<CheckConnectorOptions> = {},
) =>
  checkConnector({
    worker,
    connector: { ...share, name, ...connector },
    runs: 1,
    examples: [schedule],
    timeLimitMs: 5000,
    lockMs: 2000,
    cwd: REPO_ROOT,
    ...more,
  });

describe('sharesink check: built-in observers', () => {
  let maria: TestDb;
  let postgres: TestDb;
  const pgTables: string[] = [];
  const outTopic = `check-helper-kafka-out-${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    maria = await TEST_DBS.mariadb();
    postgres = await TEST_DBS.postgresql();
    await createTopic(outTopic, { partitions: 1 });
  });
  afterAll(async () => {
    for (const t of pgTables) await postgres.exec(`DROP TABLE IF EXISTS ${postgres.q(t)}`);
    await maria?.close();
    await postgres?.close();
    await deleteTopics([outTopic]).catch(() => undefined);
  });

  it('JDBC on MariaDB, insert.mode=insert declared idempotent: a kill after put is a duplicated row', async () => {
    const report = await once(
      'check-helper-jdbc-maria',
      {
        'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
        ...maria.props,
        'table.name.format': maria.table('check_insert'),
        'insert.mode': 'insert',
        'pk.mode': 'none',
        'auto.create': 'true',
      },
      killAfterPut,
      { idempotent: true },
    );
    expect(report.faults['kill-after-put']).toBeGreaterThanOrEqual(1);
    expectCaughtDuplicating(report);
  });

  it('JDBC on PostgreSQL, upsert keyed by the record id (pk.mode=record_value, pk.fields=id): passes a kill after put', async () => {
    const report = await once(
      'check-helper-jdbc-pg',
      {
        'connector.class': 'JdbcSink',
        ...postgres.props,
        'table.name.format': 'check_${topic}',
        'insert.mode': 'upsert',
        'pk.mode': 'record_value',
        'pk.fields': 'id',
        'auto.create': 'true',
      },
      killAfterPut,
      { idempotent: true, onRun: (p) => pgTables.push(`check_${p.run.topic}`) },
    );
    expectPassed(report, 1);
  });

  it('JDBC: a record whose id the sink does not write (fields.include=n) is lost', async () => {
    const report = await once(
      'check-helper-jdbc-lost',
      {
        'connector.class': 'jdbc',
        ...maria.props,
        'table.name.format': maria.table('check_lost'),
        'fields.include': 'n',
        'auto.create': 'true',
      },
      quiet,
      { faults: [] },
    );
    expect(report.failure?.run.lost.length).toBe(2);
  });

  it('KafkaSink declared idempotent: a kill after put is a record produced twice to the output topic', async () => {
    const report = await once(
      'check-helper-kafka',
      { 'connector.class': 'KafkaSink', 'bootstrap.servers': testBrokers(), topic: outTopic },
      killAfterPut,
      { idempotent: true },
    );
    expect(report.faults['kill-after-put']).toBeGreaterThanOrEqual(1);
    expectCaughtDuplicating(report);
  });

  it('KafkaSink with no fault: every record in the output topic once', async () => {
    const report = await once(
      'check-helper-kafka-ok',
      { 'connector.class': 'KafkaSink', 'bootstrap.servers': testBrokers(), topic: outTopic },
      quiet,
      { idempotent: true, faults: [] },
    );
    expectPassed(report);
  });

  it('HttpSink with --record-http and http.idempotency.header, one record a request: passes a kill after put', async () => {
    const report = await once(
      'check-helper-http',
      {
        'connector.class': 'HttpSink',
        'http.url': 'https://orders.example.com/ingest/${topic}',
        'http.idempotency.header': 'Idempotency-Key',
        'batch.max.size': '1',
      },
      killAfterPut,
      { idempotent: true, recordHttp: true },
    );
    expectPassed(report, 1);
  });

  it('HttpSink with --record-http and no idempotency key, declared idempotent: a kill after put is a request sent twice', async () => {
    const report = await once(
      'check-helper-http-dup',
      { 'connector.class': 'HttpSink', 'http.url': 'http://orders.example.com/ingest' },
      killAfterPut,
      { idempotent: true, recordHttp: true },
    );
    expectCaughtDuplicating(report);
  });
});
