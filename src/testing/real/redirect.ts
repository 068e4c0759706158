/**
 * Inside the worker process the kit starts: every TCP connection to a broker address goes to the
 * kit's relay for that broker instead (ADR 0018). Brokers advertise their own addresses in metadata,
 * so pointing `bootstrap.servers` at a relay is not enough; redirecting at connect time catches every
 * client in the process (the share consumer's wire layer, kafkajs's classic consumer, admin and
 * producers) without touching them.
 */
import net from 'node:net';
import { REDIRECT_ENV } from './control.js';

/** `host:port` of a broker → the local port of its relay. */
export type RedirectMap = Readonly<Record<string, number>>;

type Connect = (...args: unknown[]) => net.Socket;

export function parseRedirects(text: string | undefined): RedirectMap {
  if (text === undefined || text === '') return {};
  return JSON.parse(text) as RedirectMap;
}

/** Patches net.Socket#connect once; connections to other addresses are left alone. */
export function installRedirects(map: RedirectMap = parseRedirects(process.env[REDIRECT_ENV])): void {
  if (Object.keys(map).length === 0) return;
  const proto = net.Socket.prototype as unknown as { connect: Connect; __sharesinkCheck?: true };
  if (proto.__sharesinkCheck) return;
  const original = proto.connect;
  proto.__sharesinkCheck = true;
  const redirect = (o: net.TcpNetConnectOpts): net.TcpNetConnectOpts => {
    const to = o.port === undefined ? undefined : map[`${o.host ?? 'localhost'}:${o.port}`];
    return to === undefined ? o : { ...o, host: '127.0.0.1', port: to };
  };
  proto.connect = function (this: net.Socket, ...args: unknown[]): net.Socket {
    const first = args[0];
    // net.connect() hands over its arguments normalized: [options, callback]
    if (Array.isArray(first) && typeof first[0] === 'object' && first[0] !== null)
      first[0] = redirect(first[0] as net.TcpNetConnectOpts);
    else if (!Array.isArray(first) && typeof first === 'object' && first !== null)
      args[0] = redirect(first as net.TcpNetConnectOpts);
    else if (typeof first === 'number' || typeof first === 'string') {
      const host = typeof args[1] === 'string' ? args[1] : 'localhost';
      const to = map[`${host}:${first}`];
      if (to !== undefined) {
        args[0] = to;
        if (typeof args[1] === 'string') args[1] = '127.0.0.1';
        else args.splice(1, 0, '127.0.0.1');
      }
    }
    return original.apply(this, args);
  };
}
