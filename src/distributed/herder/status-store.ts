/**
 * The status topic: each connector's and task's state, trace, worker and generation, written by the
 * worker that runs it, read by every worker (Connect's keys `status-connector-<name>` and
 * `status-task-<name>-<n>`). A record of an older generation than the one held is ignored, so a worker
 * that lost a task in a rebalance cannot overwrite the new owner's state with a late write. It also
 * holds each connector's active topics (KIP-558, topic-status.ts), so every worker answers
 * `GET /connectors/{name}/topics` alike.
 */
import type { Logger } from 'pino';
import { RECORD_VERSION } from './config-records.js';
import {
  parseTopicKey,
  parseTopicStatus,
  topicStatusKey,
  topicStatusValue,
  type TopicStatus,
} from './topic-status.js';
import type { LogRecord, TopicLog } from './topic-log.js';

export interface InstanceStatus {
  readonly state: string;
  readonly trace?: string | undefined;
  readonly workerId: string;
  readonly generation: number;
}

const TASK_KEY = /^status-task-(.+)-(\d+)$/;

export const connectorStatusKey = (name: string) => `status-connector-${name}`;
export const taskStatusKey = (name: string, task: number) => `status-task-${name}-${task}`;

function parse(value: string): InstanceStatus | undefined {
  try {
    const v = JSON.parse(value) as Record<string, unknown>;
    if (v['v'] !== RECORD_VERSION || typeof v['state'] !== 'string' || typeof v['worker_id'] !== 'string')
      return undefined;
    return {
      state: v['state'],
      trace: typeof v['trace'] === 'string' ? v['trace'] : undefined,
      workerId: v['worker_id'],
      generation: typeof v['generation'] === 'number' ? v['generation'] : -1,
    };
  } catch {
    return undefined;
  }
}

export class StatusStore {
  readonly #log: TopicLog;
  readonly #logger: Logger;
  readonly #connectors = new Map<string, InstanceStatus>();
  readonly #tasks = new Map<string, Map<number, InstanceStatus>>();
  /** What this worker wrote last, by key: a state is written again only when it changed. */
  readonly #written = new Map<string, string>();
  /** Active topics by connector, then topic. */
  readonly #topics = new Map<string, Map<string, TopicStatus>>();
  #onTopicRemoved: ((connector: string, topic: string) => void) | undefined;

  constructor(log: TopicLog, logger: Logger) {
    this.#log = log;
    this.#logger = logger;
  }

  start(): Promise<void> {
    return this.#log.start((records) => {
      for (const r of records) this.#apply(r);
    });
  }

  #apply(r: LogRecord): void {
    const topicKey = parseTopicKey(r.key);
    if (topicKey !== undefined) {
      this.#applyTopic(r, topicKey.connector, topicKey.topic);
      return;
    }
    const status = r.value === null ? null : parse(r.value);
    if (status === undefined) {
      this.#logger.warn({ key: r.key, offset: r.offset.toString() }, 'status record not understood; skipped');
      return;
    }
    const task = TASK_KEY.exec(r.key);
    if (task !== null) {
      const name = task[1]!;
      const id = Number(task[2]);
      let byTask = this.#tasks.get(name);
      if (byTask === undefined) this.#tasks.set(name, (byTask = new Map()));
      if (status === null) byTask.delete(id);
      else if (status.generation >= (byTask.get(id)?.generation ?? -1)) byTask.set(id, status);
      return;
    }
    if (r.key.startsWith('status-connector-')) {
      const name = r.key.slice('status-connector-'.length);
      if (status === null) this.#connectors.delete(name);
      else if (status.generation >= (this.#connectors.get(name)?.generation ?? -1))
        this.#connectors.set(name, status);
    }
  }

  #applyTopic(r: LogRecord, connector: string, topic: string): void {
    let byTopic = this.#topics.get(connector);
    if (r.value === null) {
      if (byTopic?.delete(topic) !== true) return;
      if (byTopic.size === 0) this.#topics.delete(connector);
      this.#onTopicRemoved?.(connector, topic);
      return;
    }
    const status = parseTopicStatus(r.value);
    if (status === undefined) {
      this.#logger.warn({ key: r.key, offset: r.offset.toString() }, 'status record not understood; skipped');
      return;
    }
    if (byTopic === undefined) this.#topics.set(connector, (byTopic = new Map()));
    // the first worker's record stands: when the topic was first put matters, not who wrote it last
    if (!byTopic.has(topic)) byTopic.set(topic, status);
  }

  /** The connector's active topics, sorted. */
  topics(connector: string): string[] {
    return [...(this.#topics.get(connector)?.keys() ?? [])].sort();
  }

  hasTopic(connector: string, topic: string): boolean {
    return this.#topics.get(connector)?.has(topic) === true;
  }

  /** Records an active topic (no check: the caller asks hasTopic first). */
  async putTopic(status: TopicStatus): Promise<void> {
    await this.#log.write(topicStatusKey(status.connector, status.topic), topicStatusValue(status));
  }

  /** Removes every active topic of the connector (tombstones); the workers forget them as they read them. */
  async removeTopics(connector: string): Promise<void> {
    for (const topic of this.topics(connector)) await this.#log.write(topicStatusKey(connector, topic), null);
  }

  /** Hears each active topic removed (a reset or a deletion, read back), from any worker. */
  onTopicRemoved(listener: (connector: string, topic: string) => void): void {
    this.#onTopicRemoved = listener;
  }

  connector(name: string): InstanceStatus | undefined {
    return this.#connectors.get(name);
  }

  tasks(name: string): ReadonlyMap<number, InstanceStatus> {
    return this.#tasks.get(name) ?? new Map();
  }

  /** Writes a status unless it is the one this worker wrote last for the key. */
  async put(key: string, status: InstanceStatus): Promise<void> {
    const value = JSON.stringify({
      v: RECORD_VERSION,
      state: status.state,
      ...(status.trace !== undefined ? { trace: status.trace } : {}),
      worker_id: status.workerId,
      generation: status.generation,
    });
    if (this.#written.get(key) === value) return;
    this.#written.set(key, value);
    try {
      await this.#log.write(key, value);
    } catch (err) {
      this.#written.delete(key);
      throw err;
    }
  }

  /** Removes a deleted connector's statuses and active topics (tombstones), up to `tasks` task numbers. */
  async remove(name: string, tasks: number): Promise<void> {
    await this.removeTopics(name);
    const known = [...this.tasks(name).keys()];
    const ids = new Set([...known, ...Array.from({ length: tasks }, (_, i) => i)]);
    await this.#log.write(connectorStatusKey(name), null);
    for (const id of ids) await this.#log.write(taskStatusKey(name, id), null);
    this.#written.delete(connectorStatusKey(name));
    for (const id of ids) this.#written.delete(taskStatusKey(name, id));
  }

  /** Forgets what this worker wrote for a key, so the next put writes again (a task it runs anew). */
  forget(key: string): void {
    this.#written.delete(key);
  }

  readToEnd(timeoutMs: number): Promise<void> {
    return this.#log.readToEnd(timeoutMs);
  }

  close(): Promise<void> {
    return this.#log.close();
  }
}
