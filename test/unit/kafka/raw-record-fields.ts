/** RawRecord's fields, in declaration order. */
export const RAW_FIELDS = [
  'topic',
  'partition',
  'offset',
  'timestamp',
  'timestampType',
  'key',
  'value',
  'headers',
  'deliveryCount',
];
