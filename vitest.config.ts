import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // vitest's default on 2 cores is 1 file at a time; much of a unit file's time is importing
          // modules and waiting for pool threads to boot, so two overlap: 173 s → 114 s in CI
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'property',
          include: ['test/property/**/*.test.ts'],
          environment: 'node',
          maxWorkers: 2, // as unit: 52 s → 35 s
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/harness/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // two files at a time: most of an integration test's time is spent waiting on the broker
          // (joins, session timeouts, long polls), so two overlap well on 2 cores; every file uses
          // its own topics and groups
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          exclude: ['test/faults/broker-restart.test.ts', 'test/faults/check-broker-restart.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/harness/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // real worker processes killed and restarted, a 30 s sink outage: each file has its own topics,
          // groups, ports and sink files, and spends most of its time waiting out sessions and locks, so
          // two run at a time on 2 cores
          maxWorkers: 2,
        },
      },
      {
        test: {
          // restarts the shared broker: alone, after every other file (npm run test:faults runs it second)
          name: 'faults-broker',
          include: ['test/faults/broker-restart.test.ts', 'test/faults/check-broker-restart.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/harness/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
