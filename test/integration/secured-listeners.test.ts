// Operators' mistakes against the secured test broker, from the real `sharesink standalone`:
//
// - a client and a listener that disagree on security.protocol (TLS to the plaintext port, SASL_PLAINTEXT
//   to the SASL_SSL port, SSL without SASL to the SASL_SSL port): one line naming the mismatch and the
//   setting, exit 1, at once — not 10 s of "cannot reach the cluster" or a bare "Closed connection";
// - bootstrap.servers naming the broker as `localhost` while it advertises 127.0.0.1: the share group's
//   coordinator is "another" broker, which the start-up check must reach with the same TLS and SASL;
// - a classic connector's dead-letter topic the principal may not create: the task fails with the grant,
//   not kafkajs's "Topic creation errors".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './harness/cli.js';
import { uniqueTopic } from './harness/kafka.js';
import {
  deleteSecureTopics,
  scramClient,
  secureBroker,
  runSecuredCliToAllRecords,
  runSecuredCliToExit,
  SECURE,
  secureTopicWithRecords,
} from './harness/secure-broker.js';
import { lines } from './harness/wait.js';

const N = 20;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-secured-listeners-'));
const topics: string[] = [];
const sharesinkUser = `User:${SECURE.users.sharesink.username}`;

beforeAll(async () => {
  await secureBroker();
});
afterAll(async () => {
  await deleteSecureTopics(topics);
});

const topicWithRecords = (prefix: string) => secureTopicWithRecords(topics, prefix, N, sharesinkUser);

const failingRun = (name: string, client: readonly string[], s: { topic: string; group: string }) =>
  runSecuredCliToExit({
    dir,
    name,
    topic: s.topic,
    group: s.group,
    mode: 'share',
    file: path.join(dir, `${name}.out`),
    client,
  });

/** `client` with bootstrap.servers replaced. */
const at = (client: readonly string[], address: string) =>
  client.map((l) => (l.startsWith('bootstrap.servers=') ? `bootstrap.servers=${address}` : l));

describe('security.protocol and the listener disagree', () => {
  it('SASL_SSL to the PLAINTEXT port: not a TLS listener, said at once; exit 1', async () => {
    const s = await topicWithRecords('tls-to-plain');
    const r = await failingRun('tls-to-plain', at(scramClient(SECURE.users.sharesink), SECURE.plaintext), s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: TLS handshake with ${SECURE.plaintext} failed (the listener answered a plaintext Kafka request): the listener does not speak TLS. Check the port in bootstrap.servers and security.protocol: SSL and SASL_SSL are for TLS listeners, PLAINTEXT and SASL_PLAINTEXT for the others`,
    );
    // not after bootstrap.timeout.ms (60 s here; under 30 s leaves room for a loaded machine) of retrying
    expect(r.ms).toBeLessThan(30_000);
    expect(r.stderr).not.toContain('cannot reach the Kafka cluster');
    expect(lines(r.file)).toEqual([]);
  });

  it('SASL_PLAINTEXT to the SASL_SSL port: a TLS listener, said at once; exit 1', async () => {
    const s = await topicWithRecords('plain-to-tls');
    const client = scramClient(SECURE.users.sharesink)
      .filter((l) => !l.startsWith('ssl.'))
      .map((l) => (l === 'security.protocol=SASL_SSL' ? 'security.protocol=SASL_PLAINTEXT' : l));
    const r = await failingRun('plain-to-tls', client, s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: the listener at ${SECURE.saslSsl} speaks TLS and this client does not (security.protocol=SASL_PLAINTEXT): it closed the connection at the first plaintext request. Set security.protocol=SASL_SSL and trust the broker's CA (ssl.truststore.location, PEM or PKCS12), or point bootstrap.servers at the listener meant for SASL_PLAINTEXT`,
    );
    expect(r.ms).toBeLessThan(30_000);
    expect(r.stderr).not.toContain(SECURE.users.sharesink.password);
  });

  it('SSL without SASL to the SASL_SSL port: the listener wants SASL, and which mechanisms; exit 1', async () => {
    const s = await topicWithRecords('ssl-to-sasl');
    const client = scramClient(SECURE.users.sharesink)
      .filter((l) => !l.startsWith('sasl.'))
      .map((l) => (l === 'security.protocol=SASL_SSL' ? 'security.protocol=SSL' : l));
    const r = await failingRun('ssl-to-sasl', client, s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toMatch(
      new RegExp(
        `^sharesink: the listener at ${SECURE.saslSsl} requires SASL authentication \\(it enables [A-Z0-9-, ]*SCRAM-SHA-512[A-Z0-9-, ]*\\), and security.protocol=SSL does not authenticate: the broker closed the connection\\. Set security\\.protocol=SASL_SSL with sasl\\.mechanism`,
      ),
    );
    expect(r.ms).toBeLessThan(30_000);
  });
});

describe('bootstrap.servers names the broker by another name than it advertises', () => {
  it('localhost:<SASL_SSL port> (advertised as 127.0.0.1): a share connector reads every record', async () => {
    const s = await topicWithRecords('by-localhost');
    const name = 'by-localhost';
    const client = at(scramClient(SECURE.users.sharesink), SECURE.saslSsl.replace('127.0.0.1', 'localhost'));
    const file = path.join(dir, `${name}.out`);
    await runSecuredCliToAllRecords(
      { dir, name, topic: s.topic, group: s.group, mode: 'share', file, client },
      s.values,
    );
  });
});

describe("a classic connector's dead-letter topic", () => {
  it('that the principal may not create: the task fails naming the topic, the principal and the grant', async () => {
    const s = await topicWithRecords('dlq-acl');
    const dlq = uniqueTopic('dlq-acl-dead');
    const worker = path.join(dir, 'dlq-acl-worker.properties');
    const connector = path.join(dir, 'dlq-acl.properties');
    writeFileSync(
      worker,
      [...scramClient(SECURE.users.sharesink), 'pool.threads=1', 'bootstrap.timeout.ms=60000'].join('\n'),
    );
    writeFileSync(
      connector,
      [
        'name=dlq-acl',
        'connector.class=FileStreamSink',
        `topics=${s.topic}`,
        `file=${path.join(dir, 'dlq-acl.out')}`,
        'consumer.override.group.protocol=classic',
        `consumer.override.group.id=${s.group}`,
        'errors.tolerance=all',
        `errors.deadletterqueue.topic.name=${dlq}`,
        'errors.deadletterqueue.topic.replication.factor=1',
      ].join('\n'),
    );
    const run = startCli(['standalone', worker, connector]);
    try {
      expect(await run.exited, run.stderr()).toBe(1);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
    expect(run.stderr()).not.toContain('Topic creation errors');
    expect(run.stderr()).toContain(
      `not authorized: TOPIC_AUTHORIZATION_FAILED for topic ${dlq} (the dead-letter topic of connector dlq-acl: it does not exist and may not be created, or this principal may not see it); ${sharesinkUser} needs WRITE and CREATE on topic ${dlq}`,
    );
  });
});
