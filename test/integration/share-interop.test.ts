// Interop: two sharesink ShareConsumers and one Java KafkaShareConsumer in ONE share group on a
// multi-partition topic. Every record reaches exactly one of them (or, at-least-once, comes back only
// on redelivery), and Kafka's own share-groups tool lists all three members while they run.
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ShareConsumer, type ShareRecord } from '../../src/kafka/share/share-consumer.js';
import {
  Tools,
  createTopic,
  deleteTopics,
  produce,
  runJavaToolOk,
  setGroupConfig,
  testBrokers,
  uniqueGroup,
  uniqueTopic,
} from './harness/kafka.js';
import { sleep, startJavaShareConsumer, type JavaShareConsumer } from './harness/share.js';

const logger = pino({ level: process.env.SHARESINK_TEST_LOG_LEVEL ?? 'warn' });
const PARTITIONS = 4;
const RECORDS = 600;

const topic = uniqueTopic('si');
const group = uniqueGroup('si');
const tsConsumers: ShareConsumer[] = [];
let java: JavaShareConsumer | undefined;

afterAll(async () => {
  java?.kill();
  await Promise.all(tsConsumers.map((c) => c.close().catch(() => undefined)));
  await deleteTopics([topic]);
});

interface Delivery {
  member: string;
  id: string;
  partition: number;
  offset: number;
  deliveryCount: number;
}

/** Polls and accepts until `stop()` is called; records every delivery. */
function runTsConsumer(name: string, c: ShareConsumer, into: Delivery[]) {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const batch: ShareRecord[] = await c.poll({ maxWaitMs: 300 });
      if (batch.length === 0) continue;
      for (const r of batch) {
        into.push({
          member: name,
          id: r.value!.toString(),
          partition: r.partition,
          offset: r.offset,
          deliveryCount: r.deliveryCount,
        });
      }
      const results = await c.acknowledge(batch, 'accept');
      for (const res of results) expect(res.error).toBeNull();
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

/** Rows of `--describe --members` output for our group (header line excluded). */
function memberRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((cols) => cols[0] === group);
}

describe('share group interop: sharesink + Java KafkaShareConsumer', () => {
  it('three members (2 sharesink, 1 Java) share the records; the Java tool lists all three', async () => {
    await createTopic(topic, { partitions: PARTITIONS });
    await setGroupConfig(group, {
      'share.auto.offset.reset': 'earliest',
      'share.record.lock.duration.ms': '10000',
    });

    java = await startJavaShareConsumer({ group, topic, clientId: 'java-peer' });
    const a = new ShareConsumer({
      brokers: testBrokers().split(','),
      groupId: group,
      logger,
      clientId: 'sharesink-a',
    });
    const b = new ShareConsumer({
      brokers: testBrokers().split(','),
      groupId: group,
      logger,
      clientId: 'sharesink-b',
    });
    tsConsumers.push(a, b);
    await Promise.all([java.ready, a.subscribe([topic]), b.subscribe([topic])]);

    // all three are members before any record exists, so the assignor spreads partitions over all of them
    const describeArgs = ['--bootstrap-server', testBrokers(), '--describe', '--members', '--group', group];
    let rows: string[][] = [];
    let described = '';
    const joinDeadline = Date.now() + 30_000;
    while (Date.now() < joinDeadline) {
      described = (await runJavaToolOk(Tools.ShareGroupCommand, describeArgs)).stdout;
      rows = memberRows(described);
      if (rows.length === 3 && rows.every((r) => Number(r[4]) > 0)) break;
      await sleep(500);
    }
    console.log(`[share-interop] ShareGroupCommand --describe --members:\n${described}`);

    const deliveries: Delivery[] = [];
    const loops = [runTsConsumer('sharesink-a', a, deliveries), runTsConsumer('sharesink-b', b, deliveries)];
    const ids = Array.from({ length: RECORDS }, (_, i) => `id-${i}`);
    await produce(
      topic,
      ids.map((value, i) => ({ value, partition: i % PARTITIONS })),
    );

    const union = (): Set<string> =>
      new Set([...deliveries.map((d) => d.id), ...java!.records.map((r) => r.value)]);
    const deadline = Date.now() + 60_000;
    while (union().size < RECORDS && Date.now() < deadline) await sleep(200);
    // a little longer: anything delivered twice would show up now
    await sleep(1500);
    await Promise.all(loops.map((l) => l.stop()));
    await java.stop();
    await Promise.all([a.close(), b.close()]);

    const all: Delivery[] = [
      ...deliveries,
      ...java.records.map((r) => ({ member: 'java-peer', id: r.value, ...r })),
    ];
    const perMember = new Map<string, number>();
    for (const d of all) perMember.set(d.member, (perMember.get(d.member) ?? 0) + 1);
    const byId = new Map<string, Delivery[]>();
    for (const d of all) byId.set(d.id, [...(byId.get(d.id) ?? []), d]);
    const duplicates = [...byId.values()].filter((ds) => ds.length > 1);
    console.log(
      `[share-interop] ${RECORDS} records over ${PARTITIONS} partitions: ` +
        `${[...perMember].map(([m, n]) => `${m}=${n}`).join(', ')}; duplicates=${duplicates.length}`,
    );

    // complete: every id reached someone
    expect(new Set(byId.keys())).toEqual(new Set(ids));
    // at-least-once: an id seen twice was redelivered (its later copy has deliveryCount > 1)
    for (const ds of duplicates) {
      ds.sort((x, y) => x.deliveryCount - y.deliveryCount);
      expect(
        ds.slice(1).every((d) => d.deliveryCount > 1),
        JSON.stringify(ds),
      ).toBe(true);
    }
    // each member really took part
    expect(perMember.get('sharesink-a')).toBeGreaterThan(0);
    expect(perMember.get('sharesink-b')).toBeGreaterThan(0);
    expect(perMember.get('java-peer')).toBeGreaterThan(0);

    // the Java tool saw all three members, by member id (sharesink names its own) and client id
    expect(described).toMatch(/CONSUMER-ID\s+HOST\s+CLIENT-ID\s+#PARTITIONS\s+ASSIGNMENT/);
    expect(rows).toHaveLength(3);
    const byClient = new Map(rows.map((r) => [r[3], r]));
    expect(byClient.get('sharesink-a')?.[1]).toBe(a.memberId);
    expect(byClient.get('sharesink-b')?.[1]).toBe(b.memberId);
    expect(byClient.get('java-peer')).toBeDefined();
    // ASSIGNMENT is `<topic>:<p>,<p>…`; together the members cover every partition
    const covered = new Set(
      rows.flatMap((r) =>
        r[5]!
          .slice(topic.length + 1)
          .split(',')
          .map(Number),
      ),
    );
    expect([...covered].sort()).toEqual(Array.from({ length: PARTITIONS }, (_, i) => i));
    expect(rows.every((r) => r[5]!.startsWith(`${topic}:`) && r[2]!.startsWith('/'))).toBe(true);
  });
});
