/** `sharesink distributed` worker processes for the cluster tests: one worker file per worker, real CLI. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './broker.js';
import { testBrokers, uniqueName } from './kafka.js';
import { until } from './wait.js';

export interface DistributedWorkerRun {
  readonly name: string;
  readonly child: ChildProcess;
  readonly url: string;
  stderr(): string;
  readonly exited: Promise<number | null>;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

export interface ClusterSpec {
  readonly groupId: string;
  readonly configTopic: string;
  readonly statusTopic: string;
  readonly dir: string;
  /** Extra worker lines (every worker). */
  readonly extra: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export function clusterSpec(
  prefix: string,
  extra: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): ClusterSpec {
  const groupId = uniqueName(prefix);
  return {
    groupId,
    configTopic: `${groupId}-configs`,
    statusTopic: `${groupId}-status`,
    dir: mkdtempSync(path.join(tmpdir(), `${prefix}-`)),
    extra,
    env,
  };
}

export function workerFile(spec: ClusterSpec, name: string): string {
  const file = path.join(spec.dir, `${name}.properties`);
  writeFileSync(
    file,
    [
      `bootstrap.servers=${testBrokers()}`,
      `group.id=${spec.groupId}`,
      `config.storage.topic=${spec.configTopic}`,
      `status.storage.topic=${spec.statusTopic}`,
      'config.storage.replication.factor=1',
      'status.storage.replication.factor=1',
      'status.storage.partitions=2',
      'listeners=http://127.0.0.1:0',
      'session.timeout.ms=6000',
      'heartbeat.interval.ms=1000',
      'rebalance.timeout.ms=10000',
      'scheduled.rebalance.max.delay.ms=0',
      'pool.threads=1',
      'config.providers=env',
      ...spec.extra,
    ].join('\n'),
  );
  return file;
}

/** Starts one worker; resolves once its REST URL is in the log and it holds an assignment. */
export async function startWorker(spec: ClusterSpec, name: string): Promise<DistributedWorkerRun> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/bin.ts', 'distributed', workerFile(spec, name)],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...spec.env },
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let url: string | undefined;
  try {
    url = await until(
      `${name}: REST URL in the log`,
      () => /"url":"(https?:[^"]+)"/.exec(stderr)?.[1],
      (u) => u !== undefined || child.exitCode !== null,
      60_000,
    );
    if (url === undefined) throw new Error(`${name} exited: ${stderr.slice(-3000)}`);
    await until(
      `${name}: first assignment`,
      () => stderr.includes('"msg":"assignment received"') || child.exitCode !== null,
      (ok) => ok,
      60_000,
    );
    if (child.exitCode !== null) throw new Error(`${name} exited: ${stderr.slice(-3000)}`);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  return {
    name,
    child,
    url: url!,
    stderr: () => stderr,
    exited,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export { api } from './rest-client.js';
