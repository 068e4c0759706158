import type { ConnectorModule } from '../../connect/connector-module.js';
import { FileStreamSinkConnector, FileStreamSinkTask } from './file-stream-sink.js';

export {
  FileStreamSinkConnector,
  FileStreamSinkTask,
  FILE_STREAM_SINK_CONFIG,
  formatValue,
} from './file-stream-sink.js';

/** Also reachable as `connector.class=org.apache.kafka.connect.file.FileStreamSinkConnector`. */
export default { connector: FileStreamSinkConnector, task: FileStreamSinkTask } satisfies ConnectorModule;
