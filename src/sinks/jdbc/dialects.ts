/** The dialect a JDBC sink's settings name (the task's, and `sharesink check`'s observer's). */
import type { JdbcSettings } from './config.js';
import type { Dialect } from './dialect.js';
import { MysqlDialect } from './mysql-dialect.js';
import { PostgresDialect } from './postgres-dialect.js';

/** Not opened yet: open() loads the driver. */
export function dialectFor(s: JdbcSettings): Dialect {
  return s.dialect === 'postgresql' ? new PostgresDialect(s) : new MysqlDialect(s);
}
