import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  KafkaConnectionError,
  KafkaError,
  KafkaRequestTimeoutError,
} from '../../../../src/kafka/errors/kafka-errors.js';
import { lz4 } from '../../../../src/kafka/records/compression.js';
import {
  kafkajsLogger,
  registerKafkajsCompressionCodecs,
  translateKafkajsError,
} from '../../../../src/kafka/kafkajs/internals.js';
import { capturingLogger } from '../../cli/capturing-logger.js';

const require = createRequire(import.meta.url);

describe('kafkajs adapter', () => {
  it('translates kafkajs transport errors into sharesink errors, keeping the cause', () => {
    const errors = require('kafkajs/src/errors.js') as Record<string, new (m: string, o?: object) => Error>;
    const timeout = translateKafkajsError(
      'b:1',
      new errors.KafkaJSRequestTimeoutError!('Request timed out', {}),
    );
    expect(timeout).toBeInstanceOf(KafkaRequestTimeoutError);
    expect(timeout).toMatchObject({
      code: 'SHARESINK_KAFKA_REQUEST_TIMEOUT',
      broker: 'b:1',
      retriable: true,
    });
    const closed = translateKafkajsError(
      'b:1',
      new errors.KafkaJSConnectionClosedError!('Closed connection', {}),
    );
    expect(closed).toBeInstanceOf(KafkaConnectionError);
    expect((closed as Error).cause).toBeInstanceOf(Error);
    const sasl = translateKafkajsError('b:1', new errors.KafkaJSSASLAuthenticationError!('bad password'));
    expect(sasl).toMatchObject({ code: 'SHARESINK_KAFKA_SASL' });
    const proto = translateKafkajsError(
      'b:1',
      new errors.KafkaJSProtocolError!({
        message: 'auth',
        type: 'SASL_AUTHENTICATION_FAILED',
        code: 58,
      } as unknown as string),
    );
    expect(proto).toBeInstanceOf(KafkaError);
    expect(proto).toMatchObject({ kafkaCode: 58, kafkaName: 'SASL_AUTHENTICATION_FAILED' });
    const other = new TypeError('mine');
    expect(translateKafkajsError('b:1', other)).toBe(other);
  });

  it('logs kafkajs through pino, demoting errors to warn and dropping response payloads', () => {
    const { logger, lines } = capturingLogger('trace');
    const k = kafkajsLogger(logger).namespace('Connection');
    k.error('Connection error: boom', { broker: 'b:1' });
    k.debug('Response Metadata(key: 3, version: 12)', {
      data: { huge: true },
      payload: Buffer.alloc(3),
      size: 9,
    });
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'Connection error: boom',
      broker: 'b:1',
      kafkajs: 'Connection',
    });
    expect(lines[1]).toMatchObject({ level: 10, size: 9 });
    expect(lines[1]).not.toHaveProperty('data');
    expect(lines[1]).not.toHaveProperty('payload');
  });

  it('keeps an error response at trace: kafkajs throws it to the caller, which reports it', () => {
    const { logger, lines } = capturingLogger('trace');
    const k = kafkajsLogger(logger).namespace('Connection');
    // what two distributed workers starting at once saw: one of them lost the race to create the topics
    k.error('Response CreateTopics(key: 19, version: 3)', { error: 'Topic creation errors', size: 110 });
    k.warn('Response Produce(key: 0, version: 7)', { error: 'Cluster authorization failed' });
    k.error('Connection timeout', { broker: 'b:1' });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [10, 'Response CreateTopics(key: 19, version: 3)'],
      [10, 'Response Produce(key: 0, version: 7)'],
      [40, 'Connection timeout'],
    ]);
    expect(lines[0]).toMatchObject({ error: 'Topic creation errors' });
  });

  it('registers snappy / lz4 / zstd in kafkajs CompressionCodecs for classic mode', async () => {
    registerKafkajsCompressionCodecs();
    const { CompressionCodecs, CompressionTypes } = require('kafkajs') as {
      CompressionCodecs: Record<
        number,
        () => { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> }
      >;
      CompressionTypes: Record<string, number>;
    };
    const codec = CompressionCodecs[CompressionTypes.LZ4!]!();
    const data = Buffer.from('x'.repeat(1000));
    const packed = await codec.compress({ buffer: data });
    expect(packed).toEqual(lz4().compressFrameSync(data));
    expect(await codec.decompress(packed)).toEqual(data);
    const snappy = CompressionCodecs[CompressionTypes.Snappy!]!();
    expect(await snappy.decompress(await snappy.compress({ buffer: data }))).toEqual(data);
    const zstd = CompressionCodecs[CompressionTypes.ZSTD!]!();
    await expect(zstd.compress({ buffer: data })).rejects.toThrow(/decompression only/);
  });
});
