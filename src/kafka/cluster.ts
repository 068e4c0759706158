/**
 * The cluster as the share consumer sees it: bootstrap, broker connections by node id (opened lazily,
 * reopened with backoff), metadata (topic name ⇄ topic id, partition leaders, node endpoints), the group
 * coordinator, and share-group configs.
 *
 * @example
 * ```ts
 * const cluster = new KafkaCluster({ brokers: ['127.0.0.1:9092'], clientId: 'sink-1', logger });
 * await cluster.connect();
 * await cluster.refreshMetadata(['orders']);
 * const coordinator = await cluster.findGroupCoordinator('my-share-group');
 * const conn = await cluster.connectionTo(coordinator.nodeId);
 * ```
 */
import type { Logger } from 'pino';
import { pino } from 'pino';
import { KafkaConnectionError, KafkaError } from './errors/kafka-errors.js';
import { failureFields } from './errors/failure-reason.js';
import { openBrokerConnection, type BrokerConnection, type BrokerConnectionOptions } from './connection.js';
import type { SaslConfig, SslConfig } from './kafkajs/internals.js';
import type { NodeEndpoint } from './protocol/api.js';
import { StillWaiting } from '../observability/still-waiting.js';
import { CoordinatorKeyType, FindCoordinator } from './protocol/messages/find-coordinator.js';
import {
  Metadata,
  metadataForTopicIds,
  metadataForTopicNames,
  type MetadataRequest,
  type MetadataResponseTopic,
} from './protocol/messages/metadata.js';
import { alterGroupConfigs, describeGroupConfigs } from './admin/group-configs.js';

export interface KafkaClusterOptions {
  /** Bootstrap addresses, `host:port`. */
  brokers: readonly string[];
  /** Default `'sharesink'`. */
  clientId?: string;
  /** Default: a silent logger. The cluster logs through `logger.child({ component: 'kafka' })`. */
  logger?: Logger;
  ssl?: SslConfig;
  sasl?: SaslConfig;
  /** Default 10 000. */
  connectionTimeoutMs?: number;
  /** Default 30 000. */
  requestTimeoutMs?: number;
  /** Backoff between connection attempts: doubles from `initialBackoffMs` up to `maxBackoffMs`, ±20 % jitter. */
  retry?: { initialBackoffMs?: number; maxBackoffMs?: number; maxAttempts?: number };
  /** Replaces {@link openBrokerConnection} (tests, custom transports). */
  openConnection?: (options: BrokerConnectionOptions) => Promise<BrokerConnection>;
}

export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface PartitionMetadata {
  readonly partition: number;
  readonly errorCode: number;
  /** -1 when there is no leader. */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}

export interface TopicMetadata {
  readonly name: string;
  readonly topicId: string;
  readonly isInternal: boolean;
  /** Sorted by partition index. */
  readonly partitions: readonly PartitionMetadata[];
}

const UNKNOWN_TOPIC_OR_PARTITION = 3;
const UNKNOWN_TOPIC_ID = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseAddress(address: string): { host: string; port: number } {
  const s = address.trim();
  const idx = s.lastIndexOf(':');
  const port = Number(s.slice(idx + 1));
  if (idx <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new TypeError(`broker address ${JSON.stringify(address)} is not host:port`);
  }
  const host = s.slice(0, idx).replace(/^\[(.*)\]$/, '$1'); // [::1]:9092
  return { host, port };
}

export class KafkaCluster {
  private readonly opts: Required<
    Pick<KafkaClusterOptions, 'clientId' | 'connectionTimeoutMs' | 'requestTimeoutMs'>
  > &
    KafkaClusterOptions;
  private readonly logger: Logger;
  private readonly bootstrap: { host: string; port: number }[];
  private readonly backoff: { initialMs: number; maxMs: number; maxAttempts: number };
  private readonly open: (options: BrokerConnectionOptions) => Promise<BrokerConnection>;

  private readonly nodesById = new Map<number, BrokerNode>();
  private readonly byName = new Map<string, TopicMetadata>();
  private readonly byId = new Map<string, TopicMetadata>();
  /** Keyed by `${nodeId}/${lane}`. */
  private readonly conns = new Map<string, BrokerConnection>();
  private readonly pending = new Map<string, Promise<BrokerConnection>>();
  private bootstrapConn: BrokerConnection | undefined;
  private bootstrapPending: Promise<BrokerConnection> | undefined;
  private closed = false;
  private _clusterId: string | null = null;
  private _controllerId = -1;

  constructor(options: KafkaClusterOptions) {
    if (options.brokers.length === 0) throw new TypeError('KafkaCluster needs at least one bootstrap broker');
    this.opts = {
      ...options,
      clientId: options.clientId ?? 'sharesink',
      connectionTimeoutMs: options.connectionTimeoutMs ?? 10_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    };
    this.logger = (options.logger ?? pino({ level: 'silent' })).child({ component: 'kafka' });
    this.bootstrap = options.brokers.map(parseAddress);
    this.backoff = {
      initialMs: options.retry?.initialBackoffMs ?? 100,
      maxMs: options.retry?.maxBackoffMs ?? 10_000,
      maxAttempts: options.retry?.maxAttempts ?? 5,
    };
    this.open = options.openConnection ?? openBrokerConnection;
  }

  // ── metadata views ──────────────────────────────────────────────────────────────────────────────────

  get clusterId(): string | null {
    return this._clusterId;
  }

  get controllerId(): number {
    return this._controllerId;
  }

  /** Brokers known from the last metadata (plus endpoints learnt from share responses). */
  nodes(): ReadonlyMap<number, BrokerNode> {
    return this.nodesById;
  }

  topicByName(name: string): TopicMetadata | undefined {
    return this.byName.get(name);
  }

  topicById(topicId: string): TopicMetadata | undefined {
    return this.byId.get(topicId);
  }

  /** Leader node id of a partition, or undefined when unknown / leaderless. */
  leaderFor(topicId: string, partition: number): number | undefined {
    const p = this.byId.get(topicId)?.partitions.find((x) => x.partition === partition);
    return p === undefined || p.leaderId < 0 ? undefined : p.leaderId;
  }

  /**
   * Records broker endpoints learnt outside Metadata (ShareFetch / ShareAcknowledge `NodeEndpoints`, the
   * FindCoordinator answer). A changed endpoint closes the old connection to that node.
   */
  updateNodes(endpoints: readonly NodeEndpoint[]): void {
    for (const e of endpoints) this.setNode({ nodeId: e.nodeId, host: e.host, port: e.port, rack: e.rack });
  }

  private setNode(node: BrokerNode): void {
    const old = this.nodesById.get(node.nodeId);
    this.nodesById.set(node.nodeId, node);
    if (old !== undefined && (old.host !== node.host || old.port !== node.port)) {
      for (const [key, conn] of this.conns) {
        if (!key.startsWith(`${node.nodeId}/`)) continue;
        this.conns.delete(key);
        void conn.close();
      }
    }
  }

  // ── connections ─────────────────────────────────────────────────────────────────────────────────────

  /** Bootstraps: connects to the first reachable bootstrap broker and loads the broker list. */
  async connect(): Promise<void> {
    await this.refreshMetadata([]);
  }

  private connectionOptions(nodeId: number, host: string, port: number): BrokerConnectionOptions {
    return {
      host,
      port,
      nodeId,
      clientId: this.opts.clientId,
      logger: this.logger,
      ssl: this.opts.ssl,
      sasl: this.opts.sasl,
      connectionTimeoutMs: this.opts.connectionTimeoutMs,
      requestTimeoutMs: this.opts.requestTimeoutMs,
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new KafkaConnectionError('cluster', 'the KafkaCluster is closed');
  }

  /**
   * Runs `attempt` until it succeeds, retrying connection errors with exponential backoff and jitter.
   * `what` names what is awaited (`the coordinator of group g1`) for the one warning a long wait gets.
   */
  private async withBackoff<T>(what: string, attempt: (n: number) => Promise<T>): Promise<T> {
    let delay = this.backoff.initialMs;
    const waiting = new StillWaiting({ logger: this.logger, what });
    waiting.begin();
    for (let n = 1; ; n++) {
      this.assertOpen();
      try {
        const result = await attempt(n);
        waiting.succeeded();
        return result;
      } catch (err) {
        const retriable = err instanceof KafkaConnectionError || (err instanceof KafkaError && err.retriable);
        if (!retriable || n >= this.backoff.maxAttempts) throw err;
        const wait = Math.round(delay * (0.8 + Math.random() * 0.4));
        // a connection error's own message repeats the address and its cause (failure-reason.ts)
        const f = failureFields(err);
        const reason =
          err instanceof KafkaError
            ? err.kafkaName
            : f.broker === undefined
              ? f.err
              : `${f.err} (${f.broker})`;
        waiting.failed(reason, { ...f, attempt: n, retryInMs: wait });
        await sleep(wait);
        delay = Math.min(delay * 2, this.backoff.maxMs);
      }
    }
  }

  /**
   * A connection to broker `nodeId`, opened (with backoff) if there is none or it closed.
   *
   * `lane` names a separate connection to the same broker. A broker handles one request at a time per
   * connection, in order, so a long-polling ShareFetch (up to MaxWaitMs) delays whatever is queued behind it on
   * the same socket. Give long polls their own lane (e.g. `'fetch'`) to keep heartbeats and acknowledgements on
   * the `'default'` lane prompt.
   */
  connectionTo(nodeId: number, lane = 'default'): Promise<BrokerConnection> {
    this.assertOpen();
    const key = `${nodeId}/${lane}`;
    const existing = this.conns.get(key);
    if (existing?.connected) return Promise.resolve(existing);
    const inFlight = this.pending.get(key);
    if (inFlight !== undefined) return inFlight;
    const p = this.withBackoff(`a connection to node ${nodeId}`, async () => {
      let node = this.nodesById.get(nodeId);
      if (node === undefined) {
        await this.refreshMetadata([]);
        node = this.nodesById.get(nodeId);
        if (node === undefined) {
          throw new KafkaConnectionError(`node ${nodeId}`, 'not in the cluster metadata');
        }
      }
      return this.open(this.connectionOptions(nodeId, node.host, node.port));
    }).then(
      (conn) => {
        this.pending.delete(key);
        if (this.closed) {
          void conn.close();
          throw new KafkaConnectionError(conn.address, 'the KafkaCluster is closed');
        }
        this.conns.set(key, conn);
        conn.onClose(() => {
          if (this.conns.get(key) === conn) this.conns.delete(key);
          this.logger.debug({ nodeId, lane, broker: conn.address }, 'connection closed');
        });
        return conn;
      },
      (err: unknown) => {
        this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, p);
    return p;
  }

  /** Some live connection, for cluster-wide requests (Metadata, FindCoordinator, configs). */
  anyConnection(): Promise<BrokerConnection> {
    this.assertOpen();
    for (const [key, c] of this.conns) if (key.endsWith('/default') && c.connected) return Promise.resolve(c);
    if (this.bootstrapConn?.connected) return Promise.resolve(this.bootstrapConn);
    if (this.bootstrapPending !== undefined) return this.bootstrapPending;
    const p = this.withBackoff('a connection to a bootstrap broker', async (n) => {
      // Known nodes first (the bootstrap list may be stale), then the bootstrap addresses, rotating per attempt.
      const candidates = [
        ...[...this.nodesById.values()].map((x) => ({ host: x.host, port: x.port })),
        ...this.bootstrap,
      ];
      let last: unknown;
      for (let i = 0; i < candidates.length; i++) {
        const c = candidates[(i + n - 1) % candidates.length]!;
        try {
          return await this.open(this.connectionOptions(-1, c.host, c.port));
        } catch (err) {
          last = err;
          if (!(err instanceof KafkaConnectionError)) throw err;
        }
      }
      throw last;
    }).then(
      (conn) => {
        this.bootstrapPending = undefined;
        this.bootstrapConn = conn;
        return conn;
      },
      (err: unknown) => {
        this.bootstrapPending = undefined;
        throw err;
      },
    );
    this.bootstrapPending = p;
    return p;
  }

  // ── metadata ────────────────────────────────────────────────────────────────────────────────────────

  private async metadata(request: MetadataRequest): Promise<MetadataResponseTopic[]> {
    const res = await this.withBackoff('the cluster metadata', async () => {
      const conn = await this.anyConnection();
      return conn.call(Metadata, request);
    });
    if (res.errorCode !== 0) throw new KafkaError(res.errorCode, { api: 'Metadata' });
    this._clusterId = res.clusterId;
    this._controllerId = res.controllerId;
    for (const b of res.brokers) this.setNode({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack });
    for (const t of res.topics) this.applyTopic(t);
    return res.topics;
  }

  private applyTopic(t: MetadataResponseTopic): void {
    if (t.errorCode === UNKNOWN_TOPIC_OR_PARTITION || t.errorCode === UNKNOWN_TOPIC_ID) {
      const gone = t.name !== null ? this.byName.get(t.name) : this.byId.get(t.topicId);
      if (gone !== undefined) {
        this.byName.delete(gone.name);
        this.byId.delete(gone.topicId);
      }
      return;
    }
    if (t.errorCode !== 0 || t.name === null) return; // e.g. LEADER_NOT_AVAILABLE while being created: keep old
    const prev = this.byName.get(t.name);
    if (prev !== undefined && prev.topicId !== t.topicId) this.byId.delete(prev.topicId); // deleted and re-created
    const partitions: PartitionMetadata[] = t.partitions
      .map((p) => ({
        partition: p.partitionIndex,
        errorCode: p.errorCode,
        leaderId: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
      }))
      .sort((a, b) => a.partition - b.partition);
    const meta: TopicMetadata = { name: t.name, topicId: t.topicId, isInternal: t.isInternal, partitions };
    this.byName.set(t.name, meta);
    this.byId.set(t.topicId, meta);
  }

  /**
   * Loads metadata for these topic names (`[]`: brokers only; omitted: every topic known so far). Topics the
   * broker does not know are dropped from the maps. Returns the metadata of the requested topics that exist.
   */
  async refreshMetadata(topicNames?: readonly string[]): Promise<TopicMetadata[]> {
    const names = topicNames ?? [...this.byName.keys()];
    const topics = await this.metadata(metadataForTopicNames(names));
    const out: TopicMetadata[] = [];
    for (const t of topics) {
      const m = t.name !== null ? this.byName.get(t.name) : undefined;
      if (m !== undefined && m.topicId === t.topicId) out.push(m);
    }
    return out;
  }

  /**
   * Resolves topic ids (from a share assignment) to metadata, asking the broker (Metadata v12+, by id) for
   * the ids not known yet. Ids the broker does not know are absent from the result.
   */
  async resolveTopicIds(topicIds: readonly string[]): Promise<Map<string, TopicMetadata>> {
    const missing = topicIds.filter((id) => !this.byId.has(id));
    if (missing.length > 0) await this.metadata(metadataForTopicIds(missing));
    const out = new Map<string, TopicMetadata>();
    for (const id of topicIds) {
      const m = this.byId.get(id);
      if (m !== undefined) out.set(id, m);
    }
    return out;
  }

  // ── groups ──────────────────────────────────────────────────────────────────────────────────────────

  /**
   * The coordinator of a (share) group: FindCoordinator, key type GROUP. Retries the retriable errors
   * (COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, …) with backoff.
   * @throws KafkaError for the other errors (e.g. GROUP_AUTHORIZATION_FAILED).
   */
  async findGroupCoordinator(groupId: string): Promise<BrokerNode> {
    return this.withBackoff(`the coordinator of group ${groupId}`, async () => {
      const conn = await this.anyConnection();
      const res = await conn.call(FindCoordinator, {
        keyType: CoordinatorKeyType.GROUP,
        coordinatorKeys: [groupId],
      });
      const c = res.coordinators.find((x) => x.key === groupId);
      if (c === undefined) throw new KafkaError(-1, { api: 'FindCoordinator', subject: `group ${groupId}` });
      if (c.errorCode !== 0) {
        throw new KafkaError(c.errorCode, {
          api: 'FindCoordinator',
          subject: `group ${groupId}`,
          brokerMessage: c.errorMessage,
        });
      }
      const node: BrokerNode = { nodeId: c.nodeId, host: c.host, port: c.port, rack: null };
      const known = this.nodesById.get(c.nodeId);
      if (known === undefined || known.host !== c.host || known.port !== c.port) this.setNode(node);
      return this.nodesById.get(c.nodeId) ?? node;
    });
  }

  /** Sets (string) or deletes (null) share-group configs; see group-configs.ts. */
  alterGroupConfigs(groupId: string, configs: Readonly<Record<string, string | null>>): Promise<void> {
    return alterGroupConfigs(() => this.anyConnection(), groupId, configs);
  }

  /** Reads share-group configs (all of them, or just `keys`); see group-configs.ts. */
  describeGroupConfigs(groupId: string, keys?: readonly string[]): Promise<Map<string, string | null>> {
    return describeGroupConfigs(() => this.anyConnection(), groupId, keys);
  }

  /** Closes every connection. Further calls throw. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const all = [...this.conns.values()];
    if (this.bootstrapConn !== undefined) all.push(this.bootstrapConn);
    this.conns.clear();
    this.bootstrapConn = undefined;
    await Promise.all(all.map((c) => c.close()));
  }
}
