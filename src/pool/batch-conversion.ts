/** Turning a put's batch into the SinkRecords its task's put() receives: decode, converters, transforms. */
import { performance } from 'node:perf_hooks';
import { convertBatch, prepareBatch } from '../connect/converters/convert-batch.js';
import type { LoadedConverters } from '../connect/converters/registry.js';
import type { RawRecord } from '../connect/raw-record.js';
import type { SinkRecord } from '../connect/sink-record.js';
import type { TransformChain } from '../connect/transforms/chain.js';
import type { ConverterFailureInfo, PutRequest } from './protocol.js';
import { decodeWireBatch, isWireBatch } from './wire-batch.js';

/** What one task instance converts with. */
export interface ConversionTools {
  readonly converters: LoadedConverters;
  readonly transforms: TransformChain;
}

export interface ConvertedPut {
  readonly raws: readonly RawRecord[];
  /** After the transforms: what put() receives. */
  readonly records: SinkRecord[];
  readonly converterFailures: ConverterFailureInfo[];
  readonly convertMs: number;
}

/**
 * Converts a put's batch. A converter that must fetch schemas first (a registry's) does so here, once
 * per batch; its failure (a registry that cannot be reached) rejects, for the put to report.
 */
export async function convertPut(batch: PutRequest['batch'], tools: ConversionTools): Promise<ConvertedPut> {
  const began = performance.now();
  const raws = isWireBatch(batch) ? decodeWireBatch(batch) : batch;
  await prepareBatch(raws, tools.converters);
  const converted = convertBatch(raws, tools.converters);
  const converterFailures: ConverterFailureInfo[] = converted.failures.map(({ index, error }) => ({
    index,
    code: 'SHARESINK_CONVERTER_FAILED',
    message: error.message,
    converter: error.converter,
    part: error.part,
  }));
  // dropped records are simply not put: with no failure reported they are acked like put ones
  const { records, failures } = tools.transforms.apply(converted.records);
  for (const { index, error } of failures)
    converterFailures.push({
      index,
      code: 'SHARESINK_TRANSFORM_FAILED',
      message: error.message,
      converter: error.type,
      part: 'transform',
    });
  return { raws, records, converterFailures, convertMs: performance.now() - began };
}
