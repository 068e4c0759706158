// GET/PATCH/DELETE /connectors/{name}/offsets (KIP-875) for a classic-mode connector on the real broker:
// the consumer group's committed offsets in Connect's shape, Connect's refusal unless STOPPED, the
// refusal while another consumer is in the group (named), an alter the resumed connector reads from,
// and a reset that deletes the group, as Connect's does.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createTopic,
  deleteTopics,
  kafkaClient,
  produce,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { startLinesWorker } from './harness/rest.js';
import { lines, sleep, until } from './harness/wait.js';
import { api } from './harness/rest-client.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-offsets-classic-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });

afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

interface Offsets {
  offsets: Array<{
    partition: { kafka_topic: string; kafka_partition: number };
    offset: { kafka_offset: number };
  }>;
}

describe('offsets endpoints, classic mode', () => {
  it('reads committed offsets, refuses changes unless STOPPED and the group is empty, alters and resets', async () => {
    const topic = uniqueTopic('offsets-classic');
    const group = uniqueGroup('offsets-classic');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'lines.txt');
    const name = 'offsets-classic';
    const { w, rest } = await startLinesWorker({
      ...{ name, topic, file, group, mode: 'classic', tasks: 1, poolThreads: 1, logger },
      rest: { listener: 'http://127.0.0.1:0', lookupClusterId: false },
    });
    const call = (method: string, body?: unknown) =>
      api(rest.url, method, `/connectors/${name}/offsets`, body) as Promise<{
        status: number;
        json: Record<string, unknown>;
      }>;
    const byPartition = (o: Offsets) =>
      Object.fromEntries(o.offsets.map((e) => [e.partition.kafka_partition, e.offset.kafka_offset]));
    try {
      await w.start();
      await produce(topic, [
        ...Array.from({ length: 30 }, (_, i) => ({ value: `a-${i}`, partition: 0 })),
        ...Array.from({ length: 20 }, (_, i) => ({ value: `b-${i}`, partition: 1 })),
      ]);
      await until(
        '50 lines',
        () => lines(file).length,
        (n) => n >= 50,
      );
      const committed = (await until(
        'committed at the end',
        async () => (await call('GET')).json as unknown as Offsets,
        (o) => byPartition(o)[0] === 30 && byPartition(o)[1] === 20,
      ))!;
      expect(committed.offsets[0]).toEqual({
        partition: { kafka_topic: topic, kafka_partition: 0 },
        offset: { kafka_offset: 30 },
      });

      const change = {
        offsets: [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 25 } }],
      };
      expect(await call('PATCH', change)).toMatchObject({
        status: 400,
        json: { message: expect.stringContaining('Connectors must be in the STOPPED state') },
      });
      expect((await fetch(`${rest.url}/connectors/${name}/stop`, { method: 'PUT' })).status).toBe(202);

      // another consumer in the group: refused, and named
      const other = kafkaClient('offsets-intruder').consumer({ groupId: group });
      await other.connect();
      await other.subscribe({ topic });
      await other.run({ eachMessage: async () => undefined });
      try {
        const refused = await until(
          'refused for the member',
          () => call('PATCH', change),
          (r) => r.status === 409,
        );
        expect(String(refused!.json['message'])).toMatch(
          new RegExp(
            `The consumer group ${group} still has 1 member\\(s\\): \\S+ \\(client.id offsets-intruder, host`,
          ),
        );
        expect((await call('DELETE')).status).toBe(409);
      } finally {
        await other.disconnect();
      }

      // alter partition 0 back to 25 and reset partition 1: the resumed connector writes 5 + 20 records again
      expect(await call('PATCH', change)).toMatchObject({
        status: 200,
        json: { message: expect.stringContaining('have been altered successfully') },
      });
      expect(byPartition((await call('GET')).json as unknown as Offsets)).toEqual({ 0: 25, 1: 20 });
      // Connect's reset of one partition: a null offset deletes its committed offset (OffsetDelete)
      expect(
        await call('PATCH', {
          offsets: [{ partition: { kafka_topic: topic, kafka_partition: 1 }, offset: null }],
        }),
      ).toMatchObject({ status: 200, json: { message: expect.stringContaining('altered successfully') } });
      expect(byPartition((await call('GET')).json as unknown as Offsets)).toEqual({ 0: 25 });
      expect((await fetch(`${rest.url}/connectors/${name}/resume`, { method: 'PUT' })).status).toBe(202);
      await until(
        '75 lines',
        () => lines(file).length,
        (n) => n >= 75,
      );
      await sleep(1000);
      expect(lines(file)).toHaveLength(75);

      // reset: the group is deleted, so the resumed connector starts at the earliest offset again
      expect((await fetch(`${rest.url}/connectors/${name}/stop`, { method: 'PUT' })).status).toBe(202);
      expect(await call('DELETE')).toMatchObject({
        status: 200,
        json: { message: expect.stringContaining('have been reset successfully') },
      });
      expect((await call('GET')).json).toEqual({ offsets: [] });
      expect(await call('DELETE')).toMatchObject({ status: 200 }); // no group: already reset
      expect((await fetch(`${rest.url}/connectors/${name}/resume`, { method: 'PUT' })).status).toBe(202);
      await until(
        '125 lines',
        () => lines(file).length,
        (n) => n >= 125,
      );
      await sleep(1000);
      expect(lines(file)).toHaveLength(125);
    } finally {
      await rest.close();
      await w.stop();
    }
  });
});
