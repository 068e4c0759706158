import { ConfigError } from '../errors.js';

/** Keys of Connect's `GET /connectors/<name>` answer that are output, not config: pasting it works. */
const CONNECT_INFO_KEYS = new Set(['tasks', 'type']);

/**
 * A connector in either JSON form Connect's REST API takes: `{"name": "...", "config": {...}}` (the
 * body of `POST /connectors`) or a flat map (the body of `PUT /connectors/<name>/config`). Numbers and
 * booleans become strings and arrays of strings become comma-separated lists, because every Connect
 * setting is a string and hand-written JSON often has `"tasks.max": 2` or `"topics": ["a", "b"]`.
 */
export function parseConnectorJson(text: string): Record<string, string> {
  const root = parseObject(text);
  const config = root['config'];
  if (config === undefined) return flatten(root, '');
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new ConfigError([`config: must be a JSON object of connector settings`]);
  const problems: string[] = [];
  for (const key of Object.keys(root)) {
    if (key !== 'name' && key !== 'config' && !CONNECT_INFO_KEYS.has(key))
      problems.push(
        `${key}: unexpected next to "config"; accepted: "name" and "config" (as POSTed to Connect)`,
      );
  }
  const props = collect(config as Record<string, unknown>, 'config.', problems);
  const outer = root['name'];
  if (outer !== undefined) {
    if (typeof outer !== 'string') problems.push(`name: ${JSON.stringify(outer)} is not a string`);
    else if (props['name'] !== undefined && props['name'] !== outer)
      problems.push(
        `name: ${JSON.stringify(outer)} differs from config.name ${JSON.stringify(props['name'])}; accepted: the same name in both places, or in one`,
      );
    else props['name'] = outer;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return props;
}

/** A flat JSON map of settings (a worker in JSON). */
export function parseJsonProperties(text: string): Record<string, string> {
  return flatten(parseObject(text), '');
}

function parseObject(text: string): Record<string, unknown> {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`not valid JSON: ${(error as Error).message}`]);
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root))
    throw new ConfigError(['the JSON must be an object of settings, or {"name": ..., "config": {...}}']);
  return root as Record<string, unknown>;
}

function flatten(object: Record<string, unknown>, path: string): Record<string, string> {
  const problems: string[] = [];
  const props = collect(object, path, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return props;
}

function collect(object: Record<string, unknown>, path: string, problems: string[]): Record<string, string> {
  const props = new Map<string, string>();
  for (const [key, value] of Object.entries(object)) {
    const text = asSetting(value);
    if (text === undefined)
      problems.push(
        `${path}${key}: ${JSON.stringify(value)} is not a setting value; accepted: a string, number, boolean or array of strings`,
      );
    else props.set(key, text);
  }
  // fromEntries, so that a key such as __proto__ becomes a property, not a prototype
  return Object.fromEntries(props);
}

function asSetting(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(',');
  return undefined;
}
