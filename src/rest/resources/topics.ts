/**
 * Connect's active topics endpoints (KIP-558): `GET /connectors/{name}/topics`, the topics the
 * connector's tasks have handled records of since it was created or last reset, and
 * `PUT /connectors/{name}/topics/reset`, which empties that set (202; the set fills again from what the
 * tasks handle next). Connect's answers when the worker turns them off: 403 `Topic tracking is
 * disabled.` (`topic.tracking.enable=false`, both endpoints) and 403 `Topic tracking reset is
 * disabled.` (`topic.tracking.allow.reset=false`). Standalone answers from the connector runtime's
 * own set; distributed from the status topic, so every worker answers alike.
 */
import type { WorkerConfig } from '../../config/types.js';
import type { DistributedWorker } from '../../distributed/herder/distributed-worker.js';
import { entryOf, mustBeStarted } from '../server/forward.js';
import { notFound, RestError } from '../server/errors.js';
import type { RestRequest, Router } from '../server/router.js';
import type { RestWorker } from '../worker-view.js';

type Tracking = Partial<Pick<WorkerConfig, 'topicTrackingEnable' | 'topicTrackingAllowReset'>>;

const forbidden = (message: string): RestError => new RestError('SHARESINK_REST_FORBIDDEN', 403, message);

/** Connect's checks, in Connect's order: tracking first, then (for a reset) the reset. */
function mustTrack(config: Tracking, reset: boolean): void {
  if (config.topicTrackingEnable === false)
    throw forbidden(
      'Topic tracking is disabled. Set topic.tracking.enable=true in the worker settings and restart the worker to keep the topics each connector uses.',
    );
  if (reset && config.topicTrackingAllowReset === false)
    throw forbidden(
      'Topic tracking reset is disabled. Set topic.tracking.allow.reset=true in the worker settings and restart the worker to allow resets.',
    );
}

const answer = (name: string, topics: readonly string[]) => ({
  status: 200,
  json: { [name]: { topics: [...topics] } },
});

/** Standalone: each connector runtime keeps its own set (in memory, as Connect's standalone worker). */
export function addTopicsRoutes(router: Router, worker: RestWorker): void {
  const connectorOf = (req: RestRequest) => {
    const name = req.params['name']!;
    const c = worker.connector(name);
    if (c === undefined) throw notFound(`Connector ${name} not found`);
    return c;
  };
  router
    .add('GET', '/connectors/:name/topics', (req) => {
      mustTrack(worker.config, false);
      const c = connectorOf(req);
      return answer(c.config.name, c.activeTopics?.() ?? []);
    })
    .add('PUT', '/connectors/:name/topics/reset', (req) => {
      mustTrack(worker.config, true);
      connectorOf(req).resetActiveTopics?.();
      return { status: 202 };
    });
}

/**
 * Distributed: the status topic's records, on any worker. A reset is written by the worker that takes
 * it, as Connect's (no leader needed: it changes no config), and read back before the 202, so that
 * worker's next answer is already empty; the others follow as they read the tombstones.
 */
export function addDistributedTopicsRoutes(router: Router, w: DistributedWorker): void {
  router
    .add('GET', '/connectors/:name/topics', (req) => {
      mustTrack(w.config, false);
      mustBeStarted(w);
      const c = entryOf(w.herder.state, req);
      return answer(c.name, w.herder.statusStore.topics(c.name));
    })
    .add('PUT', '/connectors/:name/topics/reset', async (req) => {
      mustTrack(w.config, true);
      mustBeStarted(w);
      const c = entryOf(w.herder.state, req);
      const store = w.herder.statusStore;
      await store.removeTopics(c.name);
      await store.readToEnd(w.distributed.workerSyncTimeoutMs);
      return { status: 202 };
    });
}
