/**
 * Connect's active topics endpoints (KIP-558) over the herder: `GET /connectors/{name}/topics`, the
 * topics the connector's tasks have handled records of since it was created or last reset, and
 * `PUT /connectors/{name}/topics/reset`, which empties that set (202; the set fills again from what the
 * tasks handle next). Connect's answers when the worker turns them off: 403 `Topic tracking is
 * disabled.` (`topic.tracking.enable=false`, both endpoints) and 403 `Topic tracking reset is
 * disabled.` (`topic.tracking.allow.reset=false`).
 */
import type { WorkerConfig } from '../../config/types.js';
import type { Herder } from '../../herder/herder.js';
import { RestError } from '../server/errors.js';
import type { Router } from '../server/router.js';
import { connectorName } from './request.js';

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

export function addTopicsResource(router: Router, herder: Herder): void {
  router
    .add('GET', '/connectors/:name/topics', (req) => {
      mustTrack(herder.config, false);
      const name = connectorName(req);
      return { status: 200, json: { [name]: { topics: herder.activeTopics(name) } } };
    })
    .add('PUT', '/connectors/:name/topics/reset', async (req) => {
      mustTrack(herder.config, true);
      await herder.resetActiveTopics(connectorName(req));
      return { status: 202 };
    });
}
