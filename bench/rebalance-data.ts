/**
 * The data side of the rebalance scenario (bench/scenarios/rebalance.ts): the steady producer that
 * feeds a side's topic, and the sinks' write logs, read whole or followed as they grow.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { kafkaClient, sleep } from './common.js';
import { parseWriteLog, type WrittenRecord } from './rebalance-analysis.js';

/** Every write-log file's text under `dir` (missing dir: empty). */
export function readWriteLogs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8'));
}

export interface SteadyProducer {
  /** Stops sending; resolves with the records sent (acknowledged). */
  stop(): Promise<number>;
  sent(): number;
  /** Every send: [CreateTime (epoch ms), records], in order. */
  readonly sends: Array<[number, number]>;
}

/**
 * Produces `rate` records/s of `recordSize` random bytes (acks=1), spread evenly over `partitions`
 * (record i to partition i mod partitions), paced every 10 ms against the wall clock: a late send is
 * made up by the next one. CreateTime is the send time. Runs in the harness process: one kafkajs send
 * per 10 ms is light next to the sides it feeds.
 */
export async function steadyProducer(o: {
  brokers: string;
  topic: string;
  partitions: number;
  rate: number;
  recordSize: number;
}): Promise<SteadyProducer> {
  const producer = kafkaClient(o.brokers).producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const value = Buffer.alloc(o.recordSize, 120);
  const t0 = performance.now();
  let sent = 0;
  const sends: Array<[number, number]> = [];
  let stopped = false;
  let failed: unknown;
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((performance.now() - t0) / 1000) * o.rate);
      if (due > sent) {
        const now = Date.now();
        const messages = Array.from({ length: due - sent }, (_, i) => ({
          partition: (sent + i) % o.partitions,
          value,
          timestamp: String(now),
        }));
        await producer.send({ topic: o.topic, acks: 1, messages });
        sends.push([now, due - sent]);
        sent = due;
      }
      await sleep(10);
    }
  })().catch((err: unknown) => {
    failed = err;
  });
  return {
    sent: () => sent,
    sends,
    stop: async () => {
      stopped = true;
      await loop;
      await producer.disconnect();
      if (failed !== undefined) throw failed;
      return sent;
    },
  };
}

/**
 * Follows the write logs under `dir` as they grow: each `read()` parses only the whole lines appended
 * since the last one, so checking a running side every second costs what it wrote in that second.
 */
export class WriteLogTail {
  readonly #dir: string;
  readonly #offsets = new Map<string, number>();
  readonly records: WrittenRecord[] = [];

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** Parses what was appended since the last call; returns the records it added. */
  read(): WrittenRecord[] {
    const added: WrittenRecord[] = [];
    if (!existsSync(this.#dir)) return added;
    for (const f of readdirSync(this.#dir)) {
      const file = path.join(this.#dir, f);
      const from = this.#offsets.get(file) ?? 0;
      const size = statSync(file).size;
      if (size <= from) continue;
      const buf = Buffer.alloc(size - from);
      const fd = openSync(file, 'r');
      try {
        readSync(fd, buf, 0, buf.length, from);
      } finally {
        closeSync(fd);
      }
      const text = buf.toString('utf8');
      const whole = text.lastIndexOf('\n') + 1;
      this.#offsets.set(file, from + Buffer.byteLength(text.slice(0, whole)));
      parseWriteLog(text.slice(0, whole), added);
    }
    for (const r of added) this.records.push(r);
    return added;
  }
}
