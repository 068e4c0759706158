// A real HTTP endpoint for the HttpSink tests, on node:http and an ephemeral port. It records every
// request (method, path, headers, body) and answers through a handler the test can swap at any time.
//
//   const server = await startHttpServer();
//   server.respond((req, n) => (n === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
//   … server.requests … await server.close();
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/** `n` counts requests from 0 in arrival order. */
export type Handler = (request: ReceivedRequest, n: number) => Reply;

export interface TestHttpServer {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Most requests that were open (received, not yet answered) at the same time. */
  readonly peakOpen: number;
  respond(handler: Handler): void;
  close(): Promise<void>;
}

export async function startHttpServer(handler: Handler = () => ({ status: 200 })): Promise<TestHttpServer> {
  const requests: ReceivedRequest[] = [];
  let current = handler;
  let open = 0;
  let peakOpen = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      const n = requests.length;
      requests.push(received);
      open++;
      peakOpen = Math.max(peakOpen, open);
      res.on('close', () => open--);
      const reply = current(received, n);
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers ?? {});
        res.end(reply.body ?? '');
      };
      if (reply.delayMs === undefined) send();
      else setTimeout(send, reply.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get peakOpen() {
      return peakOpen;
    },
    respond(next) {
      current = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
