/**
 * Connect's ConnectorsResource over the herder, in either mode: list (with `expand=status|info`),
 * create, read, reconfigure, delete, status, pause / resume / stop and restart (KIP-745). A write the
 * herder says this worker cannot make (not the leader) is forwarded to the leader (forward.ts).
 */
import type { Herder } from '../../herder/herder.js';
import { onLeader } from '../server/forward.js';
import type { RestRequest, Router } from '../server/router.js';
import { badRequest } from '../server/errors.js';
import {
  checkName,
  configBody,
  connectorName,
  initialState,
  json,
  mustValidate,
  namedConfig,
  requestName,
  restartRequest,
} from './request.js';

export function addConnectorsResource(router: Router, herder: Herder): void {
  const target = (to: 'STARTED' | 'PAUSED' | 'STOPPED') => (req: RestRequest) =>
    onLeader(req, undefined, async () => {
      await herder.setTargetState(connectorName(req), to);
      return { status: 202 };
    });
  router
    .add('GET', '/connectors', (req) => {
      const expand = req.query.getAll('expand');
      const names = herder.connectors();
      if (expand.length === 0) return json(names);
      const out: Record<string, Record<string, unknown>> = {};
      for (const name of names) {
        const entry: Record<string, unknown> = {};
        if (expand.includes('status')) entry['status'] = herder.connectorStatus(name);
        if (expand.includes('info')) entry['info'] = herder.connectorInfo(name);
        out[name] = entry;
      }
      return json(out);
    })
    .add('POST', '/connectors', async (req) => {
      const sent = await req.json();
      if (typeof sent !== 'object' || sent === null || Array.isArray(sent))
        throw badRequest('The body must be a JSON object: {"name": "<connector>", "config": {<settings>}}');
      const body = sent as Record<string, unknown>;
      // config.name is compared with the trimmed name as sent, as Connect compares it
      const name = checkName(requestName(body['name']));
      const config = namedConfig(name, configBody(body['config'], 'config'));
      const initial = initialState(body['initial_state']);
      await mustValidate(herder, config);
      return onLeader(req, body, async () => {
        const { info } = await herder.putConnectorConfig(name, config, {
          create: true,
          initialState: initial,
        });
        return json(info, 201);
      });
    })
    .add('GET', '/connectors/:name', (req) => json(herder.connectorInfo(connectorName(req))))
    .add('DELETE', '/connectors/:name', (req) =>
      onLeader(req, undefined, async () => {
        await herder.deleteConnector(connectorName(req));
        return { status: 204 };
      }),
    )
    .add('GET', '/connectors/:name/config', (req) => json(herder.connectorConfig(connectorName(req))))
    .add('PUT', '/connectors/:name/config', async (req) => {
      const name = checkName(connectorName(req));
      const body = await req.json();
      const config = namedConfig(name, configBody(body, 'The body'));
      await mustValidate(herder, config);
      return onLeader(req, body, async () => {
        const { created, info } = await herder.putConnectorConfig(name, config, { create: false });
        return json(info, created ? 201 : 200);
      });
    })
    .add('GET', '/connectors/:name/status', (req) => json(herder.connectorStatus(connectorName(req))))
    .add('PUT', '/connectors/:name/pause', target('PAUSED'))
    .add('PUT', '/connectors/:name/resume', target('STARTED'))
    .add('PUT', '/connectors/:name/stop', target('STOPPED'))
    .add('POST', '/connectors/:name/restart', (req) => {
      const request = restartRequest(req);
      return onLeader(req, undefined, async () => {
        const status = await herder.restartConnector(connectorName(req), request);
        // KIP-745: the plain form keeps its old answer, 204; the new forms answer 202 with the status
        if (!request.includeTasks && !request.onlyFailed) return { status: 204 };
        return json(status, 202);
      });
    });
}
