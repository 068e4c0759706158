/** Runs the `sharesink` command from the source tree (through tsx), as a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './broker.js';
import { testBrokers } from './kafka.js';
import { until } from './wait.js';

export interface CliRun {
  readonly child: ChildProcess;
  /** Everything written to stderr so far (logs and error messages). */
  stderr(): string;
  /** Everything written to stdout so far (what `validate` reports). */
  stdout(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

export function startCli(args: readonly string[]): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  // 'close', not 'exit': the pipes are drained by then
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}

/**
 * `sharesink standalone` with the REST API on a free port and one connector `name` on `topic` (config
 * files written to `dir`; by default a share-mode NoopSink, else the `connector` lines); resolves once
 * the log names the API's URL. `worker` lines come last, so they may replace the listener
 * (`listeners=https://127.0.0.1:0`).
 */
export async function startRestCli(
  dir: string,
  name: string,
  topic: string,
  worker: readonly string[] = [],
  connector: readonly string[] = [
    'connector.class=NoopSink',
    'consumer.override.group.protocol=share',
    'share.group.share.auto.offset.reset=earliest',
  ],
): Promise<CliRun & { readonly url: string }> {
  const workerFile = path.join(dir, `worker-${name}.properties`);
  writeFileSync(
    workerFile,
    [`bootstrap.servers=${testBrokers()}`, 'listeners=http://127.0.0.1:0', 'pool.threads=1', ...worker].join(
      '\n',
    ),
  );
  const connectorFile = path.join(dir, `${name}.properties`);
  writeFileSync(connectorFile, [`name=${name}`, `topics=${topic}`, ...connector].join('\n'));
  const run = startCli(['standalone', workerFile, connectorFile]);
  try {
    // not a terminal: JSON logs at info, one of which names the URL
    const url = await until(
      'the REST URL in the log',
      () => /"url":"(https?:[^"]+)"/.exec(run.stderr())?.[1],
      (u) => u !== undefined,
    );
    return { ...run, url: url! };
  } catch (err) {
    run.child.kill('SIGKILL');
    throw err;
  }
}
