/**
 * Connect's REST endpoints in distributed mode: reads come from this worker's copy of the config and
 * status topics (so every worker answers for the whole cluster); writes are validated here (400 with
 * every problem, nothing written), then made by the leader: a worker that is not the leader forwards
 * the request to the leader's URL and relays its answer (ADR 0010). Registered before the standalone
 * routes, which they replace for the same paths; `/connector-plugins` stays as standalone serves it.
 * The offsets endpoints are in distributed-offsets-routes.ts, the active topics ones in topics-routes.ts.
 */
import { reportConnectorNotes } from '../actors/connector-checks.js';
import { compileConnectorConfig } from '../config/compile-connector.js';
import { printableConfig, printableTaskConfig } from '../config/printable.js';
import type { ConnectorEntry } from '../distributed/herder/config-state.js';
import type { TargetState } from '../distributed/herder/config-records.js';
import type { DistributedWorker } from '../distributed/herder/distributed-worker.js';
import type { InstanceStatus } from '../distributed/herder/status-store.js';
import { healthReport } from '../actors/health.js';
import { badRequest, notFound } from './server/errors.js';
import { entryOf, mustBeStarted, viaLeader } from './server/forward.js';
import { addDistributedOffsetsRoutes } from './distributed-offsets-routes.js';
import { addDistributedTopicsRoutes } from './resources/topics.js';
import { clusterPanelData, clusterPanelHtml } from './live-view/cluster-panel.js';
import { validateConfig } from './plugins/plugins.js';
import type { RestRequest, RestResponse, Router } from './server/router.js';

const json = (value: unknown, status = 200): RestResponse => ({ status, json: value });

const flag = (req: RestRequest, name: string) => req.query.get(name)?.toLowerCase() === 'true';

/**
 * The connector's task configs as Connect shows them: none while STOPPED. The stop writes an empty list;
 * this also covers the records in between and a config topic written by a version that kept them.
 */
function tasksOf(c: ConnectorEntry): ConnectorEntry['tasks'] {
  return c.targetState === 'STOPPED' ? [] : c.tasks;
}

function info(c: ConnectorEntry) {
  return {
    name: c.name,
    config: printableConfig({ raw: c.config }),
    tasks: tasksOf(c).map((_, task) => ({ connector: c.name, task })),
    type: 'sink' as const,
  };
}

function stateInfo(s: InstanceStatus | undefined) {
  if (s === undefined) return { state: 'UNASSIGNED', worker_id: '' };
  return { state: s.state, worker_id: s.workerId, ...(s.trace !== undefined ? { trace: s.trace } : {}) };
}

function status(w: DistributedWorker, c: ConnectorEntry) {
  const store = w.herder.statusStore;
  const byTask = store.tasks(c.name);
  const tasks = [];
  for (let id = 0; id < tasksOf(c).length; id++) {
    const s = byTask.get(id);
    if (s !== undefined) tasks.push({ id, ...stateInfo(s) });
  }
  return { name: c.name, connector: stateInfo(store.connector(c.name)), tasks, type: 'sink' as const };
}

/**
 * KIP-745's answer to a restart: the status as it was, with what the request restarts shown as
 * RESTARTING (the connector unless only failed ones were asked and it had not failed; its tasks when
 * asked, the same way). The workers that run them write their new states once they are up.
 */
function restartingStatus(
  before: ReturnType<typeof status>,
  o: { includeTasks: boolean; onlyFailed: boolean },
): ReturnType<typeof status> {
  const restarts = (state: string) => !o.onlyFailed || state === 'FAILED';
  const mark = <T extends { state: string }>(info: T, yes: boolean): T =>
    yes ? { ...info, state: 'RESTARTING' } : info;
  return {
    ...before,
    connector: mark(before.connector, restarts(before.connector.state)),
    tasks: before.tasks.map((t) => mark(t, o.includeTasks && restarts(t.state))),
  };
}

/** A JSON object of string values (Connect's connector config), or a 400. */
function configBody(value: unknown, what: string): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest(`${what} must be a JSON object of connector settings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || typeof v === 'object') throw badRequest(`${what}: ${k} must be a string`);
    out[k] = String(v);
  }
  return out;
}

/** The config with the connector's name set; a 400 when it names another connector (Connect's message). */
function namedConfig(name: string, config: Record<string, string>): Record<string, string> {
  if (config['name'] !== undefined && config['name'] !== name)
    throw badRequest(
      `Connector name configuration (${config['name']}) doesn't match connector name in the URL (${name})`,
    );
  return { ...config, name };
}

/**
 * The name a `POST /connectors` body gives, trimmed as Connect's ConnectorsResource trims it (Java's
 * `trim()`: every character up to U+0020 at either end, so a name pasted with a tab or a newline is
 * the connector's name, not a 400 for a control character).
 */
function requestName(name: unknown): unknown {
  if (typeof name !== 'string') return name;
  let start = 0;
  let end = name.length;
  while (start < end && name.charCodeAt(start) <= 0x20) start++;
  while (end > start && name.charCodeAt(end - 1) <= 0x20) end--;
  return name.slice(start, end);
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw badRequest('Connector name must not be empty');
  if (name.includes('/') || name.includes('\\') || [...name].some((ch) => ch.charCodeAt(0) < 0x20))
    throw badRequest(`Connector name ${JSON.stringify(name)} must not contain / or control characters`);
  return name;
}

/** KIP-980's `initial_state` of a new connector (Connect's names); absent: RUNNING. */
const INITIAL_STATES: Readonly<Record<string, TargetState>> = {
  RUNNING: 'STARTED',
  PAUSED: 'PAUSED',
  STOPPED: 'STOPPED',
};

function initialState(sent: unknown): TargetState {
  if (sent === undefined || sent === null) return 'STARTED';
  const state = typeof sent === 'string' ? INITIAL_STATES[sent.toUpperCase()] : undefined;
  if (state === undefined)
    throw badRequest(
      `initial_state must be one of ${Object.keys(INITIAL_STATES).join(', ')}; got ${JSON.stringify(sent)}`,
    );
  return state;
}

/** Validates as `/connector-plugins/.../validate` does; a 400 naming every problem when any. */
async function mustValidate(w: DistributedWorker, config: Record<string, string>): Promise<void> {
  const cls = config['connector.class'];
  if (cls === undefined || cls.trim() === '')
    throw badRequest(
      'Connector config is invalid and contains the following 1 error(s):\nconnector.class: required, and missing',
    );
  // the cluster's own connectors may be named again (a config update), as the standalone worker's running ones
  const cluster = w.started ? w.herder.state.connectors.map((c) => c.config['connector.class'] ?? '') : [];
  const result = await validateConfig(cls, config, w.config, cluster);
  if (result.error_count === 0) return;
  // some validators' messages already start with the key: said once
  // an unknown connector.class is reported by the config check and by the plugin lookup: the first says
  // everything (the built-ins, module paths), the second points at standalone tools; say it once
  const lines = result.configs.flatMap((c) =>
    (c.value.name === 'connector.class' ? c.value.errors.slice(0, 1) : c.value.errors).map((e) =>
      e.startsWith(`${c.value.name}: `) ? e : `${c.value.name}: ${e}`,
    ),
  );
  throw badRequest(
    `Connector configuration is invalid and contains the following ${lines.length} error(s):\n${lines.join('\n')}\nYou can also find the above list of errors at the endpoint \`/connector-plugins/{connectorType}/config/validate\``,
  );
}

/**
 * On the leader, once a connector's config is written: what `standalone` says at start about a
 * connector's settings (typos, converters that reject plain JSON). Best effort: the config passed
 * validation, and a note must not fail the request.
 */
async function noteConnector(w: DistributedWorker, config: Record<string, string>): Promise<void> {
  try {
    await reportConnectorNotes(w.logger, compileConnectorConfig(config, w.config));
  } catch (err) {
    w.logger.debug({ err }, 'could not check the connector settings for notes');
  }
}

export function addDistributedRoutes(router: Router, w: DistributedWorker): void {
  const state = () => {
    mustBeStarted(w);
    return w.herder.state;
  };
  const target = (to: TargetState) => async (req: RestRequest) => {
    const name = entryOf(state(), req).name;
    return viaLeader(w, req, undefined, async () => {
      await w.writes.setTargetState(name, to);
      return { status: 202 };
    });
  };
  addDistributedOffsetsRoutes(router, w, w.logger);
  addDistributedTopicsRoutes(router, w);
  router
    .add('GET', '/connectors', (req) => {
      const expand = req.query.getAll('expand');
      const all = state().connectors;
      if (expand.length === 0) return json(all.map((c) => c.name));
      const out: Record<string, Record<string, unknown>> = {};
      for (const c of all) {
        const entry: Record<string, unknown> = {};
        if (expand.includes('status')) entry['status'] = status(w, c);
        if (expand.includes('info')) entry['info'] = info(c);
        out[c.name] = entry;
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
      await mustValidate(w, config);
      return viaLeader(w, req, body, async () => {
        await w.writes.putConnector(name, config, true, initial);
        await noteConnector(w, config);
        return json(info(state().connector(name)!), 201);
      });
    })
    .add('GET', '/connectors/:name', (req) => json(info(entryOf(state(), req))))
    .add('GET', '/connectors/:name/config', (req) =>
      json(printableConfig({ raw: entryOf(state(), req).config })),
    )
    .add('PUT', '/connectors/:name/config', async (req) => {
      const name = checkName(req.params['name']);
      const body = await req.json();
      const config = namedConfig(name, configBody(body, 'The body'));
      await mustValidate(w, config);
      return viaLeader(w, req, body, async () => {
        const { created } = await w.writes.putConnector(name, config, false);
        await noteConnector(w, config);
        return json(info(state().connector(name)!), created ? 201 : 200);
      });
    })
    .add('DELETE', '/connectors/:name', (req) => {
      const name = entryOf(state(), req).name;
      return viaLeader(w, req, undefined, async () => {
        await w.writes.deleteConnector(name);
        return { status: 204 };
      });
    })
    .add('GET', '/connectors/:name/status', (req) => json(status(w, entryOf(state(), req))))
    .add('GET', '/connectors/:name/tasks', (req) => {
      const c = entryOf(state(), req);
      return json(
        tasksOf(c).map((config, task) => ({
          id: { connector: c.name, task },
          config: printableTaskConfig(config, { raw: c.config }),
        })),
      );
    })
    .add('GET', '/connectors/:name/tasks/:task/status', (req) => {
      const c = entryOf(state(), req);
      const id = Number(req.params['task']);
      const s = w.herder.statusStore.tasks(c.name).get(id);
      if (!/^\d+$/.test(req.params['task']!) || id >= tasksOf(c).length || s === undefined)
        throw notFound(`Task ${c.name}-${req.params['task']} not found`);
      return json({ id, ...stateInfo(s) });
    })
    .add('PUT', '/connectors/:name/pause', target('PAUSED'))
    .add('PUT', '/connectors/:name/resume', target('STARTED'))
    .add('PUT', '/connectors/:name/stop', target('STOPPED'))
    .add('POST', '/connectors/:name/restart', (req) => {
      const c = entryOf(state(), req);
      const includeTasks = flag(req, 'includeTasks');
      const onlyFailed = flag(req, 'onlyFailed');
      return viaLeader(w, req, undefined, async () => {
        const now = state().connector(c.name) ?? c;
        const before = status(w, now);
        // a STOPPED connector has no instance and no task to restart, and stays STOPPED (standalone's
        // answer too): nothing is asked, nothing is shown RESTARTING
        const restarted =
          now.targetState !== 'STOPPED' &&
          (await w.writes.requestRestart(c.name, { includeTasks, onlyFailed })) !== false;
        // KIP-745: the plain form keeps its old answer, 204; the new forms answer 202 with the status
        if (!includeTasks && !onlyFailed) return { status: 204 };
        return json(restarted ? restartingStatus(before, { includeTasks, onlyFailed }) : before, 202);
      });
    })
    .add('POST', '/connectors/:name/tasks/:task/restart', (req) => {
      const c = entryOf(state(), req);
      const text = req.params['task']!;
      // a STOPPED connector has no task to restart: 404, as Connect's "Unknown task" (standalone too)
      if (!/^\d+$/.test(text) || Number(text) >= tasksOf(c).length)
        throw notFound(`Task ${c.name}-${text} not found`);
      return viaLeader(w, req, undefined, async () => {
        await w.writes.requestRestart(c.name, { includeTasks: false, onlyFailed: false, task: Number(text) });
        return { status: 204 };
      });
    })
    .add('GET', '/machines/cluster', () => {
      if (!w.started)
        return { status: 503, contentType: 'text/html; charset=utf-8', text: '<p>Joining the cluster…</p>' };
      return {
        status: 200,
        contentType: 'text/html; charset=utf-8',
        text: clusterPanelHtml(clusterPanelData(w)),
      };
    })
    .add('GET', '/health', () => {
      if (!w.started)
        return json({ status: 'DOWN', connectors: [], unhealthy: ['worker (joining the cluster)'] }, 503);
      // this worker's own tasks as standalone reports them, plus the cluster as the group member sees it
      const { status: code, body } = healthReport(w);
      const view = w.herder.member.view();
      const cluster = {
        groupId: view.groupId,
        memberId: view.memberId,
        generation: view.generation,
        leader: view.leaderId,
        isLeader: view.isLeader,
        state: view.state,
        members: view.members.map((m) => ({
          memberId: m.memberId,
          workerId: m.workerId,
          url: m.restUrl,
          configOffset: m.configOffset.toString(),
        })),
        assignment:
          view.assignment === undefined
            ? undefined
            : {
                connectors: view.assignment.connectors,
                tasks: view.assignment.tasks.map((t) => `${t.connector}-${t.task}`),
                leaderUrl: view.assignment.leaderUrl,
                configOffset: view.assignment.configOffset.toString(),
              },
      };
      const joining = view.state !== 'stable';
      return json(
        { ...body, ...(joining ? { status: 'DOWN' } : {}), workerId: w.herder.workerId, cluster },
        joining ? 503 : code,
      );
    });
}
