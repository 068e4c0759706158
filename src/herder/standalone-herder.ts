/**
 * The herder of a standalone worker: its connectors are the worker's runtimes, their state is read
 * from them and every change is made on them at once. Creating, replacing and deleting connectors at
 * runtime (as Connect's standalone worker) keeps them in memory only: the config files are read again
 * at the next start. Writes are made one at a time.
 */
import type { Logger } from 'pino';
import { healthReport } from '../actors/health.js';
import { compileConnectorConfig } from '../config/compile-connector.js';
import { printableConfig } from '../config/printable.js';
import type { WorkerConfig } from '../config/types.js';
import { ConfigError } from '../errors.js';
import { defaultLogger } from '../logger.js';
import { ConnectorOffsetsService } from '../offsets/connector-offsets.js';
import { connectorInfo, connectorStatus, taskInfos, taskStatus } from './connect-shapes.js';
import { connectorExists, connectorNotFound, HerderError, notStopped, taskNotFound } from './errors.js';
import type { Herder, RestartRequest, TargetState, WorkerHealth } from './herder.js';
import { answering, offsetsConfigOf } from './offsets.js';
import type { HerdedConnector, HerdedWorker } from './standalone-worker.js';

export interface StandaloneHerderOptions {
  /** `host:port` of the REST listener, shown as every instance's `worker_id`, as in Connect. */
  readonly workerId?: () => string;
  readonly logger?: Logger;
}

export class StandaloneHerder implements Herder {
  readonly #w: HerdedWorker;
  readonly #workerId: () => string;
  readonly #log: Logger;
  #offsets: ConnectorOffsetsService | undefined;
  #lock: Promise<unknown> = Promise.resolve();

  constructor(worker: HerdedWorker, o: StandaloneHerderOptions = {}) {
    this.#w = worker;
    this.#workerId = o.workerId ?? (() => '');
    this.#log = o.logger ?? defaultLogger();
  }

  get config(): HerdedWorker['config'] {
    return this.#w.config;
  }

  connectors(): string[] {
    return this.#w.connectors.map((c) => c.config.name);
  }

  connectorInfo(name: string) {
    return connectorInfo(this.#connector(name));
  }

  connectorConfig(name: string): Record<string, string> {
    return printableConfig(this.#connector(name).config);
  }

  connectorStatus(name: string) {
    return connectorStatus(this.#connector(name), this.#workerId());
  }

  taskConfigs(name: string) {
    return taskInfos(this.#connector(name));
  }

  taskStatus(name: string, task: number) {
    const c = this.#connector(name);
    this.#mustHaveTask(c, task);
    return taskStatus(c, task, this.#workerId());
  }

  connectorClasses(): string[] {
    return this.#w.connectors.map((c) => c.config.connectorClass);
  }

  putConnectorConfig(
    name: string,
    config: Record<string, string>,
    o: { create: boolean; initialState?: TargetState },
  ) {
    return this.#serial(async () => {
      const w = this.#w;
      if (w.isStopping) throw stopping();
      const exists = w.connector(name) !== undefined;
      if (o.create && exists) throw connectorExists(name);
      const change = exists ? w.replaceConnector : w.addConnector;
      if (change === undefined)
        throw new HerderError(
          'not-supported',
          'SHARESINK_REST_NOT_SUPPORTED',
          `${exists ? 'Changing' : 'Creating'} a connector is not supported by this worker`,
        );
      const compiled = asBadRequest(() => compileConnectorConfig(config, w.config as WorkerConfig));
      try {
        if (exists) await w.replaceConnector!(compiled);
        else await w.addConnector!(compiled, o.initialState);
      } catch (err) {
        if (err instanceof ConfigError) throw configInvalid(err);
        throw err;
      }
      this.#log.info({ connector: name, created: !exists }, 'connector config written');
      return { created: !exists, info: connectorInfo(this.#connector(name)) };
    });
  }

  deleteConnector(name: string): Promise<void> {
    return this.#serial(async () => {
      this.#connector(name);
      if (this.#w.removeConnector === undefined)
        throw new HerderError(
          'not-supported',
          'SHARESINK_REST_NOT_SUPPORTED',
          'Deleting a connector is not supported by this worker',
        );
      await this.#w.removeConnector(name);
      this.#log.info({ connector: name }, 'connector deleted');
    });
  }

  // A STOPPED connector's pause and resume start it again; like stop, they resolve once that is done
  // (Connect may answer earlier), so the status read next shows the new state.
  async setTargetState(name: string, state: TargetState): Promise<void> {
    const c = this.#connector(name);
    if (state === 'PAUSED') await c.pause();
    else if (state === 'STARTED') await c.resume();
    else await c.halt();
  }

  async restartConnector(name: string, request: RestartRequest) {
    const c = this.#connector(name);
    const restarting = c.restart(request);
    return connectorStatus(c, this.#workerId(), restarting);
  }

  async restartTask(name: string, task: number): Promise<void> {
    const c = this.#connector(name);
    this.#mustHaveTask(c, task);
    await c.restartTask(task);
  }

  offsets(name: string): Promise<unknown> {
    const o = offsetsConfigOf(this.#connector(name).config);
    return answering(o.groupId, () => this.#offsetsService().read(o));
  }

  alterOffsets(name: string, body: unknown): Promise<unknown> {
    const o = offsetsConfigOf(this.#stopped(name).config);
    return answering(o.groupId, () => this.#offsetsService().alter(o, body));
  }

  resetOffsets(name: string): Promise<unknown> {
    const o = offsetsConfigOf(this.#stopped(name).config);
    return answering(o.groupId, () => this.#offsetsService().reset(o));
  }

  activeTopics(name: string): string[] {
    return [...(this.#connector(name).activeTopics?.() ?? [])];
  }

  async resetActiveTopics(name: string): Promise<void> {
    this.#connector(name).resetActiveTopics?.();
  }

  health(): WorkerHealth {
    return healthReport(this.#w).body;
  }

  #connector(name: string): HerdedConnector {
    const c = this.#w.connector(name);
    if (c === undefined) throw connectorNotFound(name);
    return c;
  }

  #mustHaveTask(c: HerdedConnector, task: number): void {
    if (task >= c.taskConfigs.length) throw taskNotFound(c.config.name, task);
  }

  #stopped(name: string): HerdedConnector {
    const c = this.#connector(name);
    if (c.state !== 'STOPPED') throw notStopped(name);
    return c;
  }

  #offsetsService(): ConnectorOffsetsService {
    this.#offsets ??= new ConnectorOffsetsService(this.#w.config, this.#log);
    return this.#offsets;
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#lock.then(step);
    this.#lock = next.catch(() => undefined);
    return next;
  }
}

const stopping = () =>
  new HerderError(
    'conflict',
    'SHARESINK_WORKER_STOPPED',
    'The worker is stopping; connectors cannot be changed now',
  );

function configInvalid(err: ConfigError): HerderError {
  return new HerderError(
    'bad-request',
    'SHARESINK_CONFIG_INVALID',
    `Connector configuration is invalid and contains the following ${err.problems.length} error(s):\n${err.problems.join('\n')}`,
    { cause: err },
  );
}

function asBadRequest<T>(job: () => T): T {
  try {
    return job();
  } catch (err) {
    if (err instanceof ConfigError) throw configInvalid(err);
    throw err;
  }
}
