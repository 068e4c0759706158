/**
 * The worker process of a check run: `sharesink check-worker`, which is `sharesink standalone` with
 * the kit's hook installed (hooked connector, broker connections through the relays). A child process
 * so that a fault can be a real `kill -9`.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SharesinkError } from '../../errors.js';
import { CONTROL_ENV, INNER_CLASS_ENV, REDIRECT_ENV } from './control.js';
import type { RedirectMap } from './redirect.js';

// sources run under tsx in tests and `npx tsx src/cli/bin.ts`, as .js once built
const EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const BIN = fileURLToPath(new URL(`../../cli/bin${EXT}`, import.meta.url));

export interface WorkerSpec {
  readonly dir: string;
  readonly worker: Readonly<Record<string, string>>;
  /** The connector as the runtime runs it: connector.class is already the hooked connector. */
  readonly connector: Readonly<Record<string, string>>;
  readonly innerClass: string;
  readonly redirects: RedirectMap;
  readonly cwd: string;
  /** How long to wait for "connector started". */
  readonly startTimeoutMs: number;
}

export interface CheckWorker {
  readonly pid: number;
  readonly logFile: string;
  exitCode(): number | null | undefined;
  readonly exited: Promise<number | null>;
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after timeoutMs; resolves with the exit code. */
  stop(timeoutMs: number): Promise<number | null>;
  logTail(lines?: number): string;
}

const properties = (props: Readonly<Record<string, string>>): string =>
  Object.entries(props)
    .map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}`)
    .join('\n') + '\n';

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

let started = 0;

export async function startCheckWorker(spec: WorkerSpec): Promise<CheckWorker> {
  const n = ++started;
  const workerFile = path.join(spec.dir, `worker.properties`);
  const connectorFile = path.join(spec.dir, `connector.properties`);
  writeFileSync(workerFile, properties(spec.worker));
  writeFileSync(connectorFile, properties(spec.connector));
  const logFile = path.join(spec.dir, `worker-${n}.log`);
  const fd = openSync(logFile, 'a');
  const loader = EXT === '.ts' ? ['--import', 'tsx'] : [];
  let child;
  try {
    child = spawn(
      process.execPath,
      [
        ...loader,
        BIN,
        'check-worker',
        workerFile,
        connectorFile,
        '--log-level',
        'info',
        '--log-format',
        'json',
      ],
      {
        cwd: spec.cwd,
        stdio: ['ignore', fd, fd],
        env: {
          ...process.env,
          [CONTROL_ENV]: spec.dir,
          [INNER_CLASS_ENV]: spec.innerClass,
          [REDIRECT_ENV]: JSON.stringify(spec.redirects),
        },
      },
    );
  } finally {
    closeSync(fd);
  }
  const proc = child;
  if (proc.pid === undefined)
    throw new SharesinkError(
      'SHARESINK_CHECK_RUN_FAILED',
      'sharesink check: could not start a worker process',
    );
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const logTail = (lines = 20): string => readText(logFile).split('\n').slice(-lines).join('\n');
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  const w: CheckWorker = {
    pid: proc.pid,
    logFile,
    exited,
    exitCode: () => (alive() ? undefined : proc.exitCode),
    logTail,
    async kill9() {
      if (alive()) proc.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs) {
      if (!alive()) return proc.exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const deadline = Date.now() + spec.startTimeoutMs;
  for (;;) {
    if (readText(logFile).includes('"msg":"connector started"')) return w;
    if (!alive())
      throw new SharesinkError(
        'SHARESINK_CHECK_RUN_FAILED',
        `sharesink check: the worker process exited (${proc.exitCode}) before its connector started (log ${logFile}):\n${logTail()}`,
      );
    if (Date.now() > deadline) {
      await w.kill9();
      throw new SharesinkError(
        'SHARESINK_CHECK_RUN_FAILED',
        `sharesink check: the worker's connector did not start within ${spec.startTimeoutMs} ms (log ${logFile}):\n${logTail()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
