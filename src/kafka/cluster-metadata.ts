/**
 * What a cluster's Metadata answers taught it, without I/O: the brokers (plus endpoints learnt from
 * share responses), topic name ⇄ topic id, and partition leaders. {@link KafkaCluster} fills it.
 */
import type { NodeEndpoint } from './protocol/api.js';
import type { MetadataResponse, MetadataResponseTopic } from './protocol/messages/metadata.js';

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

export class ClusterMetadata {
  readonly #nodes = new Map<number, BrokerNode>();
  readonly #byName = new Map<string, TopicMetadata>();
  readonly #byId = new Map<string, TopicMetadata>();
  clusterId: string | null = null;
  controllerId = -1;

  /** Brokers known from the last metadata (plus endpoints learnt from share responses). */
  get nodes(): ReadonlyMap<number, BrokerNode> {
    return this.#nodes;
  }

  topicByName(name: string): TopicMetadata | undefined {
    return this.#byName.get(name);
  }

  topicById(topicId: string): TopicMetadata | undefined {
    return this.#byId.get(topicId);
  }

  /** The names of every topic known so far. */
  topicNames(): string[] {
    return [...this.#byName.keys()];
  }

  /** Leader node id of a partition, or undefined when unknown / leaderless. */
  leaderFor(topicId: string, partition: number): number | undefined {
    const p = this.#byId.get(topicId)?.partitions.find((x) => x.partition === partition);
    return p === undefined || p.leaderId < 0 ? undefined : p.leaderId;
  }

  /** Records a broker's endpoint; answers true when a known node moved (its connections are stale). */
  setNode(node: BrokerNode): boolean {
    const old = this.#nodes.get(node.nodeId);
    this.#nodes.set(node.nodeId, node);
    return old !== undefined && (old.host !== node.host || old.port !== node.port);
  }

  /** Endpoints learnt outside Metadata; answers the ids of the nodes that moved. */
  setEndpoints(endpoints: readonly NodeEndpoint[]): number[] {
    const moved: number[] = [];
    for (const e of endpoints)
      if (this.setNode({ nodeId: e.nodeId, host: e.host, port: e.port, rack: e.rack })) moved.push(e.nodeId);
    return moved;
  }

  /** Applies a Metadata answer (without an error code); answers the ids of the nodes that moved. */
  apply(res: Pick<MetadataResponse, 'clusterId' | 'controllerId' | 'brokers' | 'topics'>): number[] {
    this.clusterId = res.clusterId;
    this.controllerId = res.controllerId;
    const moved: number[] = [];
    for (const b of res.brokers)
      if (this.setNode({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })) moved.push(b.nodeId);
    for (const t of res.topics) this.#applyTopic(t);
    return moved;
  }

  #applyTopic(t: MetadataResponseTopic): void {
    if (t.errorCode === UNKNOWN_TOPIC_OR_PARTITION || t.errorCode === UNKNOWN_TOPIC_ID) {
      const gone = t.name !== null ? this.#byName.get(t.name) : this.#byId.get(t.topicId);
      if (gone !== undefined) {
        this.#byName.delete(gone.name);
        this.#byId.delete(gone.topicId);
      }
      return;
    }
    if (t.errorCode !== 0 || t.name === null) return; // e.g. LEADER_NOT_AVAILABLE while being created: keep old
    const prev = this.#byName.get(t.name);
    if (prev !== undefined && prev.topicId !== t.topicId) this.#byId.delete(prev.topicId); // deleted and re-created
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
    this.#byName.set(t.name, meta);
    this.#byId.set(t.topicId, meta);
  }
}
