import type { ConnectorModule } from '../../connect/connector-module.js';
import { KafkaSinkConnector, KafkaSinkTask } from './kafka-sink.js';

export { KafkaSinkConnector, KafkaSinkTask, toBytes } from './kafka-sink.js';
export { KAFKA_SINK_CONFIG } from './config.js';

/** `connector.class=KafkaSink` (also `KafkaSinkConnector`, `kafka`). */
export default { connector: KafkaSinkConnector, task: KafkaSinkTask } satisfies ConnectorModule;
