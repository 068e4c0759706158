/**
 * The secured test broker (scripts/kafka/start.sh with KAFKA_SECURE=1): SASL_SSL with SCRAM users,
 * mTLS, ACLs on. The secured-*.test.ts files call `secureBroker()` in `beforeAll`: it starts the broker
 * when it is not running (CI starts it up front), and fails — never skips — when it cannot.
 *
 * Setup (topics, ACLs, producing, reading back) goes through the broker's PLAINTEXT listener, whose
 * principal (User:ANONYMOUS) is a super user; the clients under test use the secured listeners.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  Kafka,
  logLevel,
  Partitioners,
  ResourcePatternTypes,
} from 'kafkajs';
import { portAnswers, REPO_ROOT, runKafkaScript } from './broker.js';
import { startCli, type CliRun } from './cli.js';
import { uniqueGroup, uniqueTopic } from './kafka.js';
import { lines, until } from './wait.js';

/** The base port: PLAINTEXT; the controller is + 1, SASL_SSL + 2, mTLS + 3 (as in scripts/kafka/lib.sh). */
const PORT = Number(process.env.KAFKA_SECURE_PORT ?? 9392);
/** Where start.sh writes the certificates: `$KAFKA_HOME_DIR/secure` (scripts/kafka/lib.sh). */
const DIR = path.join(process.env.KAFKA_HOME_DIR ?? path.join(REPO_ROOT, '.kafka'), 'secure');

/** Fixtures written by start.sh (SCRAM users at format time) and secure-certs.sh (certificates). */
export const SECURE = {
  plaintext: `127.0.0.1:${PORT}`,
  saslSsl: `127.0.0.1:${PORT + 2}`,
  mtls: `127.0.0.1:${PORT + 3}`,
  dir: DIR,
  storePassword: 'changeit',
  /** SCRAM-SHA-512 users (sharesink also has SCRAM-SHA-256); admin is a super user, the others get ACLs per test. */
  users: {
    admin: { username: 'admin', password: 'admin-secret' },
    sharesink: { username: 'sharesink', password: 'sharesink-secret' },
    noacl: { username: 'sharesink-noacl', password: 'noacl-secret' },
  },
  /** The PLAIN user of the SASL_SSL listener (its JAAS config in server-secure.properties.template). */
  plainUser: { username: 'sharesink-plain', password: 'plain-secret' },
  /** Principal of client.pem / client.p12 on the mTLS listener (the certificate's CN). */
  mtlsPrincipal: 'sharesink-mtls',
  file: (name: string): string => path.join(DIR, name),
} as const;

let ready: Promise<void> | undefined;

/** Makes sure the secured broker runs (starting it if needed) and returns its fixtures. */
export async function secureBroker(): Promise<typeof SECURE> {
  ready ??= (async () => {
    const up = await Promise.all([PORT, PORT + 2, PORT + 3].map((p) => portAnswers('127.0.0.1', p)));
    if (up.every(Boolean) && existsSync(path.join(DIR, '.complete'))) return;
    const result = await runKafkaScript('start.sh', { KAFKA_SECURE: '1', KAFKA_PORT: String(PORT) });
    if (result.code !== 0)
      throw new Error(
        `could not start the secured test broker (KAFKA_SECURE=1 scripts/kafka/start.sh exit ${result.code}); ` +
          `it needs Java 17+, Maven, openssl and keytool. Output:\n${result.output}`,
      );
    // start.sh leaves a broker it did not start alone: then its certificates are somewhere else
    if (!existsSync(path.join(DIR, '.complete')))
      throw new Error(
        `a Kafka broker answers on ${SECURE.plaintext} but its certificates are not in ${DIR}: it was started ` +
          'from another checkout or KAFKA_HOME_DIR. Stop it there (KAFKA_SECURE=1 npm run kafka:stop), set ' +
          'KAFKA_HOME_DIR to that .kafka directory, or KAFKA_SECURE_PORT to a free base port.',
      );
  })();
  await ready;
  return SECURE;
}

/** A kafkajs client on the PLAINTEXT listener: a super user, for setup and checks. */
export function secureAdminClient(clientId = 'sharesink-secure-setup'): Kafka {
  return new Kafka({ clientId, brokers: [SECURE.plaintext], logLevel: logLevel.NOTHING });
}

export async function createSecureTopic(topic: string, partitions = 1): Promise<void> {
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions }] });
  } finally {
    await admin.disconnect();
  }
}

export async function deleteSecureTopics(topics: string[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

/** Produces `values` (acks=all), round-robin over the partitions. */
export async function produceSecure(topic: string, values: string[]): Promise<void> {
  const producer = secureAdminClient().producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
  } finally {
    await producer.disconnect();
  }
}

export type Grant = 'topic' | 'group';

/**
 * ACLs for `principal` (e.g. `User:sharesink`): READ and DESCRIBE on the topic; READ, DESCRIBE,
 * DESCRIBE_CONFIGS and ALTER_CONFIGS on the group (a share connector sets the group's start position);
 * WRITE on `writeTopic` (a producer's target).
 */
export async function grant(
  principal: string,
  what: { topic?: string; group?: string; writeTopic?: string },
): Promise<void> {
  const acl = [];
  const entry = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes) => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal,
    host: '*',
    operation,
    permissionType: AclPermissionTypes.ALLOW,
  });
  if (what.topic !== undefined)
    for (const op of [AclOperationTypes.READ, AclOperationTypes.DESCRIBE])
      acl.push(entry(AclResourceTypes.TOPIC, what.topic, op));
  if (what.group !== undefined)
    for (const op of [
      AclOperationTypes.READ,
      AclOperationTypes.DESCRIBE,
      AclOperationTypes.DESCRIBE_CONFIGS,
      AclOperationTypes.ALTER_CONFIGS,
    ])
      acl.push(entry(AclResourceTypes.GROUP, what.group, op));
  if (what.writeTopic !== undefined)
    acl.push(entry(AclResourceTypes.TOPIC, what.writeTopic, AclOperationTypes.WRITE));
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl });
  } finally {
    await admin.disconnect();
  }
}

/**
 * The classic group's committed offsets per partition (empty when it committed nothing). Retried while
 * the group coordinator loads: on a fresh broker the first group request finds it loading, and
 * kafkajs's admin does not retry OffsetFetch for that.
 */
export async function committedOffsets(group: string, topic: string): Promise<Record<number, string>> {
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        const [res] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        return Object.fromEntries(
          (res?.partitions ?? []).filter((p) => p.offset !== '-1').map((p) => [p.partition, p.offset]),
        );
      } catch (err) {
        if (attempt >= 60 || !/coordinator/i.test((err as Error).message)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/** Worker lines for a SCRAM-SHA-512 user over SASL_SSL, trusting the test CA as PEM or as a PKCS12 truststore. */
export function scramClient(
  user: { username: string; password: string },
  truststore: 'pem' | 'pkcs12' | 'rogue' = 'pem',
): string[] {
  return [
    `bootstrap.servers=${SECURE.saslSsl}`,
    'security.protocol=SASL_SSL',
    'sasl.mechanism=SCRAM-SHA-512',
    `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user.username}" password="${user.password}";`,
    ...truststoreLines(truststore),
  ];
}

/** Worker lines for the mTLS listener: the client certificate as PKCS12, as PEM (key + chain, encrypted key), or the rogue CA's. */
export function mtlsClient(identity: 'pkcs12' | 'pem' | 'rogue', pemFile?: string): string[] {
  const keystore =
    identity === 'pkcs12' || identity === 'rogue'
      ? [
          'ssl.keystore.type=PKCS12',
          `ssl.keystore.location=${SECURE.file(identity === 'rogue' ? 'rogue-client.p12' : 'client.p12')}`,
          `ssl.keystore.password=${SECURE.storePassword}`,
        ]
      : [
          'ssl.keystore.type=PEM',
          `ssl.keystore.location=${pemFile}`,
          `ssl.key.password=${SECURE.storePassword}`,
        ];
  return [
    `bootstrap.servers=${SECURE.mtls}`,
    'security.protocol=SSL',
    ...truststoreLines('pem'),
    ...keystore,
  ];
}

function truststoreLines(truststore: 'pem' | 'pkcs12' | 'rogue'): string[] {
  if (truststore === 'pkcs12')
    return [
      'ssl.truststore.type=PKCS12',
      `ssl.truststore.location=${SECURE.file('truststore.p12')}`,
      `ssl.truststore.password=${SECURE.storePassword}`,
    ];
  return [
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${SECURE.file(truststore === 'rogue' ? 'rogue-ca.pem' : 'ca.pem')}`,
  ];
}

/**
 * `sharesink standalone` (the real CLI) with `client` worker lines and one FileStreamSink connector
 * writing `topic`'s values, one per line, to `file`.
 */
export function startSecuredCli(o: {
  dir: string;
  name: string;
  topic: string;
  group: string;
  mode: 'share' | 'classic';
  file: string;
  client: readonly string[];
}): CliRun {
  const worker = `${o.dir}/${o.name}-worker.properties`;
  const connector = `${o.dir}/${o.name}.properties`;
  writeFileSync(worker, [...o.client, 'pool.threads=1', 'bootstrap.timeout.ms=60000'].join('\n'));
  writeFileSync(
    connector,
    [
      `name=${o.name}`,
      'connector.class=FileStreamSink',
      `topics=${o.topic}`,
      `file=${o.file}`,
      'tasks.max=2',
      `consumer.override.group.protocol=${o.mode}`,
      `consumer.override.group.id=${o.group}`,
      'value.converter=org.apache.kafka.connect.storage.StringConverter',
    ].join('\n'),
  );
  return startCli(['standalone', worker, connector]);
}

/**
 * A new secured topic (2 partitions, pushed to `topics` for cleanup) holding `n` records
 * `<prefix>-<i>`, and a new group name; `grantTo` (a principal) gets what a connector needs on both,
 * except what `acls` leaves out (`{ group: false }`: nothing on the group).
 */
export async function secureTopicWithRecords(
  topics: string[],
  prefix: string,
  n: number,
  grantTo?: string,
  acls: { topic?: boolean; group?: boolean } = {},
): Promise<{ topic: string; group: string; values: string[] }> {
  const topic = uniqueTopic(prefix);
  topics.push(topic);
  await createSecureTopic(topic, 2);
  const values = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  await produceSecure(topic, values);
  const group = uniqueGroup(prefix);
  if (grantTo !== undefined)
    await grant(grantTo, {
      ...(acls.topic === false ? {} : { topic }),
      ...(acls.group === false ? {} : { group }),
    });
  return { topic, group, values };
}

/** {@link startSecuredCli} run to its exit: the code, the last stderr line, how long it took, stderr. */
export async function runSecuredCliToExit(
  o: Parameters<typeof startSecuredCli>[0],
): Promise<{ code: number | null; last: string; ms: number; file: string; stderr: string }> {
  const started = Date.now();
  const run = startSecuredCli(o);
  const code = await run.exited;
  const stderr = run.stderr();
  return {
    code,
    last: stderr.trim().split('\n').at(-1) ?? '',
    ms: Date.now() - started,
    file: o.file,
    stderr,
  };
}

/**
 * {@link startSecuredCli} until its file holds as many lines as `values`, then SIGTERM: it must still be
 * running then, stop with exit 0, have written every value exactly once, and never print the password.
 */
export async function runSecuredCliToAllRecords(
  o: Parameters<typeof startSecuredCli>[0],
  values: readonly string[],
): Promise<void> {
  const run = startSecuredCli(o);
  try {
    await until(
      `${values.length} lines in ${o.file}`,
      () => lines(o.file).length,
      (n) => n >= values.length || run.child.exitCode !== null,
      90_000,
    );
    expect(run.child.exitCode, run.stderr()).toBeNull();
    run.child.kill('SIGTERM');
    expect(await run.exited, run.stderr()).toBe(0);
  } finally {
    if (run.child.exitCode === null) run.child.kill('SIGKILL');
  }
  expect(lines(o.file).sort()).toEqual([...values].sort());
  expect(run.stderr()).not.toContain(SECURE.users.sharesink.password);
}
