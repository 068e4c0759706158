import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { ConfigError } from '../errors.js';
import { parseConnectorJson, parseJsonProperties } from './json-config.js';
import { parseProperties } from './properties.js';

/**
 * The file variants of parseProperties / parseConnectorJson: properties as written, to hand to
 * compileWorkerConfig / compileConnectorConfig. JSON when the name ends in `.json` or the text starts
 * with `{`, `.properties` syntax otherwise. Problems are ConfigErrors without the path (callers
 * reporting several files put it in front).
 */
function readConfigFile(path: string, kind: 'worker' | 'connector'): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read the ${kind} file: ${(error as Error).message}`]);
  }
  const json = extname(path).toLowerCase() === '.json' || text.trimStart().startsWith('{');
  if (!json) return parseProperties(text);
  return kind === 'connector' ? parseConnectorJson(text) : parseJsonProperties(text);
}

/** A worker file (`.properties`, or a flat JSON map) as properties. */
export function loadWorkerConfig(path: string): Record<string, string> {
  return readConfigFile(path, 'worker');
}

/** A connector file (`.properties`, or JSON in either of Connect's REST forms) as properties. */
export function loadConnectorConfig(path: string): Record<string, string> {
  return readConfigFile(path, 'connector');
}
