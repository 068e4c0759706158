import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { resolveConnectorModule, loadConnectorModule } from '../../../src/connect/connector-module.js';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { isRetriableError } from '../../../src/connect/errors.js';
import { SinkRecord } from '../../../src/connect/sink-record.js';
import type { SinkTaskContext } from '../../../src/connect/sink-task.js';
import { PutPool } from '../../../src/pool/put-pool.js';
import { FileStreamSinkConnector, FileStreamSinkTask, formatValue } from '../../../src/sinks/file/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sharesink-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const context: SinkTaskContext = {
  configs: () => ({}),
  assignment: () => [],
  errantRecordReporter: () => () => undefined,
  timeout: () => undefined,
  abortSignal: () => new AbortController().signal,
};
const rec = (value: unknown, offset = 0): SinkRecord =>
  new SinkRecord({
    topic: 't',
    partition: 0,
    offset,
    timestamp: null,
    timestampType: 'NoTimestampType',
    key: null,
    value,
  });

describe('FileStreamSink', () => {
  it('appends one line per record value, batch after batch, and keeps existing content', async () => {
    const file = join(dir, 'out.txt');
    writeFileSync(file, 'existing\n');
    const task = new FileStreamSinkTask();
    task.initialize(context);
    await task.start({ file });
    await task.put([rec('first', 0), rec({ n: 1, b: Buffer.from('hi') }, 1), rec(null, 2)]);
    await task.put([]);
    await task.put([rec(Buffer.from('bytes as text'), 3), rec(42, 4)]);
    await task.preCommit([{ topic: 't', partition: 0, offset: 5 }]);
    await task.stop();
    expect(readFileSync(file, 'utf8')).toBe('existing\nfirst\n{"n":1,"b":"aGk="}\nnull\nbytes as text\n42\n');
  });

  it('formats values the way a reader of the file expects', () => {
    expect(formatValue(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(formatValue(new Map([['a', 1]]))).toBe('{"a":1}');
    expect(formatValue(true)).toBe('true');
  });

  it('declares Connect’s `file` setting and gives every task the same config', () => {
    const connector = new FileStreamSinkConnector();
    expect(
      connector
        .config()
        .configKeys()
        .map((k) => k.name),
    ).toEqual(['file']);
    connector.start({ file: '/tmp/x', topics: 'a' });
    expect(connector.taskConfigs(3)).toEqual([
      { file: '/tmp/x', topics: 'a' },
      { file: '/tmp/x', topics: 'a' },
      { file: '/tmp/x', topics: 'a' },
    ]);
    expect(connector.validate({}).size).toBe(0);
  });

  it('start() that cannot open the file fails retriably, naming it: the records are fine', async () => {
    const task = new FileStreamSinkTask();
    const file = join(dir, 'missing-dir', 'x.txt');
    const error: unknown = await task.start({ file }).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect((error as Error).message).toContain(`cannot open ${file}: ENOENT`);
  });

  it('validate() names a file whose directory is missing or not a directory, before anything is fetched', () => {
    const connector = new FileStreamSinkConnector();
    const missing = join(dir, 'missing-dir', 'x.txt');
    expect(connector.validate({ file: missing }).get('file')).toEqual([
      `file: directory ${join(dir, 'missing-dir')} does not exist; create it or fix the path`,
    ]);
    const plain = join(dir, 'plain.txt');
    writeFileSync(plain, '');
    expect(connector.validate({ file: join(plain, 'x.txt') }).get('file')).toEqual([
      `file: ${plain} is not a directory`,
    ]);
    expect(connector.validate({ file: join(dir, 'new.txt') }).size).toBe(0);
    expect(connector.validate({}).size).toBe(0);
  });

  it('a write the file system refuses (a full disk: /dev/full) is retriable: the records are fine', async () => {
    const task = new FileStreamSinkTask();
    task.initialize(context);
    await task.start({ file: '/dev/full' });
    const error: unknown = await task.put([rec('line', 0)]).catch((e: unknown) => e);
    await task.stop();
    expect(isRetriableError(error)).toBe(true);
    expect((error as Error).message).toMatch(/^writing to \/dev\/full failed: ENOSPC/);
  });

  it('a file deleted with its directory while the task runs: retriable until the directory is back, then written there', async () => {
    // appending to the open, deleted file reported every later line as written, and none could be read
    const sub = join(dir, 'rotating');
    mkdirSync(sub);
    const file = join(sub, 'out.txt');
    const task = new FileStreamSinkTask();
    task.initialize(context);
    await task.start({ file });
    await task.put([rec('before', 0)]);
    rmSync(sub, { recursive: true });
    const error: unknown = await task.put([rec('during', 1)]).catch((e: unknown) => e);
    expect(isRetriableError(error)).toBe(true);
    expect((error as Error).message).toContain(
      `${file} was deleted or replaced while open, and opening it again failed: ENOENT`,
    );
    expect((error as Error).message).toContain(`create the directory ${sub}`);
    expect(existsSync(sub)).toBe(false);
    mkdirSync(sub);
    await task.put([rec('during', 1)]);
    // moved away and replaced (logrotate's create): the lines follow the path
    renameSync(file, `${file}.1`);
    writeFileSync(file, '');
    await task.put([rec('after', 2)]);
    await task.stop();
    expect(readFileSync(`${file}.1`, 'utf8')).toBe('during\n');
    expect(readFileSync(file, 'utf8')).toBe('after\n');
  });

  it('is reachable under Connect’s class name', async () => {
    const specifier = resolveConnectorModule('org.apache.kafka.connect.file.FileStreamSinkConnector');
    const module = await loadConnectorModule(specifier);
    expect(module.connector).toBe(FileStreamSinkConnector);
    expect(module.task).toBe(FileStreamSinkTask);
  });

  it('writes through the put pool from several threads without interleaving lines', async () => {
    const file = join(dir, 'pooled.txt');
    const pool = new PutPool({
      connectorModule: resolveConnectorModule('FileStreamSink'),
      threads: 2,
      logger: pino({ level: 'silent' }),
    });
    try {
      const task = {
        id: 'file-0',
        props: { file },
        converters: convertersFromProps({ 'value.converter': 'StringConverter' }),
      };
      const batch = (n: number) =>
        Array.from({ length: 200 }, (_, i) => ({
          topic: 't',
          partition: n,
          offset: i,
          timestamp: null,
          timestampType: 'NoTimestampType' as const,
          key: null,
          value: Buffer.from(`${n}-${i}-${'x'.repeat(100)}`),
          headers: [],
        }));
      const results = await Promise.all([0, 1, 2, 3].map((n) => pool.put(task, batch(n))));
      expect(results.map((r) => r.kind)).toEqual(['ok', 'ok', 'ok', 'ok']);
    } finally {
      await pool.close();
    }
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(800);
    expect(lines.every((line) => /^\d-\d+-x{100}$/.test(line))).toBe(true);
  });
});
