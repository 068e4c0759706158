/**
 * The process-level root of `sharesink distributed`: the internal topics, the herder, the group member
 * and the connector runtimes of this worker, shown to the REST API as a worker like the standalone
 * one (its `/metrics` cover its own tasks) plus the cluster-wide views the herder keeps.
 */
import os from 'node:os';
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { ConnectorRuntime } from '../../actors/connector-runtime.js';
import { clearFailures } from '../../actors/worker.js';
import type { DistributedConfig } from '../../config/distributed-def.js';
import { parseListener } from '../../config/listener.js';
import type { WorkerConfig } from '../../config/types.js';
import { createClassicKafka } from '../../kafka/kafkajs/classic-consumer.js';
import { kafkajsSecurityOptions } from '../../kafka/security/index.js';
import { defaultLogger } from '../../logger.js';
import { createActorCensus, type ActorCensus } from '../../observability/actor-census.js';
import { createRuntimeInspector } from '../../observability/runtime-inspector.js';
import { createTransitionCounter, type TransitionCounter } from '../../observability/transition-counter.js';
import type { WorkerGroupHooks, WorkerGroupMember } from '../group-types.js';
import { DistributedHerder } from './herder.js';
import { ensureInternalTopics } from './internal-topics.js';
import { LeaderWrites } from './leader-writes.js';
import { StatusStore } from './status-store.js';
import { connectorTaskConfigs, type TaskConfigsOf } from './task-configs.js';
import { KafkaTopicLog } from './topic-log.js';

/** Makes the group member for a herder (`src/distributed/group`'s member in production). */
export type MemberFactory = (
  hooks: WorkerGroupHooks,
  identity: { workerId: string; restUrl: string },
) => WorkerGroupMember;

export interface DistributedWorkerOptions {
  readonly worker: WorkerConfig;
  readonly distributed: DistributedConfig;
  readonly member: MemberFactory;
  readonly logger?: Logger;
  /** The leader's `taskConfigs(tasks.max)` call; tests may replace it. */
  readonly taskConfigsOf?: TaskConfigsOf;
}

/** The URL other workers reach this one at: `listeners`, overridden by `rest.advertised.*`. */
export function advertisedUrl(
  worker: Pick<WorkerConfig, 'listeners'>,
  d: Pick<DistributedConfig, 'advertisedHost' | 'advertisedPort' | 'advertisedScheme'>,
  listening?: { port: number },
): { url: string; workerId: string } {
  const l = parseListener(worker.listeners?.[0] ?? '') ?? {
    scheme: 'http' as const,
    host: '127.0.0.1',
    port: 8083,
  };
  const wildcard = l.host === '0.0.0.0' || l.host === '::';
  const host = d.advertisedHost ?? (wildcard ? os.hostname() : l.host);
  const port = d.advertisedPort ?? listening?.port ?? l.port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const workerId = `${shownHost}:${port}`;
  return { url: `${d.advertisedScheme ?? l.scheme}://${workerId}`, workerId };
}

export class DistributedWorker {
  readonly config: WorkerConfig;
  readonly distributed: DistributedConfig;
  readonly #o: DistributedWorkerOptions;
  readonly #log: Logger;
  readonly #logger: Logger;
  readonly #kafka: Kafka;
  readonly #transitions = createTransitionCounter();
  readonly #census = createActorCensus();
  readonly #failures: Array<{ connector: string; taskId: number; error: string }> = [];
  #herder: DistributedHerder | undefined;
  #writes: LeaderWrites | undefined;
  #stopping: Promise<void> | undefined;

  constructor(o: DistributedWorkerOptions) {
    this.#o = o;
    this.config = o.worker;
    this.distributed = o.distributed;
    this.#logger = o.logger ?? defaultLogger(o.worker.logLevel);
    this.#log = this.#logger.child({ component: 'worker' });
    this.#kafka = createClassicKafka({
      ...kafkajsSecurityOptions(o.worker.security?.admin),
      brokers: o.worker.bootstrapServers,
      clientId: `${o.worker.clientId}-${o.distributed.groupId}-internal`,
      logger: this.#logger.child({ component: 'internal-topics' }),
    });
  }

  /** Creates or checks the internal topics, reads them, joins the group. `restUrl` / `workerId`: advertisedUrl(). */
  async start(identity: { workerId: string; restUrl: string }): Promise<void> {
    const d = this.distributed;
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      await ensureInternalTopics(admin, d, this.#log);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    const inspect = createRuntimeInspector(this.#transitions, this.#census);
    const prefix = `${this.config.clientId}-${d.groupId}-reader`;
    const herder = new DistributedHerder({
      worker: this.config,
      distributed: d,
      configLog: new KafkaTopicLog({
        kafka: this.#kafka,
        topic: d.configTopic,
        readerGroupPrefix: prefix,
        logger: this.#log,
      }),
      status: new StatusStore(
        new KafkaTopicLog({
          kafka: this.#kafka,
          topic: d.statusTopic,
          readerGroupPrefix: prefix,
          logger: this.#log,
        }),
        this.#log,
      ),
      workerId: identity.workerId,
      restUrl: identity.restUrl,
      logger: this.#logger,
      runtimes: (config, taskIds) =>
        new ConnectorRuntime(
          config,
          this.config,
          this.#logger,
          (connector, taskId, error) => this.#failures.push({ connector, taskId, error }),
          inspect,
          {
            taskIds,
            onActiveTopic: (topic, task) => herder.recordActiveTopic(config.name, topic, task),
            onTaskRunning: (connector, taskId) => clearFailures(this.#failures, connector, taskId),
          },
        ),
    });
    herder.attach(this.#o.member(herder, identity));
    this.#writes = new LeaderWrites(herder, this.#o.taskConfigsOf ?? connectorTaskConfigs, this.#logger);
    this.#herder = herder;
    this.#log.info(
      { groupId: d.groupId, workerId: identity.workerId, url: identity.restUrl },
      'joining the worker cluster',
    );
    await herder.start();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#log.info('stopping: leaving the worker cluster; running puts may finish');
      await this.#herder?.stop();
    })();
    return this.#stopping;
  }

  get herder(): DistributedHerder {
    if (this.#herder === undefined) throw new Error('the distributed worker has not started');
    return this.#herder;
  }

  get writes(): LeaderWrites {
    if (this.#writes === undefined) throw new Error('the distributed worker has not started');
    return this.#writes;
  }

  /** The root logger the worker's loggers are made from (the REST routes' offsets lines use it too). */
  get logger(): Logger {
    return this.#logger;
  }

  /**
   * True once the worker has read the config topic to its end and joined the group (the REST server
   * listens before): until then the herder's state is partial, and the REST API answers 409 rather
   * than a list or a 404 from it.
   */
  get started(): boolean {
    return this.#herder?.ready === true;
  }

  // ---- what the REST API's worker views read (metrics, live view): this worker's own runtimes ----

  get connectors(): ConnectorRuntime[] {
    return (this.#herder?.local.runtimes ?? []) as ConnectorRuntime[];
  }

  connector(name: string): ConnectorRuntime | undefined {
    return this.connectors.find((c) => c.config.name === name);
  }

  /** @internal */
  get transitionCounter(): TransitionCounter {
    return this.#transitions;
  }

  /** @internal */
  get actorCensus(): ActorCensus {
    return this.#census;
  }

  get isStopping(): boolean {
    return this.#stopping !== undefined;
  }

  get taskFailures(): ReadonlyArray<{ connector: string; taskId: number; error: string }> {
    return this.#failures;
  }
}
