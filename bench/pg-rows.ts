/**
 * The rows of the PostgreSQL scenario, made the same way for both sides: the topic gets them as JSON
 * (schemaless, so PostgresSink writes one column per field) and the bare pg loop binds them directly.
 */
import { kafkaClient } from './common.js';

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

/** Fills `topic` with `rows` JSON rows ({@link pgRow}), 500 a send: the input of the database scenarios. */
export async function producePgRows(brokers: string, topic: string, rows: number): Promise<void> {
  const producer = kafkaClient(brokers).producer();
  await producer.connect();
  for (let start = 0; start < rows; start += 500) {
    const messages = [];
    for (let i = start; i < Math.min(rows, start + 500); i++)
      messages.push({ value: JSON.stringify(pgRow(i)) });
    await producer.send({ topic, acks: 1, messages });
  }
  await producer.disconnect();
}
