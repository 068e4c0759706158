// kafkajs's lines on the classic path, fed the way kafkajs feeds them (a logCreator): the start of a
// consumer group on a fresh broker is quiet unless the coordinator stays away, and no line carries a
// key its logger already binds.
import { logLevel, type LogEntry } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { pinoLogCreator } from '../../../../src/kafka/kafkajs/pino-log.js';
import { duplicateKeys } from '../../../integration/harness/strict-json.js';
import { pino } from 'pino';
import { capturingLogger } from '../../cli/capturing-logger.js';

const LOADING = "The coordinator is loading and hence can't process requests for this group";

function entry(
  namespace: string,
  level: logLevel,
  message: string,
  extra: Record<string, unknown> = {},
): LogEntry {
  return {
    namespace,
    level,
    label: logLevel[level],
    log: { timestamp: new Date().toISOString(), message, logger: 'kafkajs', ...extra },
  };
}

/** What kafkajs 2.2 logs when the group coordinator is still loading as a consumer starts. */
const coordinatorCrash = [
  entry('Consumer', logLevel.ERROR, `Crash: KafkaJSProtocolError: ${LOADING}`, {
    groupId: 'connect-orders',
    retryCount: 0,
    stack: `KafkaJSProtocolError: ${LOADING}\n    at createErrorFromCode (kafkajs/src/protocol/error.js:581:10)`,
  }),
  entry('Consumer', logLevel.ERROR, 'Restarting the consumer in 300ms', {
    retryCount: 0,
    retryTime: 300,
    groupId: 'connect-orders',
  }),
];
const joined = entry('ConsumerGroup', logLevel.INFO, 'Consumer has joined the group', {
  groupId: 'connect-orders',
  memberId: 'm-1',
});

function classicLog() {
  let now = 0;
  const { logger, lines } = capturingLogger('debug');
  const log = pinoLogCreator(logger, { now: () => now })(logLevel.INFO);
  return { log, lines, advance: (ms: number) => (now += ms) };
}

describe('kafkajs lines on the classic path', () => {
  it('a coordinator that loads within seconds: the crash and restart are debug, the join info', () => {
    const { log, lines, advance } = classicLog();
    for (const e of coordinatorCrash) log(e);
    advance(2000);
    for (const e of coordinatorCrash) log(e);
    log(joined);

    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.filter((l) => l.level === 20)).toHaveLength(4);
    expect(lines[0]!.msg).toBe(
      'waiting for the coordinator of consumer group connect-orders: COORDINATOR_LOAD_IN_PROGRESS',
    );
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'Consumer has joined the group' });
  });

  it('one that stays away past 10 s: one WARN naming the group and the error, then the end', () => {
    const { log, lines, advance } = classicLog();
    for (let i = 0; i < 12; i++) {
      for (const e of coordinatorCrash) log(e);
      advance(1500);
    }
    log(joined);

    const loud = lines.filter((l) => l.level >= 30).map((l) => `${l.level} ${l.msg}`);
    expect(loud).toEqual([
      '40 still waiting for the coordinator of consumer group connect-orders after 11 s: COORDINATOR_LOAD_IN_PROGRESS',
      '30 the coordinator of consumer group connect-orders answered after 18 s',
      '30 Consumer has joined the group',
    ]);
  });

  it('a rebalance is info once (the Runner’s line), not two WARNs; other errors stay loud', () => {
    const { log, lines } = classicLog();
    const rebalancing = 'The group is rebalancing, so a rejoin is needed';
    log(
      entry('Connection', logLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)', { error: rebalancing }),
    );
    log(entry('Runner', logLevel.WARN, 'The group is rebalancing, re-joining', { error: rebalancing }));
    log(entry('Consumer', logLevel.ERROR, 'Crash: KafkaJSNonRetriableError: Topic authorization failed'));
    // not after a coordinator crash: a restart is worth seeing
    log(entry('Consumer', logLevel.ERROR, 'Restarting the consumer in 300ms', { retryTime: 300 }));

    // the Connection's line repeats the Runner's: trace, like kafkajs's other per-request lines
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      '30 The group is rebalancing, re-joining',
      '40 Crash: KafkaJSNonRetriableError: Topic authorization failed',
      '40 Restarting the consumer in 300ms',
    ]);
  });

  it('fields kafkajs repeats from the logger’s bindings are written once', () => {
    const out: string[] = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => out.push(s) }).child({
      connector: 'orders',
      task: 0,
      broker: '127.0.0.1:9092',
      groupId: 'connect-orders',
    });
    const log = pinoLogCreator(logger)(logLevel.INFO);
    log(
      entry('Connection', logLevel.WARN, 'Response without match', {
        broker: '127.0.0.1:9092',
        clientId: 'c',
      }),
    );
    log(joined);

    expect(out).toHaveLength(2);
    for (const line of out) expect(duplicateKeys(line), line).toEqual([]);
    expect(JSON.parse(out[0]!)).toMatchObject({
      broker: '127.0.0.1:9092',
      clientId: 'c',
      kafkajs: 'Connection',
    });
  });
});
