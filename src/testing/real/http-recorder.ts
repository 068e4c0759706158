/**
 * The HTTP endpoint `sharesink check --record-http` points an HttpSink at: it answers 200 to every
 * request and keeps each body, so the kit can count what was received. The kit cannot ask a remote
 * server what it got; this stands in for one (see ADR 0018, "HTTP sinks").
 *
 * A request carrying the connector's `http.idempotency.header` with a key seen before is answered
 * 200 and not kept again, as a receiver that honours the key does: that is what makes an HttpSink
 * idempotent, and what `--idempotent` then checks.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpRecorder {
  /** http://127.0.0.1:<port>, no trailing slash. */
  readonly url: string;
  /** Every body kept so far, in arrival order. */
  bodies(): string[];
  close(): Promise<void>;
}

export interface HttpRecorderOptions {
  /** The header whose repeated value marks a request already received (http.idempotency.header). */
  readonly idempotencyHeader?: string;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startHttpRecorder(options: HttpRecorderOptions = {}): Promise<HttpRecorder> {
  const header = options.idempotencyHeader?.trim().toLowerCase();
  const kept: string[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    bodyOf(req).then(
      (body) => {
        const key = header === undefined || header === '' ? undefined : req.headers[header];
        const k = Array.isArray(key) ? key.join(',') : key;
        if (k === undefined || !seen.has(k)) kept.push(body);
        if (k !== undefined) seen.add(k);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      () => res.destroy(),
    );
  });
  // a worker killed mid-request leaves a socket behind: it must not keep the check from ending
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies: () => [...kept],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
