// What a user sees when the secured cluster refuses, from the real `sharesink standalone`: a wrong
// password (authentication), an untrusted broker certificate or a foreign client certificate (TLS).
// Each ends in one line naming the cause and exit code 1, quickly (no waiting out bootstrap.timeout.ms),
// and nothing is written or committed. The missing-ACL cases (authorisation), with the run that follows
// the grant and reads every record, are in secured-connectors.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  committedOffsets,
  deleteSecureTopics,
  grant,
  mtlsClient,
  scramClient,
  secureBroker,
  runSecuredCliToExit,
  SECURE,
  secureTopicWithRecords,
} from './harness/secure-broker.js';
import { lines } from './harness/wait.js';

const N = 20;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-secured-failures-'));
const topics: string[] = [];
const sharesinkUser = `User:${SECURE.users.sharesink.username}`;

beforeAll(async () => {
  await secureBroker();
});
afterAll(async () => {
  await deleteSecureTopics(topics);
});

const topicWithRecords = (prefix: string) => secureTopicWithRecords(topics, prefix, N);

/** Runs the CLI to its exit: the exit code, the last stderr line, how long it took, and the sink file. */
const failingRun = (
  name: string,
  mode: 'share' | 'classic',
  client: readonly string[],
  s: { topic: string; group: string },
) =>
  runSecuredCliToExit({
    dir,
    name,
    topic: s.topic,
    group: s.group,
    mode,
    file: path.join(dir, `${name}.out`),
    client,
  });

function expectNothingDone(r: { file: string; stderr: string }): void {
  expect(lines(r.file)).toEqual([]);
  // one plain line at the end; no task was started, so no task failed
  expect(r.stderr).not.toContain('"msg":"task failed"');
}

describe('authentication', () => {
  it('a wrong password: one line naming authentication, the user and the mechanism; exit 1', async () => {
    const s = await topicWithRecords('wrong-password');
    await grant(sharesinkUser, s);
    const r = await failingRun(
      'wrong-password',
      'share',
      scramClient({ username: 'sharesink', password: 'not-it' }),
      s,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: authentication failed at ${SECURE.saslSsl}: the broker refused SCRAM-SHA-512 user "sharesink" (invalid credentials). Check the user name and password in sasl.jaas.config, and that the cluster has this user for SCRAM-SHA-512 (sasl.mechanism)`,
    );
    expect(r.last).not.toContain('not-it');
    expect(r.stderr).not.toContain('not-it');
    expect(r.ms).toBeLessThan(20_000);
    expectNothingDone(r);
  });
});

describe('TLS', () => {
  it("the broker's certificate from a CA the client does not trust: one line naming TLS and the truststore; exit 1", async () => {
    const s = await topicWithRecords('untrusted-broker');
    await grant(sharesinkUser, s);
    const r = await failingRun(
      'untrusted-broker',
      'classic',
      scramClient(SECURE.users.sharesink, 'rogue'),
      s,
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: TLS handshake with ${SECURE.saslSsl} failed (self-signed certificate in certificate chain): the client does not trust the broker's certificate. Trust the CA that signed it: ssl.truststore.location (PEM or PKCS12, with ssl.truststore.password) or ssl.truststore.certificates; without them only Node's default CAs are trusted`,
    );
    // said at once, not after bootstrap.timeout.ms (60 s here; under 30 s leaves room for a loaded machine) of "cannot reach"
    expect(r.ms).toBeLessThan(30_000);
    expect(r.stderr).not.toContain('cannot reach the Kafka cluster');
    expectNothingDone(r);
    expect(await committedOffsets(s.group, s.topic)).toEqual({});
  });

  it('mTLS with a client certificate the broker does not trust: one line naming TLS and the keystore; exit 1', async () => {
    const s = await topicWithRecords('rogue-client');
    await grant(`User:${SECURE.mtlsPrincipal}`, s);
    const r = await failingRun('rogue-client', 'share', mtlsClient('rogue'), s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toMatch(
      new RegExp(
        `^sharesink: TLS handshake with ${SECURE.mtls} failed \\(.*(certificate unknown|bad certificate|unknown ca).*\\): the broker refused this client's certificate`,
      ),
    );
    expect(r.ms).toBeLessThan(30_000);
    expectNothingDone(r);
  });
});
