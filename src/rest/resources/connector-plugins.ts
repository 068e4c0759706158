/**
 * Connect's ConnectorPluginsResource: the plugins this worker can run (KIP-769: `connectorsOnly=false`
 * adds converters, header converters, transformations and predicates), a plugin's settings, and the
 * validation of a connector config.
 */
import type { WorkerConfig } from '../../config/types.js';
import type { Herder } from '../../herder/herder.js';
import { listPlugins, pluginConfig, validateConfig } from '../plugins/plugins.js';
import { badRequest, notFound } from '../server/errors.js';
import type { Router } from '../server/router.js';
import { json } from './request.js';

export function addConnectorPluginsResource(router: Router, herder: Herder): void {
  const pluginPath = () => (herder.config as WorkerConfig).pluginPath ?? [];
  router
    .add('GET', '/connector-plugins', async (req) =>
      json(
        await listPlugins(herder.connectorClasses(), {
          connectorsOnly: req.query.get('connectorsOnly')?.toLowerCase() !== 'false',
          pluginPath: pluginPath(),
        }),
      ),
    )
    .add('GET', '/connector-plugins/:plugin/config', async (req) => {
      const name = req.params['plugin']!;
      const keys = await pluginConfig(name, { running: herder.connectorClasses(), pluginPath: pluginPath() });
      if (keys === undefined)
        throw notFound(`Unknown plugin ${name}. Listed plugins: GET /connector-plugins?connectorsOnly=false`);
      return json(keys);
    })
    .add('PUT', '/connector-plugins/:plugin/config/validate', async (req) => {
      const body = await req.json();
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw badRequest('The body must be a JSON object of connector settings');
      const props: Record<string, string> = {};
      for (const [k, v] of Object.entries(body as Record<string, unknown>)) props[k] = String(v);
      return json(
        await validateConfig(
          req.params['plugin']!,
          props,
          herder.config as WorkerConfig,
          herder.connectorClasses(),
        ),
      );
    });
}
