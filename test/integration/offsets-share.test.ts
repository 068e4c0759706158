// GET/PATCH/DELETE /connectors/{name}/offsets (KIP-875) for a share-mode connector on the real broker:
// the start offset and lag of each partition (DescribeShareGroupOffsets v1), Connect's refusal while the
// connector is not STOPPED, the broker's refusal while the share group has a member (named in the
// answer), then an alter and a reset that the resumed connector reads from.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics, produce, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { startLinesWorker } from './harness/rest.js';
import { shareConsumers } from './harness/share.js';
import { lines, sleep, until } from './harness/wait.js';
import { api } from './harness/rest-client.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-offsets-share-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });
const consumers = shareConsumers();

afterAll(async () => {
  await consumers.closeAll();
  if (topics.length > 0) await deleteTopics(topics);
});

interface Offsets {
  offsets: Array<{
    partition: { kafka_topic: string; kafka_partition: number };
    offset: { kafka_offset: number; lag?: number };
  }>;
}

const STOP_FIRST = (name: string) =>
  `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`;

describe('offsets endpoints, share mode', () => {
  it('reads start offsets and lag, refuses changes unless STOPPED and the group is empty, alters and resets', async () => {
    const topic = uniqueTopic('offsets-share');
    const group = uniqueGroup('offsets-share');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'lines.txt');
    const name = 'offsets-share';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'share', tasks: 1, poolThreads: 1, logger },
      worker: { 'task.shutdown.graceful.timeout.ms': '2000' },
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    const call = (method: string, body?: unknown) =>
      api(rest.url, method, `/connectors/${name}/offsets`, body) as Promise<{
        status: number;
        json: Record<string, unknown>;
      }>;
    const byPartition = (o: Offsets) =>
      Object.fromEntries(o.offsets.map((e) => [e.partition.kafka_partition, e.offset]));
    try {
      await w.start();
      await produce(topic, [
        ...Array.from({ length: 60 }, (_, i) => ({ value: `a-${i}`, partition: 0 })),
        ...Array.from({ length: 40 }, (_, i) => ({ value: `a-${60 + i}`, partition: 1 })),
      ]);
      await until(
        '100 lines',
        () => lines(file).length,
        (n) => n >= 100,
      );

      // running: the start offsets reach the end of each partition and the lag falls to 0
      const running = (await until(
        'lag 0 on both partitions',
        async () => (await call('GET')).json as unknown as Offsets,
        (o) => o.offsets.length === 2 && o.offsets.every((e) => e.offset.lag === 0),
      ))!;
      expect(running.offsets.map((e) => e.partition)).toEqual([
        { kafka_topic: topic, kafka_partition: 0 },
        { kafka_topic: topic, kafka_partition: 1 },
      ]);
      // the broker moves the persisted start offset lazily (kafka-share-groups --describe shows the same):
      // what is done shows as lag 0, and the start offset is somewhere up to the end
      expect(byPartition(running)[0]!.kafka_offset).toBeLessThanOrEqual(60);
      expect(byPartition(running)[1]!.kafka_offset).toBeLessThanOrEqual(40);

      // changes only while STOPPED, in Connect's words
      const change = {
        offsets: [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 10 } }],
      };
      expect(await call('PATCH', change)).toEqual({
        status: 400,
        json: { error_code: 400, message: STOP_FIRST(name) },
      });
      expect(await call('DELETE')).toEqual({
        status: 400,
        json: { error_code: 400, message: STOP_FIRST(name) },
      });

      // stopped: records produced now are lag
      expect((await fetch(`${rest.url}/connectors/${name}/stop`, { method: 'PUT' })).status).toBe(202);
      await produce(
        topic,
        Array.from({ length: 25 }, (_, i) => ({ value: `b-${i}`, partition: 1 })),
      );
      const stopped = (await until(
        'lag 25 on partition 1',
        async () => (await call('GET')).json as unknown as Offsets,
        (o) => byPartition(o)[1]?.lag === 25,
      ))!;
      expect(byPartition(stopped)[0]!.lag).toBe(0);

      // bad bodies: Connect's messages
      expect(await call('PATCH', { offsets: [] })).toMatchObject({
        status: 400,
        json: { message: 'Partitions / offsets need to be provided for an alter offsets request' },
      });
      expect(
        await call('PATCH', {
          offsets: [{ partition: { kafka_topic: topic, kafka_partition: 'x' }, offset: { kafka_offset: 1 } }],
        }),
      ).toMatchObject({
        status: 400,
        json: { message: expect.stringContaining("Kafka partition value in the provided offsets: 'x'") },
      });
      expect(
        await call('PATCH', {
          offsets: [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: null }],
        }),
      ).toMatchObject({
        status: 400,
        json: { message: expect.stringContaining('Share mode cannot reset a single partition') },
      });

      // a partition that does not exist: the broker's answer, as a 400
      expect(
        await call('PATCH', {
          offsets: [{ partition: { kafka_topic: topic, kafka_partition: 9 }, offset: { kafka_offset: 1 } }],
        }),
      ).toMatchObject({
        status: 400,
        json: { message: expect.stringContaining(`UNKNOWN_TOPIC_OR_PARTITION (3) for ${topic}-9`) },
      });

      // another member in the group: the broker would refuse, and the answer names it
      const other = consumers.make(group, { clientId: 'offsets-intruder' });
      await other.subscribe([topic]);
      await other.poll({ maxWaitMs: 500 });
      const refused = await until(
        'refused for the member',
        () => call('PATCH', change),
        (r) => r.status === 409,
      );
      expect(refused!.json).toMatchObject({ error_code: 409 });
      expect(String(refused!.json['message'])).toMatch(
        new RegExp(
          `The share group ${group} still has 1 member\\(s\\): \\S+ \\(client.id offsets-intruder, host`,
        ),
      );
      expect((await call('DELETE')).status).toBe(409);
      await other.close();

      // empty again: alter partition 0 back to 10, then the resumed connector writes 50 of its records again
      const altered = await until(
        'altered',
        () => call('PATCH', change),
        (r) => r.status !== 409,
      );
      expect(altered).toEqual({
        status: 200,
        json: {
          message:
            'The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.',
        },
      });
      expect(byPartition((await call('GET')).json as unknown as Offsets)[0]).toEqual({
        kafka_offset: 10,
        lag: 50,
      });

      // reset: no state left, so the group starts again from share.auto.offset.reset (earliest)
      expect(await call('DELETE')).toEqual({
        status: 200,
        json: {
          message:
            'The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.',
        },
      });
      expect((await call('GET')).json).toEqual({ offsets: [] });
      expect((await fetch(`${rest.url}/connectors/${name}/resume`, { method: 'PUT' })).status).toBe(202);
      // 100 written before + all 125 again after the reset
      await until(
        '225 lines',
        () => lines(file).length,
        (n) => n >= 225,
        60_000,
      );
      await sleep(500);
      expect(lines(file)).toHaveLength(225);
      expect((await fetch(`${rest.url}/connectors/nope/offsets`)).status).toBe(404);
    } finally {
      await rest.close();
      await w.stop();
    }
  });
});
