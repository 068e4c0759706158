/**
 * The herder in distributed mode (ADR 0010): reads come from this worker's copy of the config and status
 * topics, so every worker answers for the whole cluster; writes are made by the leader, in turn
 * (`LeaderWrites`), and a worker that does not lead throws `NotLeaderError` for the REST layer to
 * forward. Until the worker has read the topics and joined, every call is refused as a rebalance.
 */
import type { Logger } from 'pino';
import { reportConnectorNotes } from '../../actors/connector-checks.js';
import { healthReport } from '../../actors/health.js';
import { compileConnectorConfig } from '../../config/compile-connector.js';
import { printableConfig } from '../../config/printable.js';
import { ConfigError } from '../../errors.js';
import {
  connectorNotFound,
  HerderError,
  NotLeaderError,
  notStopped,
  rebalanceInProgress,
  taskNotFound,
} from '../../herder/errors.js';
import type { Herder, RestartRequest, TargetState, WorkerHealth } from '../../herder/herder.js';
import type { TaskStateInfo } from '../../herder/connect-shapes.js';
import { answering, offsetsConfigOf } from '../../herder/offsets.js';
import { ConnectorOffsetsService } from '../../offsets/connector-offsets.js';
import { info, restartingStatus, stateInfo, status, taskInfos, tasksOf } from './cluster-status.js';
import type { ConfigState, ConnectorEntry } from './config-state.js';
import type { DistributedWorker } from './distributed-worker.js';

export class ClusterHerder implements Herder {
  readonly #w: DistributedWorker;
  #offsets: ConnectorOffsetsService | undefined;

  constructor(worker: DistributedWorker) {
    this.#w = worker;
  }

  get config(): DistributedWorker['config'] {
    return this.#w.config;
  }

  connectors(): string[] {
    return this.#state().connectors.map((c) => c.name);
  }

  connectorInfo(name: string) {
    return info(this.#entry(name));
  }

  connectorConfig(name: string): Record<string, string> {
    return printableConfig({ raw: this.#entry(name).config });
  }

  connectorStatus(name: string) {
    return status(this.#w.herder.statusStore, this.#entry(name));
  }

  taskConfigs(name: string) {
    return taskInfos(this.#entry(name));
  }

  taskStatus(name: string, task: number): TaskStateInfo {
    const c = this.#entry(name);
    const s = this.#w.herder.statusStore.tasks(c.name).get(task);
    if (task >= tasksOf(c).length || s === undefined) throw taskNotFound(c.name, task);
    return { id: task, ...stateInfo(s) };
  }

  connectorClasses(): string[] {
    // the cluster's own connectors may be named again (a config update), as the standalone worker's running ones
    return this.#w.started
      ? this.#w.herder.state.connectors.map((c) => c.config['connector.class'] ?? '')
      : [];
  }

  async putConnectorConfig(
    name: string,
    config: Record<string, string>,
    o: { create: boolean; initialState?: TargetState },
  ) {
    this.#mustLead();
    const { created } = await this.#w.writes.putConnector(name, config, o.create, o.initialState);
    await this.#noteConnector(config);
    return { created, info: info(this.#state().connector(name)!) };
  }

  async deleteConnector(name: string): Promise<void> {
    this.#entry(name);
    this.#mustLead();
    await this.#w.writes.deleteConnector(name);
  }

  async setTargetState(name: string, state: TargetState): Promise<void> {
    this.#entry(name);
    this.#mustLead();
    await this.#w.writes.setTargetState(name, state);
  }

  async restartConnector(name: string, request: RestartRequest) {
    const c = this.#entry(name);
    this.#mustLead();
    const now = this.#state().connector(c.name) ?? c;
    const before = status(this.#w.herder.statusStore, now);
    // a STOPPED connector has no instance and no task to restart, and stays STOPPED (standalone's
    // answer too): nothing is asked, nothing is shown RESTARTING
    const restarted =
      now.targetState !== 'STOPPED' && (await this.#w.writes.requestRestart(c.name, request)) !== false;
    return restarted ? restartingStatus(before, request) : before;
  }

  async restartTask(name: string, task: number): Promise<void> {
    const c = this.#entry(name);
    // a STOPPED connector has no task to restart: not found, as Connect's "Unknown task" (standalone too)
    if (task >= tasksOf(c).length) throw taskNotFound(c.name, task);
    this.#mustLead();
    await this.#w.writes.requestRestart(c.name, { includeTasks: false, onlyFailed: false, task });
  }

  async offsets(name: string): Promise<unknown> {
    const o = this.#offsetsConfig(this.#entry(name));
    return answering(o.groupId, () => this.#offsetsService().read(o));
  }

  alterOffsets(name: string, body: unknown): Promise<unknown> {
    return this.#whileStopped(name, (c) => {
      const o = this.#offsetsConfig(c);
      return answering(o.groupId, () => this.#offsetsService().alter(o, body));
    });
  }

  resetOffsets(name: string): Promise<unknown> {
    return this.#whileStopped(name, (c) => {
      const o = this.#offsetsConfig(c);
      return answering(o.groupId, () => this.#offsetsService().reset(o));
    });
  }

  activeTopics(name: string): string[] {
    return [...this.#w.herder.statusStore.topics(this.#entry(name).name)];
  }

  /**
   * Written by the worker that takes it, as Connect's (no leader needed: it changes no config), and read
   * back before it resolves, so this worker's next answer is already empty; the others follow as they
   * read the tombstones.
   */
  async resetActiveTopics(name: string): Promise<void> {
    const c = this.#entry(name);
    const store = this.#w.herder.statusStore;
    await store.removeTopics(c.name);
    await store.readToEnd(this.#w.distributed.workerSyncTimeoutMs);
  }

  /** This worker's own tasks as standalone reports them, plus the cluster as the group member sees it. */
  health(): WorkerHealth {
    const w = this.#w;
    if (!w.started) return { status: 'DOWN', connectors: [], unhealthy: ['worker (joining the cluster)'] };
    const { body } = healthReport(w);
    const view = w.herder.member.view();
    const cluster = {
      groupId: view.groupId,
      memberId: view.memberId,
      generation: view.generation,
      leader: view.leaderId,
      isLeader: view.isLeader,
      state: view.state,
      members: view.members.map((m) => ({
        memberId: m.memberId,
        workerId: m.workerId,
        url: m.restUrl,
        configOffset: m.configOffset.toString(),
      })),
      assignment:
        view.assignment === undefined
          ? undefined
          : {
              connectors: view.assignment.connectors,
              tasks: view.assignment.tasks.map((t) => `${t.connector}-${t.task}`),
              leaderUrl: view.assignment.leaderUrl,
              configOffset: view.assignment.configOffset.toString(),
            },
    };
    const joining = view.state !== 'stable';
    return { ...body, ...(joining ? { status: 'DOWN' as const } : {}), workerId: w.herder.workerId, cluster };
  }

  /** Before the worker has read the topics and joined, nothing it would answer is true yet. */
  #state(): ConfigState {
    if (!this.#w.started)
      throw rebalanceInProgress(
        'The worker is still joining the cluster (reading the config topic); try again in a moment',
      );
    return this.#w.herder.state;
  }

  #entry(name: string): ConnectorEntry {
    const c = this.#state().connector(name);
    if (c === undefined) throw connectorNotFound(name);
    return c;
  }

  #mustLead(): void {
    this.#state();
    const h = this.#w.herder;
    if (h.isLeader) return;
    throw new NotLeaderError(h.leaderUrl === h.restUrl ? undefined : h.leaderUrl, h.workerId);
  }

  /**
   * An offsets change: refused at once when this worker sees the connector not STOPPED; otherwise made
   * by the leader, which checks the target state again and runs the change in turn with the config
   * writes, so a resume cannot start the tasks halfway through it.
   */
  #whileStopped(name: string, job: (c: ConnectorEntry) => Promise<unknown>): Promise<unknown> {
    const c = this.#entry(name);
    if (c.targetState !== 'STOPPED') throw notStopped(c.name);
    this.#mustLead();
    return this.#w.writes.whileStopped(c.name, notStopped, () => job(this.#state().connector(c.name)!));
  }

  /** The offsets calls' view of a connector from the config topic; a config that no longer compiles here says why. */
  #offsetsConfig(c: ConnectorEntry) {
    try {
      return offsetsConfigOf(this.#w.herder.compile(c.config));
    } catch (err) {
      const why = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message;
      throw new HerderError(
        'internal',
        'SHARESINK_OFFSETS_CONFIG',
        `The config of connector ${c.name} does not compile on this worker, so its group is unknown here: ${why}`,
      );
    }
  }

  #offsetsService(): ConnectorOffsetsService {
    this.#offsets ??= new ConnectorOffsetsService(
      this.#w.config,
      this.#log().child({ component: 'offsets' }),
    );
    return this.#offsets;
  }

  #log(): Logger {
    return this.#w.logger;
  }

  /**
   * On the leader, once a connector's config is written: what `standalone` says at start about a
   * connector's settings (typos, converters that reject plain JSON). Best effort: the config passed
   * validation, and a note must not fail the request.
   */
  async #noteConnector(config: Record<string, string>): Promise<void> {
    try {
      await reportConnectorNotes(this.#w.logger, compileConnectorConfig(config, this.#w.config));
    } catch (err) {
      this.#w.logger.debug({ err }, 'could not check the connector settings for notes');
    }
  }
}
