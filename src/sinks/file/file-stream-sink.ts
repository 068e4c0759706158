import { accessSync, constants, statSync } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ConfigDef } from '../../connect/config-def.js';
import { RetriableError } from '../../connect/errors.js';
import { SinkConnector } from '../../connect/sink-connector.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { SinkTask } from '../../connect/sink-task.js';
import { RETRIED_NOT_REJECTED } from '../retried-not-rejected.js';

const VERSION = '0.1.0';

export const FILE_STREAM_SINK_CONFIG = new ConfigDef().define({
  name: 'file',
  type: 'string',
  default: null,
  importance: 'high',
  documentation: 'Destination filename. If not specified, the standard output will be used.',
});

/** Connect's FileStreamSinkConnector: appends each record's value as one line to a file. */
export class FileStreamSinkConnector extends SinkConnector {
  #props: Readonly<Record<string, string>> = {};

  version(): string {
    return VERSION;
  }

  config(): typeof FILE_STREAM_SINK_CONFIG {
    return FILE_STREAM_SINK_CONFIG;
  }

  /** Besides the settings' own checks: a `file` whose directory is missing or not writable. */
  override validate(props: Readonly<Record<string, string>>): Map<string, string[]> {
    const problems = super.validate(props);
    const file = props['file'];
    if (problems.size > 0 || file === undefined || file.trim() === '') return problems;
    const problem = directoryProblem(file);
    if (problem !== undefined) problems.set('file', [problem]);
    return problems;
  }

  start(props: Readonly<Record<string, string>>): void {
    FILE_STREAM_SINK_CONFIG.parse(props);
    this.#props = props;
  }

  /** Every task writes to the same file, as in Connect. */
  taskConfigs(maxTasks: number): Record<string, string>[] {
    return Array.from({ length: maxTasks }, () => ({ ...this.#props }));
  }

  stop(): void {}
}

/** Why the tasks could not create or append to `file`, found before a record is fetched. */
function directoryProblem(file: string): string | undefined {
  const dir = path.dirname(path.resolve(file));
  try {
    if (!statSync(dir).isDirectory()) return `file: ${dir} is not a directory`;
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `file: directory ${dir} does not exist; create it or fix the path`;
    // an existing file the user may append to is enough, even in a directory they cannot write
    if (code === 'EACCES' && canAppend(file)) return undefined;
    return `file: cannot write in ${dir} (${code ?? (error as Error).message})`;
  }
  return undefined;
}

function canAppend(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Text of one value: strings as they are, bytes as UTF-8, structured values as JSON, null as "null". */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'null';
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return String(value);
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const original = this[key];
    if (original instanceof Uint8Array) return Buffer.from(original).toString('base64');
    if (original instanceof Map) return Object.fromEntries(original);
    return typeof v === 'bigint' ? v.toString() : v;
  });
}

/**
 * Writes each batch with a single append so that batches from several threads or tasks sharing the
 * file never interleave inside a line. Like Connect it does not fsync: a successful put means the
 * operating system has the bytes.
 *
 * Each put first checks that `file` still names the file it has open. One deleted (with its
 * directory, say) or moved away and replaced is opened again by path, as `tail -F` follows it:
 * appending to a file no path leads to would report lines as written that no one can read.
 */
export class FileStreamSinkTask extends SinkTask {
  #handle: FileHandle | undefined;
  #file: string | null = null;

  version(): string {
    return VERSION;
  }

  async start(props: Readonly<Record<string, string>>): Promise<void> {
    const { file } = FILE_STREAM_SINK_CONFIG.parse(props);
    await this.#close();
    this.#file = file;
    // validated at start, so a failure means the file system changed since: a fix there heals the next put
    if (file !== null) this.#handle = await openFile(file, false);
  }

  async put(records: readonly SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const record of records) text += `${formatValue(record.value)}\n`;
    const bytes = Buffer.from(text, 'utf8');
    if (this.#file === null) {
      await new Promise<void>((resolve, reject) =>
        process.stdout.write(bytes, (e) => (e ? reject(e) : resolve())),
      );
      return;
    }
    const handle = await this.#current(this.#file);
    let written = 0;
    try {
      while (written < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
        written += bytesWritten;
      }
    } catch (error) {
      // a full disk, a quota, an I/O error: the file's fault, not the records', so they are not
      // rejected but written again (with the lines of a partial write a second time: at least once)
      throw new RetriableError(`writing to ${this.#file} failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async stop(): Promise<void> {
    await this.#close();
  }

  /** The open file, or `file` opened again when that path no longer leads to it. */
  async #current(file: string): Promise<FileHandle> {
    const handle = this.#handle;
    if (handle !== undefined && (await namesHandle(file, handle))) return handle;
    await this.#close();
    this.#handle = await openFile(file, handle !== undefined);
    return this.#handle;
  }

  async #close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

/** True when `file` is the open file (same device and inode); false when the path is gone or another file. */
async function namesHandle(file: string, handle: FileHandle): Promise<boolean> {
  try {
    const [opened, named] = await Promise.all([handle.stat(), stat(file)]);
    return opened.dev === named.dev && opened.ino === named.ino;
  } catch {
    return false;
  }
}

/** Opens `file` to append; a failure is the file system's, not the records', so it is retriable. */
async function openFile(file: string, again: boolean): Promise<FileHandle> {
  try {
    return await open(file, 'a');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const dir = path.dirname(path.resolve(file));
    const fix =
      code === 'ENOENT'
        ? `; create the directory ${dir}`
        : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
          ? `; make ${dir} writable for this process`
          : '';
    const what = again
      ? `${file} was deleted or replaced while open, and opening it again failed`
      : `cannot open ${file}`;
    throw new RetriableError(`${what}: ${(error as Error).message}${fix}. ${RETRIED_NOT_REJECTED}`, {
      cause: error,
    });
  }
}
