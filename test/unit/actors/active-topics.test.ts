// A connector's active topics (KIP-558): noted per put, from the records the tasks hand to the pool.
import { describe, expect, it } from 'vitest';
import { ActiveTopics, trackingPool } from '../../../src/actors/connector/active-topics.js';
import type { RawRecord } from '../../../src/connect/raw-record.js';
import type { PutPool } from '../../../src/pool/put-pool.js';

const records = (...topics: string[]): RawRecord[] =>
  topics.map((topic, offset) => ({
    topic,
    partition: 0,
    offset,
    timestamp: null,
    timestampType: 'NoTimestampType',
    key: null,
    value: null,
    headers: [],
  }));

/** Records a put must not look at: any access throws. */
const untouchable = new Proxy([] as RawRecord[], {
  get: () => {
    throw new Error('the records were read');
  },
});

describe('ActiveTopics', () => {
  it('keeps the topics puts carried, says each new one once, by the task that put it first', () => {
    const heard: string[] = [];
    const t = new ActiveTopics({
      listed: ['a', 'b', 'c'],
      onNew: (topic, task) => heard.push(`${topic}@${task}`),
    });
    t.note(records('b', 'b', 'b'), 1);
    t.note(records('b', 'a', 'a', 'b'), 0);
    t.note(records('a'), 2);
    expect(t.topics()).toEqual(['a', 'b']);
    expect(heard).toEqual(['b@1', 'a@0']);
  });

  it('with every listed topic known, a put is not looked at; a forgotten one is looked for again', () => {
    const heard: string[] = [];
    const t = new ActiveTopics({ listed: ['a', 'b'], onNew: (topic) => heard.push(topic) });
    t.note(records('a', 'b'), 0);
    expect(() => t.note(untouchable, 0)).not.toThrow();
    t.forget('b');
    expect(() => t.note(untouchable, 0)).toThrow('the records were read');
    t.note(records('a', 'b'), 3);
    expect(heard).toEqual(['a', 'b', 'b']);
    expect(() => t.note(untouchable, 0)).not.toThrow();
  });

  it('topics.regex: the topics are not known ahead, so every put is looked at', () => {
    const t = new ActiveTopics({ listed: undefined });
    t.note(records('x'), 0);
    expect(() => t.note(untouchable, 0)).toThrow('the records were read');
    t.note(records('x', 'y', 'x'), 0);
    expect(t.topics()).toEqual(['x', 'y']);
  });

  it('a reset empties the set; the next puts fill it again and say each topic anew', () => {
    const heard: string[] = [];
    const t = new ActiveTopics({ listed: ['a', 'b'], onNew: (topic) => heard.push(topic) });
    t.note(records('a', 'b'), 0);
    t.reset();
    expect(t.topics()).toEqual([]);
    t.note(records('b'), 0);
    expect(t.topics()).toEqual(['b']);
    expect(heard).toEqual(['a', 'b', 'b']);
  });
});

describe('trackingPool', () => {
  class Pool {
    readonly #puts: string[] = [];
    next: Record<string, unknown> = { kind: 'ok' };
    put(_task: unknown, batch: unknown) {
      this.#puts.push(Array.isArray(batch) ? `raw ${batch.length}` : 'wire');
      return Promise.resolve({ convertMs: 0.2, converterFailures: [], threadId: 1, ...this.next });
    }
    get puts() {
      return this.#puts;
    }
    stopTask(id: string) {
      this.#puts.push(`stop ${id}`);
      return Promise.resolve();
    }
  }
  const task = { id: 't-4', props: {} };
  const failure = (index: number, code: string) => ({
    index,
    code,
    message: 'x',
    converter: 'c',
    part: 'value',
  });

  it('notes the records of each put once its result is in; the rest of the pool works through it', async () => {
    const inner = new Pool();
    const topics = new ActiveTopics({ listed: ['a', 'b'] });
    const pool = trackingPool(inner as unknown as PutPool, topics, 4);
    expect(await pool.put(task, records('a', 'a'))).toMatchObject({ kind: 'ok', threadId: 1 });
    // an encoded batch is passed on unread
    await pool.put(task, { encoded: true } as never);
    await pool.stopTask('t-4');
    expect(topics.topics()).toEqual(['a']);
    expect(inner.puts).toEqual(['raw 2', 'wire', 'stop t-4']);
    expect((pool as unknown as Pool).puts).toBe(inner.puts);
  });

  it("counts what converted, as Connect: not a converter's failures, not a put that never converted or was aborted", async () => {
    const inner = new Pool();
    const topics = new ActiveTopics({ listed: ['a', 'b', 'c', 'd'] });
    const pool = trackingPool(inner as unknown as PutPool, topics, 0);
    // the task could not start: nothing converted
    inner.next = { kind: 'fatal', message: 'start failed', convertMs: 0 };
    await pool.put(task, records('a'));
    inner.next = { kind: 'aborted', reason: 'shutdown' };
    await pool.put(task, records('a'));
    expect(topics.topics()).toEqual([]);
    // b's only record failed its converter; c's failed a transform, after Connect notes the topic
    inner.next = {
      kind: 'ok',
      converterFailures: [failure(1, 'SHARESINK_CONVERTER_FAILED'), failure(2, 'SHARESINK_TRANSFORM_FAILED')],
    };
    await pool.put(task, records('a', 'b', 'c'));
    expect(topics.topics()).toEqual(['a', 'c']);
    // a put that failed after converting counts
    inner.next = { kind: 'fatal', message: 'the database said no', convertMs: 3 };
    await pool.put(task, records('d'));
    expect(topics.topics()).toEqual(['a', 'c', 'd']);
  });
});
