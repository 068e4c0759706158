/**
 * A sharesink worker's membership of its worker group (`group.id`), on Kafka's classic group protocol with
 * sharesink's own protocol type: JoinGroup → (the leader runs the assignor) → SyncGroup → heartbeats, and
 * around again whenever the coordinator, the herder or an assignment asks for a new round.
 *
 * Incremental cooperative (KIP-415): a member keeps running what it has through a round; it stops only what
 * the assignment revokes, then rejoins at once so the next round can hand that work to its new owner. The
 * coordinator's word on membership wins: UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION means the group has gone on
 * without this member, so it stops everything (others may be given it) and joins afresh.
 *
 * One round at a time runs in {@link GroupMember.run}; heartbeats run beside it on their own timer and only
 * raise flags (rejoin, lost) that the loop acts on.
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { KafkaCluster } from '../../kafka/cluster.js';
import { KafkaErrorCode } from '../../kafka/errors/kafka-errors.js';
import { StillWaiting } from '../../observability/still-waiting.js';
import { LOST_ERRORS, groupError, isRetriable } from './group-errors.js';
import { Heartbeats } from './heartbeats.js';
import { membershipChange } from './membership-change.js';
import type { WorkerGroupOptions } from './options.js';
import { notice } from '../../logger.js';
import type {
  ClusterView,
  TaskId,
  WorkerAssignment,
  WorkerGroupHooks,
  WorkerGroupMember,
} from '../group-types.js';
import type { AssignorState } from './assignor.js';
import { COORDINATOR_ERRORS, GroupCoordinatorClient } from './coordinator-client.js';
import { lead } from './leader.js';
import {
  PROTOCOL_NAME,
  PROTOCOL_TYPE,
  decodeMemberAssignment,
  encodeMemberMetadata,
  type ClusterMember,
  type MemberAssignment,
} from './wire-format.js';

const EMPTY = { connectors: [] as readonly string[], tasks: [] as readonly TaskId[] };

export type { WorkerGroupOptions };

export function createWorkerGroupMember(
  options: WorkerGroupOptions,
  hooks: WorkerGroupHooks,
): WorkerGroupMember {
  return new GroupMember(options, hooks);
}

export class GroupMember implements WorkerGroupMember {
  readonly #opts: WorkerGroupOptions;
  readonly #hooks: WorkerGroupHooks;
  readonly #log: Logger;
  readonly #cluster: KafkaCluster;
  readonly #client: GroupCoordinatorClient;
  readonly #now: () => number;
  readonly #heartbeats: Heartbeats;
  /** Failed rounds (coordinator unreachable or loading): debug each, one WARN if it lasts. */
  readonly #waiting: StillWaiting;

  #memberId = '';
  #generation = -1;
  #leaderId = '';
  #members: readonly ClusterMember[] = [];
  #owned: { connectors: readonly string[]; tasks: readonly TaskId[] } = EMPTY;
  #assignment: WorkerAssignment | undefined;
  #state: ClusterView['state'] = 'joining';
  #assignorState: AssignorState | undefined;

  #rejoin: string | undefined = 'joining the worker group';
  #lost: string | undefined;
  #stopping = false;
  #wake: (() => void) | undefined;
  #rejoinTimer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;
  #stopped: Promise<void> | undefined;
  #firstRound: { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void };

  constructor(options: WorkerGroupOptions, hooks: WorkerGroupHooks) {
    this.#opts = options;
    this.#hooks = hooks;
    this.#now = options.now ?? Date.now;
    this.#log = (options.logger ?? pino({ level: 'silent' })).child({
      component: 'worker-group',
      groupId: options.groupId,
    });
    this.#cluster = new KafkaCluster({ ...options.kafka, logger: options.logger });
    this.#client = new GroupCoordinatorClient(this.#cluster, options.groupId);
    this.#heartbeats = new Heartbeats(options.heartbeatIntervalMs);
    this.#waiting = new StillWaiting({
      logger: this.#log,
      what: `a round of worker group ${options.groupId}`,
    });
    let resolve!: () => void;
    let reject!: (e: Error) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => undefined); // rejected only when start() is awaited, or nobody cares
    this.#firstRound = { promise, resolve, reject };
  }

  /** Joins the group; resolves once this member holds its first assignment. */
  start(): Promise<void> {
    this.#loop ??= this.#run();
    return this.#firstRound.promise;
  }

  requestRejoin(reason: string): void {
    if (this.#stopping) return;
    this.#rejoin ??= reason;
    this.#wake?.();
  }

  view(): ClusterView {
    return {
      groupId: this.#opts.groupId,
      memberId: this.#memberId,
      generation: this.#generation,
      leaderId: this.#leaderId,
      isLeader: this.#memberId !== '' && this.#memberId === this.#leaderId,
      members: this.#members,
      assignment: this.#assignment,
      state: this.#state,
    };
  }

  /** Stops what it runs (revoke), leaves the group, closes its connections. Never throws. */
  stop(): Promise<void> {
    this.#stopped ??= this.#leave();
    return this.#stopped;
  }

  async #leave(): Promise<void> {
    this.#stopping = true;
    if (this.#rejoinTimer) clearTimeout(this.#rejoinTimer);
    this.#wake?.();
    // heartbeats go on while the work stops (it may take longer than session.timeout.ms), so the member
    // leaves rather than being expelled
    await this.#giveUpAll('the worker is stopping');
    this.#heartbeats.stop();
    if (this.#memberId !== '') {
      try {
        const res = await this.#client.leave(this.#memberId, 'the worker is stopping');
        if (res.errorCode !== 0)
          this.#log.warn(
            { code: res.errorCode },
            'LeaveGroup refused; the coordinator will expire the member',
          );
      } catch (err) {
        this.#log.warn(
          { err },
          'LeaveGroup failed; the coordinator will expire the member after session.timeout.ms',
        );
      }
    }
    await this.#cluster.close(); // also ends a JoinGroup still parked at the coordinator
    await this.#loop?.catch(() => undefined);
    this.#state = 'stopped';
    this.#firstRound.reject(new Error('the worker group member stopped before its first assignment'));
    this.#log.info({ memberId: this.#memberId }, 'left the worker group');
  }

  // ── the round loop ──────────────────────────────────────────────────────────────────────────────────

  async #run(): Promise<void> {
    const initial = this.#opts.retryBackoffMs ?? 200;
    let backoff = initial;
    while (!this.#stopping) {
      if (this.#lost !== undefined) {
        const why = this.#lost;
        this.#lost = undefined;
        await this.#giveUpAll(why);
        this.#rejoin ??= why;
      }
      if (this.#rejoin === undefined) {
        await this.#sleep(undefined);
        continue;
      }
      try {
        await this.#round();
        if (this.#state === 'stable') this.#waiting.succeeded();
        backoff = initial;
      } catch (err) {
        if (this.#stopping) break;
        if (!isRetriable(err)) {
          this.#fail(err as Error);
          return;
        }
        this.#rejoin ??= 'retrying after a failed round';
        this.#waiting.failed((err as Error).message, { retryInMs: backoff });
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, this.#opts.retryBackoffMaxMs ?? 5_000);
      }
    }
  }

  /** Sleeps until woken (a rejoin asked for, a loss, stop) or `ms` passed. */
  #sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer) clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }

  async #round(): Promise<void> {
    const reason = this.#rejoin ?? 'rejoining';
    this.#rejoin = undefined;
    this.#heartbeats.stop();
    this.#state = 'joining';
    const { groupId, sessionTimeoutMs, rebalanceTimeoutMs } = this.#opts;
    const metadata = encodeMemberMetadata({ ...this.#hooks.metadata(), ...this.#owned });
    this.#log.debug({ memberId: this.#memberId, reason }, 'joining the worker group');
    const join = await this.#client.join({
      groupId,
      sessionTimeoutMs,
      rebalanceTimeoutMs,
      memberId: this.#memberId,
      groupInstanceId: null,
      protocolType: PROTOCOL_TYPE,
      protocols: [{ name: PROTOCOL_NAME, metadata }],
      reason,
    });
    if (this.#stopping) return;
    if (join.errorCode === KafkaErrorCode.MEMBER_ID_REQUIRED) {
      this.#memberId = join.memberId; // KIP-394: join again, now with the id the coordinator made for us
      this.#rejoin = reason;
      return;
    }
    if (join.errorCode !== 0) return this.#groupError(join.errorCode, 'JoinGroup', reason);

    this.#memberId = join.memberId;
    this.#generation = join.generationId;
    this.#leaderId = join.leader;
    this.#heartbeats.start(() => this.#beat());
    let assignments: Array<{ memberId: string; assignment: Uint8Array }> = [];
    let retry = false;
    if (join.leader === join.memberId) {
      const out = await lead({
        leaderId: join.leader,
        members: join.members,
        hooks: this.#hooks,
        previous: this.#assignorState,
        now: this.#now(),
        maxDelayMs: this.#opts.scheduledRebalanceMaxDelayMs,
        logger: this.#log,
      });
      assignments = out.assignments;
      this.#assignorState = out.state;
      retry = out.retry;
    } else {
      this.#assignorState = undefined; // a leader's memory is only good while it stays leader
    }
    const sync = await this.#client.sync(
      {
        groupId,
        generationId: join.generationId,
        memberId: join.memberId,
        groupInstanceId: null,
        protocolType: PROTOCOL_TYPE,
        protocolName: PROTOCOL_NAME,
        assignments,
      },
      rebalanceTimeoutMs,
    );
    if (this.#stopping) return;
    if (sync.errorCode !== 0) return this.#groupError(sync.errorCode, 'SyncGroup', reason);
    if (sync.assignment.length === 0) {
      // the leader left us out (it saw a member list without us): ask for another round
      this.#rejoin = 'the leader sent no assignment for this member';
      return;
    }
    await this.#apply(decodeMemberAssignment(sync.assignment), join.generationId);
    if (retry)
      this.#rejoinAfter(this.#opts.retryBackoffMaxMs ?? 5_000, 'the leader retries reading the config topic');
  }

  async #apply(a: MemberAssignment, generation: number): Promise<void> {
    if (a.revokedConnectors.length > 0 || a.revokedTasks.length > 0) {
      await this.#revoke(a.revokedConnectors, a.revokedTasks);
      this.#rejoin ??= 'revoked work to hand over'; // the next round gives it to its new owner
    }
    if (this.#stopping) return; // stop() revokes everything: start nothing new
    const { members, ...assignment } = a;
    this.#owned = { connectors: a.connectors, tasks: a.tasks };
    this.#assignment = assignment;
    const { left, joined, said } = membershipChange(this.#members, members);
    this.#members = members;
    this.#state = 'stable';
    const leader = members.find((m) => m.memberId === this.#leaderId);
    notice(
      this.#log,
      {
        generation,
        memberId: this.#memberId,
        leader: leader?.workerId ?? this.#leaderId,
        members: members.map((m) => m.workerId),
        connectors: a.connectors,
        tasks: a.tasks.map((t) => `${t.connector}-${t.task}`),
        revokedConnectors: a.revokedConnectors,
        revokedTasks: a.revokedTasks.map((t) => `${t.connector}-${t.task}`),
        delayMs: a.delayMs,
        ...(left.length > 0 ? { left } : {}),
        ...(joined.length > 0 ? { joined } : {}),
      },
      `worker group ${this.#opts.groupId} generation ${generation}: ${said}${members.length} member(s), leader ${
        leader?.workerId ?? this.#leaderId
      }; this worker runs ${a.connectors.length} connector(s) and ${a.tasks.length} task(s)`,
    );
    try {
      this.#hooks.assigned(assignment, this.view());
    } catch (err) {
      this.#log.error({ err }, 'the assigned() hook threw');
    }
    this.#firstRound.resolve();
    // the leader, who holds departed work, calls the round that releases it
    if (a.delayMs > 0 && this.#memberId === this.#leaderId) {
      this.#rejoinAfter(a.delayMs, 'scheduled.rebalance.max.delay.ms elapsed');
    }
  }

  #groupError(code: number, api: string, reason: string): void {
    const error = groupError(code, api, this.#opts);
    if (code === KafkaErrorCode.REBALANCE_IN_PROGRESS) {
      this.#rejoin ??= reason;
    } else if (LOST_ERRORS.has(code)) {
      if (code === KafkaErrorCode.UNKNOWN_MEMBER_ID) this.#memberId = '';
      this.#generation = -1;
      this.#lost = `${error.kafkaName} from ${api}`;
    } else if (COORDINATOR_ERRORS.has(code)) {
      throw error; // retriable: the client forgot the coordinator, the loop backs off and finds it again
    } else {
      throw error;
    }
  }

  #fail(err: Error): void {
    this.#log.error({ err }, 'the worker group member stopped on an error no retry mends');
    this.#stopping = true;
    this.#heartbeats.stop();
    this.#state = 'stopped';
    this.#firstRound.reject(err);
    this.#opts.onFatal?.(err);
  }

  #rejoinAfter(ms: number, reason: string): void {
    if (this.#rejoinTimer) clearTimeout(this.#rejoinTimer);
    this.#rejoinTimer = setTimeout(() => this.requestRejoin(reason), ms);
    this.#rejoinTimer.unref?.();
  }

  async #revoke(connectors: readonly string[], tasks: readonly TaskId[]): Promise<void> {
    try {
      await this.#hooks.revoke(connectors, tasks);
    } catch (err) {
      this.#log.error({ err }, 'the revoke() hook threw; the work counts as stopped');
    }
    const c = new Set(connectors);
    const t = new Set(tasks.map((x) => `${x.connector}\u0000${x.task}`));
    this.#owned = {
      connectors: this.#owned.connectors.filter((x) => !c.has(x)),
      tasks: this.#owned.tasks.filter((x) => !t.has(`${x.connector}\u0000${x.task}`)),
    };
  }

  /** Stops everything this member runs (the group went on without it, or it is stopping). */
  async #giveUpAll(why: string): Promise<void> {
    const { connectors, tasks } = this.#owned;
    this.#assignment = undefined;
    if (connectors.length === 0 && tasks.length === 0) return;
    const level = this.#stopping ? 'info' : 'warn';
    this.#log[level]({ why, connectors, tasks: tasks.length }, 'stopping all work of this worker');
    await this.#revoke(connectors, tasks);
  }

  // ── heartbeats ──────────────────────────────────────────────────────────────────────────────────────

  async #beat(): Promise<void> {
    if (this.#opts.suspendHeartbeats?.() === true) return;
    const generation = this.#generation;
    try {
      const res = await this.#client.heartbeat({
        groupId: this.#opts.groupId,
        generationId: generation,
        memberId: this.#memberId,
        groupInstanceId: null,
      });
      if (generation !== this.#generation || this.#stopping || res.errorCode === 0) return;
      if (res.errorCode === KafkaErrorCode.REBALANCE_IN_PROGRESS) {
        this.requestRejoin('the coordinator started a rebalance');
      } else if (LOST_ERRORS.has(res.errorCode)) {
        this.#heartbeats.stop();
        this.#groupError(res.errorCode, 'Heartbeat', 'rejoining after losing membership');
        this.#wake?.();
      } else if (!COORDINATOR_ERRORS.has(res.errorCode)) {
        this.#log.warn({ code: res.errorCode }, 'heartbeat refused');
      }
    } catch (err) {
      this.#log.debug({ err: (err as Error).message }, 'heartbeat failed; retrying at the next interval');
    }
  }
}
