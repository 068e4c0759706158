/**
 * `GET /health`: 200 when every connector and every task is RUNNING (or PAUSED or STOPPED: an
 * operator's pause or stop is not a fault, and a liveness probe must not restart the worker for it),
 * 503 otherwise, with a body that says which instances are not. While the worker shuts down it is 503
 * anyway, so a connector STOPPED by the shutdown never reads as healthy.
 */
import type { ConnectState } from './connector-runtime.js';

/** What the health of a worker is read from (`Worker`, `DistributedWorker`, a test's fake). */
export interface HealthSource {
  readonly isStopping: boolean;
  readonly connectors: ReadonlyArray<{
    readonly config: { readonly name: string };
    readonly state: ConnectState;
    taskStates(): ReadonlyArray<{ id: number; state: ConnectState; trace: string | undefined }>;
  }>;
}

export interface HealthReport {
  status: 'UP' | 'DOWN';
  connectors: Array<{
    name: string;
    state: string;
    tasks: Array<{ id: number; state: string; trace?: string }>;
  }>;
  /** `connector` or `connector/task`, for every instance that is not running. */
  unhealthy: string[];
}

const healthy = (state: string) => state === 'RUNNING' || state === 'PAUSED' || state === 'STOPPED';

export function healthReport(worker: HealthSource): { status: number; body: HealthReport } {
  const unhealthy: string[] = [];
  if (worker.isStopping) unhealthy.push('worker (stopping)');
  const connectors = worker.connectors.map((c) => {
    const name = c.config.name;
    if (!healthy(c.state)) unhealthy.push(name);
    const tasks = c.taskStates().map((t) => {
      if (!healthy(t.state)) unhealthy.push(`${name}/${t.id}`);
      return t.trace === undefined
        ? { id: t.id, state: t.state }
        : { id: t.id, state: t.state, trace: t.trace };
    });
    if (tasks.length === 0 && c.state === 'RUNNING') unhealthy.push(`${name} (no tasks)`);
    return { name, state: c.state, tasks };
  });
  const status = unhealthy.length === 0 ? 'UP' : 'DOWN';
  return { status: status === 'UP' ? 200 : 503, body: { status, connectors, unhealthy } };
}
