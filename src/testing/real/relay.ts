/**
 * The TCP relay the kit puts between a worker and one broker (ADR 0018): it forwards bytes both ways
 * and can cut every connection (and refuse new ones) for a while, or hold every chunk back by a delay.
 * Counts what it did, so a fault is only reported as injected when it touched a connection.
 */
import net from 'node:net';

export interface Relay {
  readonly port: number;
  readonly target: { readonly host: string; readonly port: number };
  /** Connections cut by cut() so far. */
  readonly connectionsCut: number;
  /** Chunks held back by a delay so far. */
  readonly chunksDelayed: number;
  /** Cuts every open connection and refuses new ones for `ms`. */
  cut(ms: number): Promise<void>;
  /** Holds every chunk, both ways, for `ms` before forwarding it, until setDelay(0). */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  /** The worker's side of each proxied connection (the other side is the broker's). */
  const clients = new WeakSet<net.Socket>();
  let refusingUntil = 0;
  let delayMs = 0;
  let connectionsCut = 0;
  let chunksDelayed = 0;

  /** Forwards `from` → `to` in order, each chunk after the delay in force when it arrived. */
  const pipe = (from: net.Socket, to: net.Socket): void => {
    let last = 0;
    from.on('data', (chunk: Buffer) => {
      if (delayMs <= 0 && last <= Date.now()) {
        to.write(chunk);
        return;
      }
      chunksDelayed++;
      const due = Math.max(Date.now() + delayMs, last);
      last = due;
      setTimeout(() => {
        if (!to.destroyed) to.write(chunk);
      }, due - Date.now());
    });
  };

  const server = net.createServer((client) => {
    if (Date.now() < refusingUntil) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target);
    clients.add(client);
    sockets.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    pipe(client, upstream);
    pipe(upstream, client);
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve((server.address() as net.AddressInfo).port));
  });

  return {
    port,
    target,
    get connectionsCut() {
      return connectionsCut;
    },
    get chunksDelayed() {
      return chunksDelayed;
    },
    async cut(ms) {
      refusingUntil = Date.now() + ms;
      for (const s of sockets) {
        if (clients.has(s)) connectionsCut++;
        s.destroy();
      }
      sockets.clear();
      await new Promise((r) => setTimeout(r, ms));
    },
    setDelay(ms) {
      delayMs = ms;
    },
    async close() {
      for (const s of sockets) s.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One relay per broker for one run, and the redirects that send the run's worker through them: runs
 * that overlap (`parallel`) each cut and delay only their own worker's connections.
 */
export async function startRelays(
  brokers: ReadonlyArray<{ host: string; port: number }>,
): Promise<{ relays: Relay[]; redirects: Record<string, number> }> {
  const relays: Relay[] = [];
  const redirects: Record<string, number> = {};
  try {
    for (const b of brokers) {
      const relay = await startRelay(b);
      relays.push(relay);
      redirects[`${b.host}:${b.port}`] = relay.port;
      if (b.host === '127.0.0.1' || b.host === 'localhost')
        redirects[`${b.host === 'localhost' ? '127.0.0.1' : 'localhost'}:${b.port}`] ??= relay.port;
    }
  } catch (err) {
    await Promise.all(relays.map((r) => r.close()));
    throw err;
  }
  return { relays, redirects };
}
