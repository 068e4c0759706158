/**
 * Worker and connector configuration in Kafka Connect's names and file formats.
 *
 * @example
 * ```ts
 * const worker = compileWorkerConfig(loadWorkerConfig('worker.properties'));
 * const connector = compileConnectorConfig(loadConnectorConfig('my-sink.json'), worker); // or .properties
 * for (const warning of connector.warnings) logger.warn(warning);
 * ```
 */
export type { ConnectorConfig, ErrorsConfig, GroupProtocol, WorkerConfig } from './types.js';
export { parseProperties, formatProperties } from './properties.js';
export { parseConnectorJson, parseJsonProperties } from './json-config.js';
export { loadWorkerConfig, loadConnectorConfig } from './load.js';
export { compileWorkerConfig, validateWorkerConfig, type WorkerCheck } from './compile-worker.js';
export {
  compileConnectorConfig,
  validateConnectorConfig,
  type CompileConnectorOptions,
  type ConnectorCheck,
} from './compile-connector.js';
export { WORKER_CONFIG_DEF } from './worker-def.js';
export { CONNECTOR_CONFIG_DEF, CONNECTOR_BASE_DEF, ERRORS_DEF } from './connector-def.js';
export { SHARE_CONFIG_DEF, SHARE_GROUP_PREFIX } from './share-def.js';
export { SHARE_MODE_CONSUMER_RULES, type ShareModeRule } from './share-mode.js';
export { SHARE_DLQ_PREFIX } from './validators.js';
