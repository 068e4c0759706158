/**
 * `sharesink/testing`: check a connector's delivery guarantees the way share groups deliver records.
 *
 * - `checkSinkTask(factory, options)` runs your SinkTask through generated schedules of deliveries,
 *   redeliveries, crashes and failures, and checks that nothing ACCEPTed is lost (and, for idempotent
 *   sinks, that nothing is written twice), reporting a shrunk counter-example when it is not so.
 * - `SharePartitionModel` is the test oracle behind it: one share partition's record states.
 * - The fast-check arbitraries build your own properties from the same pieces.
 *
 * Needs `fast-check` (4.x) installed next to sharesink. See docs/testing-kit.md.
 */
export {
  checkSinkTask,
  formatSchedule,
  describeFault,
  SinkTaskCheckError,
  type CheckSinkTaskOptions,
  type CheckSinkTaskReport,
} from './check-sink-task.js';
export type { RunContext } from './sink-run.js';
export { testTaskContext, type ErrantReport } from './task-context.js';
export { recordId, TaskHungError, type RecordRef, type MapValue, type MapKey } from './task-calls.js';
export { KitUsageError } from './usage.js';
export {
  SharePartitionModel,
  type SharePartitionModelOptions,
  type ModelAckType,
  type ModelAckResult,
  type ModelAcquiredRecord,
  type ModelRecordState,
  type RecordStateName,
  type ArchiveReason,
  type PartitionSnapshot,
} from './share-partition-model.js';
export {
  recordContentArb,
  recordBatchArb,
  putOutcomeArb,
  putOutcomeScheduleArb,
  putLatencyArb,
  lockDurationArb,
  crashPointArb,
  faultArb,
  deliveryArb,
  faultScheduleArb,
  sinkScheduleArb,
  ALL_FAULT_KINDS,
  SCHEDULE_LOCK_DURATIONS,
  type RecordContent,
  type RecordContentOptions,
  type RecordBatchOptions,
  type TestHeader,
  type PutOutcomeSpec,
  type CrashPoint,
  type Fault,
  type FaultKind,
  type Delivery,
  type Round,
  type SinkSchedule,
  type ScheduleOptions,
} from './arbitraries.js';
export {
  checkConnector,
  type CheckConnectorOptions,
  type CheckConnectorReport,
  type CheckConnectorFailure,
  type CheckProgress,
  type CheckPlan,
} from './real/check-connector.js';
export type { RunResult } from './real/run.js';
export type { ObservedRun, SinkObserver } from './real/observers.js';
export { loadObserver } from './real/observers.js';
export {
  REAL_FAULT_KINDS,
  runScheduleArb,
  formatRunSchedule,
  type RealFaultKind,
  type RunSchedule,
  type RunStep,
  type StepFault,
  type RunScheduleOptions,
} from './real/schedule.js';
