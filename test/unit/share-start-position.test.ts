// Where a share-mode connector's group starts: the user's choice is reported as theirs, a group with no
// members and no value of its own gets Connect's `earliest`, and a value set on the group, or the default
// of a group others read with, is never written over. One INFO line says which and why.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  chooseStartPosition,
  decideStartPosition,
  explicitStart,
  type GroupPresence,
  type StartPositionCluster,
} from '../../src/actors/share-start-position.js';
import { compileConnectorConfig, compileWorkerConfig } from '../../src/config/index.js';
import { KafkaError } from '../../src/kafka/errors/kafka-errors.js';
import type { BrokerConnection } from '../../src/kafka/connection.js';

const worker = compileWorkerConfig({ 'bootstrap.servers': 'localhost:9092' });
const shareConnector = (extra: Record<string, string> = {}, w = worker) =>
  compileConnectorConfig(
    {
      name: 'foo',
      'connector.class': 'noop',
      topics: 'orders',
      'consumer.override.group.protocol': 'share',
      ...extra,
    },
    w,
  );

const absent: GroupPresence = { kind: 'absent' };
const empty: GroupPresence = { kind: 'empty' };
const unset = { value: 'latest', setOnGroup: false };

describe('explicitStart', () => {
  it('is undefined when nothing chooses a start position, and for auto.offset.reset=none', () => {
    expect(explicitStart(shareConnector())).toBeUndefined();
    expect(explicitStart(shareConnector({ 'consumer.override.auto.offset.reset': 'none' }))).toBeUndefined();
  });

  it('names the key the value came from: group config, connector override, worker default', () => {
    expect(explicitStart(shareConnector({ 'share.group.share.auto.offset.reset': 'latest' }))).toEqual({
      key: 'share.group.share.auto.offset.reset',
      value: 'latest',
    });
    expect(explicitStart(shareConnector({ 'consumer.override.auto.offset.reset': 'latest' }))).toEqual({
      key: 'consumer.override.auto.offset.reset',
      value: 'latest',
    });
    const w = compileWorkerConfig({
      'bootstrap.servers': 'localhost:9092',
      'consumer.auto.offset.reset': 'by_duration:PT1H',
    });
    expect(explicitStart(shareConnector({}, w))).toEqual({
      key: "the worker's consumer.auto.offset.reset",
      value: 'by_duration:PT1H',
    });
  });
});

describe('decideStartPosition', () => {
  it('a new group with nothing chosen: writes earliest and says why and how to change it', () => {
    expect(
      decideStartPosition({ groupId: 'connect-foo', explicit: undefined, group: absent, config: unset }),
    ).toEqual({
      value: 'earliest',
      write: 'earliest',
      writtenBy: 'start position',
      level: 'info',
      message:
        'share group connect-foo is new: set share.auto.offset.reset=earliest, as Connect starts sink consumers at the earliest offset (records already in the topic are written); set consumer.override.auto.offset.reset=latest to start at the end',
    });
  });

  it('a group without members and without a value of its own also gets earliest', () => {
    const d = decideStartPosition({ groupId: 'g', explicit: undefined, group: empty, config: unset });
    expect(d.write).toBe('earliest');
    expect(d.message).toContain('share group g has no members and no share.auto.offset.reset of its own');
    expect(d.message).toContain('partitions it has read before keep their position');
  });

  it('never writes over a value set on the group, whatever the group state', () => {
    for (const group of [absent, empty, { kind: 'active', members: 2 } as const]) {
      const d = decideStartPosition({
        groupId: 'g',
        explicit: undefined,
        group,
        config: { value: 'latest', setOnGroup: true },
      });
      expect(d).toMatchObject({ value: 'latest', write: undefined });
      expect(d.message).toBe(
        'share group g has share.auto.offset.reset=latest set on the group (by an earlier start, or by hand): left as is, as sharesink never overwrites it, so partitions the group has not read yet start at the latest offset; set consumer.override.auto.offset.reset=earliest to start at the beginning',
      );
    }
  });

  it('leaves the default of a group other members read with', () => {
    const d = decideStartPosition({
      groupId: 'g',
      explicit: undefined,
      group: { kind: 'active', members: 3 },
      config: unset,
    });
    expect(d).toMatchObject({ value: 'latest', write: undefined });
    expect(d.message).toContain('already has 3 member(s) and no share.auto.offset.reset of its own');
  });

  it("the user's choice wins and is reported as theirs, written with the group configs before this step", () => {
    const latest = decideStartPosition({
      groupId: 'connect-foo',
      explicit: { key: 'consumer.override.auto.offset.reset', value: 'latest' },
      group: absent,
    });
    expect(latest).toEqual({
      value: 'latest',
      write: undefined,
      writtenBy: 'group configs',
      level: 'info',
      message:
        "share group connect-foo is new: share.auto.offset.reset=latest was written with the connector's group configs, as consumer.override.auto.offset.reset=latest asks (records already in the topic are skipped, only new ones are written)",
    });
    const existing = decideStartPosition({
      groupId: 'g',
      explicit: { key: 'share.group.share.auto.offset.reset', value: 'by_duration:PT1H' },
      group: { kind: 'active', members: 1 },
    });
    expect(existing.message).toBe(
      "share group g exists: share.auto.offset.reset=by_duration:PT1H was written with the connector's group configs, as share.group.share.auto.offset.reset=by_duration:PT1H asks (records from the last PT1H are written); it applies only to partitions the group has not read yet",
    );
  });
});

/** A cluster that answers ShareGroupDescribe and DescribeConfigs as told and records config writes. */
function fakeCluster(answers: {
  describe: { errorCode: number; errorMessage?: string; groupState?: string; members?: number };
  config?: { value: string; configSource: number };
  /** DescribeConfigs answers this error code for the group. */
  configError?: number;
  alterFails?: KafkaError;
}) {
  const writes: Array<Record<string, string | null>> = [];
  const conn = {
    call: (api: { name: string }) => {
      if (api.name === 'ShareGroupDescribe') {
        const d = answers.describe;
        return Promise.resolve({
          throttleTimeMs: 0,
          groups: [
            {
              errorCode: d.errorCode,
              errorMessage: d.errorMessage ?? null,
              groupId: 'connect-foo',
              groupState: d.groupState ?? '',
              members: Array.from({ length: d.members ?? 0 }, () => ({})),
            },
          ],
        });
      }
      if (api.name === 'DescribeConfigs') {
        const c = answers.config;
        return Promise.resolve({
          throttleTimeMs: 0,
          results: [
            {
              errorCode: answers.configError ?? 0,
              errorMessage: null,
              configs: c === undefined ? [] : [{ name: 'share.auto.offset.reset', ...c }],
            },
          ],
        });
      }
      return Promise.reject(new Error(`unexpected ${api.name}`));
    },
  } as unknown as BrokerConnection;
  const cluster: StartPositionCluster = {
    findGroupCoordinator: () => Promise.resolve({ nodeId: 1, host: 'h', port: 1, rack: null }),
    connectionTo: () => Promise.resolve(conn),
    anyConnection: () => Promise.resolve(conn),
    alterGroupConfigs: (_group, configs) => {
      if (answers.alterFails !== undefined) return Promise.reject(answers.alterFails);
      writes.push({ ...configs });
      return Promise.resolve();
    },
  };
  return { cluster, writes };
}

function capture() {
  const lines: Array<{ level: number; msg: string; [k: string]: unknown }> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

const GROUP_ID_NOT_FOUND = 69;
const DEFAULT_CONFIG = 5;
const GROUP_CONFIG = 8;

describe('a group id that belongs to a group of another type', () => {
  it('is a WARN that says why the tasks cannot join and what to do; nothing is written', () => {
    const d = decideStartPosition({
      groupId: 'connect-foo',
      explicit: undefined,
      group: { kind: 'notShare', brokerMessage: 'Group connect-foo is not a share group.' },
      config: unset,
    });
    expect(d).toMatchObject({ write: undefined, level: 'warn' });
    expect(d.message).toBe(
      'group connect-foo is not a share group (broker says: Group connect-foo is not a share group.): the broker keeps one group per id, so a connector moved to share mode needs a group of its own; set consumer.override.group.id to a new name, or delete the old group (kafka-consumer-groups.sh --bootstrap-server … --delete --group connect-foo) if it is no longer needed',
    );
  });
});

describe('chooseStartPosition', () => {
  it('writes earliest on a group the broker does not know, and logs exactly one INFO line', async () => {
    const { cluster, writes } = fakeCluster({
      describe: { errorCode: GROUP_ID_NOT_FOUND },
      config: { value: 'latest', configSource: DEFAULT_CONFIG },
    });
    const { logger, lines } = capture();
    const d = await chooseStartPosition(cluster, shareConnector(), logger);
    expect(writes).toEqual([{ 'share.auto.offset.reset': 'earliest' }]);
    expect(d?.value).toBe('earliest');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      groupId: 'connect-foo',
      'share.auto.offset.reset': 'earliest',
      written: true,
    });
    expect(lines[0]!.msg).toMatch(/^share group connect-foo is new: set share.auto.offset.reset=earliest/);
  });

  it("tells GROUP_ID_NOT_FOUND for another group type from a missing group by the broker's text", async () => {
    const { cluster, writes } = fakeCluster({
      describe: { errorCode: GROUP_ID_NOT_FOUND, errorMessage: 'Group connect-foo is not a share group.' },
      config: { value: 'latest', configSource: DEFAULT_CONFIG },
    });
    const { logger, lines } = capture();
    await chooseStartPosition(cluster, shareConnector(), logger);
    expect(writes).toEqual([]);
    expect(lines.map((l) => l.level)).toEqual([40]);
    expect(lines[0]!.msg).toMatch(/^group connect-foo is not a share group/);
  });

  it('writes nothing when the group has its own value (GROUP_CONFIG source)', async () => {
    const { cluster, writes } = fakeCluster({
      describe: { errorCode: 0, groupState: 'Empty' },
      config: { value: 'latest', configSource: GROUP_CONFIG },
    });
    const { logger, lines } = capture();
    await chooseStartPosition(cluster, shareConnector(), logger);
    expect(writes).toEqual([]);
    expect(lines.map((l) => [l.level, l['written']])).toEqual([[30, false]]);
  });

  it('reads nothing about the config and writes nothing when the user chose', async () => {
    const { cluster, writes } = fakeCluster({ describe: { errorCode: 0, groupState: 'Stable', members: 1 } });
    const { logger, lines } = capture();
    await chooseStartPosition(
      cluster,
      shareConnector({ 'consumer.override.auto.offset.reset': 'latest' }),
      logger,
    );
    expect(writes).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toMatch(
      /^share group connect-foo exists: share.auto.offset.reset=latest was written with the connector's group configs/,
    );
  });

  it("the line's fields agree with its text: the user's value was written at this start, by the group configs", async () => {
    // the connector start writes the chosen value with the other group configs just before this step
    // (connector/instance.ts); the line used to say "set …" with written=false
    const { cluster } = fakeCluster({ describe: { errorCode: GROUP_ID_NOT_FOUND } });
    const { logger, lines } = capture();
    await chooseStartPosition(
      cluster,
      shareConnector({ 'consumer.override.auto.offset.reset': 'latest' }),
      logger,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      'share.auto.offset.reset': 'latest',
      written: true,
      writtenBy: 'group configs',
      chosenBy: 'consumer.override.auto.offset.reset',
    });
    expect(lines[0]!.msg).not.toMatch(/: set /);
  });

  it('says which step wrote earliest, and writes nothing more about a value left as it was', async () => {
    const fresh = fakeCluster({
      describe: { errorCode: GROUP_ID_NOT_FOUND },
      config: { value: 'latest', configSource: DEFAULT_CONFIG },
    });
    const a = capture();
    await chooseStartPosition(fresh.cluster, shareConnector(), a.logger);
    expect(a.lines[0]).toMatchObject({ written: true, writtenBy: 'start position' });
    expect(a.lines[0]).not.toHaveProperty('chosenBy');
    const own = fakeCluster({
      describe: { errorCode: 0, groupState: 'Empty' },
      config: { value: 'latest', configSource: GROUP_CONFIG },
    });
    const b = capture();
    await chooseStartPosition(own.cluster, shareConnector(), b.logger);
    expect(b.lines[0]).toMatchObject({ written: false });
    expect(b.lines[0]).not.toHaveProperty('writtenBy');
  });

  it('a refused write is one WARN naming the consequence and the fix; the start goes on', async () => {
    const { cluster } = fakeCluster({
      describe: { errorCode: GROUP_ID_NOT_FOUND },
      config: { value: 'latest', configSource: DEFAULT_CONFIG },
      alterFails: new KafkaError(30, { api: 'IncrementalAlterConfigs', subject: 'group connect-foo' }),
    });
    const { logger, lines } = capture();
    expect(await chooseStartPosition(cluster, shareConnector(), logger)).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe(40);
    expect(lines[0]!.msg).toContain('GROUP_AUTHORIZATION_FAILED');
    expect(lines[0]!.msg).toContain('skips the records already in the topic');
    // the operation the broker wanted, not READ (which the group already has: the tasks may join it)
    expect(lines[0]!.msg).toContain('the principal needs ALTER_CONFIGS on the group');
    // the connector-file setting would be refused the same way: the grant, or an administrator's command
    expect(lines[0]!.msg).not.toContain('in the connector');
    expect(lines[0]!.msg).toContain(
      'grant User:ANONYMOUS DESCRIBE_CONFIGS and ALTER_CONFIGS on the group (kafka-acls.sh --bootstrap-server … --add --allow-principal User:ANONYMOUS --operation DescribeConfigs --operation AlterConfigs --group connect-foo) and start again, or have an administrator run: kafka-configs.sh',
    );
  });

  it('a refused read of the group config names DESCRIBE_CONFIGS', async () => {
    const { logger, lines } = capture();
    await chooseStartPosition(
      fakeCluster({
        describe: { errorCode: GROUP_ID_NOT_FOUND },
        configError: 30,
      }).cluster,
      shareConnector(),
      logger,
    );
    expect(lines[0]!.msg).toContain(
      'DescribeConfigs failed with GROUP_AUTHORIZATION_FAILED (30) for group connect-foo; the principal needs DESCRIBE_CONFIGS on the group',
    );
  });

  it('a failure that is no refusal still suggests the connector setting', async () => {
    const { logger, lines } = capture();
    await chooseStartPosition(
      fakeCluster({
        describe: { errorCode: GROUP_ID_NOT_FOUND },
        config: { value: 'latest', configSource: DEFAULT_CONFIG },
        alterFails: new KafkaError(40, { api: 'IncrementalAlterConfigs', subject: 'group connect-foo' }),
      }).cluster,
      shareConnector(),
      logger,
    );
    expect(lines[0]!.msg).toContain('set share.group.share.auto.offset.reset=earliest in the connector');
  });
});
