/**
 * The REST listener as Connect writes it in `listeners`: `http://host:port` or `https://host:port`.
 * Port 0 asks the OS for a free port. An empty host binds loopback only: a worker must be asked, in
 * so many words (`0.0.0.0`, `[::]`, an interface address), before it opens its API to the network.
 */

export interface Listener {
  readonly scheme: 'http' | 'https';
  /** The address to bind: `127.0.0.1` for an empty host; IPv6 without brackets. */
  readonly host: string;
  readonly port: number;
}

export const LISTENER_FORM = 'http://host:port or https://host:port (e.g. http://127.0.0.1:8083)';

const LISTENER = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[^\s/:[\]]*):(\d{1,5})\/?$/i;

/** The listener, or undefined when the text is not `http(s)://host:port`. */
export function parseListener(text: string): Listener | undefined {
  const m = LISTENER.exec(text.trim());
  if (m === null) return undefined;
  const port = Number(m[3]);
  if (!(port >= 0 && port <= 65535)) return undefined;
  const host = m[2]!.replace(/^\[|\]$/g, '');
  return { scheme: m[1]!.toLowerCase() as 'http' | 'https', host: host === '' ? '127.0.0.1' : host, port };
}

/** True for an address only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h);
}
