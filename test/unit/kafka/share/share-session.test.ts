import { describe, expect, it } from 'vitest';
import { ShareSession, type TopicIdPartition } from '../../../../src/kafka/share/share-session.js';

const p = (partition: number, topicId = 'T1'): TopicIdPartition => ({ topicId, topic: 'orders', partition });

describe('ShareSession', () => {
  it('opens with epoch 0 naming every wanted partition, then increments', () => {
    const s = new ShareSession(1);
    s.setWanted([p(0), p(1)]);
    expect(s.isNew).toBe(true);
    const first = s.pendingChanges();
    expect(first.added.map((x) => x.partition)).toEqual([0, 1]);
    expect(first.forgotten).toEqual([]);
    s.commitChanges(first);
    s.advance();
    expect(s.epoch).toBe(1);
    expect(s.pendingChanges()).toEqual({ added: [], forgotten: [] });
  });

  it('names only the difference on an open session', () => {
    const s = new ShareSession(1);
    s.setWanted([p(0), p(1)]);
    s.commitChanges(s.pendingChanges());
    s.advance();
    s.setWanted([p(1), p(2)]);
    const ch = s.pendingChanges();
    expect(ch.added.map((x) => x.partition)).toEqual([2]);
    expect(ch.forgotten).toEqual([{ topicId: 'T1', partitions: [0] }]);
    s.commitChanges(ch);
    s.advance();
    expect(s.epoch).toBe(2);
    expect(s.pendingChanges()).toEqual({ added: [], forgotten: [] });
  });

  it('after a reset re-adds everything at epoch 0', () => {
    const s = new ShareSession(1);
    s.setWanted([p(0)]);
    s.commitChanges(s.pendingChanges());
    s.advance();
    s.advance();
    s.reset();
    expect(s.epoch).toBe(0);
    expect(s.pendingChanges().added.map((x) => x.partition)).toEqual([0]);
  });
});
