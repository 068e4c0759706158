/**
 * The `broker-restart` fault: the kit restarts the broker with a command the user gives
 * (`--broker-restart-command`), because only the user knows how their broker is run (the project's
 * scripts, `docker restart`, `systemctl restart kafka`). A run's worker keeps running through it; the
 * step ends once the broker answers again, and the run's drain then proves nothing was lost.
 */
import { spawn } from 'node:child_process';
import { SharesinkError } from '../../errors.js';

export interface BrokerRestartOptions {
  /** A shell command that stops the broker and starts it again, returning once it was started. */
  readonly command: string;
  readonly cwd: string;
  /** Asks the broker something; rejects while it does not answer. */
  readonly probe: () => Promise<unknown>;
  /** How long the command, then the broker's first answer, may take. Default 180 s. */
  readonly timeoutMs?: number;
}

const OUTPUT_TAIL = 2000;

export async function restartBroker(o: BrokerRestartOptions): Promise<void> {
  const deadline = Date.now() + (o.timeoutMs ?? 180_000);
  await runCommand(o.command, o.cwd, deadline - Date.now());
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await o.probe();
      return;
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  const why = last instanceof Error ? last.message : String(last);
  throw new SharesinkError(
    'SHARESINK_CHECK_RUN_FAILED',
    `sharesink check: the broker did not answer after --broker-restart-command (${o.command}): ${why}`,
  );
}

function runCommand(command: string, cwd: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const fail = (why: string) =>
      reject(
        new SharesinkError(
          'SHARESINK_CHECK_RUN_FAILED',
          `sharesink check: --broker-restart-command ${why}: ${command}${output.trim() === '' ? '' : `\n${output.trim()}`}`,
        ),
      );
    child.on('error', (err) => {
      clearTimeout(timer);
      fail(`could not be run (${err.message})`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else if (signal === 'SIGKILL') fail(`took longer than ${Math.round(timeoutMs / 1000)} s`);
      else fail(`exited with ${code ?? signal}`);
    });
  });
}
