import { describe, expect, it } from 'vitest';
import { restartBroker } from '../../../../src/testing/real/broker-restart.js';

describe('restartBroker (the broker-restart fault)', () => {
  it('runs the command, then waits until the broker answers', async () => {
    let probes = 0;
    await restartBroker({
      command: 'true',
      cwd: process.cwd(),
      probe: async () => {
        if (++probes < 3) throw new Error('connection refused');
      },
    });
    expect(probes).toBe(3);
  });

  it('a failing command ends the check with its exit code and last output, not as the connector’s fault', async () => {
    const err = await restartBroker({
      command: 'echo "kafka: no such container" >&2; exit 3',
      cwd: process.cwd(),
      probe: async () => undefined,
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SHARESINK_CHECK_RUN_FAILED' });
    expect((err as Error).message).toMatch(
      /--broker-restart-command exited with 3: echo .*\nkafka: no such container/,
    );
  });

  it('a broker that never answers again is named, with the last reason', async () => {
    const err = await restartBroker({
      command: 'true',
      cwd: process.cwd(),
      probe: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:9092')),
      timeoutMs: 1200,
    }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /did not answer after --broker-restart-command \(true\): ECONNREFUSED/,
    );
  });
});
