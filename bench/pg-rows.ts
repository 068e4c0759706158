/**
 * The rows of the PostgreSQL scenario, made the same way for both sides: the topic gets them as JSON
 * (schemaless, so PostgresSink writes one column per field) and the bare pg loop binds them directly.
 */
export const PG_COLUMNS = ['id', 'name', 'amount', 'active', 'note'] as const;

export type PgRow = Record<(typeof PG_COLUMNS)[number], number | string | boolean>;

export function pgRow(i: number): PgRow {
  return {
    id: i,
    name: `customer-${i % 9973}`,
    amount: (i % 100_000) / 100,
    active: i % 3 !== 0,
    note: `order ${i} of the benchmark, ${'x'.repeat(i % 40)}`,
  };
}
