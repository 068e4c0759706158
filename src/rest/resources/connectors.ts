/**
 * Connect's REST endpoints with standalone semantics: read everything, pause / resume / stop / restart,
 * list and validate plugins. Creating, reconfiguring and deleting connectors answer 405: the config
 * files are the source of truth, as with a `connect-standalone` worker started from files.
 */
import { printableConfig } from '../../config/printable.js';
import type { WorkerConfig } from '../../config/types.js';
import { connectorInfo, connectorStatus, taskInfos, taskStatus } from '../../herder/connect-shapes.js';
import { badRequest, notFound, notSupported } from '../server/errors.js';
import { listPlugins, pluginConfig, validateConfig } from '../plugins/plugins.js';
import { addTopicsRoutes } from './topics.js';
import type { RestRequest, RestResponse, Router } from '../server/router.js';
import type { RestConnector, RestWorker } from '../worker-view.js';

export interface ConnectRoutesOptions {
  readonly version: string;
  readonly commit: string;
  /** `host:port` of the listener, shown as every instance's `worker_id`, as in Connect. */
  readonly workerId: () => string;
  readonly kafkaClusterId: () => string | undefined;
}

const json = (value: unknown, status = 200): RestResponse => ({ status, json: value });

function connectorOf(worker: RestWorker, req: RestRequest): RestConnector {
  const name = req.params['name']!;
  const c = worker.connector(name);
  if (c === undefined) throw notFound(`Connector ${name} not found`);
  return c;
}

function taskIdOf(c: RestConnector, req: RestRequest): number {
  const text = req.params['task']!;
  const id = Number(text);
  if (!/^\d+$/.test(text) || id >= c.taskConfigs.length)
    throw notFound(`Task ${c.config.name}-${text} not found`);
  return id;
}

/** Connect reads boolean query parameters as `true` / anything else. */
const flag = (req: RestRequest, name: string) => req.query.get(name)?.toLowerCase() === 'true';

export function addConnectRoutes(router: Router, worker: RestWorker, o: ConnectRoutesOptions): void {
  const running = () => worker.connectors.map((c) => c.config.connectorClass);
  addTopicsRoutes(router, worker);
  router
    .add('GET', '/', () => {
      const body: Record<string, string> = { version: o.version, commit: o.commit };
      const clusterId = o.kafkaClusterId();
      if (clusterId !== undefined) body['kafka_cluster_id'] = clusterId;
      return json(body);
    })
    .add('GET', '/connectors', (req) => {
      const expand = req.query.getAll('expand');
      const names = worker.connectors.map((c) => c.config.name);
      if (expand.length === 0) return json(names);
      const out: Record<string, Record<string, unknown>> = {};
      for (const c of worker.connectors) {
        const entry: Record<string, unknown> = {};
        if (expand.includes('status')) entry['status'] = connectorStatus(c, o.workerId());
        if (expand.includes('info')) entry['info'] = connectorInfo(c);
        out[c.config.name] = entry;
      }
      return json(out);
    })
    .add('POST', '/connectors', () => {
      throw notSupported('Creating a connector over REST');
    })
    .add('GET', '/connectors/:name', (req) => json(connectorInfo(connectorOf(worker, req))))
    .add('DELETE', '/connectors/:name', (req) => {
      connectorOf(worker, req);
      throw notSupported('Deleting a connector over REST');
    })
    .add('GET', '/connectors/:name/config', (req) => json(printableConfig(connectorOf(worker, req).config)))
    .add('PUT', '/connectors/:name/config', () => {
      throw notSupported('Changing a connector config over REST');
    })
    .add('GET', '/connectors/:name/status', (req) =>
      json(connectorStatus(connectorOf(worker, req), o.workerId())),
    )
    .add('GET', '/connectors/:name/tasks', (req) => json(taskInfos(connectorOf(worker, req))))
    .add('GET', '/connectors/:name/tasks/:task/status', (req) => {
      const c = connectorOf(worker, req);
      return json(taskStatus(c, taskIdOf(c, req), o.workerId()));
    })
    // A STOPPED connector's pause and resume start it again; like stop, they answer once that is done
    // (Connect may answer earlier), so the status read next shows the new state.
    .add('PUT', '/connectors/:name/pause', async (req) => {
      await connectorOf(worker, req).pause();
      return { status: 202 };
    })
    .add('PUT', '/connectors/:name/resume', async (req) => {
      await connectorOf(worker, req).resume();
      return { status: 202 };
    })
    .add('PUT', '/connectors/:name/stop', async (req) => {
      await connectorOf(worker, req).halt();
      return { status: 202 };
    })
    .add('POST', '/connectors/:name/restart', (req) => {
      const c = connectorOf(worker, req);
      const includeTasks = flag(req, 'includeTasks');
      const onlyFailed = flag(req, 'onlyFailed');
      const restarting = c.restart({ includeTasks, onlyFailed });
      // KIP-745: the plain form keeps its old answer, 204; the new forms answer 202 with the status
      if (!includeTasks && !onlyFailed) return { status: 204 };
      return json(connectorStatus(c, o.workerId(), restarting), 202);
    })
    .add('POST', '/connectors/:name/tasks/:task/restart', async (req) => {
      const c = connectorOf(worker, req);
      await c.restartTask(taskIdOf(c, req));
      return { status: 204 };
    })
    // KIP-769: connectorsOnly=false adds converters, header converters, transformations and predicates
    .add('GET', '/connector-plugins', async (req) =>
      json(
        await listPlugins(running(), {
          connectorsOnly: req.query.get('connectorsOnly')?.toLowerCase() !== 'false',
          pluginPath: (worker.config as WorkerConfig).pluginPath ?? [],
        }),
      ),
    )
    .add('GET', '/connector-plugins/:plugin/config', async (req) => {
      const name = req.params['plugin']!;
      const keys = await pluginConfig(name, {
        running: running(),
        pluginPath: (worker.config as WorkerConfig).pluginPath ?? [],
      });
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
        await validateConfig(req.params['plugin']!, props, worker.config as WorkerConfig, running()),
      );
    });
}
