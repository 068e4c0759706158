import { describe, expect, expectTypeOf, it } from 'vitest';
import * as api from '../../src/index.js';
import type {
  ConnectorConfig,
  PartitionAckResult,
  Predicate,
  ShareRecord,
  SinkRecord,
  Transformation,
  TransformsConfig,
  WorkerSummary,
} from '../../src/index.js';

describe('public API (src/index.ts)', () => {
  it('exports the runtime, the share consumer, the connector contract and the machines', () => {
    for (const name of [
      'Worker',
      'ShareConsumer',
      'SinkConnector',
      'SinkTask',
      'SinkRecord',
      'RetriableError',
      'ConfigDef',
      'SharesinkError',
      'isSharesinkError',
      'KafkaError',
      'batchMachine',
      'taskMachine',
      'toMermaid',
      'toDot',
      'compileWorkerConfig',
      'compileConnectorConfig',
      'loadWorkerConfig',
      'loadConnectorConfig',
      'CHANNEL_LOCK_RENEWED',
      'TransformChain',
      'TransformError',
      'TransformModuleError',
      'parseKafkaSecurity',
      'overlaySecurityProps',
      'kafkajsSecurityOptions',
      'OAuthTokenError',
      'printableConfig',
    ]) {
      expect(api, name).toHaveProperty(name);
    }
  });

  it('keeps the runtime internals internal', () => {
    for (const name of [
      'ShareTaskRunner',
      'LockSupervisor',
      'PutPool',
      'ConnectorRuntime',
      'createBatchMachine',
    ])
      expect(api, name).not.toHaveProperty(name);
  });

  it('has the types an embedder needs', () => {
    expectTypeOf<ShareRecord['deliveryCount']>().toEqualTypeOf<number>();
    expectTypeOf<PartitionAckResult['error']>().toEqualTypeOf<api.SharesinkError | null>();
    expectTypeOf<ConnectorConfig['groupProtocol']>().toEqualTypeOf<'share' | 'classic' | 'consumer'>();
    expectTypeOf<ConnectorConfig['transforms']>().toEqualTypeOf<TransformsConfig>();
    expectTypeOf<Transformation['apply']>().returns.toEqualTypeOf<SinkRecord | null>();
    expectTypeOf<Predicate['test']>().returns.toEqualTypeOf<boolean>();
    expectTypeOf<
      WorkerSummary['connectors'][number]['counters']['recordsAccepted']
    >().toEqualTypeOf<number>();
    expectTypeOf<api.RestServer['url']>().toEqualTypeOf<string>();
    expectTypeOf<api.Worker>().toExtend<api.RestWorker>();
    expectTypeOf(api.ShareConsumer.prototype.acknowledge)
      .parameter(1)
      .toEqualTypeOf<'accept' | 'release' | 'reject' | 'renew'>();
  });
});
