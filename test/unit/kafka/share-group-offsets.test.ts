import { describe, expect, it } from 'vitest';
import {
  AlterShareGroupOffsets,
  DeleteShareGroupOffsets,
  DescribeShareGroupOffsets,
  OffsetDelete,
  Writer,
  buildRequest,
} from '../../../src/kafka/protocol/index.js';

const TOPIC_ID = 'Ej5FZ-ibEtOkVkJmFBdAAA';

/** A Describe response body as the broker writes it (field order of DescribeShareGroupOffsetsResponse.json). */
function describeResponse(version: number, lag: number): Buffer {
  const w = new Writer();
  w.int32(0); // throttle
  w.uvarint(2); // one group
  w.compactString('g');
  w.uvarint(2); // one topic
  w.compactString('orders');
  w.uuid(TOPIC_ID);
  w.uvarint(3); // two partitions
  for (const [p, start] of [
    [0, 40],
    [1, -1],
  ] as const) {
    w.int32(p).int64(start).int32(0);
    if (version >= 1) w.int64(p === 0 ? lag : -1);
    w.int16(0).compactNullableString(null).emptyTaggedFields();
  }
  w.emptyTaggedFields(); // topic
  w.int16(0).compactNullableString(null).emptyTaggedFields(); // group
  w.emptyTaggedFields();
  return w.finish();
}

describe('DescribeShareGroupOffsets (90)', () => {
  it('encodes a null topic list as "all partitions" and a topic list as given', () => {
    const all = buildRequest(DescribeShareGroupOffsets, 1, { groups: [{ groupId: 'g', topics: null }] });
    // groups[1] { "g", topics=null, tags } tags
    expect(all.body.toString('hex')).toBe('02' + '0267' + '00' + '00' + '00');
    expect([all.apiKey, all.flexibleRequestHeader, all.flexibleResponseHeader]).toEqual([90, true, true]);
    const some = buildRequest(DescribeShareGroupOffsets, 1, {
      groups: [{ groupId: 'g', topics: [{ topicName: 't', partitions: [0, 1] }] }],
    });
    expect(some.body.toString('hex')).toBe(
      '02' + '0267' + '02' + '0274' + '03' + '00000000' + '00000001' + '00' + '00' + '00',
    );
  });

  it('decodes v1 with the lag, and v0 without it (lag -1)', () => {
    const v1 = buildRequest(DescribeShareGroupOffsets, 1, { groups: [] }).decode(describeResponse(1, 17));
    const p = v1.groups[0]!.topics[0]!.partitions;
    expect(v1.groups[0]!.topics[0]!.topicName).toBe('orders');
    expect(v1.groups[0]!.topics[0]!.topicId).toBe(TOPIC_ID);
    expect(p.map((x) => [x.partitionIndex, x.startOffset, x.lag])).toEqual([
      [0, 40, 17],
      [1, -1, -1],
    ]);
    const v0 = buildRequest(DescribeShareGroupOffsets, 0, { groups: [] }).decode(describeResponse(0, 17));
    expect(v0.groups[0]!.topics[0]!.partitions.map((x) => x.lag)).toEqual([-1, -1]);
  });

  it('refuses a truncated response', () => {
    const body = describeResponse(1, 5);
    expect(() =>
      buildRequest(DescribeShareGroupOffsets, 1, { groups: [] }).decode(body.subarray(0, body.length - 6)),
    ).toThrow();
  });
});

describe('AlterShareGroupOffsets (91)', () => {
  it('encodes group, topics and start offsets', () => {
    const req = buildRequest(AlterShareGroupOffsets, 0, {
      groupId: 'g',
      topics: [{ topicName: 't', partitions: [{ partitionIndex: 2, startOffset: 300 }] }],
    });
    expect(req.body.toString('hex')).toBe(
      '0267' + '02' + '0274' + '02' + '00000002' + '000000000000012c' + '00' + '00' + '00',
    );
  });

  it('decodes the top-level error and the per-partition ones', () => {
    const w = new Writer();
    w.int32(0).int16(68).compactNullableString('group is not empty');
    w.uvarint(2).compactString('t').uuid(TOPIC_ID);
    w.uvarint(2).int32(2).int16(0).compactNullableString(null).emptyTaggedFields();
    w.emptyTaggedFields().emptyTaggedFields();
    const res = buildRequest(AlterShareGroupOffsets, 0, { groupId: 'g', topics: [] }).decode(w.finish());
    expect(res.errorCode).toBe(68);
    expect(res.errorMessage).toBe('group is not empty');
    expect(res.responses[0]!.partitions[0]).toEqual({ partitionIndex: 2, errorCode: 0, errorMessage: null });
  });
});

describe('DeleteShareGroupOffsets (92)', () => {
  it('encodes whole topics and decodes one error per topic', () => {
    const req = buildRequest(DeleteShareGroupOffsets, 0, { groupId: 'g', topics: [{ topicName: 't' }] });
    expect(req.body.toString('hex')).toBe('0267' + '02' + '0274' + '00' + '00');
    const w = new Writer();
    w.int32(0).int16(0).compactNullableString(null);
    w.uvarint(2)
      .compactString('t')
      .uuid(TOPIC_ID)
      .int16(3)
      .compactNullableString('unknown')
      .emptyTaggedFields();
    w.emptyTaggedFields();
    const res = req.decode(w.finish());
    expect(res.responses).toEqual([
      { topicName: 't', topicId: TOPIC_ID, errorCode: 3, errorMessage: 'unknown' },
    ]);
  });

  it('has no version beyond 0', () => {
    expect(() => buildRequest(DeleteShareGroupOffsets, 1, { groupId: 'g', topics: [] })).toThrow(
      /not implemented/,
    );
  });
});

describe('OffsetDelete (47), not flexible', () => {
  it('encodes group, topics and partitions with classic strings and arrays, and decodes the errors', () => {
    const req = buildRequest(OffsetDelete, 0, { groupId: 'g', topics: [{ name: 't', partitions: [1] }] });
    expect([req.apiKey, req.flexibleRequestHeader, req.flexibleResponseHeader]).toEqual([47, false, false]);
    expect(req.body.toString('hex')).toBe(
      '0001' + '67' + '00000001' + '0001' + '74' + '00000001' + '00000001',
    );
    const w = new Writer();
    w.int16(0).int32(0).int32(1).string('t').int32(1).int32(1).int16(86);
    expect(req.decode(w.finish())).toEqual({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, errorCode: 86 }] }],
    });
  });
});
