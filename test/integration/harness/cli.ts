/** Runs the `sharesink` command from the source tree (through tsx), as a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './broker.js';

export interface CliRun {
  readonly child: ChildProcess;
  /** Everything written to stderr so far (logs and error messages). */
  stderr(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
}

export function startCli(args: readonly string[]): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}
