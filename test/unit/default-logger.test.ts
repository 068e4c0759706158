import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from '../../src/actors/worker.js';
import { compileWorkerConfig } from '../../src/config/index.js';
import { defaultLogger } from '../../src/logger.js';

const saved = process.env.SHARESINK_LOG_LEVEL;
afterEach(() => {
  if (saved === undefined) delete process.env.SHARESINK_LOG_LEVEL;
  else process.env.SHARESINK_LOG_LEVEL = saved;
});

describe('the logger an embedder gets when it passes none', () => {
  it("takes the worker's log.level; SHARESINK_LOG_LEVEL wins over it, as --log-level does", () => {
    delete process.env.SHARESINK_LOG_LEVEL;
    expect(defaultLogger().level).toBe('info');
    expect(defaultLogger('debug').level).toBe('debug');
    process.env.SHARESINK_LOG_LEVEL = 'error';
    expect(defaultLogger('debug').level).toBe('error');
  });

  it('a Worker built from a file with log.level=warn logs at warn', () => {
    delete process.env.SHARESINK_LOG_LEVEL;
    const worker = compileWorkerConfig({ 'bootstrap.servers': '127.0.0.1:9092', 'log.level': 'WARN' });
    expect(worker.logLevel).toBe('warn');
    const w = new Worker({ worker, connectors: [] });
    expect((w as unknown as { log: { level: string } }).log.level).toBe('warn');
  });
});
