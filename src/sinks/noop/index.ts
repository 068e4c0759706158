import type { ConnectorModule } from '../../connect/connector-module.js';
import { NoopSinkConnector, NoopSinkTask } from './noop-sink.js';

export { NoopSinkConnector, NoopSinkTask, NOOP_SINK_CONFIG } from './noop-sink.js';

export default { connector: NoopSinkConnector, task: NoopSinkTask } satisfies ConnectorModule;
