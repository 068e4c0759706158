/** RawRecord's fields in declaration order: records built in this order share one hidden class. */
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
