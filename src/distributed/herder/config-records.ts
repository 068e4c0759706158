/**
 * The records of the config topic: Connect's keys (`connector-<name>`, `task-<name>-<n>`,
 * `commit-<name>`, `target-state-<name>`, `restart-connector-<name>`), sharesink's own values (JSON,
 * with a version `v` so a later format can be told apart). A null value (tombstone) deletes.
 * Connector configs are stored as written: `${file:…}` / `${env:…}` references stay references.
 */

export const RECORD_VERSION = 1;

export type TargetState = 'STARTED' | 'PAUSED' | 'STOPPED';
export const TARGET_STATES: readonly TargetState[] = ['STARTED', 'PAUSED', 'STOPPED'];

export interface RestartRequest {
  readonly includeTasks: boolean;
  readonly onlyFailed: boolean;
  /** One task only (`POST /connectors/{name}/tasks/{task}/restart`). */
  readonly task?: number;
}

export type ConfigRecord =
  | { readonly kind: 'connector'; readonly name: string; readonly config: Record<string, string> | null }
  | {
      readonly kind: 'task';
      readonly name: string;
      readonly task: number;
      readonly config: Record<string, string> | null;
    }
  | { readonly kind: 'commit'; readonly name: string; readonly tasks: number | null }
  | { readonly kind: 'target-state'; readonly name: string; readonly state: TargetState | null }
  | { readonly kind: 'restart'; readonly name: string; readonly request: RestartRequest | null };

const TASK_KEY = /^task-(.+)-(\d+)$/;

export function keyOf(r: ConfigRecord): string {
  switch (r.kind) {
    case 'connector':
      return `connector-${r.name}`;
    case 'task':
      return `task-${r.name}-${r.task}`;
    case 'commit':
      return `commit-${r.name}`;
    case 'target-state':
      return `target-state-${r.name}`;
    case 'restart':
      return `restart-connector-${r.name}`;
  }
}

/** The record's value as stored: JSON with a version, or null for a tombstone. */
export function valueOf(r: ConfigRecord): string | null {
  switch (r.kind) {
    case 'connector':
    case 'task':
      return r.config === null ? null : JSON.stringify({ v: RECORD_VERSION, config: r.config });
    case 'commit':
      return r.tasks === null ? null : JSON.stringify({ v: RECORD_VERSION, tasks: r.tasks });
    case 'target-state':
      return r.state === null ? null : JSON.stringify({ v: RECORD_VERSION, state: r.state });
    case 'restart':
      return r.request === null ? null : JSON.stringify({ v: RECORD_VERSION, ...r.request });
  }
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string') return undefined;
    out[k] = v;
  }
  return out;
}

/**
 * Reads one record; undefined for a key or value this version does not know (another tool's record,
 * or a later format), which the reader skips with a warning rather than stopping the cluster.
 */
export function parseConfigRecord(key: string, value: string | null): ConfigRecord | undefined {
  let body: Record<string, unknown> | null = null;
  if (value !== null) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed !== 'object' || parsed === null) return undefined;
      body = parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (body['v'] !== RECORD_VERSION) return undefined;
  }
  const task = TASK_KEY.exec(key);
  if (task !== null) {
    const config = body === null ? null : stringMap(body['config']);
    return config === undefined ? undefined : { kind: 'task', name: task[1]!, task: Number(task[2]), config };
  }
  if (key.startsWith('connector-')) {
    const config = body === null ? null : stringMap(body['config']);
    return config === undefined ? undefined : { kind: 'connector', name: key.slice(10), config };
  }
  if (key.startsWith('commit-')) {
    const tasks = body === null ? null : body['tasks'];
    if (tasks !== null && (typeof tasks !== 'number' || !Number.isInteger(tasks) || tasks < 0))
      return undefined;
    return { kind: 'commit', name: key.slice(7), tasks };
  }
  if (key.startsWith('target-state-')) {
    const state = body === null ? null : body['state'];
    if (state !== null && !TARGET_STATES.includes(state as TargetState)) return undefined;
    return { kind: 'target-state', name: key.slice(13), state: state as TargetState | null };
  }
  if (key.startsWith('restart-connector-')) {
    const one = body?.['task'];
    const request =
      body === null
        ? null
        : {
            includeTasks: body['includeTasks'] === true,
            onlyFailed: body['onlyFailed'] === true,
            ...(typeof one === 'number' && Number.isInteger(one) && one >= 0 ? { task: one } : {}),
          };
    return { kind: 'restart', name: key.slice(18), request };
  }
  return undefined;
}
