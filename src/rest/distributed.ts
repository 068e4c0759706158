/** The REST server of a distributed worker: Connect's endpoints over its `ClusterHerder`, and the cluster panel. */
import { ClusterHerder } from '../distributed/herder/cluster-herder.js';
import type { DistributedWorker } from '../distributed/herder/distributed-worker.js';
import { addClusterPanelRoute } from './live-view/cluster-panel.js';
import type { RestServerOptions } from './server/server.js';

/** `startRestServer(worker, { ...distributedRestOptions(worker), logger })`, then `worker.start()`. */
export function distributedRestOptions(w: DistributedWorker): Pick<RestServerOptions, 'herder' | 'routes'> {
  return { herder: new ClusterHerder(w), routes: (router) => addClusterPanelRoute(router, w) };
}
