// A Debezium PostgreSQL change event's value (before / after / source / op / ts_ms), the shape the
// ExtractNewRecordState tests feed the JDBC sink in JSON and in Avro. `lsn` orders the events.
export type DebeziumOp = 'c' | 'u' | 'd';

export function debeziumChange<Row>(op: DebeziumOp, before: Row | null, after: Row | null, lsn: number) {
  return {
    before,
    after,
    source: {
      version: '3.0.0',
      connector: 'postgresql',
      table: 'customers',
      lsn,
      ts_ms: 1_700_000_000_000 + lsn,
    },
    op,
    ts_ms: 1_700_000_000_500 + lsn,
  };
}
