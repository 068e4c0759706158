// A service whose only pending work is `await worker.start()` must not end mid-start: the start waits
// on things that do not hold the event loop (pool threads booting, a connector's own start() on an
// unref'd client), so the worker holds it until start() settles. Run in a child process, where
// nothing else keeps the loop alive.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('Worker.start() keeps the process alive until it settles', () => {
  it('reports how the start ended before the process exits', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'test/fixtures/start-keeps-alive.ts')],
      { cwd: ROOT, timeout: 30_000 },
    );
    expect(stdout).toBe('start rejected: unref: refused after an unref’d wait\nexit 0\n');
  }, 40_000);
});
