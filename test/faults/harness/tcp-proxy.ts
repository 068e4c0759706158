// A loopback TCP proxy the suite can take down and bring back: the way to make PostgreSQL unreachable
// for a worker without touching the machine's PostgreSQL server, which other tests use.
//
//   const proxy = await startProxy({ host: '127.0.0.1', port: 5432 });
//   await proxy.down();  // listener closed, every proxied connection cut: connects are refused
//   await proxy.up();    // listening on the same port again
import net from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const makeServer = (): net.Server =>
    net.createServer((client) => {
      accepted++;
      const upstream = net.connect(target);
      sockets.add(client);
      sockets.add(upstream);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
  const listen = (server: net.Server, port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port }, () => {
        server.off('error', reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  let server: net.Server | undefined = makeServer();
  const port = await listen(server, 0);
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    get accepted() {
      return accepted;
    },
    down: stop,
    async up() {
      if (server) return;
      server = makeServer();
      await listen(server, port);
    },
    close: stop,
  };
}
