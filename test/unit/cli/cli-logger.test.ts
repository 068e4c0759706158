// The command's log output as a terminal user and a log collector see it.
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, chooseLogLevel, createCliLogger } from '../../../src/cli/cli-logger.js';
import { formatLogMessage } from '../../../src/cli/log-line.js';
import { StatusLine } from '../../../src/cli/status-line.js';
import { duplicateKeys } from '../../integration/harness/strict-json.js';
import { notice, type Logger } from '../../../src/logger.js';

function terminal(isTTY: boolean) {
  const writes: string[] = [];
  return {
    isTTY,
    columns: 80,
    writes,
    write: (t: string) => writes.push(t) > 0,
    text: () => writes.join(''),
  };
}

function heartbeatError(): Error {
  const err = new Error(
    'ShareGroupHeartbeat failed with COORDINATOR_LOAD_IN_PROGRESS (14) for group connect-orders',
  );
  err.stack = `${err.message}\n    at Membership.beat (src/kafka/share/membership.ts:170:11)`;
  return err;
}

describe('readable log lines (--log-format=pretty, the default on a terminal)', () => {
  it('one line: time, level, connector/task, message, the fields that matter; no stack at warn', () => {
    const out = terminal(true);
    const log = createCliLogger({ level: 'warn', format: 'auto', stderr: out, env: { NO_COLOR: '1' } });
    const task = log.child({ connector: 'orders', task: 1, groupId: 'connect-orders', memberId: 'x1' });
    task.warn({ err: heartbeatError(), retryInMs: 200 }, 'share group heartbeat failed; retrying');
    task.info('not shown at warn');

    expect(out.writes).toHaveLength(1);
    expect(out.text()).toMatch(
      /^\d\d:\d\d:\d\d WARN: \[orders\/1\] share group heartbeat failed; retrying {2}err="ShareGroupHeartbeat failed with COORDINATOR_LOAD_IN_PROGRESS \(14\) for group connect-orders" retryInMs=200\n$/,
    );
  });

  it('stacks appear at debug, indented under their line', () => {
    const out = terminal(true);
    const log = createCliLogger({ level: 'debug', format: 'pretty', stderr: out, env: { NO_COLOR: '1' } });
    log.child({ connector: 'orders' }).error({ err: heartbeatError() }, 'connector failed');

    const lines = out.text().trimEnd().split('\n');
    expect(lines[0]).toMatch(/ ERROR: \[orders\] connector failed {2}err="ShareGroupHeartbeat failed/);
    expect(lines.slice(1)).toEqual([
      '    ShareGroupHeartbeat failed with COORDINATOR_LOAD_IN_PROGRESS (14) for group connect-orders',
      '    at Membership.beat (src/kafka/share/membership.ts:170:11)',
    ]);
  });

  it('colours on a terminal unless NO_COLOR; pretty forced onto a pipe has none', () => {
    const tty = terminal(true);
    createCliLogger({ level: 'info', format: 'auto', stderr: tty, env: {} }).warn('coloured');
    expect(tty.text()).toContain('\x1b[');
    const pipe = terminal(false);
    createCliLogger({ level: 'info', format: 'pretty', stderr: pipe, env: {} }).warn('plain');
    expect(pipe.text()).not.toContain('\x1b[');
    expect(pipe.text()).toMatch(/ WARN: plain\n$/);
  });

  it('log lines print above the progress line, which is drawn again after each', () => {
    const out = terminal(true);
    const status = new StatusLine(out);
    const log = createCliLogger({
      level: 'info',
      format: 'pretty',
      stderr: out,
      statusLine: status,
      env: { NO_COLOR: '1' },
    });
    status.show('orders [share]  acquired 10');
    log.warn({ connector: 'orders', task: 0 }, 'renew refused');
    status.show('orders [share]  acquired 20');
    status.end();

    expect(out.writes).toHaveLength(4);
    // erase the status, the log line, the status again: one write, so nothing comes between
    expect(out.writes[1]).toMatch(
      // eslint-disable-next-line no-control-regex
      /^\r\x1b\[2K\d\d:\d\d:\d\d WARN: \[orders\/0\] renew refused\norders \[share\] {2}acquired 10$/,
    );
    expect(out.writes.slice(2)).toEqual(['\r\x1b[2Korders [share]  acquired 20', '\n']);
  });
});

describe('JSON log lines (not a terminal, or --log-format=json)', () => {
  it('a pipe gets JSON by default; a terminal gets it when asked', () => {
    expect(chooseLogFormat('auto', false)).toBe('json');
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
    const out = terminal(true);
    createCliLogger({ level: 'info', format: 'json', stderr: out })
      .child({ connector: 'c' })
      .info({ n: 1 }, 'hi');
    const line = out.text();
    expect(duplicateKeys(line)).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({ level: 30, name: 'sharesink', connector: 'c', n: 1, msg: 'hi' });
  });
});

describe('the log level', () => {
  it('--log-level wins over log.level, which wins over the default (notice on a terminal, else info)', () => {
    expect(chooseLogLevel('error', 'debug', true)).toBe('error');
    expect(chooseLogLevel(undefined, 'debug', true)).toBe('debug');
    expect(chooseLogLevel(undefined, undefined, true)).toBe('notice');
    expect(chooseLogLevel(undefined, undefined, false)).toBe('info');
  });
});

describe('formatLogMessage', () => {
  it('quotes values with spaces, keeps short tokens bare, flattens newlines and objects', () => {
    const text = formatLogMessage(
      {
        level: 40,
        time: 0,
        component: 'rest',
        msg: 'line one\nline two',
        url: 'http://127.0.0.1:8083',
        note: 'two words',
        topics: ['a', 'b'],
        ok: true,
        putMs: 514.1896749999978,
        stack: 'kafkajs stack',
      },
      { stacks: false },
    );
    expect(text).toBe(
      '[rest] line one line two  url=http://127.0.0.1:8083 note="two words" topics=["a","b"] ok=true putMs=514.19',
    );
  });

  it('shows kafkajs’s loose stack field only at debug, and cuts very long values', () => {
    const log = {
      msg: 'Crash',
      connector: 'c',
      task: 0,
      kafkajs: 'Consumer',
      stack: 'E: x\n    at y',
      big: 'x'.repeat(1000),
    };
    const quiet = formatLogMessage(log, { stacks: false });
    expect(quiet).toMatch(/^\[c\/0\] Crash {2}big=x{299}…$/);
    expect(formatLogMessage(log, { stacks: true }).split('\n').slice(1)).toEqual(['    E: x', '    at y']);
  });

  it('shows an error message whole up to 2000 characters, as a string or an error object (the fix is often at its end)', () => {
    const message = `${'w'.repeat(600)} Grant it: kafka-acls.sh --add`;
    const base = { msg: 'put failed', connector: 'c', task: 0 };
    expect(formatLogMessage({ ...base, err: message }, { stacks: false })).toBe(
      `[c/0] put failed  err=${JSON.stringify(message)}`,
    );
    expect(formatLogMessage({ ...base, error: { message } }, { stacks: false })).toBe(
      `[c/0] put failed  error=${JSON.stringify(message)}`,
    );
    expect(formatLogMessage({ ...base, err: 'e'.repeat(3000) }, { stacks: false })).toMatch(/err=e{1999}…$/);
  });
});

describe('the notice level', () => {
  it('a terminal at the default level shows notices and warnings, not info', () => {
    const lines: string[] = [];
    const stderr = { isTTY: true, write: (t: string) => lines.push(t) > 0 };
    const log = createCliLogger({
      level: chooseLogLevel(undefined, undefined, true),
      format: 'pretty',
      stderr,
      env: { NO_COLOR: '1' },
    });
    log.info('every task says hello');
    notice(log, { groupId: 'g' }, 'share group g is new: set share.auto.offset.reset=earliest');
    log.warn('something to act on');
    const text = lines.join('');
    expect(text).not.toContain('every task says hello');
    expect(text).toMatch(/NOTICE.*share group g is new/);
    expect(text).toContain('something to act on');
  });

  it("a logger without the level (an embedder's) gets notices at info", () => {
    const seen: unknown[] = [];
    const plain = { info: (o: unknown, m: string) => seen.push([o, m]) } as unknown as Logger;
    notice(plain, { a: 1 }, 'hello');
    expect(seen).toEqual([[{ a: 1 }, 'hello']]);
  });
});
