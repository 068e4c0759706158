/** The worker's REST API: Connect's endpoints, /metrics, /health and the live view of the machines. */
export { startRestServer, buildRouter } from './server/server.js';
export type { RestServer, RestServerOptions } from './server/server.js';
export type { RestWorker, RestConnector } from './worker-view.js';
export { formatPrometheus } from './metrics/prometheus.js';
export type { MetricFamily, Sample, MetricType } from './metrics/prometheus.js';
