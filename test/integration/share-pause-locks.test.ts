// A paused share-mode connector and its locks. A ShareFetch under way when the pause came acquires the
// records produced right after it; the lease gives them back, and the broker hands them out again at
// resume. The runner timed their locks from when its poll began (before the pause, waiting at the gate
// since), not from the fetch at resume: each such batch counted as expired on arrival, and in a cluster
// the broker redelivered it while it was being written (34 of 50 records written twice, seen by hand).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createTopic, deleteTopics, produce, uniqueGroup, uniqueTopic } from './harness/kafka.js';
import { startLinesWorker } from './harness/rest.js';
import { lines, metric, until } from './harness/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-pause-locks-'));
const topics: string[] = [];
const logger = pino({ level: 'warn' });
afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

describe('pause in share mode', () => {
  it('records fetched as the pause came are put at resume with their locks timed from that fetch: none expires, each written once', async () => {
    const topic = uniqueTopic('pause-locks');
    topics.push(topic);
    await createTopic(topic, { partitions: 2 });
    const file = path.join(dir, 'lines.txt');
    const name = 'pause-locks';
    const LOCK_MS = 4000;
    const { w, rest } = await startLinesWorker({
      ...{
        name,
        topic,
        file,
        group: uniqueGroup('pause-locks'),
        mode: 'share',
        tasks: 2,
        poolThreads: 1,
        logger,
      },
      worker: { listeners: 'http://127.0.0.1:0' },
      connector: {
        'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
        'share.group.share.record.lock.duration.ms': String(LOCK_MS),
      },
    });
    const url = (p: string) => `${rest.url}${p}`;
    const metrics = async () => (await fetch(url('/metrics'))).text();
    const expired = async () => metric(await metrics(), 'sharesink_task_records_lock_expired_total');
    try {
      await w.start();
      await produce(
        topic,
        Array.from({ length: 10 }, (_, i) => `a-${i}`),
      );
      await until(
        '10 lines',
        () => lines(file).length,
        (n) => n >= 10,
      );

      expect((await fetch(url(`/connectors/${name}/pause`), { method: 'PUT' })).status).toBe(202);
      // records produced right after the pause: a fetch still under way acquires them
      await produce(
        topic,
        Array.from({ length: 30 }, (_, i) => `p-${i}`),
      );
      // paused for two lock durations
      await new Promise((r) => setTimeout(r, 2 * LOCK_MS + 1000));
      expect(lines(file)).toHaveLength(10);

      expect((await fetch(url(`/connectors/${name}/resume`), { method: 'PUT' })).status).toBe(202);
      await until(
        '40 lines',
        () => lines(file).length,
        (n) => n >= 40,
      );
      // give a late redelivery the time to show up
      await new Promise((r) => setTimeout(r, 2000));
      const written = lines(file);
      expect(written.length, 'each record once').toBe(40);
      expect(new Set(written).size).toBe(40);
      expect(await expired()).toBe(0);
    } finally {
      await w.stop();
      await rest.close();
    }
  }, 60_000);
});
