// Poison records among healthy ones, errors.tolerance=all: values that are not JSON (the converter
// fails) and ids the sink refuses (errant record reporter). Both are REJECTed and the broker writes them
// to the group's dead-letter topic (Kafka 4.4, KIP-1191); everything else is written.
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics } from '../integration/harness/kafka.js';
import { fileSinkOutcome } from './harness/outcome.js';
import { ids, produceIds, readSink, topicCount } from './harness/records.js';
import { recordResult } from './harness/report.js';
import { scenario, waitUntil } from './harness/workers.js';

const RECORDS = 1000;
const s = scenario('poison');

afterAll(async () => {
  await s.cleanup();
  await deleteTopics([s.topic]).catch(() => undefined);
});

describe('fault: poison records', () => {
  it('invalid JSON and refused ids end in the dead-letter topic; the rest flows', async () => {
    const produced = ids(1, RECORDS);
    const invalidJson = new Set(produced.filter((id) => Number(id) % 97 === 0));
    const refused = new Set(produced.filter((id) => Number(id) % 101 === 0));
    const poison = new Set([...invalidJson, ...refused]);
    const healthy = RECORDS - poison.size;

    await createTopic(s.topic, { partitions: 2 });
    await produceIds(s.topic, produced, { json: true, invalidJson, partitions: 2 });
    const w = await s.startWorker(
      'w1',
      s.baseConnector({
        'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
        'value.converter.schemas.enable': 'false',
        'errors.tolerance': 'all',
        'poison.ids': [...refused].join(','),
        'consumer.override.max.poll.records': 100,
        'share.group.errors.deadletterqueue.topic.name': s.dlq,
        'share.group.errors.deadletterqueue.copy.record.enable': 'true',
      }),
    );
    await waitUntil(
      async () => readSink(s.sinkFile).distinct.size >= healthy && (await topicCount(s.dlq)) >= poison.size,
      60_000,
      () => `healthy records or dead letters missing:\n${w.logTail()}`,
    ).catch(() => undefined); // counted and asserted below
    const summary = await w.stop();
    const o = await fileSinkOutcome(s, {
      scenario: 'Poison records (`errors.tolerance=all`)',
      workers: 1,
      produced,
      summaries: [summary],
      expectDeadLettered: poison,
      notes:
        `${invalidJson.size} values are not JSON (JsonConverter fails) and the sink reports ` +
        `${refused.size} ids as errant; all ${poison.size} are REJECTed and land in the group's ` +
        'dead-letter topic (keys = ids, copy.record.enable=true); the other records of their batches ' +
        'are ACCEPTed.',
    });
    recordResult(o.row);
    expect(o.lost, 'records lost').toEqual([]);
    expect(
      [...o.sink.distinct].filter((id) => poison.has(id)),
      'poison written',
    ).toEqual([]);
    expect(o.sink.distinct.size).toBe(healthy);
    expect(o.deadLettered.sort(), 'dead-lettered ids').toEqual([...poison].sort());
    expect(o.totals.rejected).toBe(poison.size);
    expect(o.row.duplicates).toBe(0);
    expect(summary.connectors[0]?.tasks.every((t) => t.state !== 'failed')).toBe(true);
  });
});
