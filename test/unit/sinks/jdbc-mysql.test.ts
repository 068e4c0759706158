import { describe, expect, it } from 'vitest';
import { JDBC_SINK_CONFIG, compileJdbcSettings } from '../../../src/sinks/jdbc/config.js';
import type { TableInfo } from '../../../src/sinks/jdbc/dialect.js';
import { MysqlDialect } from '../../../src/sinks/jdbc/mysql-dialect.js';
import { mysqlValue } from '../../../src/sinks/jdbc/mysql-values.js';
import { RowShapes, toJdbcRow, type JdbcRow } from '../../../src/sinks/jdbc/rows.js';
import { recordMaker } from './sink-records.js';

const settings = (extra: Record<string, string> = {}) =>
  compileJdbcSettings(JDBC_SINK_CONFIG.parse({ 'connection.url': 'jdbc:mariadb://db:3306/shop', ...extra }));
const column = (type: string) => ({ type, category: '', sqlType: '' });

describe('JDBC sink, MySQL values for prepared statements', () => {
  it('a number goes as a number to an integer or float column, as its text to any other', () => {
    expect(mysqlValue(0.1, column('double'), 'UTC')).toBe(0.1);
    expect(mysqlValue(7, column('bigint'), 'UTC')).toBe(7);
    expect(mysqlValue(7, column('tinyint'), 'UTC')).toBe(7);
    // a DOUBLE parameter would be converted by the server's rules: the text is what a literal gives
    expect(mysqlValue(0.30000000000000004, column('decimal'), 'UTC')).toBe('0.30000000000000004');
    expect(mysqlValue(12, column('varchar'), 'UTC')).toBe('12');
    expect(mysqlValue(1.5, column('text'), 'UTC')).toBe('1.5');
    expect(mysqlValue(3, undefined, 'UTC')).toBe(3);
    expect(mysqlValue(true, column('tinyint'), 'UTC')).toBe(true);
  });
});

describe('JDBC sink, MySQL row statements', () => {
  const shapes = new RowShapes();
  const record = recordMaker();
  const row = (value: Record<string, unknown>): JdbcRow =>
    toJdbcRow(record(value), 'tbl', settings(), shapes)!;

  it('are marked for reuse (prepared when they come back) and carry at most 65,535 placeholders', () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`c${i}`, i]));
    const info: TableInfo = new Map(Object.keys(wide).map((c) => [c, column('bigint')]));
    const rows = Array.from({ length: 1000 }, () => row(wide));
    const statements = new MysqlDialect(settings()).writes('tbl', info, rows, 'insert');
    // batch.size is 3000 rows, but 3000 × 100 values would not fit one prepared statement
    expect(statements.map((s) => s.values.length / 100)).toEqual([655, 345]);
    expect(statements.every((s) => s.reuse === true)).toBe(true);
    expect(statements.every((s) => s.values.length <= 65_535)).toBe(true);
  });

  it('batch.size still bounds a statement of few columns', () => {
    const info: TableInfo = new Map([
      ['id', column('bigint')],
      ['name', column('text')],
    ]);
    const rows = Array.from({ length: 5 }, (_, i) => row({ id: i, name: `n${i}` }));
    const statements = new MysqlDialect(settings({ 'batch.size': '2' })).writes('tbl', info, rows, 'insert');
    expect(statements.map((s) => s.values.length / 2)).toEqual([2, 2, 1]);
    expect(statements[0]!.text).toBe('INSERT INTO `tbl` (`id`, `name`) VALUES (?,?),(?,?)');
    expect(statements[0]!.values).toEqual([0, 'n0', 1, 'n1']);
  });
});

describe('JDBC sink, MySQL insert texts', () => {
  const shapes = new RowShapes();
  const record = recordMaker();
  const row = (value: Record<string, unknown>): JdbcRow =>
    toJdbcRow(record(value), 'tbl', settings(), shapes)!;
  const info: TableInfo = new Map([
    ['id', column('bigint')],
    ['name', column('text')],
  ]);

  it('puts of the same shape and size get the same text (one string to hash and prepare by), others their own', () => {
    const dialect = new MysqlDialect(settings());
    const rows = (n: number) => Array.from({ length: n }, (_, i) => row({ id: i, name: `n${i}` }));
    const first = dialect.writes('tbl', info, rows(3), 'insert')[0]!;
    const again = dialect.writes('tbl', info, rows(3), 'insert')[0]!;
    const fewer = dialect.writes('tbl', info, rows(2), 'insert')[0]!;
    const upsert = dialect.writes('tbl', info, rows(3), 'upsert')[0]!;
    expect(first.text).toBe('INSERT INTO `tbl` (`id`, `name`) VALUES (?,?),(?,?),(?,?)');
    expect(Object.is(again.text, first.text)).toBe(true);
    expect(again.values).toEqual([0, 'n0', 1, 'n1', 2, 'n2']);
    expect(fewer.text).toBe('INSERT INTO `tbl` (`id`, `name`) VALUES (?,?),(?,?)');
    expect(upsert.text).toBe(
      'INSERT INTO `tbl` (`id`, `name`) VALUES (?,?),(?,?),(?,?) ON DUPLICATE KEY UPDATE `id` = VALUES(`id`), `name` = VALUES(`name`)',
    );
  });
});
