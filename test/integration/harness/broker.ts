// Finding or starting the test broker. Used by global-setup.ts (main vitest process); tests use
// kafka.ts, which reads what global-setup provided.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiKey, apiVersions, parseBroker } from './wire.js';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const KAFKA_SCRIPTS_DIR = path.join(REPO_ROOT, 'scripts', 'kafka');
export const DEFAULT_KAFKA_VERSION = '4.4.0';

export interface BrokerInfo {
  /** bootstrap address, e.g. 127.0.0.1:9092 */
  brokers: string;
  /** Kafka version of the jars in classpathFile (and of the broker, when we started it) */
  version: string;
  /** file holding the java -cp value for Kafka's broker and tools jars */
  classpathFile: string;
  /** how we got the broker: started now, reused a running one, or given by SHARESINK_TEST_BROKERS */
  origin: 'started' | 'reused' | 'external';
}

export function portAnswers(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.on('connect', () => finish(true));
    socket.on('error', () => finish(false));
  });
}

interface ScriptResult {
  code: number;
  output: string;
}

/** Runs a scripts/kafka/*.sh script, echoing its output to stderr as it comes. */
export function runKafkaScript(name: string, env: NodeJS.ProcessEnv = {}): Promise<ScriptResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [path.join(KAFKA_SCRIPTS_DIR, name)], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      process.stderr.write(chunk);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** What start.sh recorded about the broker it runs on this port, if any. */
function readStateFile(port: number): { version?: string; classpathFile?: string } | undefined {
  const file = path.join(REPO_ROOT, '.kafka', 'run', `broker-${port}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { version?: string; classpathFile?: string };
  } catch {
    return undefined;
  }
}

async function resolveClasspath(version: string): Promise<string> {
  const result = await runKafkaScript('classpath.sh', { KAFKA_VERSION: version });
  const file = result.output.trim().split('\n').pop() ?? '';
  if (result.code !== 0 || !existsSync(file)) {
    throw new Error(
      `could not resolve the Kafka ${version} jars (scripts/kafka/classpath.sh exit ${result.code}):\n${result.output}`,
    );
  }
  return file;
}

/** ApiVersions, retried for a while: a broker that opened its port may still be starting. */
async function apiVersionsWithRetry(
  brokers: string,
  deadlineMs = 30_000,
): Promise<Awaited<ReturnType<typeof apiVersions>>> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await apiVersions(brokers, 3_000);
    } catch (err) {
      if (Date.now() > deadline) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new Error(
          `something listens on ${brokers} but did not answer a Kafka ApiVersions request for ` +
            `${deadlineMs / 1000} s (${reason}). Is it a Kafka broker? Set KAFKA_PORT to a free port ` +
            'to let the harness start one, or SHARESINK_TEST_BROKERS to a working broker.',
          { cause: err },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function assertShareGroupsOn(brokers: string): Promise<void> {
  const apis = await apiVersionsWithRetry(brokers);
  const missing = [ApiKey.ShareGroupHeartbeat, ApiKey.ShareFetch, ApiKey.ShareAcknowledge].filter(
    (k) => !apis.has(k),
  );
  if (missing.length > 0) {
    throw new Error(
      `the broker at ${brokers} does not advertise the share-group APIs ${missing.join(', ')}: ` +
        'share groups need Kafka >= 4.2 (or 4.1 with share.version=1)',
    );
  }
}

/**
 * Returns a usable broker: SHARESINK_TEST_BROKERS if set, else the broker answering on
 * 127.0.0.1:${KAFKA_PORT:-9092}, else one started with scripts/kafka/start.sh. Throws with the
 * reason when none can be had: integration tests are never skipped.
 */
export async function ensureBroker(): Promise<BrokerInfo> {
  const requestedVersion = process.env.KAFKA_VERSION ?? DEFAULT_KAFKA_VERSION;
  const external = process.env.SHARESINK_TEST_BROKERS;
  if (external) {
    const { host, port } = parseBroker(external);
    if (!(await portAnswers(host, port))) {
      throw new Error(`SHARESINK_TEST_BROKERS=${external} is set but nothing answers on ${host}:${port}`);
    }
    await assertShareGroupsOn(external);
    return {
      brokers: external,
      version: requestedVersion,
      classpathFile: await resolveClasspath(requestedVersion),
      origin: 'external',
    };
  }

  const port = Number(process.env.KAFKA_PORT ?? 9092);
  const brokers = `127.0.0.1:${port}`;
  let origin: BrokerInfo['origin'] = 'reused';
  if (!(await portAnswers('127.0.0.1', port))) {
    origin = 'started';
    const result = await runKafkaScript('start.sh', {
      KAFKA_PORT: String(port),
      KAFKA_VERSION: requestedVersion,
    });
    if (result.code !== 0) {
      throw new Error(
        `could not start the test broker (scripts/kafka/start.sh exit ${result.code}). ` +
          `Integration tests need a Kafka broker with share groups: install Java 17+ and Maven 3.8+, ` +
          `or set SHARESINK_TEST_BROKERS. Output:\n${result.output}`,
      );
    }
  }
  await assertShareGroupsOn(brokers);
  const state = readStateFile(port);
  const version = state?.version ?? requestedVersion;
  const classpathFile =
    state?.classpathFile && existsSync(state.classpathFile)
      ? state.classpathFile
      : await resolveClasspath(version);
  return { brokers, version, classpathFile, origin };
}
