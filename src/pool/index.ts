export {
  PutPool,
  type PutPoolOptions,
  type PoolTask,
  type PutOptions,
  type StopTaskResult,
} from './put-pool.js';
export { encodeWireBatch, decodeWireBatch, transferables, type WireBatch } from './wire-batch.js';
export type {
  Assignment,
  PutOutcome,
  PutResult,
  PutStats,
  RecordRejection,
  ConverterFailureInfo,
  ErrorInfo,
} from './protocol.js';
