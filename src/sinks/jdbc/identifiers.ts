import { DataError } from '../../connect/errors.js';

const PLAIN = /^[A-Za-z_][A-Za-z0-9_$]*$/;

/**
 * quote.sql.identifiers: `always` quotes every name, so any name is taken literally and none can
 * inject SQL; `never` writes names bare, which only plain words may be (anything else is a bad record).
 */
export function identifierQuoter(quote: (name: string) => string, always: boolean): (name: string) => string {
  if (always) return quote;
  return (name) => {
    if (!PLAIN.test(name))
      throw new DataError(
        `${JSON.stringify(name)} is not a plain SQL name, and quote.sql.identifiers=never writes names unquoted: set quote.sql.identifiers=always`,
      );
    return name;
  };
}

/** `schema.table` or `db.table` as table.name.format may name it: the parts, each quoted on its own. */
export function qualify(table: string, ident: (name: string) => string): string {
  return table.split('.').map(ident).join('.');
}
