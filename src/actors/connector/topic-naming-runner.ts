import type { Logger } from 'pino';
import type { ConnectorConfig, WorkerConfig } from '../../config/types.js';
import { KafkaCluster } from '../../kafka/cluster.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { UnknownTopicError } from '../../kafka/share/share-errors.js';
import type { ClassicTaskRunner } from '../task/classic/classic-task-runner.js';
import type { TaskRunner } from './types.js';

/**
 * kafkajs refuses to subscribe to a topic that does not exist with "This server does not host this
 * topic-partition", naming none. This asks the broker which of the connector's topics are missing
 * and says so, as share mode does; any other failure passes unchanged.
 */
export class TopicNamingRunner implements TaskRunner {
  constructor(
    private readonly runner: ClassicTaskRunner,
    private readonly config: ConnectorConfig,
    private readonly worker: WorkerConfig,
    private readonly logger: Logger,
  ) {}

  get inFlight(): number {
    return this.runner.inFlight;
  }

  get counters(): TaskRunner['counters'] {
    return this.runner.counters;
  }

  async start(): Promise<void> {
    try {
      await this.runner.start();
    } catch (err) {
      throw (await this.nameMissingTopics(err)) ?? err;
    }
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  pause(): void {
    this.runner.pause();
  }

  resume(): void {
    this.runner.resume();
  }

  private async nameMissingTopics(err: unknown): Promise<UnknownTopicError | undefined> {
    if ((err as { type?: unknown } | null)?.type !== 'UNKNOWN_TOPIC_OR_PARTITION') return undefined;
    const cluster = new KafkaCluster({
      ...kafkajsSecurityOptions(this.config.security?.admin),
      brokers: this.worker.bootstrapServers,
      clientId: `${this.worker.clientId}-${this.config.name}-check`,
      logger: this.logger,
      retry: { maxAttempts: 1 },
    });
    try {
      const present = new Set((await cluster.refreshMetadata(this.config.topics)).map((t) => t.name));
      const missing = this.config.topics.filter((t) => !present.has(t));
      return missing.length === 0
        ? undefined
        : new UnknownTopicError(missing, { readBy: `connector ${this.config.name}`, mode: 'classic' });
    } catch {
      return undefined;
    } finally {
      await cluster.close();
    }
  }
}
