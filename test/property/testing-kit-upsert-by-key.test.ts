/**
 * A sink that upserts by record key (a key-value store): the generated keys repeat and may be null, so
 * its store cannot say which records it wrote. `mapKey` gives each record its own key, and observe()
 * reads the keys back as record ids: the check then passes the sink as idempotent, and still catches
 * it losing ACCEPTed records.
 */
import { describe, expect, it } from 'vitest';
import { SinkTask, type SinkRecord } from '../../src/connect/index.js';
import { checkSinkTask, SinkTaskCheckError } from '../../src/testing/index.js';

/** Stores by store name: key → value. What the sink writes outlives its task instances, as a database does. */
const stores = new Map<string, Map<unknown, unknown>>();
const storeOf = (name: string) => stores.get(name) ?? stores.set(name, new Map()).get(name)!;

class UpsertByKeyTask extends SinkTask {
  protected store = new Map<unknown, unknown>();
  version(): string {
    return 'fixture';
  }
  start(props: Readonly<Record<string, string>>): void {
    this.store = storeOf(props['store']!);
  }
  put(records: readonly SinkRecord[]): void {
    for (const r of records) {
      if (r.key === null) throw new Error('a record without a key cannot be upserted');
      this.store.set(r.key, r.value);
    }
  }
  stop(): void {}
}

/** Writes only the first record of each put: the rest are ACCEPTed and lost. */
class DropsRecordsTask extends UpsertByKeyTask {
  override put(records: readonly SinkRecord[]): void {
    super.put(records.slice(0, 1));
  }
}

const options = (prefix: string) => ({
  props: (run: { index: number }) => ({ store: `${prefix}-${run.index}` }),
  mapKey: (_key: string | null, record: { id: string }) => record.id,
  observe: (run: { props: Readonly<Record<string, string>> }) =>
    new Map([...storeOf(run.props['store']!).keys()].map((key) => [String(key), 1])),
  idempotent: true,
  numRuns: 30,
});

describe('checkSinkTask with mapKey, for a sink that upserts by record key', () => {
  it('passes the upserting sink: one key per record, each written once', async () => {
    const report = await checkSinkTask(() => new UpsertByKeyTask(), options('upsert'));
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.redeliveries).toBeGreaterThan(0);
  });

  it('without mapKey the generated keys cannot name the records: the check fails', async () => {
    const { mapKey: _unused, ...rest } = options('no-map');
    const error = await checkSinkTask(() => new UpsertByKeyTask(), rest).then(
      () => expect.unreachable('passed without mapKey'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SinkTaskCheckError);
  });

  it('still catches a sink that loses ACCEPTed records', async () => {
    const error = await checkSinkTask(() => new DropsRecordsTask(), options('drops')).then(
      () => expect.unreachable('passed a sink that drops records'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SinkTaskCheckError);
    expect((error as SinkTaskCheckError).violations.join('\n')).toMatch(/lost|never written|not written/i);
  });
});
