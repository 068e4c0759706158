/**
 * What the distributed REST routes share: the 409 until the worker has joined, the connector of a
 * path from the config topic, and the forwarding of a write to the leader (ADR 0010).
 */
import type { ConfigState, ConnectorEntry } from '../../distributed/herder/config-state.js';
import type { DistributedWorker } from '../../distributed/herder/distributed-worker.js';
import { conflict } from '../../distributed/herder/leader-writes.js';
import { notFound, RestError } from './errors.js';
import type { RestRequest, RestResponse } from './router.js';

const FORWARDED = 'x-sharesink-forwarded';
const FORWARD_TIMEOUT_MS = 60_000;

export function entryOf(state: ConfigState, req: RestRequest): ConnectorEntry {
  const name = req.params['name']!;
  const c = state.connector(name);
  if (c === undefined) throw notFound(`Connector ${name} not found`);
  return c;
}

/** Runs `local` on the leader; elsewhere sends the request to the leader and relays its answer. */
export async function viaLeader(
  w: DistributedWorker,
  req: RestRequest,
  body: unknown,
  local: () => Promise<RestResponse>,
): Promise<RestResponse> {
  mustBeStarted(w);
  const h = w.herder;
  if (h.isLeader) return local();
  if (req.raw.headers[FORWARDED] !== undefined || h.leaderUrl === undefined || h.leaderUrl === h.restUrl)
    throw conflict('Cannot complete request because of a conflicting operation (e.g. worker rebalance)');
  const url = `${h.leaderUrl}${req.path}${req.query.size > 0 ? `?${req.query.toString()}` : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', [FORWARDED]: h.workerId };
  const auth = req.raw.headers.authorization;
  if (auth !== undefined) headers['authorization'] = auth;
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'DELETE' ? undefined : JSON.stringify(body ?? {}),
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
  } catch (err) {
    throw new RestError(
      'SHARESINK_REST_FORWARD_FAILED',
      409,
      `The leader (${h.leaderUrl}) did not answer the forwarded request: ${(err as Error).message}; a rebalance may be under way, try again`,
    );
  }
  const text = await res.text();
  if (text === '') return { status: res.status };
  try {
    return { status: res.status, json: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, text, contentType: res.headers.get('content-type') ?? 'text/plain' };
  }
}

/** Before the worker has read the topics and joined, nothing it would answer is true yet. */
export function mustBeStarted(w: DistributedWorker): void {
  if (!w.started)
    throw new RestError(
      'SHARESINK_REST_CONFLICT',
      409,
      'The worker is still joining the cluster (reading the config topic); try again in a moment',
    );
}
