// The secured test broker itself (scripts/kafka/start.sh with KAFKA_SECURE=1), with a plain kafkajs
// client: what the secured-*.test.ts files rely on holds — SCRAM users from format time, the CA's
// certificates, mTLS principals from the certificate's CN, and ACLs that deny what was not granted.
import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueGroup, uniqueTopic } from './harness/kafka.js';
import {
  createSecureTopic,
  deleteSecureTopics,
  grant,
  produceSecure,
  secureBroker,
  SECURE,
} from './harness/secure-broker.js';

const topic = uniqueTopic('secured-broker');

beforeAll(async () => {
  await secureBroker();
  await createSecureTopic(topic);
  await produceSecure(topic, ['a', 'b', 'c']);
});
afterAll(async () => {
  await deleteSecureTopics([topic]);
});

const ca = () => readFileSync(SECURE.file('ca.pem'), 'utf8');

/** Fetches `topic`'s metadata with the given client settings; resolves with the error name, or 'ok'. */
async function metadata(config: Omit<KafkaConfig, 'clientId' | 'logLevel'>): Promise<string> {
  const admin = new Kafka({
    clientId: 'secured-broker-test',
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
    ...config,
  }).admin();
  try {
    await admin.connect();
    await admin.fetchTopicMetadata({ topics: [topic] });
    return 'ok';
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

const scram = (username: string, password: string) => ({
  brokers: [SECURE.saslSsl],
  ssl: { ca: [ca()] },
  sasl: { mechanism: 'scram-sha-512' as const, username, password },
});

describe('the secured broker', () => {
  it('SASL_SSL: SCRAM-SHA-512 users authenticate; a wrong password is refused as an authentication failure', async () => {
    expect(await metadata(scram(SECURE.users.admin.username, SECURE.users.admin.password))).toBe('ok');
    expect(await metadata(scram(SECURE.users.sharesink.username, 'wrong'))).toMatch(
      /^KafkaJSSASLAuthenticationError: .*invalid credentials with SASL mechanism SCRAM-SHA-512/,
    );
  });

  it("SASL_SSL: a client that does not trust the broker's CA fails the TLS handshake", async () => {
    expect(
      await metadata({
        ...scram('admin', 'admin-secret'),
        ssl: { ca: [readFileSync(SECURE.file('rogue-ca.pem'), 'utf8')] },
      }),
    ).toMatch(/self-signed certificate in certificate chain/);
  });

  it('ACLs: a user without a grant is denied the topic; a grant lets it in', async () => {
    const user = scram(SECURE.users.sharesink.username, SECURE.users.sharesink.password);
    expect(await metadata(user)).toMatch(/not authorized|TOPIC_AUTHORIZATION_FAILED/i);
    await grant(`User:${SECURE.users.sharesink.username}`, { topic, group: uniqueGroup('g') });
    expect(await metadata(user)).toBe('ok');
  });

  it('mTLS: the CA-signed client certificate is User:sharesink-mtls; no or a foreign certificate fails the handshake', async () => {
    const mtls = (cert: string, key: string) => ({
      brokers: [SECURE.mtls],
      ssl: {
        ca: [ca()],
        cert: readFileSync(SECURE.file(cert), 'utf8'),
        key: readFileSync(SECURE.file(key), 'utf8'),
      },
    });
    // the principal comes from the CN: denied until granted by that name
    expect(await metadata(mtls('client.pem', 'client.key'))).toMatch(
      /not authorized|TOPIC_AUTHORIZATION_FAILED/i,
    );
    await grant(`User:${SECURE.mtlsPrincipal}`, { topic });
    expect(await metadata(mtls('client.pem', 'client.key'))).toBe('ok');
    expect(await metadata({ brokers: [SECURE.mtls], ssl: { ca: [ca()] } })).toMatch(
      /alert|certificate|ECONNRESET/i,
    );
    expect(await metadata(mtls('rogue-client.pem', 'rogue-client.key'))).toMatch(
      /alert|certificate|ECONNRESET/i,
    );
  });
});
