/**
 * The secured test broker (scripts/kafka/start.sh with KAFKA_SECURE=1): SASL_SSL with SCRAM users,
 * mTLS, ACLs on. The secured-*.test.ts files call `secureBroker()` in `beforeAll`: it starts the broker
 * when it is not running (CI starts it up front), and fails — never skips — when it cannot.
 *
 * Setup (topics, ACLs, producing, reading back) goes through the broker's PLAINTEXT listener, whose
 * principal (User:ANONYMOUS) is a super user; the clients under test use the secured listeners.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
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

/** The base port: PLAINTEXT; the controller is + 1, SASL_SSL + 2, mTLS + 3 (as in scripts/kafka/lib.sh). */
const PORT = Number(process.env.KAFKA_SECURE_PORT ?? 9392);
const DIR = path.join(REPO_ROOT, '.kafka', 'secure');

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
 * DESCRIBE_CONFIGS and ALTER_CONFIGS on the group (a share connector sets the group's start position).
 */
export async function grant(principal: string, what: { topic?: string; group?: string }): Promise<void> {
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
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    await admin.createAcls({ acl });
  } finally {
    await admin.disconnect();
  }
}

/** The classic group's committed offsets per partition (empty when it committed nothing). */
export async function committedOffsets(group: string, topic: string): Promise<Record<number, string>> {
  const admin = secureAdminClient().admin();
  await admin.connect();
  try {
    const [res] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return Object.fromEntries(
      (res?.partitions ?? []).filter((p) => p.offset !== '-1').map((p) => [p.partition, p.offset]),
    );
  } finally {
    await admin.disconnect();
  }
}

/** A file's lines (none when it does not exist yet). */
export function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}
