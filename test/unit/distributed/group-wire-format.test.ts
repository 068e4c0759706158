// The worker group's own bytes inside JoinGroup / SyncGroup: versioned JSON, offsets as decimal strings,
// unknown fields ignored (a newer worker in the same cluster), malformed input a decode error naming the field.
import { describe, expect, it } from 'vitest';
import { KafkaProtocolError } from '../../../src/kafka/errors/kafka-errors.js';
import {
  decodeMemberAssignment,
  decodeMemberMetadata,
  encodeMemberAssignment,
  encodeMemberMetadata,
} from '../../../src/distributed/group/wire-format.js';

const metadata = {
  workerId: 'w1:8083',
  restUrl: 'http://w1:8083',
  configOffset: 2n ** 62n,
  connectors: ['orders'],
  tasks: [{ connector: 'orders', task: 3 }],
};

describe('member metadata', () => {
  it('is JSON with a version, the offset as a string, tasks as pairs', () => {
    expect(encodeMemberMetadata(metadata).toString()).toBe(
      '{"version":1,"workerId":"w1:8083","restUrl":"http://w1:8083","configOffset":"4611686018427387904",' +
        '"connectors":["orders"],"tasks":[["orders",3]]}',
    );
    expect(decodeMemberMetadata(encodeMemberMetadata(metadata), 'm')).toEqual(metadata);
  });

  it('a newer version with fields we do not know still reads', () => {
    const newer = Buffer.from(
      '{"version":7,"rack":"r1","workerId":"w","restUrl":"u","configOffset":"-1","connectors":[],"tasks":[]}',
    );
    expect(decodeMemberMetadata(newer, 'm')).toMatchObject({ workerId: 'w', configOffset: -1n });
  });

  it.each([
    ['not json', /metadata of member m1 is not JSON/],
    ['[1]', /is not an object/],
    ['{"workerId":"w"}', /field "version" is not a number/],
    ['{"version":0}', /field "version" is not an integer ≥ 1/],
    [
      '{"version":1,"workerId":"w","restUrl":"u","configOffset":"1.5","connectors":[],"tasks":[]}',
      /"configOffset" is not a decimal offset/,
    ],
    [
      '{"version":1,"workerId":"w","restUrl":"u","configOffset":"1","connectors":[],"tasks":[["c",-1]]}',
      /"tasks" is not an array of \[connector, task\] pairs/,
    ],
    [
      '{"version":1,"workerId":"w","restUrl":"u","configOffset":"1","connectors":[3],"tasks":[]}',
      /"connectors" is not an array of strings/,
    ],
  ])('%s is refused', (text, message) => {
    const err = (() => {
      try {
        decodeMemberMetadata(Buffer.from(text), 'm1');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(KafkaProtocolError);
    expect((err as KafkaProtocolError).code).toBe('SHARESINK_PROTOCOL_DECODE');
    expect((err as Error).message).toMatch(message);
  });
});

describe('member assignment', () => {
  it('round-trips, with the member list every worker shows', () => {
    const a = {
      leaderId: 'm1',
      leaderUrl: 'http://w1:8083',
      configOffset: 42n,
      connectors: ['orders'],
      tasks: [{ connector: 'orders', task: 0 }],
      revokedConnectors: ['old'],
      revokedTasks: [{ connector: 'old', task: 1 }],
      delayMs: 1500,
      members: [{ memberId: 'm1', workerId: 'w1:8083', restUrl: 'http://w1:8083', configOffset: 42n }],
    };
    expect(decodeMemberAssignment(encodeMemberAssignment(a))).toEqual(a);
    expect(() => decodeMemberAssignment(Buffer.from('{"version":1,"leaderId":"m1"}'))).toThrow(
      /assignment from the group leader: field "leaderUrl" is not a string/,
    );
  });
});
