import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';

const made: Array<Record<string, unknown>> = [];
vi.mock('../../../src/kafka/kafkajs/classic-consumer.js', () => ({
  createClassicKafka: (options: Record<string, unknown>) => {
    made.push(options);
    return { producer: () => ({ connect: async () => {} }), admin: () => ({}), options };
  },
}));

const { deadLetterQueueFor } = await import('../../../src/actors/errors/dead-letter-reporter.js');

const consumerKafka = { producer: () => ({}), admin: () => ({}) } as never;
const logger = pino({ level: 'silent' });
const task = {
  connector: 'c1',
  taskId: 0,
  brokers: ['kafka:9093'],
  clientId: 'sharesink-c1-0',
};

describe('classic dead-letter producer security', () => {
  it('producer.override.* / admin.override.* get clients of their own', () => {
    made.length = 0;
    const producerSasl = { mechanism: 'scram-sha-512', username: 'dlq-writer', password: 'x' } as const;
    const q = deadLetterQueueFor(
      consumerKafka,
      {
        ...task,
        errors: {
          tolerance: 'all',
          deadLetterQueueTopic: 'dlq',
          deadLetterQueueSecurity: { producer: { ssl: {}, sasl: producerSasl }, admin: { ssl: {} } },
        },
      },
      logger,
    );
    expect(q?.topic).toBe('dlq');
    expect(made).toEqual([
      expect.objectContaining({
        brokers: ['kafka:9093'],
        clientId: 'sharesink-c1-0-dlq',
        ssl: {},
        sasl: producerSasl,
      }),
      expect.objectContaining({ brokers: ['kafka:9093'], clientId: 'sharesink-c1-0-dlq-admin', ssl: {} }),
    ]);
    expect(made[1]).not.toHaveProperty('sasl');
  });

  it('without them, the consumer’s client produces (no second client)', () => {
    made.length = 0;
    deadLetterQueueFor(
      consumerKafka,
      { ...task, errors: { tolerance: 'all', deadLetterQueueTopic: 'dlq' } },
      logger,
    );
    expect(made).toEqual([]);
  });
});
