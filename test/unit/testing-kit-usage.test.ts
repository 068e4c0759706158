/**
 * checkSinkTask used the wrong way must say so at once, not pass: a task instance, a class or a
 * connector module where a factory belongs, a task missing methods, options without observe(), an
 * observe() that returns something other than a Map. Each of these used to pass the check (every
 * record REJECTed, nothing written, nothing lost) or fail with a bare TypeError from inside the kit.
 */
import { describe, expect, it } from 'vitest';
import { SinkConnector, SinkTask, type SinkRecord } from '../../src/connect/index.js';
import {
  checkSinkTask,
  faultArb,
  recordId,
  sinkScheduleArb,
  type CheckSinkTaskOptions,
} from '../../src/testing/index.js';

const written = new Map<string, number>();

class MemoryTask extends SinkTask {
  version(): string {
    return 'test';
  }
  start(): void {}
  put(records: readonly SinkRecord[]): void {
    for (const r of records) written.set(recordId(r), 1);
  }
  stop(): void {}
}

const options: CheckSinkTaskOptions = { observe: () => written, numRuns: 5 };
const asFactory = (value: unknown) => value as () => SinkTask;

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => expect.unreachable('checkSinkTask passed'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('checkSinkTask misuse', () => {
  it('rejects a task instance where a factory belongs', async () => {
    const error = await failure(checkSinkTask(asFactory(new MemoryTask()), options));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/taskFactory is a task instance.*\(\) => new MemoryTask\(\)/);
  });

  it('rejects a class where a factory belongs, and says how to wrap it', async () => {
    const error = await failure(checkSinkTask(asFactory(MemoryTask), options));
    expect(error.message).toContain('taskFactory is the class MemoryTask');
    expect(error.message).toContain('() => new MemoryTask()');
  });

  it('rejects a connector module where a factory belongs', async () => {
    class Connector extends SinkConnector {
      version = () => 'x';
      config = () => undefined as never;
      start = () => {};
      taskConfigs = () => [];
      stop = () => {};
    }
    const module = { connector: Connector, task: MemoryTask };
    const error = await failure(checkSinkTask(asFactory(module), options));
    expect(error.message).toContain('taskFactory is a connector module');
    expect(error.message).toContain('() => new module.task()');
    const returned = await failure(
      checkSinkTask(
        asFactory(() => module),
        options,
      ),
    );
    expect(returned.message).toContain('taskFactory() returned a connector module');
  });

  it('names the methods a task lacks, e.g. a JavaScript task that does not extend SinkTask', async () => {
    const plain = { version: () => '1', start() {}, put() {}, stop() {} };
    const error = await failure(
      checkSinkTask(
        asFactory(() => plain),
        options,
      ),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('lacks initialize(), open(), preCommit(), close()');
    expect(error.message).toContain('extend SinkTask');
  });

  it('requires options with observe()', async () => {
    const none = await failure((checkSinkTask as (f: unknown) => Promise<unknown>)(() => new MemoryTask()));
    expect(none.message).toMatch(/options\.observe is required/);
    const noObserve = await failure(
      checkSinkTask(() => new MemoryTask(), { numRuns: 5 } as unknown as CheckSinkTaskOptions),
    );
    expect(noObserve).toBeInstanceOf(TypeError);
    expect(noObserve.message).toMatch(/options\.observe is required/);
  });

  it('says so when observe() returns a plain object instead of a Map', async () => {
    const error = await failure(
      checkSinkTask(() => new MemoryTask(), {
        numRuns: 5,
        observe: () => Object.fromEntries(written) as unknown as Map<string, number>,
      }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain('observe() must return a Map');
    expect(error.message).toContain('new Map(Object.entries(');
  });

  it('names unknown fault kinds and impossible record counts', () => {
    expect(() => faultArb({ kinds: ['boom' as never] })).toThrow(/unknown fault kind "boom"/);
    expect(() => sinkScheduleArb({ minLength: 5, maxLength: 2 })).toThrow(
      /minLength \(5\) is above maxLength \(2\)/,
    );
    expect(() => sinkScheduleArb({ maxLength: 0 })).toThrow(/maxLength must be at least 1/);
  });
});
