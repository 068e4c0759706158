/**
 * The worker's HTTP server on node:http: Connect's REST API, `/metrics`, `/health` and the live view
 * of the machines. Started by `sharesink standalone` when `listeners` is set, or by an embedder with
 * `startRestServer(worker, { listener })`. No framework: a dozen routes do not need one.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SharesinkError } from '../../errors.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { KafkaCluster } from '../../kafka/cluster.js';
import { defaultLogger } from '../../logger.js';
import { logLevelsFor } from '../../observability/log-levels.js';
import { batchMachine } from '../../machines/batch.js';
import { connectorMachine } from '../../machines/connector.js';
import { taskMachine } from '../../machines/task.js';
import { LISTENER_FORM, parseListener as parseListenerText } from '../../config/listener.js';
import type { RestSecurity, RestTls } from '../../config/rest-security.js';
import { authenticate } from './auth.js';
import type { Herder } from '../../herder/herder.js';
import { offsetsConfigOf } from '../../herder/offsets.js';
import { StandaloneHerder } from '../../herder/standalone-herder.js';
import { addConnectResources } from '../resources/index.js';
import { addLoggersRoutes } from '../resources/loggers.js';
import { badRequest, errorBody, statusOf } from './errors.js';
import { exposureWarnings } from './exposure.js';
import { MissingPackageError } from '../../optional-package.js';
import { MachineEvents } from '../live-view/machine-events.js';
import { machinesPage } from '../live-view/machines-page.js';
import { collectMetrics } from '../metrics/metrics.js';
import { LagPoller } from '../../offsets/lag-poller.js';
import { ProcessMetrics } from '../metrics/process-metrics.js';
import { CONTENT_TYPE, formatPrometheus } from '../metrics/prometheus.js';
import { Router, type RestRequest, type RestResponse } from './router.js';
import type { RestWorker } from '../worker-view.js';

export interface RestServerOptions {
  /**
   * `http://host:port` or `https://host:port`, as the worker setting `listeners`; port 0 picks a free
   * port. Default: the worker's `listeners`, else `http://127.0.0.1:8083` (Connect's port).
   */
  readonly listener?: string;
  /**
   * TLS for an https listener and authentication. Default: what the worker file set
   * (`listeners.https.ssl.*`, `rest.auth.*`); none when it set nothing.
   */
  readonly security?: RestSecurity;
  readonly logger?: Logger;
  /** Shown by `GET /` as `commit`. Default: the `SHARESINK_COMMIT` environment variable, else empty. */
  readonly commit?: string;
  /** Ask the brokers for the cluster id shown by `GET /`. Default true. */
  readonly lookupClusterId?: boolean;
  /**
   * What manages the connectors behind Connect's endpoints. Default: a `StandaloneHerder` over `worker`
   * (`sharesink distributed` passes its `ClusterHerder`).
   */
  readonly herder?: Herder;
  /** Routes of the mode besides Connect's (`sharesink distributed` adds `/machines/cluster`). */
  readonly routes?: (router: Router) => void;
}

export interface RestServer {
  /** `http://host:port` the server listens on (the real port when 0 was asked for). */
  readonly url: string;
  /** Stops accepting requests, ends open event streams, and resolves once the server is closed. */
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

function packageVersion(): string {
  try {
    // src/rest/server and dist/rest/server both sit three levels below the package root
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function parseListener(listener: string, tls: RestTls | undefined) {
  const parsed = parseListenerText(listener);
  if (parsed === undefined)
    throw new SharesinkError(
      'SHARESINK_REST_LISTENER_INVALID',
      `listeners: ${JSON.stringify(listener)} is not ${LISTENER_FORM}`,
    );
  if (parsed.scheme === 'https' && tls === undefined)
    throw new SharesinkError(
      'SHARESINK_REST_LISTENER_INVALID',
      `listeners: ${listener} is https, but no certificate was given; set listeners.https.ssl.keystore.location (or pass security.tls)`,
    );
  return parsed;
}

/** node:https options from the compiled `listeners.https.ssl.*` settings. */
function httpsOptions(tls: RestTls) {
  return {
    ...(tls.pfx !== undefined ? { pfx: tls.pfx, passphrase: tls.pfxPassphrase?.value() } : {}),
    ...(tls.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls.key !== undefined ? { key: tls.key.value(), passphrase: tls.keyPassphrase?.value() } : {}),
    ...(tls.ca !== undefined ? { ca: [...tls.ca] } : {}),
    requestCert: tls.clientAuth !== 'none',
    rejectUnauthorized: tls.clientAuth === 'required',
  };
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(badRequest(`The request body is larger than ${MAX_BODY} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').trim();
      if (text === '') return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(badRequest('The request body is not valid JSON'));
      }
    });
    req.on('error', reject);
  });
}

function send(res: ServerResponse, r: Exclude<RestResponse, 'streaming'>): void {
  if ('json' in r) {
    const body = JSON.stringify(r.json);
    res.writeHead(r.status, { 'content-type': 'application/json' });
    res.end(body);
  } else if ('text' in r) {
    res.writeHead(r.status, { 'content-type': r.contentType });
    res.end(r.text);
  } else {
    res.writeHead(r.status);
    res.end();
  }
}

/** Builds the router for a worker; exported for tests that call handlers without a socket. */
export function buildRouter(
  worker: RestWorker,
  deps: {
    events: MachineEvents;
    processMetrics: ProcessMetrics;
    /** Share lag for /metrics; none: no lag series. */
    lagPoller?: LagPoller;
    workerId: () => string;
    clusterId: () => string | undefined;
    commit: string;
    /** For the offsets endpoints' log lines. Default: the default logger. */
    logger?: Logger;
    /** Default: a StandaloneHerder over `worker` (see RestServerOptions.herder). */
    herder?: Herder;
    /** The mode's own routes (see RestServerOptions.routes). */
    routes?: (router: Router) => void;
  },
): Router {
  const router = new Router();
  const herder =
    deps.herder ??
    new StandaloneHerder(worker, { workerId: deps.workerId, logger: deps.logger ?? defaultLogger() });
  addConnectResources(router, herder, {
    version: packageVersion(),
    commit: deps.commit,
    kafkaClusterId: deps.clusterId,
  });
  deps.routes?.(router);
  // laid out on the first request, not at start-up: the layout library is large and most workers never serve the page
  let page: Promise<string> | undefined;
  const machinesHtml = () => {
    page ??= machinesPage([batchMachine, taskMachine, connectorMachine], 'sharesink');
    page.catch(() => (page = undefined));
    return page;
  };
  router
    .add('GET', '/metrics', () => {
      const shareLag = deps.lagPoller?.scrape(worker.connectors.map((c) => offsetsConfigOf(c.config)));
      return {
        status: 200,
        contentType: CONTENT_TYPE,
        text: formatPrometheus(
          collectMetrics(
            worker,
            {
              memory: process.memoryUsage(),
              uptimeSeconds: process.uptime(),
              eventLoop: deps.processMetrics.eventLoopDelay(),
            },
            shareLag,
          ),
        ),
      };
    })
    .add('GET', '/machines', async () => {
      try {
        return { status: 200, contentType: 'text/html; charset=utf-8', text: await machinesHtml() };
      } catch (err) {
        // elkjs is an optional package (ADR 0016): say what to install instead of a bare 500
        if (!(err instanceof MissingPackageError)) throw err;
        return { status: 501, contentType: 'text/plain; charset=utf-8', text: `${err.message}\n` };
      }
    })
    .add('GET', '/machines/events', (req) => {
      deps.events.attach(req.res);
      return 'streaming';
    });
  return router;
}

export async function startRestServer(
  worker: RestWorker,
  options: RestServerOptions = {},
): Promise<RestServer> {
  const rootLogger = options.logger ?? defaultLogger();
  // before the first child below, so that `rest` is one of the names /admin/loggers changes
  const logLevels = logLevelsFor(rootLogger);
  const log = rootLogger.child({ component: 'rest' });
  const listener = options.listener ?? worker.config.listeners?.[0] ?? 'http://127.0.0.1:8083';
  const security = options.security ?? worker.config.rest;
  const parsed = parseListener(listener, security?.tls);
  const { host, port } = parsed;
  const events = new MachineEvents(worker);
  const processMetrics = new ProcessMetrics();
  const lagPoller = new LagPoller(worker.config, worker.config.lagPollIntervalMs ?? 30_000, log);
  let workerId = `${host}:${port}`;
  let clusterId: string | undefined;
  const router = buildRouter(worker, {
    events,
    processMetrics,
    lagPoller,
    workerId: () => workerId,
    clusterId: () => clusterId,
    commit: options.commit ?? process.env.SHARESINK_COMMIT ?? '',
    logger: log,
    herder: options.herder,
    routes: options.routes,
  });

  addLoggersRoutes(router, logLevels, log, worker.config.raw);

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    void (async () => {
      try {
        // before routing: a request without valid credentials reaches no handler and changes nothing
        const auth = authenticate(security?.auth, req, url.pathname);
        if (!auth.ok) {
          log.warn(
            { method, path: url.pathname, remote: req.socket.remoteAddress, user: auth.user },
            `REST request refused: ${auth.error.message}`,
          );
          res.setHeader('www-authenticate', auth.challenge);
          send(res, { status: 401, json: errorBody(auth.error).body });
          return;
        }
        const { handler, params } = router.match(method, url.pathname);
        const request: RestRequest = {
          method,
          path: url.pathname,
          params,
          query: url.searchParams,
          json: () => readBody(req),
          raw: req,
          res,
        };
        const response = await handler(request);
        if (response !== 'streaming') send(res, response);
      } catch (err) {
        const { status, body } = errorBody(err);
        if (statusOf(err) === undefined) log.error({ err, method, path: url.pathname }, 'request failed');
        if (!res.headersSent) send(res, { status, json: body });
        else res.end();
      }
    })();
  };
  const server: Server =
    parsed.scheme === 'https' && security?.tls !== undefined
      ? createHttpsServer(httpsOptions(security.tls), onRequest)
      : createServer(onRequest);
  // a client that fails the handshake (no or an untrusted certificate, plain http) never gets a request in
  server.on('tlsClientError', (err: Error) => log.debug({ err: err.message }, 'REST TLS handshake failed'));
  // a scrape every few seconds should not hold sockets for minutes
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) =>
      reject(
        new SharesinkError(
          'SHARESINK_REST_LISTEN_FAILED',
          `The REST server cannot listen on ${listener}: ${err.code ?? err.message}. Pick a free port in \`listeners\`, or leave it empty for no server.`,
          { cause: err },
        ),
      );
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  workerId = `${shownHost}:${address.port}`;
  const url = `${parsed.scheme}://${workerId}`;
  log.info({ url }, 'REST server listening');
  for (const warning of exposureWarnings(parsed, security)) log.warn(warning);

  const cluster =
    options.lookupClusterId === false
      ? undefined
      : new KafkaCluster({
          ...kafkajsSecurityOptions(worker.config.security?.admin),
          brokers: worker.config.bootstrapServers,
          clientId: `${worker.config.clientId}-rest`,
          logger: log,
        });
  if (cluster !== undefined) void lookupClusterId(cluster, log).then((id) => (clusterId = id));

  let closing: Promise<void> | undefined;
  return {
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        events.close();
        processMetrics.close();
        void lagPoller.close();
        void cluster?.close().catch(() => undefined);
        server.close(() => resolve());
        server.closeIdleConnections();
        log.info('REST server stopped');
      });
      return closing;
    },
  };
}

/** One metadata request for `GET /`'s `kafka_cluster_id`; the answer is optional, so failures are only logged. */
async function lookupClusterId(cluster: KafkaCluster, log: Logger): Promise<string | undefined> {
  try {
    await cluster.connect();
    return cluster.clusterId ?? undefined;
  } catch (err) {
    log.debug({ err: (err as Error).message }, 'no cluster id for GET /');
    return undefined;
  } finally {
    await cluster.close().catch(() => undefined);
  }
}
