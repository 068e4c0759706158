// Records with unique ids in, ids counted out: what the producer wrote, what the sink holds (the
// fixture's file or a PostgreSQL table), and what the broker dead-lettered.
import { readFileSync } from 'node:fs';
import { Partitioners } from 'kafkajs';
import { consumeClassic, kafkaClient } from '../../integration/harness/kafka.js';

export const ids = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(from + i));

/**
 * Produces one record per id, key = id, in sends of 100 (so the broker holds batches of 100),
 * round-robin over the partitions. Values are `{"id":<id>}` (json) or the id as text; ids in
 * `invalidJson` get a truncated JSON value that no JSON converter can read.
 */
export async function produceIds(
  topic: string,
  list: readonly string[],
  options: { json?: boolean; invalidJson?: ReadonlySet<string>; partitions?: number } = {},
): Promise<void> {
  const partitions = options.partitions ?? 1;
  const producer = kafkaClient('sharesink-faults-producer').producer({
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  try {
    for (let start = 0; start < list.length; start += 100) {
      const messages = list.slice(start, start + 100).map((id, i) => ({
        key: id,
        partition: (start + i) % partitions,
        value: options.invalidJson?.has(id)
          ? `{"id":${id},`
          : options.json === true
            ? JSON.stringify({ id: Number(id) })
            : id,
      }));
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect();
  }
}

export interface SinkCount {
  /** Writes that reached the sink (file lines, or rows). */
  writes: number;
  /** Distinct ids written. */
  distinct: Set<string>;
  /** Writes of records on a delivery count above 1. */
  redeliveredWrites: number;
}

/** Reads the faults fixture's files (`<id>\t<deliveryCount>` per line), one per worker or shared. */
export function readSink(...files: string[]): SinkCount {
  let text = '';
  for (const file of files) {
    try {
      text += readFileSync(file, 'utf8');
    } catch {
      // nothing written there yet
    }
  }
  const distinct = new Set<string>();
  let writes = 0;
  let redeliveredWrites = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [id, count] = line.split('\t');
    writes++;
    distinct.add(id!);
    if (Number(count) > 1) redeliveredWrites++;
  }
  return { writes, distinct, redeliveredWrites };
}

/** Ids in `produced` that are in none of `found`. */
export function missing(produced: readonly string[], ...found: ReadonlySet<string>[]): string[] {
  return produced.filter((id) => !found.some((set) => set.has(id)));
}

/** Records in a topic (sum of high − low watermarks); 0 when the topic does not exist. */
export async function topicCount(topic: string): Promise<number> {
  const admin = kafkaClient('sharesink-faults-admin').admin();
  await admin.connect();
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic)) return 0;
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** The keys (ids) of every record in a dead-letter topic; empty when the topic does not exist. */
export async function deadLetteredIds(topic: string): Promise<string[]> {
  const count = await topicCount(topic);
  if (count === 0) return [];
  const records = await consumeClassic(topic, count, { timeoutMs: 30_000 });
  return records.map((r) => r.key ?? '(no key)');
}
