/**
 * What the resources read from a request, written once: the connector and task of a path, Connect's
 * boolean flags, a connector config body and its name checks, KIP-980's `initial_state`, and the
 * validation a config passes before it reaches the herder.
 */
import { taskNotFound } from '../../herder/errors.js';
import type { Herder, TargetState } from '../../herder/herder.js';
import type { WorkerConfig } from '../../config/types.js';
import { validateConfig } from '../plugins/plugins.js';
import { badRequest } from '../server/errors.js';
import type { RestRequest, RestResponse } from '../server/router.js';

export const json = (value: unknown, status = 200): RestResponse => ({ status, json: value });

export const connectorName = (req: RestRequest): string => req.params['name']!;

/**
 * The task id of a path. One that is not a number is a task not found, once the connector is known
 * (an unknown connector is reported first, as Connect does).
 */
export function taskId(herder: Herder, req: RestRequest): number {
  const text = req.params['task']!;
  if (/^\d+$/.test(text)) return Number(text);
  herder.connectorInfo(connectorName(req));
  throw taskNotFound(connectorName(req), text);
}

/** Connect reads boolean query parameters as `true` / anything else. */
export const flag = (req: RestRequest, name: string): boolean =>
  req.query.get(name)?.toLowerCase() === 'true';

/** KIP-745's `includeTasks` and `onlyFailed`. */
export const restartRequest = (req: RestRequest) => ({
  includeTasks: flag(req, 'includeTasks'),
  onlyFailed: flag(req, 'onlyFailed'),
});

/** A JSON object of string values (Connect's connector config), or a 400. */
export function configBody(value: unknown, what: string): Record<string, string> {
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
export function namedConfig(name: string, config: Record<string, string>): Record<string, string> {
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
export function requestName(name: unknown): unknown {
  if (typeof name !== 'string') return name;
  let start = 0;
  let end = name.length;
  while (start < end && name.charCodeAt(start) <= 0x20) start++;
  while (end > start && name.charCodeAt(end - 1) <= 0x20) end--;
  return name.slice(start, end);
}

export function checkName(name: unknown): string {
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

export function initialState(sent: unknown): TargetState {
  if (sent === undefined || sent === null) return 'STARTED';
  const state = typeof sent === 'string' ? INITIAL_STATES[sent.toUpperCase()] : undefined;
  if (state === undefined)
    throw badRequest(
      `initial_state must be one of ${Object.keys(INITIAL_STATES).join(', ')}; got ${JSON.stringify(sent)}`,
    );
  return state;
}

/** Validates as `/connector-plugins/.../validate` does; a 400 naming every problem when any. */
export async function mustValidate(herder: Herder, config: Record<string, string>): Promise<void> {
  const cls = config['connector.class'];
  if (cls === undefined || cls.trim() === '')
    throw badRequest(
      'Connector config is invalid and contains the following 1 error(s):\nconnector.class: required, and missing',
    );
  const result = await validateConfig(cls, config, herder.config as WorkerConfig, herder.connectorClasses());
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
