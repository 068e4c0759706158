// Share and classic connectors, run by the real `sharesink standalone`, reading the secured test broker
// over SASL_SSL (SCRAM-SHA-512) and over mTLS, with ACLs granted to exactly their topic and group: every
// record is written once, and the worker stops cleanly. The SASL_SSL runs start with one ACL missing
// (the group in share mode, the topic in classic mode): one line naming it, exit 1, nothing written,
// acknowledged or committed; the run after the grant then reads every record. The trust and client
// certificates come in the forms users have them: PEM and PKCS12 truststores, a PKCS12 keystore, a
// PEM key (encrypted) + chain.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
  runSecuredCliToAllRecords,
  runSecuredCliToExit,
  SECURE,
  secureTopicWithRecords,
} from './harness/secure-broker.js';
import { lines } from './harness/wait.js';

const N = 40;
const dir = mkdtempSync(path.join(tmpdir(), 'sharesink-secured-'));
const topics: string[] = [];

beforeAll(async () => {
  await secureBroker();
});
afterAll(async () => {
  await deleteSecureTopics(topics);
});

/** A topic with N records on 2 partitions, and ACLs for `principal` on it and on the group (unless left out). */
const setup = (prefix: string, principal: string, acls: { topic?: boolean; group?: boolean } = {}) =>
  secureTopicWithRecords(topics, prefix, N, principal, acls);

const runToEnd = (
  name: string,
  mode: 'share' | 'classic',
  client: readonly string[],
  s: { topic: string; group: string; values: string[] },
) =>
  runSecuredCliToAllRecords(
    { dir, name, topic: s.topic, group: s.group, mode, file: path.join(dir, `${name}.out`), client },
    s.values,
  );

const sharesinkUser = `User:${SECURE.users.sharesink.username}`;

/** Runs the CLI to its exit: the code, the last stderr line, the sink file. */
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
const mtlsUser = `User:${SECURE.mtlsPrincipal}`;

describe('SASL_SSL with SCRAM-SHA-512, and a missing ACL first (authorisation)', () => {
  it('share: no ACL on the group → one line naming group and principal, exit 1, nothing acknowledged; granted, every record (PEM truststore)', async () => {
    const s = await setup('sasl-share', sharesinkUser, { group: false });
    const client = scramClient(SECURE.users.sharesink, 'pem');
    const r = await failingRun('sasl-share-denied', 'share', client, s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: not authorized: GROUP_AUTHORIZATION_FAILED for group ${s.group} (the group of connector sasl-share-denied); ${sharesinkUser} needs READ on group ${s.group} (an ALLOW ACL, and no DENY ACL, which wins), e.g. kafka-acls.sh --bootstrap-server … --add --allow-principal ${sharesinkUser} --operation Read --group ${s.group}`,
    );
    expect(lines(r.file)).toEqual([]);
    // the same share group: a record acknowledged by the failed start would not come again
    await grant(sharesinkUser, { group: s.group });
    await runToEnd('sasl-share', 'share', client, s);
  });

  it('classic: no ACL on the topic → one line naming topic and principal, exit 1, nothing committed; granted, every record (PKCS12 truststore)', async () => {
    const s = await setup('sasl-classic', sharesinkUser, { topic: false });
    const client = scramClient(SECURE.users.sharesink, 'pkcs12');
    const r = await failingRun('sasl-classic-denied', 'classic', client, s);
    expect(r.code, r.stderr).toBe(1);
    expect(r.last).toBe(
      `sharesink: not authorized: TOPIC_AUTHORIZATION_FAILED for topic ${s.topic} (read by connector sasl-classic-denied); ${sharesinkUser} needs READ (and DESCRIBE) on topic ${s.topic} (an ALLOW ACL, and no DENY ACL, which wins), e.g. kafka-acls.sh --bootstrap-server … --add --allow-principal ${sharesinkUser} --operation Read --topic ${s.topic}`,
    );
    expect(lines(r.file)).toEqual([]);
    expect(await committedOffsets(s.group, s.topic)).toEqual({});
    await grant(sharesinkUser, { topic: s.topic });
    await runToEnd('sasl-classic', 'classic', client, s);
  });
});

describe('mTLS (SSL with a client certificate)', () => {
  it('a share connector writes every record (PKCS12 keystore)', async () => {
    const s = await setup('mtls-share', mtlsUser);
    await runToEnd('mtls-share', 'share', mtlsClient('pkcs12'), s);
  });

  it('a classic connector writes every record (PEM keystore: encrypted key + chain, ssl.key.password)', async () => {
    const s = await setup('mtls-classic', mtlsUser);
    const pem = path.join(dir, 'client-key-and-chain.pem');
    writeFileSync(
      pem,
      readFileSync(SECURE.file('client.key.enc.pem'), 'utf8') +
        readFileSync(SECURE.file('client-chain.pem'), 'utf8'),
    );
    await runToEnd('mtls-classic', 'classic', mtlsClient('pem', pem), s);
  });
});
