/**
 * What checkSinkTask tells a connector author beyond the three delivery properties:
 * - a task that REJECTs records the schedule did not fail (a transient failure thrown as ConnectError,
 *   records reported errant) loses them to the archive: caught unless `allowRejects: true`;
 * - errors carrying a network or disk code (ECONNRESET…) are retried, as the runtime retries them;
 * - a check in which no delivery ever ended ACCEPTed proved nothing, and says so;
 * - every counter-example comes with what to fix, and a hung call is named in the trace.
 */
import { describe, expect, it } from 'vitest';
import { ConnectError, RetriableError, SinkTask, type SinkRecord } from '../../src/connect/index.js';
import { checkSinkTask, recordId, SinkTaskCheckError } from '../../src/testing/index.js';

const tables = new Map<string, Map<string, number>>();
const table = (name: string): Map<string, number> => {
  let t = tables.get(name);
  if (t === undefined) tables.set(name, (t = new Map()));
  return t;
};

/** Upserts into an in-memory table named by the `table` prop: correct and idempotent. */
class UpsertTask extends SinkTask {
  protected rows = new Map<string, number>();
  version(): string {
    return 'test';
  }
  start(props: Readonly<Record<string, string>>): void {
    this.rows = table(props.table!);
  }
  put(records: readonly SinkRecord[]): void {
    for (const r of records) this.rows.set(recordId(r), 1);
  }
  stop(): void {}
}

const perRun = (prefix: string) => ({
  props: (run: { index: number }) => ({ table: `${prefix}-${run.index}` }),
  observe: (run: { props: Readonly<Record<string, string>> }) => table(run.props.table!),
});

async function counterExample(promise: Promise<unknown>): Promise<SinkTaskCheckError> {
  const error = await promise.then(
    () => expect.unreachable('checkSinkTask passed a broken connector'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SinkTaskCheckError);
  return error as SinkTaskCheckError;
}

describe('checkSinkTask: records the task rejects', () => {
  /** A cold connection fails the first attempt; the task calls that permanent. */
  class TransientAsFatalTask extends UpsertTask {
    override put(records: readonly SinkRecord[]): void {
      if (records.some((r) => r.deliveryCount === 1)) throw new ConnectError('connection reset by peer');
      super.put(records);
    }
  }

  it('catches a transient failure thrown as ConnectError: the record is archived, never written', async () => {
    const error = await counterExample(
      checkSinkTask(() => new TransientAsFatalTask(), { ...perRun('fatal'), numRuns: 30 }),
    );
    expect(error.violations).toEqual([
      'rejected: sharesink-check/0/0 was REJECTed because put() threw ConnectError: connection reset by peer',
    ]);
    expect(error.schedule.records).toHaveLength(1);
    expect(error.message).toContain('How to fix:');
    expect(error.message).toContain('throw RetriableError');
    expect(error.message).toContain('allowRejects: true');
  });

  /** Refuses odd values on purpose, through the errant record reporter. */
  class ValidatingTask extends UpsertTask {
    override put(records: readonly SinkRecord[]): void {
      const report = this.context.errantRecordReporter();
      const odd = (r: SinkRecord) => Math.abs((r.value as { n: number }).n % 2) === 1;
      for (const r of records) if (odd(r)) report(r, new Error('odd values are refused'));
      super.put(records.filter((r) => !odd(r)));
    }
  }

  it('catches records reported errant, and passes them with allowRejects: true', async () => {
    const error = await counterExample(
      checkSinkTask(() => new ValidatingTask(), { ...perRun('errant'), numRuns: 30 }),
    );
    expect(error.violations[0]).toMatch(
      /^rejected: sharesink-check\/0\/0 was REJECTed because the task reported it errant: odd values are refused$/,
    );
    const report = await checkSinkTask(() => new ValidatingTask(), {
      ...perRun('errant-allowed'),
      allowRejects: true,
      numRuns: 30,
    });
    expect(report.accepted).toBeGreaterThan(0);
  });

  it('retries an error with a network code, as the runtime does, rather than rejecting it', async () => {
    class ResetOnceTask extends UpsertTask {
      override put(records: readonly SinkRecord[]): void {
        if (records.some((r) => r.deliveryCount === 1))
          throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
        super.put(records);
      }
    }
    const report = await checkSinkTask(() => new ResetOnceTask(), { ...perRun('reset'), numRuns: 30 });
    expect(report.accepted).toBeGreaterThan(0);
  });
});

describe('checkSinkTask: a check that proved nothing', () => {
  it('fails when no delivery ever ended ACCEPTed, naming the task failure', async () => {
    class UnreachableTask extends UpsertTask {
      override start(): void {
        throw new RetriableError('connect ECONNREFUSED 127.0.0.1:5999');
      }
    }
    const error = await checkSinkTask(() => new UnreachableTask(), { ...perRun('down'), numRuns: 10 }).then(
      () => expect.unreachable('checkSinkTask passed a task that never wrote'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/no delivery ended ACCEPTed in 10 run\(s\)/);
    expect(error.message).toContain('start() threw a RetriableError: connect ECONNREFUSED 127.0.0.1:5999');
  });
});

describe('checkSinkTask: what to fix', () => {
  it('tells a non-idempotent sink how to become idempotent', async () => {
    class AppendTask extends UpsertTask {
      override put(records: readonly SinkRecord[]): void {
        for (const r of records) this.rows.set(recordId(r), (this.rows.get(recordId(r)) ?? 0) + 1);
      }
    }
    const error = await counterExample(
      checkSinkTask(() => new AppendTask(), { ...perRun('append'), idempotent: true, numRuns: 50 }),
    );
    expect(error.message).toMatch(/How to fix:\n {2}- duplicate: .*upsert/);
  });

  it('tells a sink that acknowledges before writing to write before put() returns', async () => {
    class SkipsRedeliveryTask extends UpsertTask {
      override put(records: readonly SinkRecord[]): void {
        super.put(records.filter((r) => r.deliveryCount === 1));
      }
    }
    const error = await counterExample(
      checkSinkTask(() => new SkipsRedeliveryTask(), { ...perRun('skip'), numRuns: 50 }),
    );
    expect(error.violations[0]).toMatch(/^lost: /);
    expect(error.message).toMatch(/How to fix:\n {2}- lost: .*before put\(\)/);
  });

  it('names the call that hung in the trace, and says what to do about it', async () => {
    class HungTask extends UpsertTask {
      override put(): Promise<void> {
        return new Promise(() => {});
      }
    }
    const error = await counterExample(
      checkSinkTask(() => new HungTask(), {
        ...perRun('hung'),
        callTimeoutMs: 20,
        numRuns: 1,
        simplifyRuns: 0,
      }),
    );
    expect(error.trace).toContain('  t=0 instance 0: put() did not settle within 20 ms');
    expect(error.message).toContain('abortSignal()');
    expect(error.message).toContain('callTimeoutMs');
  });

  it('tells an observe() that throws on a run where nothing was written to return an empty Map', async () => {
    const error = await counterExample(
      checkSinkTask(() => new UpsertTask(), {
        ...perRun('observe'),
        // only fatal faults: some runs reject every record before the task is ever started
        schedule: { faults: ['fatal'] },
        observe: (run) => {
          const rows = tables.get(run.props.table!);
          if (rows === undefined) throw new Error(`relation "${run.props.table}" does not exist`);
          return rows;
        },
        numRuns: 50,
      }),
    );
    expect(error.violations[0]).toMatch(/^observe\(\) threw: relation ".*" does not exist$/);
    expect(error.message).toContain('return an empty Map');
  });
});
