/**
 * The contract between the worker group member (`src/distributed/group/`: JoinGroup / SyncGroup /
 * Heartbeat / LeaveGroup with sharesink's own protocol type, and the leader's assignor) and the
 * distributed herder (`src/distributed/herder/`: config and status topics, REST writes, running the
 * assigned tasks). The member knows nothing of connectors beyond names and task counts; the herder
 * knows nothing of the group protocol.
 */

/** What every member tells the group when it joins (the member metadata of JoinGroup). */
export interface WorkerMetadata {
  /** `host:port` a person and other workers know this worker by (Connect's worker_id). */
  readonly workerId: string;
  /** Base URL other workers forward REST writes to (from listeners / rest.advertised.*). */
  readonly restUrl: string;
  /** The config-topic offset this worker has applied up to (the next offset it will read). */
  readonly configOffset: bigint;
}

/** One task of one connector: `connector` name and task number, as in `task-<connector>-<task>`. */
export interface TaskId {
  readonly connector: string;
  readonly task: number;
}

/** What the leader assigns one member (the member assignment of SyncGroup). */
export interface WorkerAssignment {
  /** Member id and REST URL of the leader, so writes can be forwarded to it. */
  readonly leaderId: string;
  readonly leaderUrl: string;
  /** The config offset the leader assigned from; a member behind it reads up to it before it runs. */
  readonly configOffset: bigint;
  /** Connector instances (the `Connector` object: validation, taskConfigs) this member runs. */
  readonly connectors: readonly string[];
  readonly tasks: readonly TaskId[];
  /** Incremental cooperative: what this member must stop before the next round gives it away. */
  readonly revokedConnectors: readonly string[];
  readonly revokedTasks: readonly TaskId[];
  /** Delay (ms) before a departed worker's work is re-placed (scheduled.rebalance.max.delay.ms); 0 if none. */
  readonly delayMs: number;
}

/** The config state the leader assigns from: each connector with the number of tasks it runs now. */
export interface ClusterConfigSnapshot {
  readonly offset: bigint;
  readonly connectors: ReadonlyArray<{ readonly name: string; readonly tasks: number }>;
}

/** The cluster as this member sees it after a round (shown in /health and the live view). */
export interface ClusterView {
  readonly groupId: string;
  readonly memberId: string;
  readonly generation: number;
  readonly leaderId: string;
  readonly isLeader: boolean;
  readonly members: ReadonlyArray<{ readonly memberId: string } & WorkerMetadata>;
  readonly assignment: WorkerAssignment | undefined;
  /** `joining` while a round is under way, `stable` once an assignment is held, `stopped` after leave. */
  readonly state: 'joining' | 'stable' | 'stopped';
}

/** What the herder hands the member. */
export interface WorkerGroupHooks {
  /** This worker's metadata at the moment of a join (the config offset moves as the topic is read). */
  metadata(): WorkerMetadata;
  /** On the leader only: the config to assign from, read at least up to `minOffset` (highest any member reported). */
  configSnapshot(minOffset: bigint): Promise<ClusterConfigSnapshot>;
  /**
   * Stop the work named (before the member rejoins to give it away); resolves once stopped. Also called with
   * everything on stop() and when the coordinator says the group went on without this member.
   */
  revoke(connectors: readonly string[], tasks: readonly TaskId[]): Promise<void>;
  /**
   * A new assignment is held: start what is new in it. `assignment.connectors` / `tasks` are everything this
   * worker runs from now on (what it kept plus what is new); what was revoked was stopped just before.
   */
  assigned(assignment: WorkerAssignment, view: ClusterView): void;
}

/** The member as the herder drives it. */
export interface WorkerGroupMember {
  start(): Promise<void>;
  /** Ask for a new round (the herder saw a config change: connectors or task counts moved). */
  requestRejoin(reason: string): void;
  view(): ClusterView;
  /**
   * Stop this worker's work (`revoke()` with all of it), then leave the group (LeaveGroup); resolves once
   * left. As in Connect (KIP-415), the others take the work after `scheduled.rebalance.max.delay.ms`, unless
   * a worker with the same worker id joins first (a restart), which gets it back.
   */
  stop(): Promise<void>;
}
