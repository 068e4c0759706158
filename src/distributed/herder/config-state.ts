/**
 * The cluster's connectors as the config topic says, built by applying its records in topic order, as
 * every worker does. Task configs become visible together, when their `commit-<name>` record arrives
 * (Connect's rule: a reader never sees half of a new set of tasks).
 */
import type { ConfigRecord, RestartRequest, TargetState } from './config-records.js';

export interface ConnectorEntry {
  readonly name: string;
  /** The connector config as written (provider references unresolved). */
  readonly config: Readonly<Record<string, string>>;
  /** Committed task configs, by task number. */
  readonly tasks: ReadonlyArray<Readonly<Record<string, string>>>;
  readonly targetState: TargetState;
  /** Bumped by every new connector config: a runtime started from an older one restarts. */
  readonly configVersion: number;
  /** True from a new connector config until its task configs are committed: the leader computes them. */
  readonly tasksStale: boolean;
}

/**
 * Whether the leader must (re)write the connector's task configs: a new config not yet committed, or a
 * STOPPED connector that still lists tasks (Connect's stop leaves none; a resume computes them again).
 */
export function needsTaskConfigs(c: ConnectorEntry): boolean {
  return c.tasksStale || (c.targetState === 'STOPPED' && c.tasks.length > 0);
}

/** What one applied record changed, for the herder to act on. */
export type ConfigChange =
  | { readonly type: 'connector'; readonly name: string; readonly deleted: boolean }
  | { readonly type: 'tasks'; readonly name: string; readonly count: number }
  | { readonly type: 'target-state'; readonly name: string; readonly state: TargetState }
  | { readonly type: 'restart'; readonly name: string; readonly request: RestartRequest }
  | undefined;

interface MutableEntry {
  name: string;
  config: Record<string, string>;
  tasks: Array<Record<string, string>>;
  targetState: TargetState;
  configVersion: number;
  tasksStale: boolean;
}

export class ConfigState {
  readonly #connectors = new Map<string, MutableEntry>();
  /** Task configs written and not yet committed, by connector. */
  readonly #pending = new Map<string, Map<number, Record<string, string>>>();
  /** Target states written before (or without) their connector. */
  readonly #targets = new Map<string, TargetState>();
  #version = 0;
  /** The next offset to apply (the offset of the last applied record + 1). */
  offset = 0n;

  apply(record: ConfigRecord, offset: bigint): ConfigChange {
    if (offset + 1n > this.offset) this.offset = offset + 1n;
    const name = record.name;
    switch (record.kind) {
      case 'connector': {
        if (record.config === null) {
          const existed = this.#connectors.delete(name);
          this.#pending.delete(name);
          this.#targets.delete(name);
          return existed ? { type: 'connector', name, deleted: true } : undefined;
        }
        const known = this.#connectors.get(name);
        const entry: MutableEntry = {
          name,
          config: record.config,
          tasks: known?.tasks ?? [],
          targetState: known?.targetState ?? this.#targets.get(name) ?? 'STARTED',
          configVersion: ++this.#version,
          tasksStale: true,
        };
        this.#connectors.set(name, entry);
        return { type: 'connector', name, deleted: false };
      }
      case 'task': {
        let pending = this.#pending.get(name);
        if (pending === undefined) this.#pending.set(name, (pending = new Map()));
        if (record.config === null) pending.delete(record.task);
        else pending.set(record.task, record.config);
        return undefined;
      }
      case 'commit': {
        const entry = this.#connectors.get(name);
        if (entry === undefined || record.tasks === null) return undefined;
        const pending = this.#pending.get(name) ?? new Map<number, Record<string, string>>();
        const tasks: Array<Record<string, string>> = [];
        for (let i = 0; i < record.tasks; i++) tasks.push(pending.get(i) ?? entry.tasks[i] ?? {});
        entry.tasks = tasks;
        entry.tasksStale = false;
        this.#pending.delete(name);
        return { type: 'tasks', name, count: tasks.length };
      }
      case 'target-state': {
        const state = record.state ?? 'STARTED';
        this.#targets.set(name, state);
        const entry = this.#connectors.get(name);
        if (entry === undefined || entry.targetState === state) return undefined;
        entry.targetState = state;
        return { type: 'target-state', name, state };
      }
      case 'restart':
        if (record.request === null || !this.#connectors.has(name)) return undefined;
        return { type: 'restart', name, request: record.request };
    }
  }

  connector(name: string): ConnectorEntry | undefined {
    return this.#connectors.get(name);
  }

  get connectors(): readonly ConnectorEntry[] {
    return [...this.#connectors.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What the group's assignor places: each connector with the tasks it runs now (none while STOPPED). */
  taskCounts(): Array<{ name: string; tasks: number }> {
    return this.connectors.map((c) => ({
      name: c.name,
      tasks: c.targetState === 'STOPPED' ? 0 : c.tasks.length,
    }));
  }
}
