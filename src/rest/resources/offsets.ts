/**
 * Connect's offsets endpoints (KIP-875) for a sink connector over the herder: `GET` in any state;
 * `PATCH` (alter) and `DELETE` (reset) only while the connector is STOPPED, with Connect's refusal
 * otherwise. Share mode reads the start offset and lag of each partition (DescribeShareGroupOffsets);
 * classic mode the committed offsets. In distributed mode a change is made by the leader.
 */
import type { Herder } from '../../herder/herder.js';
import { onLeader } from '../server/forward.js';
import type { Router } from '../server/router.js';
import { connectorName, json } from './request.js';

export function addOffsetsResource(router: Router, herder: Herder): void {
  router
    .add('GET', '/connectors/:name/offsets', async (req) => json(await herder.offsets(connectorName(req))))
    .add('PATCH', '/connectors/:name/offsets', async (req) => {
      const body = await req.json();
      return onLeader(req, body, async () => json(await herder.alterOffsets(connectorName(req), body)));
    })
    .add('DELETE', '/connectors/:name/offsets', (req) =>
      onLeader(req, undefined, async () => json(await herder.resetOffsets(connectorName(req)))),
    );
}
