/**
 * Forwarding a write to the cluster's leader (ADR 0010): the herder of a worker that does not lead
 * throws `NotLeaderError`; the request is then sent to the leader's URL and its answer relayed. A
 * request that was forwarded already, or one with no leader to go to, is a 409 to retry.
 */
import { NotLeaderError } from '../../herder/errors.js';
import { conflict, RestError } from './errors.js';
import type { RestRequest, RestResponse } from './router.js';

const FORWARDED = 'x-sharesink-forwarded';
const FORWARD_TIMEOUT_MS = 60_000;

/** Runs `write` here; when this worker does not lead, has the leader run the request (`body` as read). */
export async function onLeader(
  req: RestRequest,
  body: unknown,
  write: () => Promise<RestResponse>,
): Promise<RestResponse> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof NotLeaderError)) throw err;
    if (req.raw.headers[FORWARDED] !== undefined || err.leaderUrl === undefined)
      throw conflict('Cannot complete request because of a conflicting operation (e.g. worker rebalance)');
    return forward(err.leaderUrl, err.workerId, req, body);
  }
}

async function forward(
  leaderUrl: string,
  workerId: string,
  req: RestRequest,
  body: unknown,
): Promise<RestResponse> {
  const url = `${leaderUrl}${req.path}${req.query.size > 0 ? `?${req.query.toString()}` : ''}`;
  const headers: Record<string, string> = { 'content-type': 'application/json', [FORWARDED]: workerId };
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
      `The leader (${leaderUrl}) did not answer the forwarded request: ${(err as Error).message}; a rebalance may be under way, try again`,
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
