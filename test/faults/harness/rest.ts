// A standalone worker's REST API, for the scenarios that read a task's state while the worker runs.
import { api } from '../../integration/harness/rest-client.js';

/** A loopback port free now (the worker's `listeners`). */
export { freePort } from '../../../bench/common.js';

/** The states of a connector's tasks (`RUNNING`, `FAILED`, …), by task id. */
export async function taskStates(port: number, connector: string): Promise<string[]> {
  const path = `/connectors/${encodeURIComponent(connector)}/status`;
  const res = await api(`http://127.0.0.1:${port}`, 'GET', path);
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
  const body = res.json as { tasks: Array<{ id: number; state: string }> };
  return [...body.tasks].sort((a, b) => a.id - b.id).map((t) => t.state);
}
