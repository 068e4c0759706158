/**
 * Connect's RootResource: `GET /` (version, commit, the Kafka cluster id) and `GET /health`, 200 while
 * the herder reports the worker UP and 503 with the instances that are not, so a probe needs no body.
 */
import type { Herder } from '../../herder/herder.js';
import type { Router } from '../server/router.js';
import { json } from './request.js';

export interface RootOptions {
  readonly version: string;
  readonly commit: string;
  readonly kafkaClusterId: () => string | undefined;
}

export function addRootResource(router: Router, herder: Herder, o: RootOptions): void {
  router
    .add('GET', '/', () => {
      const body: Record<string, string> = { version: o.version, commit: o.commit };
      const clusterId = o.kafkaClusterId();
      if (clusterId !== undefined) body['kafka_cluster_id'] = clusterId;
      return json(body);
    })
    .add('GET', '/health', () => {
      const health = herder.health();
      return json(health, health.status === 'UP' ? 200 : 503);
    });
}
