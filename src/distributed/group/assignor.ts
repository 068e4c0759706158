/**
 * The leader's assignor: incremental cooperative (KIP-415 style), pure (the clock is a parameter).
 *
 * Given the live members with what each runs now, the config snapshot and the leader's memory of the
 * previous round, it computes a balanced target and hands out only what can move safely this round:
 * - work nobody runs is assigned at once;
 * - work a member must give up is revoked from it, and assigned in the next round, once the member has
 *   stopped it and rejoined (so nothing runs twice, and nothing else stops);
 * - work of a worker that left is held for `maxDelayMs` (scheduled.rebalance.max.delay.ms) in case it
 *   comes back (a restart keeps its worker id), then placed on the others.
 *
 * Balance: each connector's tasks are spread within one of each other over the members, and the total
 * task count per member is within one too (the members with the fewest tasks so far take a connector's
 * remainder); connector instances are balanced the same way. Ties are broken by what a member already
 * runs or was last given, so a stable group gives the same answer again and moves nothing.
 */
import type { ClusterConfigSnapshot, TaskId } from '../group-types.js';

export interface AssignorMember {
  readonly memberId: string;
  /** The worker id (`host:port`) a member keeps across restarts; departed work is remembered by it. */
  readonly workerId: string;
  /** What the member runs now (it reports this in its join metadata). */
  readonly connectors: readonly string[];
  readonly tasks: readonly TaskId[];
}

/** The leader's memory between rounds (lost when the leader changes: then everything unowned is new). */
export interface AssignorState {
  /** Item key → the worker id it was last placed on. */
  readonly placedOn: ReadonlyMap<string, string>;
  /** When held work of departed workers is released; undefined when nothing is held. */
  readonly delayDeadline: number | undefined;
}

export interface AssignorInput {
  readonly members: readonly AssignorMember[];
  readonly snapshot: ClusterConfigSnapshot;
  readonly previous: AssignorState | undefined;
  /** Epoch ms. */
  readonly now: number;
  /** scheduled.rebalance.max.delay.ms; 0 re-places departed work at once. */
  readonly maxDelayMs: number;
}

/** One member's share of a round. */
export interface MemberPlan {
  /** Everything the member runs after this round: what it keeps plus what is new. */
  readonly connectors: string[];
  readonly tasks: TaskId[];
  /** What it must stop now (then rejoin, so the next round can give it away). */
  readonly revokedConnectors: string[];
  readonly revokedTasks: TaskId[];
  /** Time until held work is released (the members rejoin then); 0 when nothing is held. */
  readonly delayMs: number;
}

export interface AssignorResult {
  readonly plans: ReadonlyMap<string, MemberPlan>;
  readonly state: AssignorState;
  /** Items held for departed workers this round. */
  readonly held: number;
}

type Item = { kind: 'c'; connector: string } | { kind: 't'; connector: string; task: number };

const SEP = '\u0000';
export const connectorKey = (name: string): string => `c${SEP}${name}`;
export const taskKey = (t: TaskId): string => `t${SEP}${t.connector}${SEP}${t.task}`;

function parseKey(key: string): Item {
  const [kind, connector, task] = key.split(SEP) as [string, string, string | undefined];
  return kind === 'c' ? { kind: 'c', connector } : { kind: 't', connector, task: Number(task) };
}

const byMemberId = (a: AssignorMember, b: AssignorMember): number =>
  a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;

/** Items of one group (one connector's tasks, or all connector instances) in a stable order. */
interface Pool {
  readonly items: string[];
}

export function assign(input: AssignorInput): AssignorResult {
  const members = [...input.members].sort(byMemberId);
  if (members.length === 0) throw new TypeError('assign() needs at least one member');
  const previous = input.previous ?? { placedOn: new Map<string, string>(), delayDeadline: undefined };
  const liveWorkers = new Set(members.map((m) => m.workerId));

  // What should run: connector instances and tasks, grouped into pools that are balanced separately.
  const seen = new Set<string>();
  const connectorNames = input.snapshot.connectors
    .filter((c) => !seen.has(c.name) && seen.add(c.name))
    .map((c) => ({ name: c.name, tasks: Math.max(0, Math.floor(c.tasks)) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const desired = new Set<string>();
  const pools: Pool[] = [{ items: connectorNames.map((c) => connectorKey(c.name)) }];
  for (const c of connectorNames) {
    const items: string[] = [];
    for (let t = 0; t < c.tasks; t++) items.push(taskKey({ connector: c.name, task: t }));
    pools.push({ items });
  }
  for (const p of pools) for (const k of p.items) desired.add(k);

  // Who runs what now; work no longer wanted, and duplicates, are revoked.
  const owner = new Map<string, string>();
  const owned = new Map<string, Set<string>>(members.map((m) => [m.memberId, new Set<string>()]));
  const revoked = new Map<string, Set<string>>(members.map((m) => [m.memberId, new Set<string>()]));
  for (const m of members) {
    const keys = [...m.connectors.map(connectorKey), ...m.tasks.map(taskKey)];
    for (const k of keys) {
      if (owner.get(k) === m.memberId) continue; // listed twice by the same member
      if (!desired.has(k) || owner.has(k)) revoked.get(m.memberId)!.add(k);
      else {
        owner.set(k, m.memberId);
        owned.get(m.memberId)!.add(k);
      }
    }
  }

  // Work of departed workers: held until the deadline.
  const lost = [...desired].filter((k) => {
    if (owner.has(k)) return false;
    const was = previous.placedOn.get(k);
    return was !== undefined && !liveWorkers.has(was);
  });
  let deadline: number | undefined;
  if (lost.length > 0 && input.maxDelayMs > 0) {
    deadline = previous.delayDeadline ?? input.now + input.maxDelayMs;
    if (input.now >= deadline) deadline = undefined;
  }
  const held = new Set(deadline === undefined ? [] : lost);
  const delayMs = deadline === undefined ? 0 : deadline - input.now;

  // The target: per pool, a quota per member; the remainder goes to the members with the least work so far,
  // ties to those that already run (or were last given) most of this pool.
  const target = new Map<string, Set<string>>(members.map((m) => [m.memberId, new Set<string>()]));
  const taskTotals = new Map<string, number>(members.map((m) => [m.memberId, 0]));
  const workerOf = new Map(members.map((m) => [m.memberId, m.workerId]));
  for (const [index, pool] of pools.entries()) {
    const items = pool.items.filter((k) => !held.has(k));
    const affinity = (memberId: string): number =>
      items.filter((k) => owner.get(k) === memberId || previous.placedOn.get(k) === workerOf.get(memberId))
        .length;
    const q = Math.floor(items.length / members.length);
    const r = items.length % members.length;
    const totals = index === 0 ? new Map(members.map((m) => [m.memberId, 0])) : taskTotals;
    const ranked = members
      .map((m) => ({ id: m.memberId, total: totals.get(m.memberId)!, affinity: affinity(m.memberId) }))
      .sort((a, b) => a.total - b.total || b.affinity - a.affinity || (a.id < b.id ? -1 : 1));
    const quota = new Map<string, number>(ranked.map((x, i) => [x.id, q + (i < r ? 1 : 0)]));
    // Keep what each member runs, up to its quota; the rest (and unowned work) is handed to those below it.
    const spare: string[] = [];
    const keptCount = new Map<string, number>();
    for (const k of items) {
      const o = owner.get(k);
      const kept = o === undefined ? 0 : (keptCount.get(o) ?? 0);
      if (o !== undefined && kept < quota.get(o)!) {
        keptCount.set(o, kept + 1);
        target.get(o)!.add(k);
      } else spare.push(k);
    }
    // Unowned work first, so that a member short of its quota gets work that can start now.
    spare.sort((a, b) => Number(owner.has(a)) - Number(owner.has(b)));
    for (const x of ranked) {
      let n = keptCount.get(x.id) ?? 0;
      while (n < quota.get(x.id)!) {
        target.get(x.id)!.add(spare.shift()!);
        n++;
      }
    }
    if (index > 0) for (const x of ranked) taskTotals.set(x.id, x.total + quota.get(x.id)!);
  }

  // This round hands out what is unowned; what another member runs is revoked from it now, handed out next round.
  const plans = new Map<string, MemberPlan>();
  const placedOn = new Map<string, string>();
  for (const k of held) placedOn.set(k, previous.placedOn.get(k)!);
  for (const m of members) {
    const mine = target.get(m.memberId)!;
    for (const k of mine) placedOn.set(k, m.workerId);
    for (const k of owned.get(m.memberId)!) if (!mine.has(k)) revoked.get(m.memberId)!.add(k);
    const runs = [...mine].filter((k) => {
      const o = owner.get(k);
      return o === undefined || o === m.memberId;
    });
    const gone = [...revoked.get(m.memberId)!];
    plans.set(m.memberId, {
      ...split(runs),
      ...renameRevoked(split(gone)),
      delayMs,
    });
  }
  return { plans, state: { placedOn, delayDeadline: deadline }, held: held.size };
}

function split(keys: readonly string[]): { connectors: string[]; tasks: TaskId[] } {
  const connectors: string[] = [];
  const tasks: TaskId[] = [];
  for (const k of keys) {
    const item = parseKey(k);
    if (item.kind === 'c') connectors.push(item.connector);
    else tasks.push({ connector: item.connector, task: item.task });
  }
  connectors.sort();
  tasks.sort((a, b) => (a.connector < b.connector ? -1 : a.connector > b.connector ? 1 : a.task - b.task));
  return { connectors, tasks };
}

function renameRevoked(x: { connectors: string[]; tasks: TaskId[] }): {
  revokedConnectors: string[];
  revokedTasks: TaskId[];
} {
  return { revokedConnectors: x.connectors, revokedTasks: x.tasks };
}
