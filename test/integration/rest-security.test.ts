// The REST API of a real `sharesink standalone` (real broker, share-mode connector) over https with HTTP
// basic authentication from the worker file: requests without or with wrong credentials get 401 and
// change nothing — a PUT pause leaves the connector RUNNING — while /health stays open to probes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRestCli } from './harness/cli.js';
import { createTopic, deleteTopics, uniqueTopic } from './harness/kafka.js';
import { until } from './harness/wait.js';

const TLS = new URL('../fixtures/tls/', import.meta.url).pathname;
const ca = readFileSync(path.join(TLS, 'ca.pem'), 'utf8');
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-rest-security-'));
const topics: string[] = [];
afterAll(async () => {
  if (topics.length > 0) await deleteTopics(topics);
});

/** One request over https trusting the test CA. */
function call(
  url: string,
  method: string,
  user?: string,
): Promise<{ status: number; body: string; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, ...(user === undefined ? {} : { auth: user }) }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          challenge: res.headers['www-authenticate'] as string | undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('sharesink standalone: https and basic authentication on the REST API', () => {
  it('401 without or with wrong credentials, nothing changes; the right ones work; /health is open', async () => {
    const topic = uniqueTopic('rest-secured');
    topics.push(topic);
    await createTopic(topic, { partitions: 1 });
    const credentials = path.join(dir, 'credentials.properties');
    writeFileSync(credentials, 'admin: admin-secret\n');
    const {
      child,
      stderr: logs,
      exited,
      url,
    } = await startRestCli(dir, 'rest-secured', topic, [
      'listeners=https://127.0.0.1:0',
      `listeners.https.ssl.keystore.location=${path.join(TLS, 'broker.p12')}`,
      'listeners.https.ssl.keystore.password=changeit',
      `rest.auth.basic.credentials.file=${credentials}`,
    ]);
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const status = `${url}/connectors/rest-secured/status`;
      const state = async () =>
        (
          JSON.parse((await call(status, 'GET', 'admin:admin-secret')).body) as {
            connector: { state: string };
          }
        ).connector.state;
      await until('the connector RUNNING', state, (s) => s === 'RUNNING');

      const anonymous = await call(`${url}/connectors/rest-secured/pause`, 'PUT');
      expect(anonymous.status).toBe(401);
      expect(anonymous.challenge).toBe('Basic realm="sharesink", charset="UTF-8"');
      const wrong = await call(`${url}/connectors/rest-secured/pause`, 'PUT', 'admin:guess');
      expect(wrong.status).toBe(401);
      expect(JSON.parse(wrong.body)).toEqual({ error_code: 401, message: 'Invalid credentials' });
      expect((await call(`${url}/connectors/rest-secured/stop`, 'PUT', 'nobody:admin-secret')).status).toBe(
        401,
      );
      for (const p of ['/connectors', '/metrics', '/machines'])
        expect((await call(`${url}${p}`, 'GET')).status, p).toBe(401);
      // nothing happened
      expect(await state()).toBe('RUNNING');
      expect((await call(`${url}/health`, 'GET')).status).toBe(200);
      // the refusals are logged with the user name given, never a password
      expect(logs()).toContain('REST request refused: Invalid credentials');
      expect(logs()).not.toContain('guess');

      expect((await call(`${url}/connectors/rest-secured/pause`, 'PUT', 'admin:admin-secret')).status).toBe(
        202,
      );
      expect(await state()).toBe('PAUSED');
      child.kill('SIGTERM');
      expect(await exited, logs()).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
