import { expect } from 'vitest';
import { compileWorkerConfig } from '../../../src/config/index.js';
import { ConfigError } from '../../../src/errors.js';

export const worker = compileWorkerConfig({ 'bootstrap.servers': 'localhost:9092' });
export const shareWorker = compileWorkerConfig({
  'bootstrap.servers': 'localhost:9092',
  'consumer.group.protocol': 'share',
});

/** A minimal valid connector. */
export const base: Readonly<Record<string, string>> = {
  name: 'orders',
  'connector.class': 'noop',
  topics: 'orders',
};

/** The problems of the one ConfigError `run` throws. */
export function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.message).toBe(
      `Invalid configuration (${configError.problems.length} problem${configError.problems.length === 1 ? '' : 's'}):\n` +
        configError.problems.map((p) => `  - ${p}`).join('\n'),
    );
    return configError.problemLines();
  }
  throw new Error('expected a ConfigError');
}
