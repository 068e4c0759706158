import type { ConnectorModule } from '../../connect/connector-module.js';
import { JdbcSinkConnector, JdbcSinkTask } from './jdbc-sink.js';

export { JdbcSinkConnector, JdbcSinkTask } from './jdbc-sink.js';
export { JDBC_SINK_CONFIG } from './config.js';

/** `connector.class=io.confluent.connect.jdbc.JdbcSinkConnector` (also Aiven's, `JdbcSink`, `jdbc`). */
export default { connector: JdbcSinkConnector, task: JdbcSinkTask } satisfies ConnectorModule;
