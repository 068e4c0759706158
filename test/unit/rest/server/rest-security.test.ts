// The REST API's protection over real sockets against a fake worker: HTTP basic (credentials file, or
// Connect's JAAS file) and bearer authentication on every path but the exempt ones, https with the
// listeners.https.ssl.* keys, client certificates, and the start-up warning for an open listener.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { validateWorkerConfig } from '../../../../src/config/compile-worker.js';
import { parseListener } from '../../../../src/config/listener.js';
import { compileWorkerConfig } from '../../../../src/config/index.js';
import { exposureWarnings } from '../../../../src/rest/server/exposure.js';
import { startRestServer, type RestServer } from '../../../../src/rest/server/server.js';
import { capturingLogger } from '../../cli/capturing-logger.js';
import { FakeConnector, fakeWorker } from '../fake-worker.js';

const TLS = new URL('../../../fixtures/tls/', import.meta.url).pathname;
const tls = (name: string): string => path.join(TLS, name);
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-rest-security-'));
const silent = pino({ level: 'silent' });

const credentials = path.join(dir, 'credentials.properties');
writeFileSync(credentials, '# Connect PropertyFileLoginModule form\nalice: alice-secret\nbob=bob-secret\n');
const jaas = path.join(dir, 'rest-jaas.conf');
writeFileSync(
  jaas,
  `/* as given to Connect with -Djava.security.auth.login.config */\nKafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file="${credentials}";\n};\n`,
);

const base = { 'bootstrap.servers': '127.0.0.1:9', 'pool.threads': '1' };
const servers: RestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(props: Record<string, string>, connector = new FakeConnector('orders', 1)) {
  const config = compileWorkerConfig({ ...base, listeners: 'http://127.0.0.1:0', ...props });
  const server = await startRestServer(fakeWorker([connector]), {
    listener: config.listeners![0]!,
    security: config.rest!,
    lookupClusterId: false,
    logger: silent,
  });
  servers.push(server);
  return { server, connector };
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function call(url: string, method: string, authorization?: string) {
  const res = await fetch(url, { method, headers: authorization === undefined ? {} : { authorization } });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), body: await res.text() };
}

describe('HTTP basic authentication', () => {
  for (const [form, props] of [
    ['rest.auth.basic.credentials.file', { 'rest.auth.basic.credentials.file': credentials }],
    [
      "Connect's BasicAuthSecurityRestExtension + JAAS file",
      {
        'rest.extension.classes':
          'org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension',
        'rest.auth.basic.jaas.file': jaas,
      },
    ],
  ] as const) {
    it(`${form}: no or wrong credentials get 401 and change nothing; right ones work`, async () => {
      const { server, connector } = await serve(props);
      const pause = `${server.url}/connectors/orders/pause`;
      const none = await call(pause, 'PUT');
      expect(none.status).toBe(401);
      expect(none.challenge).toBe('Basic realm="sharesink", charset="UTF-8"');
      expect(JSON.parse(none.body)).toEqual({
        error_code: 401,
        message: 'Authentication required: this API accepts HTTP basic (user and password)',
      });
      for (const auth of [
        basic('alice', 'wrong'),
        basic('mallory', 'alice-secret'),
        basic('alice', ''),
        'Bearer alice-secret',
      ]) {
        const r = await call(pause, 'PUT', auth);
        expect(r.status, auth).toBe(401);
        expect(r.body).not.toContain('secret');
      }
      // nothing reached the connector: still RUNNING, no control called
      expect(connector.calls).toEqual([]);
      expect(connector.state).toBe('RUNNING');
      const status = await call(`${server.url}/connectors/orders/status`, 'GET', basic('bob', 'bob-secret'));
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body)).toHaveProperty('connector.state', 'RUNNING');

      expect((await call(pause, 'PUT', basic('alice', 'alice-secret'))).status).toBe(202);
      expect(connector.calls).toEqual(['pause']);
    });
  }

  it('every route needs it except /health; /metrics and /machines too', async () => {
    const { server } = await serve({ 'rest.auth.basic.credentials.file': credentials });
    for (const p of [
      '/',
      '/connectors',
      '/metrics',
      '/machines',
      '/machines/events',
      '/connector-plugins',
      '/nope',
    ])
      expect((await call(`${server.url}${p}`, 'GET')).status, p).toBe(401);
    expect((await call(`${server.url}/metrics`, 'GET', basic('alice', 'alice-secret'))).status).toBe(200);
    expect((await call(`${server.url}/health`, 'GET')).status).toBe(200);
  });

  it('rest.auth.exempt.paths= (empty) protects /health too', async () => {
    const { server } = await serve({
      'rest.auth.basic.credentials.file': credentials,
      'rest.auth.exempt.paths': '',
    });
    expect((await call(`${server.url}/health`, 'GET')).status).toBe(401);
    expect((await call(`${server.url}/health`, 'GET', basic('alice', 'alice-secret'))).status).toBe(200);
  });
});

describe('bearer token', () => {
  it('accepts the token, refuses anything else with 401, and can sit beside basic', async () => {
    const { server, connector } = await serve({
      'rest.auth.bearer.token': 'tok-123456',
      'rest.auth.basic.credentials.file': credentials,
    });
    const stop = `${server.url}/connectors/orders/stop`;
    const bad = await call(stop, 'PUT', 'Bearer tok-12345');
    expect(bad.status).toBe(401);
    expect(bad.challenge).toBe('Basic realm="sharesink", charset="UTF-8", Bearer realm="sharesink"');
    expect(connector.calls).toEqual([]);
    expect((await call(stop, 'PUT', 'Bearer tok-123456')).status).toBe(202);
    expect((await call(`${server.url}/connectors`, 'GET', basic('alice', 'alice-secret'))).status).toBe(200);
    expect(connector.calls).toEqual(['halt']);
  });
});

/** One https request with node:https (fetch takes no CA or client certificate). */
function get(
  url: string,
  options: { ca?: string; pfx?: Buffer; auth?: string } = {},
): Promise<{ status: number; peerCert: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        ca: options.ca,
        pfx: options.pfx,
        passphrase: 'changeit',
        headers: options.auth === undefined ? {} : { authorization: options.auth },
      },
      (res) => {
        const subject = (res.socket as TLSSocket).getPeerCertificate().subject?.CN ?? '';
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, peerCert: subject }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('https listener (listeners.https.ssl.*)', () => {
  const ca = readFileSync(tls('ca.pem'), 'utf8');

  for (const [store, props] of [
    [
      'PKCS12 keystore',
      {
        'listeners.https.ssl.keystore.location': tls('broker.p12'),
        'listeners.https.ssl.keystore.password': 'changeit',
        'listeners.https.ssl.keystore.type': 'PKCS12',
      },
    ],
    [
      'inline PEM',
      {
        'listeners.https.ssl.keystore.certificate.chain': readFileSync(tls('broker.pem'), 'utf8'),
        'listeners.https.ssl.keystore.key': readFileSync(tls('broker.key'), 'utf8'),
      },
    ],
  ] as const) {
    it(`serves TLS from a ${store}; a client that trusts the CA gets in, one that does not is refused`, async () => {
      const { server } = await serve({ listeners: 'https://127.0.0.1:0', ...props });
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const ok = await get(`${server.url}/connectors`, { ca });
      expect(ok).toEqual({ status: 200, peerCert: 'localhost' });
      await expect(
        get(`${server.url}/connectors`, { ca: readFileSync(tls('rogue-ca.pem'), 'utf8') }),
      ).rejects.toThrow(
        /self-signed certificate in certificate chain|unable to verify the first certificate/,
      );
      // plain http to the TLS port gets no API answer
      await expect(fetch(server.url.replace('https:', 'http:') + '/connectors')).rejects.toThrow();
    });
  }

  it('ssl.client.auth=required: only clients with a certificate from the truststore CA get in', async () => {
    const { server } = await serve({
      listeners: 'https://127.0.0.1:0',
      'listeners.https.ssl.keystore.location': tls('broker.p12'),
      'listeners.https.ssl.keystore.password': 'changeit',
      'listeners.https.ssl.truststore.location': tls('truststore.p12'),
      'listeners.https.ssl.truststore.password': 'changeit',
      'listeners.https.ssl.client.auth': 'required',
    });
    expect((await get(`${server.url}/connectors`, { ca, pfx: readFileSync(tls('client.p12')) })).status).toBe(
      200,
    );
    await expect(get(`${server.url}/connectors`, { ca })).rejects.toThrow(
      /certificate required|socket hang up|ECONNRESET|alert/i,
    );
    await expect(
      get(`${server.url}/connectors`, { ca, pfx: readFileSync(tls('rogue-client.p12')) }),
    ).rejects.toThrow(/unknown ca|certificate unknown|decrypt|alert|ECONNRESET|socket hang up/i);
  });

  it('with basic authentication over https, credentials are still checked', async () => {
    const { server, connector } = await serve({
      listeners: 'https://127.0.0.1:0',
      'listeners.https.ssl.keystore.location': tls('broker.p12'),
      'listeners.https.ssl.keystore.password': 'changeit',
      'rest.auth.basic.credentials.file': credentials,
    });
    expect((await get(`${server.url}/connectors`, { ca })).status).toBe(401);
    expect((await get(`${server.url}/connectors`, { ca, auth: basic('alice', 'alice-secret') })).status).toBe(
      200,
    );
    expect(connector.calls).toEqual([]);
  });
});

describe('configuration problems, named by key, never showing a secret', () => {
  const problems = (props: Record<string, string>) => validateWorkerConfig({ ...base, ...props }).problems;

  it('https without a keystore, a JKS keystore, ssl keys on an http listener, client auth without truststore', () => {
    expect(problems({ listeners: 'https://127.0.0.1:8443' })).toEqual([
      "listeners.https.ssl.keystore.location: is required with an https:// listener; accepted: the server's certificate and key as a PKCS12 or PEM file (or listeners.https.ssl.keystore.certificate.chain and listeners.https.ssl.keystore.key as inline PEM)",
    ]);
    const jks = problems({
      listeners: 'https://127.0.0.1:8443',
      'listeners.https.ssl.keystore.location': tls('truststore.jks'),
      'listeners.https.ssl.keystore.password': 'changeit',
    });
    expect(jks).toHaveLength(1);
    expect(jks[0]).toMatch(
      /^listeners\.https\.ssl\.keystore\.location: .*truststore\.jks is a Java KeyStore .*keytool -importkeystore/,
    );
    expect(
      problems({
        listeners: 'http://127.0.0.1:8083',
        'listeners.https.ssl.keystore.location': tls('broker.p12'),
      }),
    ).toEqual([
      'listeners.https.ssl.keystore.location: set, but listeners is not https://host:port, so the REST server would not use it; accepted: listeners=https://host:port with the listeners.https.ssl.* keys, or neither',
    ]);
    expect(
      problems({
        listeners: 'https://127.0.0.1:8443',
        'listeners.https.ssl.keystore.location': tls('broker.p12'),
        'listeners.https.ssl.keystore.password': 'changeit',
        'listeners.https.ssl.client.auth': 'required',
      }),
    ).toEqual([
      'listeners.https.ssl.client.auth: is required, but no truststore says which client certificates to accept; accepted: listeners.https.ssl.truststore.location (or listeners.https.ssl.truststore.certificates) with it, or none',
    ]);
  });

  it('a wrong keystore password is a problem of its key, without the password', () => {
    const p = problems({
      listeners: 'https://127.0.0.1:8443',
      'listeners.https.ssl.keystore.location': tls('broker.p12'),
      'listeners.https.ssl.keystore.password': 'not-the-password',
    });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^listeners\.https\.ssl\.keystore\.password: /);
    expect(p.join('\n')).not.toContain('not-the-password');
  });

  it('REST extensions other than basic auth are refused; basic auth needs its file; files must be readable', () => {
    expect(problems({ 'rest.extension.classes': 'com.acme.AuditExtension' })).toEqual([
      'rest.extension.classes: com.acme.AuditExtension is a Java REST extension, which sharesink cannot run; accepted: org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension (read as rest.auth.basic.*), or remove it',
    ]);
    expect(
      problems({
        'rest.extension.classes':
          'org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension',
      }),
    ).toEqual([
      'rest.extension.classes: org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension needs its JAAS file, which Connect takes from -Djava.security.auth.login.config; accepted: rest.auth.basic.jaas.file=<that file> (or rest.auth.basic.credentials.file=<the user: password file>)',
    ]);
    expect(problems({ 'rest.auth.basic.credentials.file': path.join(dir, 'missing') })).toEqual([
      `rest.auth.basic.credentials.file: cannot read the credentials file ${path.join(dir, 'missing')} (ENOENT); accepted: a readable file of user: password lines`,
    ]);
    const otherModule = path.join(dir, 'other-jaas.conf');
    writeFileSync(otherModule, 'KafkaConnect { com.acme.LdapLoginModule required url="ldap://x"; };');
    expect(problems({ 'rest.auth.basic.jaas.file': otherModule })).toEqual([
      `rest.auth.basic.jaas.file: the KafkaConnect entry of ${otherModule} uses com.acme.LdapLoginModule; accepted: org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule with file="…"`,
    ]);
    expect(problems({ 'rest.auth.exempt.paths': 'health' })[0]).toMatch(/^rest\.auth\.exempt\.paths: /);
  });

  it('the compiled config prints no password or token', () => {
    const config = compileWorkerConfig({
      ...base,
      'rest.auth.bearer.token': 'tok-123456',
      'rest.auth.basic.credentials.file': credentials,
    });
    const shown = JSON.stringify(config.rest) + String(config.rest?.auth.bearerToken);
    expect(shown).not.toMatch(/tok-123456|alice-secret|bob-secret/);
  });
});

describe('who can reach the API: the start-up warning', () => {
  const listener = (text: string) => parseListener(text)!;
  const auth = compileWorkerConfig({ ...base, 'rest.auth.bearer.token': 'tok-123456' }).rest!;
  const open = compileWorkerConfig(base).rest!;

  it('an empty host binds loopback only', () => {
    expect(listener('http://:8083')).toEqual({ scheme: 'http', host: '127.0.0.1', port: 8083 });
    expect(exposureWarnings(listener('http://:8083'), open)).toEqual([]);
    expect(exposureWarnings(listener('http://localhost:8083'), open)).toEqual([]);
    expect(exposureWarnings(listener('http://[::1]:8083'), open)).toEqual([]);
  });

  it('non-loopback without authentication warns; with it over http, warns of clear text; https + auth is quiet', () => {
    expect(exposureWarnings(listener('http://0.0.0.0:8083'), open)).toEqual([
      'the REST API listens on http://0.0.0.0:8083, which is not a loopback address, and asks for no authentication: anyone who can reach it can pause, stop and restart connectors. Set rest.auth.basic.credentials.file or rest.auth.bearer.token (docs/security.md), or listen on 127.0.0.1',
    ]);
    expect(exposureWarnings(listener('http://0.0.0.0:8083'), auth)).toEqual([
      'the REST API listens on http://0.0.0.0:8083 over plain http: credentials cross the network in clear text. Use listeners=https://… with listeners.https.ssl.keystore.location (docs/security.md)',
    ]);
    expect(
      exposureWarnings(listener('https://0.0.0.0:8443'), { ...auth, tls: { clientAuth: 'none' } }),
    ).toEqual([]);
    expect(
      exposureWarnings(listener('https://[::]:8443'), { ...open, tls: { clientAuth: 'required' } }),
    ).toEqual([]);
  });

  it('the server logs it once at start', async () => {
    const { logger, lines } = capturingLogger('warn');
    const server = await startRestServer(fakeWorker([new FakeConnector('orders', 1)]), {
      listener: 'http://0.0.0.0:0',
      security: open,
      lookupClusterId: false,
      logger,
    });
    servers.push(server);
    const warnings = lines;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(
      /^the REST API listens on http:\/\/0\.0\.0\.0:\d+, which is not a loopback address, and asks for no authentication/,
    );
  });
});
