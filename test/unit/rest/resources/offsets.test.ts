import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseOffsetChanges, toConnectOffsets } from '../../../../src/offsets/connect-shape.js';
import { GroupNotEmptyError } from '../../../../src/offsets/errors.js';
import { addOffsetsRoutes } from '../../../../src/rest/resources/offsets.js';
import { Router, type RestRequest } from '../../../../src/rest/server/router.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

function call(router: Router, method: string, path: string, body: unknown = {}) {
  const { handler, params } = router.match(method, path);
  return handler({
    method,
    path,
    params,
    query: new URLSearchParams(),
    json: async () => body,
  } as RestRequest);
}

describe('offsets routes without a broker', () => {
  const router = new Router();
  const c = new FakeConnector('audit', 1);
  addOffsetsRoutes(router, fakeWorker([c]), pino({ level: 'silent' }));

  it("refuses PATCH and DELETE unless STOPPED, in Connect's words, before any Kafka call", async () => {
    const message =
      "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/audit/stop' endpoint";
    await expect(call(router, 'PATCH', '/connectors/audit/offsets')).rejects.toMatchObject({
      status: 400,
      message,
    });
    c.state = 'PAUSED';
    await expect(call(router, 'DELETE', '/connectors/audit/offsets')).rejects.toMatchObject({
      status: 400,
      message,
    });
  });

  it('answers 404 for an unknown connector and 405 for another method', async () => {
    await expect(call(router, 'GET', '/connectors/nope/offsets')).rejects.toMatchObject({ status: 404 });
    expect(() => router.match('POST', '/connectors/audit/offsets')).toThrow(/HTTP POST not allowed/);
  });
});

describe("Connect's offsets shape", () => {
  it('sorts by topic and partition and adds lag only when known', () => {
    expect(
      toConnectOffsets([
        { topic: 'b', partition: 0, offset: 1 },
        { topic: 'a', partition: 2, offset: 5, lag: 3 },
        { topic: 'a', partition: 1, offset: 4 },
      ]),
    ).toEqual({
      offsets: [
        { partition: { kafka_topic: 'a', kafka_partition: 1 }, offset: { kafka_offset: 4 } },
        { partition: { kafka_topic: 'a', kafka_partition: 2 }, offset: { kafka_offset: 5, lag: 3 } },
        { partition: { kafka_topic: 'b', kafka_partition: 0 }, offset: { kafka_offset: 1 } },
      ],
    });
  });

  it('parses numbers and digit strings, null offsets, and refuses the rest with Connect’s messages', () => {
    const p = (partition: unknown, offset: unknown) => ({ offsets: [{ partition, offset }] });
    expect(parseOffsetChanges(p({ kafka_topic: 't', kafka_partition: '2' }, { kafka_offset: 7 }))).toEqual([
      { topic: 't', partition: 2, offset: 7 },
    ]);
    expect(parseOffsetChanges(p({ kafka_topic: 't', kafka_partition: 0 }, null))).toEqual([
      { topic: 't', partition: 0, offset: null },
    ]);
    expect(() => parseOffsetChanges({})).toThrow(
      'Partitions / offsets need to be provided for an alter offsets request',
    );
    expect(() => parseOffsetChanges(p(null, null))).toThrow(
      'The partition for a sink connector offset cannot be null or missing',
    );
    expect(() => parseOffsetChanges(p({ kafka_topic: 't' }, null))).toThrow(
      "The partition for a sink connector offset must contain the keys 'kafka_topic' and 'kafka_partition'",
    );
    expect(() => parseOffsetChanges(p({ kafka_topic: 7, kafka_partition: 0 }, null))).toThrow(
      'Kafka topic names must be valid strings and may not be null',
    );
    expect(() => parseOffsetChanges(p({ kafka_topic: 't', kafka_partition: 0 }, { offset: 1 }))).toThrow(
      "The offset for a sink connector should either be null or contain the key 'kafka_offset'",
    );
    expect(() =>
      parseOffsetChanges(p({ kafka_topic: 't', kafka_partition: 0 }, { kafka_offset: 1.5 })),
    ).toThrow(
      "Failed to parse the following Kafka offset value in the provided offsets: '1.5'. Offset values for sink connectors need to be integers.",
    );
  });

  it('names every member a non-empty group still has', () => {
    const e = new GroupNotEmptyError('g', 'share', [
      { memberId: 'm1', clientId: 'c1', host: '/10.0.0.1' },
      { memberId: 'm2', clientId: 'c2', host: '/10.0.0.2' },
    ]);
    expect(e.code).toBe('SHARESINK_OFFSETS_GROUP_NOT_EMPTY');
    expect(e.message).toContain(
      'The share group g still has 2 member(s): m1 (client.id c1, host /10.0.0.1), m2 (client.id c2, host /10.0.0.2)',
    );
  });
});
