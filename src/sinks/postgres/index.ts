import type { ConnectorModule } from '../../connect/connector-module.js';
import { PostgresSinkConnector, PostgresSinkTask } from './postgres-sink.js';

export { PostgresSinkConnector, PostgresSinkTask } from './postgres-sink.js';
export { POSTGRES_SINK_CONFIG, INSERT_MODES, type InsertMode } from './config.js';

/** `connector.class=PostgresSink` (also `PostgresSinkConnector`, `postgres`). */
export default { connector: PostgresSinkConnector, task: PostgresSinkTask } satisfies ConnectorModule;
