import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { JdbcSinkConnector } from '../../../src/sinks/jdbc/index.js';
import { jdbcSinkSettings } from '../../../src/sinks/jdbc/jdbc-sink.js';
import { mysqlUrl } from '../../../src/sinks/jdbc/url.js';

const base = { 'connection.url': 'jdbc:mariadb://db:3306/shop', 'connection.user': 'root' };
const problems = (props: Record<string, string>) =>
  [...new JdbcSinkConnector().validate(props).values()].flat();

describe('JDBC sink settings', () => {
  it('two puts at once only where batches may be written in any order (ADR 0020)', () => {
    const at = (props: Record<string, string>) => jdbcSinkSettings({ ...base, ...props }).putsAtOnce;
    expect(at({})).toBe(2);
    expect(at({ 'pk.mode': 'kafka' })).toBe(2);
    // keys two batches may share: which record is written (or refused as a duplicate) depends on order
    expect(at({ 'pk.mode': 'record_value', 'pk.fields': 'id' })).toBe(1);
    expect(at({ 'insert.mode': 'upsert', 'pk.mode': 'record_value', 'pk.fields': 'id' })).toBe(1);
    expect(at({ 'insert.mode': 'update', 'pk.mode': 'record_key' })).toBe(1);
    expect(at({ 'delete.enabled': 'true', 'pk.mode': 'record_key' })).toBe(1);
  });

  it("delete.enabled without pk.mode=record_key is refused, as Confluent's connector does", () => {
    expect(problems({ ...base, 'delete.enabled': 'true', 'pk.mode': 'record_value' })).toEqual([
      'delete.enabled: =true needs pk.mode=record_key (a tombstone has only its key to find the row by), not record_value',
    ]);
    expect(problems({ ...base, 'delete.enabled': 'true', 'pk.mode': 'record_key' })).toEqual([]);
  });

  it('upsert and update need a key; every problem is listed at once', () => {
    expect(
      problems({
        'connection.url': 'jdbc:sqlserver://db;databaseName=x',
        'insert.mode': 'upsert',
        'db.timezone': 'Mars/Base',
      }),
    ).toEqual([
      'connection.url: names the database "sqlserver", and sharesink\'s JDBC sink writes to PostgreSQL and MySQL/MariaDB only; accepted: jdbc:postgresql://host:port/database?…, jdbc:mysql://host:port/database?… or jdbc:mariadb://host:port/database?…',
      'pk.mode: =none leaves insert.mode=upsert no key to find rows by: set pk.mode=record_key or record_value',
      'db.timezone: "Mars/Base" is not a time zone name (e.g. UTC, Europe/Paris)',
    ]);
  });

  it("Aiven's table mapping would write elsewhere: refused; keys without effect are listed once at start", () => {
    expect(problems({ ...base, 'topics.to.tables.mapping': 'a:b' })[0]).toMatch(
      /^topics\.to\.tables\.mapping: is Aiven's per-topic table map/,
    );
    const c = new JdbcSinkConnector();
    const notes = c.notes(
      {
        ...base,
        'max.retries': '5',
        'dialect.name': 'MySqlDatabaseDialect',
        'insert.mode': 'upsert',
        'pk.mode': 'record_key',
      },
      { share: true },
    );
    expect(notes.map((n) => n.level)).toEqual(['notice', 'notice']);
    expect(notes[0]!.message).toMatch(
      /^JDBC sink settings with no effect in sharesink: dialect\.name: .*; max\.retries: /,
    );
    expect(notes[1]!.message).toMatch(/^order guard on \(insert\.mode=upsert, pk\.mode=record_key\)/);
    const off = c.notes(
      { ...base, 'insert.mode': 'upsert', 'pk.mode': 'record_key', 'order.guard': 'false' },
      { share: true },
    );
    expect(off).toEqual([
      {
        level: 'warn',
        message: expect.stringMatching(
          /^share mode does not order records, and order\.guard=false with insert\.mode=upsert, pk\.mode=record_key: an older record/,
        ),
      },
    ]);
    expect(
      c.notes(
        { ...base, 'insert.mode': 'upsert', 'pk.mode': 'record_key', 'order.guard': 'false' },
        { share: false },
      ),
    ).toEqual([]);
  });

  it('start() refuses what validate() lists', () => {
    expect(() => new JdbcSinkConnector().start({ ...base, 'delete.enabled': 'true' })).toThrow(ConfigError);
  });

  it('MySQL URLs: user and password from the URL or its parameters, one host only', () => {
    expect(mysqlUrl('jdbc:mysql://u:p%40ss@db:3307/shop?useSSL=false')).toEqual({
      host: 'db',
      port: 3307,
      database: 'shop',
      user: 'u',
      password: 'p@ss',
    });
    expect(mysqlUrl('jdbc:mariadb://db/shop?user=a&password=b')).toMatchObject({
      port: 3306,
      user: 'a',
      password: 'b',
    });
    expect(() => mysqlUrl('jdbc:mysql://a,b/shop')).toThrow(/several hosts/);
  });
});
