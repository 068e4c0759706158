import type { ConnectorModule } from '../../connect/connector-module.js';
import { HttpSinkConnector, HttpSinkTask } from './http-sink.js';

export { HttpSinkConnector, HttpSinkTask } from './http-sink.js';
export { HttpRequestRefusedError } from './errors.js';
export {
  HTTP_SINK_CONFIG,
  HTTP_METHODS,
  BODY_FORMATS,
  AUTH_TYPES,
  ERROR_BEHAVIORS,
  type HttpMethod,
  type BodyFormat,
  type AuthType,
  type ErrorBehavior,
} from './config.js';

/** `connector.class=HttpSink` (also `HttpSinkConnector`, `http`). */
export default { connector: HttpSinkConnector, task: HttpSinkTask } satisfies ConnectorModule;
