/**
 * Properties of the SharePartitionModel, the oracle behind sharesink/testing: arbitrary interleavings
 * of acquisitions, acknowledgements, expiries and appends by two members, checked after every step
 * against the KIP-932 rules the model claims to follow.
 */
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { SharePartitionModel, type ModelAckType, type PartitionSnapshot } from '../../src/testing/index.js';

type Op =
  | { op: 'acquire'; member: string; max: number; dt: number }
  | { op: 'ack'; member: string; offsets: number[]; type: ModelAckType; dt: number }
  | { op: 'expire'; dt: number }
  | { op: 'append'; count: number };

const LOCK = 1_000;
const member = fc.constantFrom('a', 'b');
const dt = fc.oneof(fc.integer({ min: 0, max: LOCK / 4 }), fc.integer({ min: 0, max: 2 * LOCK }));

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('acquire' as const),
      member,
      max: fc.integer({ min: 1, max: 4 }),
      dt,
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('ack' as const),
      member,
      // mostly low offsets, which are the ones acquisitions hand out first, so acks often succeed
      offsets: fc.uniqueArray(fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 9 })), {
        minLength: 1,
        maxLength: 4,
      }),
      type: fc.constantFrom<ModelAckType>('accept', 'release', 'reject', 'renew'),
      dt,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('expire' as const), dt }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  },
);

const worldArb = fc.record({
  records: fc.integer({ min: 0, max: 8 }),
  limit: fc.integer({ min: 1, max: 4 }),
  ops: fc.array(opArb, { maxLength: 40 }),
});

/** Replays the ops, checking every rule after each one; `onStep` sees the state around each op. */
function replay(
  world: { records: number; limit: number; ops: Op[] },
  onStep?: (op: Op, before: PartitionSnapshot, after: PartitionSnapshot, result: unknown) => void,
): SharePartitionModel {
  const model = new SharePartitionModel({
    records: world.records,
    deliveryCountLimit: world.limit,
    lockDurationMs: LOCK,
  });
  let now = 0;
  for (const op of world.ops) {
    if ('dt' in op) now += op.dt;
    // expire first, so `before` is what the op itself sees
    model.expireLocks(now);
    const before = model.snapshot();
    let result: unknown;
    if (op.op === 'acquire') result = model.acquire(op.member, op.max, now);
    else if (op.op === 'ack') result = model.acknowledge(op.member, op.offsets, op.type, now);
    else if (op.op === 'expire') result = model.expireLocks(now);
    else result = model.append(op.count);
    const after = model.snapshot();
    expect(model.invariantViolations()).toEqual([]);
    onStep?.(op, before, after, result);
  }
  return model;
}

test.prop([worldArb])('every offset is in exactly one state, and the counts add up', (world) => {
  replay(world, (_, __, after) => {
    const states = after.records.map((r) => r.state);
    for (const s of states) expect(['available', 'acquired', 'acknowledged', 'archived']).toContain(s);
    expect(after.records.map((r) => r.offset)).toEqual(Array.from({ length: after.endOffset }, (_, i) => i));
    const c = after.counts;
    expect(c.available + c.acquired + c.acknowledged + c.archived).toBe(after.endOffset);
  });
});

test.prop([worldArb])(
  'delivery counts never exceed the limit, never go down, and go up by one per acquisition',
  (world) => {
    replay(world, (op, before, after, result) => {
      for (const r of after.records) {
        expect(r.deliveryCount).toBeLessThanOrEqual(world.limit);
        const was = before.records[r.offset];
        if (was) expect(r.deliveryCount).toBeGreaterThanOrEqual(was.deliveryCount);
      }
      if (op.op !== 'acquire') return;
      for (const a of result as { offset: number; deliveryCount: number }[]) {
        expect(before.records[a.offset]?.state).toBe('available');
        expect(a.deliveryCount).toBe((before.records[a.offset]?.deliveryCount ?? -1) + 1);
      }
    });
  },
);

test.prop([worldArb])('an ACCEPTed or archived record is never acquired again and never changes', (world) => {
  replay(world, (op, before, after, result) => {
    for (const r of before.records) {
      if (r.state === 'acknowledged' || r.state === 'archived') expect(after.records[r.offset]).toEqual(r);
    }
    if (op.op === 'acquire') {
      const taken = (result as { offset: number }[]).map((a) => a.offset);
      for (const o of taken) expect(['acknowledged', 'archived']).not.toContain(before.records[o]?.state);
      // in offset order, the lowest available first
      const available = before.records.filter((r) => r.state === 'available').map((r) => r.offset);
      expect(taken).toEqual(available.slice(0, op.max));
    }
  });
});

test.prop([worldArb])(
  'acknowledgements apply only to records the member holds under a live lock, all or nothing',
  (world) => {
    replay(world, (op, before, after, result) => {
      if (op.op !== 'ack') return;
      const held = op.offsets.every((o) => {
        const r = before.records[o];
        return r?.state === 'acquired' && r.member === op.member;
      });
      if (!held) {
        expect(result).toMatchObject({ error: 'INVALID_RECORD_STATE' });
        expect(after.records).toEqual(before.records);
        return;
      }
      expect(result).toEqual({ error: null });
      for (const o of op.offsets) {
        const was = before.records[o]!;
        const now = after.records[o]!;
        expect(now.deliveryCount).toBe(was.deliveryCount);
        if (op.type === 'accept') expect(now.state).toBe('acknowledged');
        if (op.type === 'reject') expect(now).toMatchObject({ state: 'archived', reason: 'rejected' });
        if (op.type === 'release')
          expect(now.state).toBe(was.deliveryCount >= world.limit ? 'archived' : 'available');
        if (op.type === 'renew')
          expect(now).toMatchObject({ state: 'acquired', member: op.member, deadline: after.now + LOCK });
      }
    });
  },
);

test.prop([worldArb])('expiry returns records to Available, or Archived at the delivery limit', (world) => {
  const model = new SharePartitionModel({
    records: world.records,
    deliveryCountLimit: world.limit,
    lockDurationMs: LOCK,
  });
  let now = 0;
  for (const op of world.ops) {
    if ('dt' in op) now += op.dt;
    const before = model.snapshot();
    const expired = model.expireLocks(now);
    const after = model.snapshot();
    const due = before.records
      .filter((r) => r.state === 'acquired' && r.deadline <= now)
      .map((r) => r.offset);
    expect(expired).toEqual(due);
    for (const o of due) {
      const r = after.records[o]!;
      if (r.deliveryCount >= world.limit)
        expect(r).toMatchObject({ state: 'archived', reason: 'delivery-limit' });
      else expect(r.state).toBe('available');
    }
    if (op.op === 'acquire') model.acquire(op.member, op.max, now);
    else if (op.op === 'ack') model.acknowledge(op.member, op.offsets, op.type, now);
    else if (op.op === 'append') model.append(op.count);
  }
});

test.prop([fc.integer({ min: 1, max: 10 }), fc.boolean()])(
  'releasing (or letting the lock expire) again and again archives a record after exactly `limit` deliveries',
  (limit, byExpiry) => {
    const model = new SharePartitionModel({ records: 1, deliveryCountLimit: limit, lockDurationMs: LOCK });
    let now = 0;
    const counts: number[] = [];
    for (let i = 0; i < limit + 3; i++) {
      const got = model.acquire('a', 10, now);
      counts.push(...got.map((g) => g.deliveryCount));
      if (byExpiry) now += LOCK;
      else model.acknowledge('a', [0], 'release', now);
    }
    model.expireLocks(now);
    expect(counts).toEqual(Array.from({ length: limit }, (_, i) => i + 1));
    expect(model.state(0)).toEqual({ state: 'archived', deliveryCount: limit, reason: 'delivery-limit' });
  },
);

test.prop([fc.array(fc.integer({ min: 0, max: LOCK - 1 }), { minLength: 1, maxLength: 6 })])(
  'RENEW restarts the lock from the renewal: the record stays acquired until renewal + lock',
  (gaps) => {
    const model = new SharePartitionModel({ records: 1, lockDurationMs: LOCK });
    let now = 0;
    model.acquire('a', 1, now);
    for (const gap of gaps) {
      now += gap;
      expect(model.acknowledge('a', [0], 'renew', now)).toEqual({ error: null });
      expect(model.state(0)).toMatchObject({ state: 'acquired', deadline: now + LOCK, deliveryCount: 1 });
    }
    expect(model.expireLocks(now + LOCK - 1)).toEqual([]);
    expect(model.expireLocks(now + LOCK)).toEqual([0]);
    expect(model.acknowledge('a', [0], 'accept', now + LOCK)).toMatchObject({
      error: 'INVALID_RECORD_STATE',
    });
  },
);

test.prop([fc.integer({ min: 1, max: 5_000 })])('time never goes back', (back) => {
  const model = new SharePartitionModel({ records: 1 });
  model.acquire('a', 1, 10_000);
  expect(() => model.acknowledge('a', [0], 'accept', 10_000 - back)).toThrow(RangeError);
});
