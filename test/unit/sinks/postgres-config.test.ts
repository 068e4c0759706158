import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { POSTGRES_SINK_CONFIG, poolConfig } from '../../../src/sinks/postgres/config.js';
import { PostgresSinkConnector, PostgresSinkTask } from '../../../src/sinks/postgres/index.js';

const SECRET = 's3cr3t-pw';
const ACCEPTED =
  'accepted: postgres://user:password@host:port/database?… (or postgresql://), or the JDBC form jdbc:postgresql://host:port/database?…';

const urlProblems = (url: string): string[] =>
  new PostgresSinkConnector().validate({ 'connection.url': url }).get('connection.url') ?? [];

describe('PostgresSink connection.url', () => {
  it('a JDBC URL copied from a Connect JDBC sink config is used without its jdbc: prefix', () => {
    for (const [url, expected] of [
      ['jdbc:postgresql://db.internal:5432/shop', 'postgresql://db.internal:5432/shop'],
      [
        `JDBC:postgresql://db:5432/shop?user=sink&password=${SECRET}&sslmode=disable`,
        `postgresql://db:5432/shop?user=sink&password=${SECRET}&sslmode=disable`,
      ],
      ['postgres://sink@db/shop', 'postgres://sink@db/shop'],
      [
        ' postgresql://db/shop?options=-c%20lock_timeout%3D5000 ',
        'postgresql://db/shop?options=-c%20lock_timeout%3D5000',
      ],
    ]) {
      expect(urlProblems(url!)).toEqual([]);
      const config = poolConfig(POSTGRES_SINK_CONFIG.parse({ 'connection.url': url! }));
      expect(config.connectionString).toBe(expected);
    }
  });

  it('a URL that cannot be used is refused at start, naming the key, the value without its password and the accepted form', async () => {
    expect(urlProblems(`jdbc:mysql://sink:${SECRET}@db:3306/shop`)).toEqual([
      `connection.url: "jdbc:mysql://sink:[hidden]@db:3306/shop" is not a PostgreSQL URL; ${ACCEPTED}`,
    ]);
    expect(urlProblems(`jdbc:postgresql:shop?user=sink&password=${SECRET}`)).toEqual([
      `connection.url: "jdbc:postgresql:shop?user=sink&password=[hidden]" names no host (pgJDBC then means localhost:5432); ${ACCEPTED}`,
    ]);
    expect(urlProblems(`jdbc:postgresql://db1:5432,db2:5432/shop?password=${SECRET}`)).toEqual([
      `connection.url: "jdbc:postgresql://db1:5432,db2:5432/shop?password=[hidden]" names several hosts, and sharesink's client connects to one only: name the primary; ${ACCEPTED}`,
    ]);
    expect(urlProblems(`postgres://sink:${SECRET}@db:port/shop`)).toEqual([
      `connection.url: "postgres://sink:[hidden]@db:port/shop" cannot be parsed as a URL (a port that is not a number, or a character in the user name or password that needs percent-encoding); ${ACCEPTED}`,
    ]);
    // pgJDBC would write to that schema; node-postgres would silently write to the search_path's
    expect(urlProblems(`jdbc:postgresql://db/shop?currentSchema=sales&password=${SECRET}`)).toEqual([
      'connection.url: "jdbc:postgresql://db/shop?currentSchema=sales&password=[hidden]" sets currentSchema, a pgJDBC parameter that node-postgres does not read; remove it and set table.schema instead',
    ]);
    // not a URL at all: perhaps a password in the wrong setting, so not shown
    expect(urlProblems(SECRET)).toEqual([
      `connection.url: is not a URL (its value is not shown); ${ACCEPTED}`,
    ]);
    expect(urlProblems(`host=db password=${SECRET}`)).toEqual([
      `connection.url: is not a URL (its value is not shown); ${ACCEPTED}`,
    ]);

    const start = new PostgresSinkTask().start({ 'connection.url': `jdbc:mysql://sink:${SECRET}@db/shop` });
    await expect(start).rejects.toBeInstanceOf(ConfigError);
    await expect(start).rejects.toThrow(
      /connection\.url: "jdbc:mysql:\/\/sink:\[hidden\]@db\/shop" is not a PostgreSQL URL/,
    );
    expect(() => new PostgresSinkConnector().start({ 'connection.url': 'jdbc:postgresql:shop' })).toThrow(
      /connection\.url: .*names no host/,
    );
  });

  it('a URL problem and a clash with the separate settings are both reported', () => {
    expect(
      new PostgresSinkConnector()
        .validate({ 'connection.url': 'mysql://db/shop', 'connection.host': 'db' })
        .get('connection.url'),
    ).toEqual([
      `connection.url: "mysql://db/shop" is not a PostgreSQL URL; ${ACCEPTED}`,
      'connection.url: is set together with connection.host, which the URL names too; put everything in the URL or use only the separate settings',
    ]);
  });

  it('connection.user and connection.password beside a URL without them, as a JDBC sink config has them', () => {
    const settings = (props: Record<string, string>) => POSTGRES_SINK_CONFIG.parse(props);
    const jdbc = {
      'connection.url': 'jdbc:postgresql://db:5432/shop',
      'connection.user': 'sink',
      'connection.password': 'p@ss/word',
    };
    expect(new PostgresSinkConnector().validate(jdbc).get('connection.url') ?? []).toEqual([]);
    expect(poolConfig(settings(jdbc)).connectionString).toBe('postgresql://sink:p%40ss%2Fword@db:5432/shop');
    // the URL's own user wins nothing silently: both is a clash
    expect(
      new PostgresSinkConnector()
        .validate({ 'connection.url': 'postgres://app@db/shop', 'connection.user': 'sink' })
        .get('connection.url'),
    ).toEqual([
      'connection.url: is set together with connection.user, which the URL names too; put everything in the URL or use only the separate settings',
    ]);
    expect(
      new PostgresSinkConnector()
        .validate({ 'connection.url': 'postgres://db/shop?password=x', 'connection.password': 'y' })
        .get('connection.url'),
    ).toEqual([
      'connection.url: is set together with connection.password, which the URL names too; put everything in the URL or use only the separate settings',
    ]);
  });
});
