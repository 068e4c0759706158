/**
 * `GET/PATCH/DELETE /connectors/{name}/offsets` (KIP-875) in distributed mode. A STOPPED connector has
 * no runtime on any worker, so the connector's group, mode and security come from its config in the
 * config topic, compiled on the worker that answers (provider references resolve there).
 *
 * - GET: any worker, in any state, straight to the broker.
 * - PATCH / DELETE: refused at once (400, Connect's words) when this worker sees the connector not
 *   STOPPED; otherwise made by the leader (forwarded as the other writes are), which checks the target
 *   state again and runs the change in turn with the config writes, so a resume cannot start the
 *   tasks halfway through it (ADR 0010).
 */
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import type { DistributedWorker } from '../distributed/herder/distributed-worker.js';
import type { ConnectorEntry } from '../distributed/herder/config-state.js';
import { ConnectorOffsetsService } from '../offsets/connector-offsets.js';
import { entryOf, mustBeStarted, viaLeader } from './server/forward.js';
import { RestError } from './server/errors.js';
import { answering, notStopped, offsetsConfigOf } from './resources/offsets.js';
import type { RestRequest, Router } from './server/router.js';

/** The offsets calls' view of a connector from the config topic; a config that no longer compiles here is a 500 saying why. */
function offsetsConfigFor(w: DistributedWorker, c: ConnectorEntry) {
  try {
    return offsetsConfigOf(w.herder.compile(c.config));
  } catch (err) {
    const why = err instanceof ConfigError ? err.problems.join('; ') : (err as Error).message;
    throw new RestError(
      'SHARESINK_OFFSETS_CONFIG',
      500,
      `The config of connector ${c.name} does not compile on this worker, so its group is unknown here: ${why}`,
    );
  }
}

export function addDistributedOffsetsRoutes(router: Router, w: DistributedWorker, logger: Logger): void {
  const service = new ConnectorOffsetsService(w.config, logger.child({ component: 'offsets' }));
  const connector = (req: RestRequest) => {
    mustBeStarted(w);
    return entryOf(w.herder.state, req);
  };
  /** Checked where the request arrived (a quick refusal), then on the leader under its write lock. */
  const change = (req: RestRequest, body: unknown, job: (c: ConnectorEntry) => Promise<unknown>) => {
    const c = connector(req);
    if (c.targetState !== 'STOPPED') throw notStopped(c.name);
    return viaLeader(w, req, body, async () => {
      const json = await w.writes.whileStopped(c.name, notStopped, () =>
        job(w.herder.state.connector(c.name)!),
      );
      return { status: 200, json };
    });
  };
  router
    .add('GET', '/connectors/:name/offsets', async (req) => {
      const o = offsetsConfigFor(w, connector(req));
      return { status: 200, json: await answering(o.groupId, () => service.read(o)) };
    })
    .add('PATCH', '/connectors/:name/offsets', async (req) => {
      const body = await req.json();
      return change(req, body, (c) => {
        const o = offsetsConfigFor(w, c);
        return answering(o.groupId, () => service.alter(o, body));
      });
    })
    .add('DELETE', '/connectors/:name/offsets', (req) =>
      change(req, undefined, (c) => {
        const o = offsetsConfigFor(w, c);
        return answering(o.groupId, () => service.reset(o));
      }),
    );
}
