/** Reading internal topics right after they were created: retried while their metadata settles. */
import { describe, expect, it } from 'vitest';
import { whileTopicsSettle } from '../../../src/distributed/herder/internal-topics.js';

const unknownTopic = () =>
  Object.assign(new Error('This server does not host this topic-partition'), {
    type: 'UNKNOWN_TOPIC_OR_PARTITION',
  });

describe('whileTopicsSettle', () => {
  it('reads again while the topic is unknown or has no leader, then answers', async () => {
    let calls = 0;
    const value = await whileTopicsSettle(
      async () => {
        calls++;
        if (calls === 1) throw unknownTopic();
        if (calls === 2) throw { originalError: { type: 'LEADER_NOT_AVAILABLE' }, message: 'wrapped' };
        return 'metadata';
      },
      { firstDelayMs: 1 },
    );
    expect(value).toBe('metadata');
    expect(calls).toBe(3);
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const denied = Object.assign(new Error('denied'), { type: 'TOPIC_AUTHORIZATION_FAILED' });
    await expect(
      whileTopicsSettle(
        async () => {
          calls++;
          throw denied;
        },
        { firstDelayMs: 1 },
      ),
    ).rejects.toBe(denied);
    expect(calls).toBe(1);
  });

  it('gives up with the last error when the topic does not settle in time', async () => {
    let calls = 0;
    await expect(
      whileTopicsSettle(
        async () => {
          calls++;
          throw unknownTopic();
        },
        { timeoutMs: 30, firstDelayMs: 5 },
      ),
    ).rejects.toThrow('does not host');
    expect(calls).toBeGreaterThan(1);
  });
});
