/**
 * What the start-up log says about who can reach the REST API. An API that can pause, stop and
 * restart connectors must not be open to a network by accident: a listener on a non-loopback address
 * with neither authentication nor client certificates gets a warning, and so does basic
 * authentication over plain http there (the passwords cross the network in clear text).
 */
import type { Listener } from '../../config/listener.js';
import { isLoopback } from '../../config/listener.js';
import type { RestSecurity } from '../../config/rest-security.js';
import { authRequired } from './auth.js';

export function exposureWarnings(listener: Listener, security: RestSecurity | undefined): string[] {
  if (isLoopback(listener.host)) return [];
  const where = `${listener.scheme}://${listener.host.includes(':') ? `[${listener.host}]` : listener.host}:${listener.port}`;
  const clientCerts = security?.tls?.clientAuth === 'required';
  if (!authRequired(security?.auth) && !clientCerts)
    return [
      `the REST API listens on ${where}, which is not a loopback address, and asks for no authentication: anyone who can reach it can pause, stop and restart connectors. Set rest.auth.basic.credentials.file or rest.auth.bearer.token (docs/security.md), or listen on 127.0.0.1`,
    ];
  if (listener.scheme === 'http' && authRequired(security?.auth))
    return [
      `the REST API listens on ${where} over plain http: credentials cross the network in clear text. Use listeners=https://… with listeners.https.ssl.keystore.location (docs/security.md)`,
    ];
  return [];
}
