import { describe, expect, it } from 'vitest';
import { compileDistributedConfig } from '../../../src/config/distributed-def.js';
import { ConfigError } from '../../../src/errors.js';
import {
  keyOf,
  parseConfigRecord,
  valueOf,
  type ConfigRecord,
} from '../../../src/distributed/herder/config-records.js';
import { ConfigState } from '../../../src/distributed/herder/config-state.js';

const compile = (raw: Record<string, string>, listeners = ['http://127.0.0.1:8083']) =>
  compileDistributedConfig({ raw, listeners });

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problemLines();
    throw err;
  }
  throw new Error('no ConfigError');
}

describe('distributed worker keys', () => {
  it("takes Connect's defaults", () => {
    const d = compile({ 'group.id': 'g', 'config.storage.topic': 'c', 'status.storage.topic': 's' });
    expect(d).toMatchObject({
      groupId: 'g',
      configReplicationFactor: 3,
      statusPartitions: 5,
      protocol: 'sessioned',
      scheduledRebalanceMaxDelayMs: 0,
      workerSyncTimeoutMs: 3000,
      sessionTimeoutMs: 10000,
      heartbeatIntervalMs: 3000,
      rebalanceTimeoutMs: 60000,
      offsetTopic: undefined,
    });
  });

  it('lists every problem at once: missing group.id and topics, no listener, bad values', () => {
    const problems = problemsOf(() =>
      compile(
        {
          'config.storage.replication.factor': '0',
          'connect.protocol': 'chatty',
          'heartbeat.interval.ms': '20000',
        },
        [],
      ),
    );
    const text = problems.join('\n');
    for (const key of [
      'group.id',
      'config.storage.topic',
      'status.storage.topic',
      'listeners',
      'config.storage.replication.factor',
      'connect.protocol',
      'heartbeat.interval.ms',
    ])
      expect(text).toContain(key);
  });

  it('refuses one topic for configs and statuses; accepts -1 (broker default) replicas', () => {
    const base = { 'group.id': 'g', 'config.storage.topic': 'same', 'status.storage.topic': 'same' };
    expect(problemsOf(() => compile(base)).join()).toMatch(/two different topics/);
    const d = compile({ ...base, 'status.storage.topic': 's', 'status.storage.replication.factor': '-1' });
    expect(d.statusReplicationFactor).toBe(-1);
  });
});

describe('config topic records', () => {
  const records: ConfigRecord[] = [
    { kind: 'connector', name: 'a-b', config: { 'tasks.max': '2' } },
    { kind: 'task', name: 'a-b', task: 1, config: { x: 'y' } },
    { kind: 'commit', name: 'a-b', tasks: 2 },
    { kind: 'target-state', name: 'a-b', state: 'PAUSED' },
    { kind: 'restart', name: 'a-b', request: { includeTasks: true, onlyFailed: false, task: 1 } },
    { kind: 'connector', name: 'a-b', config: null },
  ];

  it("round-trips under Connect's keys (a dash in the name included)", () => {
    for (const r of records) expect(parseConfigRecord(keyOf(r), valueOf(r))).toEqual(r);
    expect(keyOf(records[1]!)).toBe('task-a-b-1');
    expect(keyOf(records[4]!)).toBe('restart-connector-a-b');
  });

  it('skips what it does not understand (another version, another tool)', () => {
    expect(parseConfigRecord('connector-x', JSON.stringify({ v: 99, config: {} }))).toBeUndefined();
    expect(parseConfigRecord('session-key', '{}')).toBeUndefined();
    expect(parseConfigRecord('commit-x', 'not json')).toBeUndefined();
  });

  it('makes task configs visible only with their commit, and forgets a deleted connector', () => {
    const s = new ConfigState();
    let offset = 0n;
    const apply = (r: ConfigRecord) => s.apply(r, offset++);
    apply({ kind: 'connector', name: 'c', config: { a: '1' } });
    apply({ kind: 'task', name: 'c', task: 0, config: { t: '0' } });
    apply({ kind: 'task', name: 'c', task: 1, config: { t: '1' } });
    expect(s.connector('c')?.tasks).toEqual([]);
    expect(s.connector('c')?.tasksStale).toBe(true);
    expect(apply({ kind: 'commit', name: 'c', tasks: 2 })).toEqual({ type: 'tasks', name: 'c', count: 2 });
    expect(s.taskCounts()).toEqual([{ name: 'c', tasks: 2 }]);
    apply({ kind: 'target-state', name: 'c', state: 'STOPPED' });
    expect(s.taskCounts()).toEqual([{ name: 'c', tasks: 0 }]);
    expect(apply({ kind: 'connector', name: 'c', config: null })).toEqual({
      type: 'connector',
      name: 'c',
      deleted: true,
    });
    expect(s.connectors).toEqual([]);
    expect(s.offset).toBe(offset);
  });
});
