/**
 * The distributed herder: applies the config topic in order, runs the connectors' tasks the group's
 * leader assigned to this worker, stops what is revoked, reports states to the status topic, and asks
 * for a new round when the leader sees the task counts change. The group protocol is the member's
 * (`WorkerGroupMember`); the writes the leader makes are in leader-writes.ts. ADR 0010 says why.
 */
import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import type { DistributedConfig } from '../../config/distributed-def.js';
import type {
  ClusterConfigSnapshot,
  ClusterView,
  TaskId,
  WorkerAssignment,
  WorkerGroupHooks,
  WorkerGroupMember,
  WorkerMetadata,
} from '../group-types.js';
import { parseConfigRecord, type RestartRequest, type TargetState } from './config-records.js';
import { ConfigState, needsTaskConfigs, type ConfigChange } from './config-state.js';
import { LocalConnectors, type RuntimeFactory } from './local-connectors.js';
import { connectorStatusKey, taskStatusKey, type StatusStore } from './status-store.js';
import type { LogRecord, TopicLog } from './topic-log.js';

export interface HerderOptions {
  readonly worker: WorkerConfig;
  readonly distributed: DistributedConfig;
  readonly configLog: TopicLog;
  readonly status: StatusStore;
  /** `host:port` (Connect's worker_id) and the base URL other workers forward writes to. */
  readonly workerId: string;
  readonly restUrl: string;
  readonly logger: Logger;
  readonly runtimes: RuntimeFactory;
  /** How often the states of this worker's instances are compared with what it wrote. Default 1000 ms. */
  readonly statusIntervalMs?: number;
}

export class DistributedHerder implements WorkerGroupHooks {
  readonly state = new ConfigState();
  readonly #o: HerderOptions;
  readonly #log: Logger;
  readonly local: LocalConnectors;
  #member: WorkerGroupMember | undefined;
  /** Handed-over records are applied live (restart requests act only then, not when replayed at start). */
  #live = false;
  readonly #heldConnectors = new Set<string>();
  readonly #heldTasks = new Map<string, Set<number>>();
  /** The tasks whose state this worker wrote at the last publishStatus, by connector. */
  #published = new Map<string, Set<number>>();
  #leaderUrl: string | undefined;
  #generation = -1;
  /** The task counts the last snapshot handed the assignor: the leader rejoins when they change. */
  #assignedCounts: string | undefined;
  #statusTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  #ready = false;

  constructor(o: HerderOptions) {
    this.#o = o;
    this.#log = o.logger.child({ component: 'herder' });
    this.local = new LocalConnectors({ worker: o.worker, logger: o.logger, factory: o.runtimes });
    // a reset or a deletion on any worker: the tasks here report the topic again when they next put it
    o.status.onTopicRemoved((connector, topic) => this.local.runtime(connector)?.forgetActiveTopic?.(topic));
  }

  /** The member is made with this herder as its hooks, then handed back here. */
  attach(member: WorkerGroupMember): void {
    this.#member = member;
  }

  get member(): WorkerGroupMember {
    if (this.#member === undefined) throw new Error('the herder has no group member yet');
    return this.#member;
  }

  get workerId(): string {
    return this.#o.workerId;
  }

  get restUrl(): string {
    return this.#o.restUrl;
  }

  get statusStore(): StatusStore {
    return this.#o.status;
  }

  get configLog(): TopicLog {
    return this.#o.configLog;
  }

  get distributed(): DistributedConfig {
    return this.#o.distributed;
  }

  get worker(): WorkerConfig {
    return this.#o.worker;
  }

  /** The leader's REST URL from the last assignment; undefined while none is held. */
  get leaderUrl(): string | undefined {
    return this.#leaderUrl;
  }

  get isLeader(): boolean {
    return this.#member?.view().isLeader === true && this.#member.view().state === 'stable';
  }

  /**
   * True once start() has read the config topic to its end and joined: before, `state` is partial (or
   * empty), and an answer from it would say a connector does not exist when it does.
   */
  get ready(): boolean {
    return this.#ready;
  }

  /** Reads both topics to their end, then joins the group. */
  async start(): Promise<void> {
    await this.#o.status.start();
    await this.#o.configLog.start((records) => this.#onConfigRecords(records));
    this.#live = true;
    this.#log.info(
      { connectors: this.state.connectors.length, offset: this.state.offset.toString() },
      'config topic read',
    );
    await this.member.start();
    this.#ready = true;
    this.#statusTimer = setInterval(() => void this.publishStatus(), this.#o.statusIntervalMs ?? 1000);
    this.#statusTimer.unref();
  }

  /** Leaves the group (the others take the work at once), then stops what runs here. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#statusTimer !== undefined) clearInterval(this.#statusTimer);
    // tasks stop before the group is left, so the next owner never overlaps them
    await this.local.stopAll();
    await this.#member?.stop().catch((err: Error) => this.#log.warn({ err }, 'leaving the group failed'));
    await this.#o.configLog.close();
    await this.#o.status.close();
  }

  // ---- WorkerGroupHooks ---------------------------------------------------------------------------

  metadata(): WorkerMetadata {
    return { workerId: this.#o.workerId, restUrl: this.#o.restUrl, configOffset: this.state.offset };
  }

  async configSnapshot(minOffset: bigint): Promise<ClusterConfigSnapshot> {
    if (this.state.offset < minOffset)
      await this.#o.configLog.readToEnd(this.#o.distributed.workerSyncTimeoutMs);
    // a leader that died between a connector's config and its task configs left it stale: finish it
    // (and a STOPPED connector that still lists tasks: written by an older version, or a leader that died
    // between the stop and the empty task list)
    for (const c of this.state.connectors)
      if (needsTaskConfigs(c))
        await this.onStaleTasks?.(c.name).catch((err: Error) => this.#log.error({ err }, 'task configs'));
    const connectors = this.state.taskCounts();
    this.#assignedCounts = JSON.stringify(connectors);
    return { offset: this.state.offset, connectors };
  }

  /** Set by the leader writes: compute and commit the task configs of a connector. */
  onStaleTasks: ((name: string) => Promise<void>) | undefined;

  async revoke(connectors: readonly string[], tasks: readonly TaskId[]): Promise<void> {
    for (const c of connectors) this.#heldConnectors.delete(c);
    for (const t of tasks) this.#heldTasks.get(t.connector)?.delete(t.task);
    this.#log.info({ connectors, tasks: tasks.map((t) => `${t.connector}-${t.task}`) }, 'revoked');
    await this.reconcile();
  }

  assigned(assignment: WorkerAssignment, view: ClusterView): void {
    this.#generation = view.generation;
    this.#leaderUrl = assignment.leaderUrl;
    // the assignment lists everything this worker runs after the round (what it keeps and what is new)
    const revoked = new Set(assignment.revokedTasks.map((t) => `${t.connector}\u0000${t.task}`));
    this.#heldConnectors.clear();
    this.#heldTasks.clear();
    for (const c of assignment.connectors)
      if (!assignment.revokedConnectors.includes(c)) this.#heldConnectors.add(c);
    for (const t of assignment.tasks) {
      if (revoked.has(`${t.connector}\u0000${t.task}`)) continue;
      let set = this.#heldTasks.get(t.connector);
      if (set === undefined) this.#heldTasks.set(t.connector, (set = new Set()));
      set.add(t.task);
    }
    this.#log.info(
      {
        generation: view.generation,
        leader: view.leaderId,
        connectors: assignment.connectors,
        tasks: assignment.tasks.map((t) => `${t.connector}-${t.task}`),
      },
      'assignment received',
    );
    void this.#afterAssignment(assignment);
  }

  async #afterAssignment(assignment: WorkerAssignment): Promise<void> {
    if (this.state.offset < assignment.configOffset) {
      try {
        await this.#o.configLog.readToEnd(this.#o.distributed.workerSyncTimeoutMs);
      } catch (err) {
        // Connect's answer to a worker that cannot catch up: give the assignment back and rejoin
        this.#log.warn({ err }, 'behind the config offset of the assignment; rejoining');
        this.#member?.requestRejoin('behind the config topic');
        return;
      }
    }
    await this.reconcile();
    await this.publishStatus();
  }

  // ---- config records -----------------------------------------------------------------------------

  #onConfigRecords(records: readonly LogRecord[]): void {
    const changes: ConfigChange[] = [];
    for (const r of records) {
      const record = parseConfigRecord(r.key, r.value);
      if (record === undefined) {
        this.#log.warn({ key: r.key, offset: r.offset.toString() }, 'config record not understood; skipped');
        this.state.offset = r.offset + 1n;
        continue;
      }
      changes.push(this.state.apply(record, r.offset));
    }
    if (!this.#live) return;
    for (const change of changes) {
      if (change?.type === 'restart') this.#restart(change.name, change.request);
      if (change?.type === 'connector' && change.deleted)
        this.#log.info({ connector: change.name }, 'connector deleted');
    }
    if (changes.some((c) => c !== undefined)) void this.#afterConfigChange();
  }

  async #afterConfigChange(): Promise<void> {
    if (this.isLeader && this.#assignedCounts !== JSON.stringify(this.state.taskCounts()))
      this.member.requestRejoin('connectors or task counts changed');
    await this.reconcile();
    await this.publishStatus();
  }

  #restart(name: string, request: RestartRequest): void {
    // a request written before the stop (or by an older version) must not bring up what is stopping
    if (this.state.connector(name)?.targetState === 'STOPPED') return;
    const runtime = this.local.runtime(name);
    if (runtime === undefined) return;
    if (request.task !== undefined) {
      if (!runtime.taskStates().some((t) => t.id === request.task)) return;
      void runtime
        .restartTask(request.task)
        .catch((err: Error) =>
          this.#log.error({ err, connector: name, task: request.task }, 'task restart failed'),
        );
      return;
    }
    this.#log.info({ connector: name, ...request }, 'restart requested');
    runtime.restart(request);
  }

  // ---- running what is assigned -------------------------------------------------------------------

  /** What this worker should run now: held tasks of connectors that exist, are not STOPPED and have them. */
  wanted(): Map<
    string,
    { config: Readonly<Record<string, string>>; version: number; target: TargetState; tasks: number[] }
  > {
    const out = new Map<
      string,
      { config: Readonly<Record<string, string>>; version: number; target: TargetState; tasks: number[] }
    >();
    for (const [name, held] of this.#heldTasks) {
      const c = this.state.connector(name);
      if (c === undefined || c.targetState === 'STOPPED') continue;
      const tasks = [...held].filter((t) => t < c.tasks.length).sort((a, b) => a - b);
      if (tasks.length > 0)
        out.set(name, { config: c.config, version: c.configVersion, target: c.targetState, tasks });
    }
    return out;
  }

  /** Brings the local runtimes in line with `wanted()` (serialised: one reconcile at a time). */
  reconcile(): Promise<void> {
    return this.local.reconcile(this.#stopped ? new Map() : this.wanted());
  }

  /** Writes the states of this worker's instances that changed since it last wrote them. */
  async publishStatus(): Promise<void> {
    if (this.#stopped) return;
    const status = this.#o.status;
    const generation = this.#generation;
    const workerId = this.#o.workerId;
    try {
      for (const name of this.#heldConnectors) {
        const c = this.state.connector(name);
        if (c === undefined) continue;
        const s = this.local.connectorState(name, c.targetState);
        await status.put(connectorStatusKey(name), { ...s, workerId, generation });
      }
      const published = new Map<string, Set<number>>();
      for (const { name, tasks } of this.local.taskStates()) {
        published.set(name, new Set(tasks.map((t) => t.id)));
        for (const t of tasks)
          await status.put(taskStatusKey(name, t.id), {
            state: t.state,
            trace: t.trace,
            workerId,
            generation,
          });
      }
      // tasks stopped because their connector was STOPPED: UNASSIGNED, as Connect's onShutdown writes, so a
      // resume does not show their old RUNNING until they run again (moved tasks are left to their new owner)
      for (const [name, ids] of this.#published) {
        if (this.state.connector(name)?.targetState !== 'STOPPED') continue;
        for (const id of ids)
          if (!published.get(name)?.has(id))
            await status.put(taskStatusKey(name, id), { state: 'UNASSIGNED', workerId, generation });
      }
      this.#published = published;
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'status not written; retried at the next interval');
    }
  }

  /**
   * A task of this worker put records of `topic` for the first time since its runtime started or the
   * topic was reset (KIP-558): recorded in the status topic unless a worker did already. A failed write
   * is forgotten by the runtime, so its next put of the topic tries again.
   */
  recordActiveTopic(connector: string, topic: string, task: number): void {
    const status = this.#o.status;
    if (status.hasTopic(connector, topic) || this.state.connector(connector) === undefined) return;
    status.putTopic({ connector, topic, task, discoverTimestamp: Date.now() }).catch((err: Error) => {
      this.#log.warn(
        { err: err.message, connector, topic },
        'active topic not recorded; retried at its next put',
      );
      this.local.runtime(connector)?.forgetActiveTopic?.(topic);
    });
  }

  /** Compiles a stored (written) connector config on this worker: provider references resolve here. */
  compile(config: Readonly<Record<string, string>>): ConnectorConfig {
    return this.local.compile(config);
  }
}
