/**
 * The choice of a free share session's next request (ADR 0005), branch by branch, then every
 * combination of the inputs against the rules the choice must keep.
 */
import { describe, expect, it } from 'vitest';
import {
  lingerMs,
  nextRequest,
  type NextRequest,
  type SessionState,
} from '../../../../src/kafka/share/next-request.js';

/** An open session with one partition, free, nothing pending, nobody polling. */
const idle: SessionState = {
  busy: false,
  consumerClosed: false,
  consumerFailed: false,
  sessionIsNew: false,
  pendingAcks: 0,
  pendingRenewals: 0,
  acksDueAt: 0,
  flushAcks: false,
  pollWaits: false,
  metadataStale: false,
  partitions: 1,
  backoffUntil: 0,
  now: 1_000,
};

const table: ReadonlyArray<[string, Partial<SessionState>, NextRequest]> = [
  ['nothing to do', {}, 'none'],
  [
    'a request already queued or in flight',
    { busy: true, pendingAcks: 2, pendingRenewals: 1, pollWaits: true },
    'none',
  ],
  ['consumer closed', { consumerClosed: true, pendingAcks: 2, pollWaits: true }, 'none'],
  [
    'acks left from a reset session fail before anything',
    { sessionIsNew: true, pendingAcks: 1, pollWaits: true },
    'fail-reset-acks',
  ],
  [
    'renewals left from a reset session fail too',
    { sessionIsNew: true, pendingRenewals: 1 },
    'fail-reset-acks',
  ],
  ['a new session with nothing pending opens with a fetch', { sessionIsNew: true, pollWaits: true }, 'fetch'],
  [
    'renewals go first, even while a poll waits',
    { pendingRenewals: 1, pendingAcks: 3, pollWaits: true },
    'renew',
  ],
  ['renewals with nobody polling', { pendingRenewals: 1 }, 'renew'],
  ['renewals still go out after a fatal error', { pendingRenewals: 1, consumerFailed: true }, 'renew'],
  ['a waiting poll fetches', { pollWaits: true }, 'fetch'],
  ['a waiting poll carries the pending acks', { pollWaits: true, pendingAcks: 2 }, 'fetch'],
  ['acks with nobody polling', { pendingAcks: 2 }, 'acknowledge'],
  [
    'no fetch after a fatal error: acks alone',
    { pollWaits: true, consumerFailed: true, pendingAcks: 1 },
    'acknowledge',
  ],
  ['no fetch after a fatal error, nothing else', { pollWaits: true, consumerFailed: true }, 'none'],
  [
    'no fetch on stale metadata: acks alone',
    { pollWaits: true, metadataStale: true, pendingAcks: 1 },
    'acknowledge',
  ],
  ['no fetch on stale metadata, nothing else', { pollWaits: true, metadataStale: true }, 'none'],
  [
    'no fetch for a session that leads no partition: acks alone',
    { pollWaits: true, partitions: 0, pendingAcks: 1 },
    'acknowledge',
  ],
  ['no fetch for a session that leads no partition', { pollWaits: true, partitions: 0 }, 'none'],
  [
    'no fetch in backoff: acks alone',
    { pollWaits: true, backoffUntil: 1_001, pendingAcks: 1 },
    'acknowledge',
  ],
  ['no fetch in backoff', { pollWaits: true, backoffUntil: 1_001 }, 'none'],
  ['the backoff ends at its instant', { pollWaits: true, backoffUntil: 1_000 }, 'fetch'],
  ['acks linger for a fetch to carry them (ADR 0021)', { pendingAcks: 2, acksDueAt: 1_001 }, 'none'],
  [
    'lingering acks ride a fetch as soon as a poll waits',
    { pendingAcks: 2, acksDueAt: 1_019, pollWaits: true },
    'fetch',
  ],
  ['lingered acks go alone when their time is up', { pendingAcks: 2, acksDueAt: 1_000 }, 'acknowledge'],
  [
    'flushed acks (commit) do not linger',
    { pendingAcks: 1, acksDueAt: 1_020, flushAcks: true },
    'acknowledge',
  ],
  [
    'after a fatal error no fetch comes: acks do not linger',
    { pendingAcks: 1, acksDueAt: 1_020, consumerFailed: true, pollWaits: true },
    'acknowledge',
  ],
  ['renewals never linger', { pendingRenewals: 1, pendingAcks: 1, acksDueAt: 1_020 }, 'renew'],
];

describe('nextRequest', () => {
  it.each(table)('%s', (_name, change, expected) => {
    expect(nextRequest({ ...idle, ...change })).toBe(expected);
  });

  it('keeps its rules over every combination of the inputs', () => {
    const flags = [
      'busy',
      'consumerClosed',
      'consumerFailed',
      'sessionIsNew',
      'pollWaits',
      'metadataStale',
    ] as const;
    let seen = 0;
    const answers = new Set<NextRequest>();
    for (let bits = 0; bits < 1 << flags.length; bits++)
      for (const pendingAcks of [0, 1])
        for (const pendingRenewals of [0, 1])
          for (const partitions of [0, 1])
            for (const backoffUntil of [0, 2_000]) {
              const s: SessionState = { ...idle, pendingAcks, pendingRenewals, partitions, backoffUntil };
              flags.forEach((f, i) => Object.assign(s, { [f]: (bits & (1 << i)) !== 0 }));
              const next = nextRequest(s);
              answers.add(next);
              seen++;
              const pending = pendingAcks > 0 || pendingRenewals > 0;
              // one request at a time per session, none after close
              if (s.busy || s.consumerClosed) expect(next).toBe('none');
              // acknowledgements never wait forever on a free session, whether or not anyone polls
              // (with no linger here; the lingering cases are in the table)
              else if (pending) expect(next).not.toBe('none');
              // a reset session's acks never reach a request: they cannot open a session
              if (next === 'acknowledge' || next === 'renew') expect(s.sessionIsNew).toBe(false);
              // RENEW never rides on a fetch: a fetch is chosen only with no renewal pending
              if (next === 'fetch') {
                expect(pendingRenewals).toBe(0);
                expect(s.pollWaits && !s.consumerFailed && !s.metadataStale).toBe(true);
                expect(partitions > 0 && backoffUntil <= s.now).toBe(true);
              }
              if (next === 'acknowledge') expect(pendingAcks).toBeGreaterThan(0);
            }
    expect(seen).toBe(2 ** 6 * 16);
    expect([...answers].sort()).toEqual(['acknowledge', 'fail-reset-acks', 'fetch', 'none', 'renew']);
  });
});

describe('lingerMs', () => {
  it('takes a finite positive number as it is, and anything else as no linger', () => {
    expect(lingerMs(20)).toBe(20);
    for (const bad of [undefined, 0, -5, NaN, Infinity]) expect(lingerMs(bad)).toBe(0);
  });
});
