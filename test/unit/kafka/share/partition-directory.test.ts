import { describe, expect, it } from 'vitest';
import { PartitionDirectory } from '../../../../src/kafka/share/partition-directory.js';

const orders = {
  name: 'orders',
  topicId: 'T1',
  errorCode: 0,
  partitions: [
    { partition: 0, leaderId: 1 },
    { partition: 1, leaderId: 2 },
  ],
};

describe('PartitionDirectory', () => {
  it('places assigned partitions on their leaders once names and leaders are known', () => {
    const d = new PartitionDirectory();
    expect(d.setAssignment([{ topicId: 'T1', partitions: [0, 1] }])).toEqual({
      partitions: 2,
      unknownTopics: true,
    });
    expect(d.placement().complete).toBe(false);
    d.applyMetadata([orders]);
    const { perNode, complete } = d.placement();
    expect(complete).toBe(true);
    expect(perNode.get(1)).toEqual([{ topicId: 'T1', topic: 'orders', partition: 0 }]);
    expect(perNode.get(2)).toEqual([{ topicId: 'T1', topic: 'orders', partition: 1 }]);
  });

  it('groups records by partition in one pass, and refuses topics it never saw', () => {
    const d = new PartitionDirectory();
    d.applyMetadata([orders]);
    const groups = d.group([
      { topic: 'orders', partition: 0, offset: 5 },
      { topic: 'orders', partition: 0, offset: 6 },
      { topic: 'orders', partition: 1, offset: 9 },
      { topic: 'orders', partition: 0, offset: 7 },
    ]);
    expect([...groups.values()]).toEqual([
      { topic: 'orders', partition: 0, offsets: [5, 6, 7] },
      { topic: 'orders', partition: 1, offsets: [9] },
    ]);
    expect(() => d.group({ topic: 'other', partition: 0, offsets: [1] })).toThrow(/SHARESINK|not delivered/);
  });

  it("takes one partition's offsets however many there are (no argument-spread limit)", () => {
    const d = new PartitionDirectory();
    d.applyMetadata([orders]);
    const offsets = Array.from({ length: 400_000 }, (_, i) => i);
    const [group] = d.group({ topic: 'orders', partition: 0, offsets }).values();
    expect(group!.offsets.length).toBe(400_000);
    expect(group!.offsets[399_999]).toBe(399_999);
  });

  it('rebuilds a partition from metadata when it is no longer assigned', () => {
    const d = new PartitionDirectory();
    d.applyMetadata([orders]);
    expect(d.partition('T1:1')).toEqual({ topicId: 'T1', topic: 'orders', partition: 1 });
    expect(d.partition('T9:0')).toBeUndefined();
  });
});
