/**
 * Connect's offsets endpoints (KIP-875) for a sink connector, in either mode:
 * `GET /connectors/{name}/offsets` in any state; `PATCH` (alter) and `DELETE` (reset) only while the
 * connector is STOPPED, with Connect's refusal otherwise. Share mode reads the start offset and lag of
 * each partition (DescribeShareGroupOffsets); classic mode the committed offsets.
 */
import type { Logger } from 'pino';
import { SharesinkError } from '../../errors.js';
import { KafkaError, KafkaErrorCode } from '../../kafka/errors/kafka-errors.js';
import { ConnectorOffsetsService } from '../../offsets/connector-offsets.js';
import { GroupNotEmptyError, OffsetsRequestError } from '../../offsets/errors.js';
import { badRequest, notFound, RestError } from '../server/errors.js';
import type { RestRequest, Router } from '../server/router.js';
import type { RestConnector, RestWorker } from '../worker-view.js';

function connectorOf(worker: RestWorker, req: RestRequest): RestConnector {
  const name = req.params['name']!;
  const c = worker.connector(name);
  if (c === undefined) throw notFound(`Connector ${name} not found`);
  return c;
}

/** Connect's refusal (StandaloneHerder.modifyConnectorOffsetsChecks), word for word; distributed mode says it too. */
export function notStopped(name: string): RestError {
  return badRequest(
    `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${name}/stop' endpoint`,
  );
}

function requireStopped(c: RestConnector): void {
  if (c.state !== 'STOPPED') throw notStopped(c.config.name);
}

/** What the offsets calls read of a compiled connector config (a runtime's, or one from the config topic). */
export function offsetsConfigOf(config: RestConnector['config']) {
  return {
    name: config.name,
    groupProtocol: config.groupProtocol,
    groupId: config.groupId ?? `connect-${config.name}`,
    security: config.security,
  };
}

export function offsetsConfig(c: RestConnector) {
  return offsetsConfigOf(c.config);
}

/**
 * The offsets module's refusals keep their code and get their HTTP status; anything else (the broker
 * unreachable, an authorisation error) is a 500 that says which group could not be reached and why.
 */
export async function answering<T>(groupId: string, job: () => Promise<T>): Promise<T> {
  try {
    return await job();
  } catch (err) {
    if (err instanceof OffsetsRequestError || err instanceof GroupNotEmptyError)
      throw new RestError(err.code, err.status, err.message);
    // a topic or partition the body names that does not exist is the caller's mistake, not the server's
    if (err instanceof KafkaError && err.kafkaCode === KafkaErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
      throw new RestError(err.code, 400, err.message);
    const code = err instanceof SharesinkError ? err.code : 'SHARESINK_OFFSETS_KAFKA';
    throw new RestError(
      code,
      500,
      `The offsets of group ${groupId} could not be read or changed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export function addOffsetsRoutes(router: Router, worker: RestWorker, logger: Logger): void {
  const service = new ConnectorOffsetsService(worker.config, logger);
  router
    .add('GET', '/connectors/:name/offsets', async (req) => {
      const c = connectorOf(worker, req);
      const o = offsetsConfig(c);
      return { status: 200, json: await answering(o.groupId, () => service.read(o)) };
    })
    .add('PATCH', '/connectors/:name/offsets', async (req) => {
      const c = connectorOf(worker, req);
      requireStopped(c);
      const body = await req.json();
      const o = offsetsConfig(c);
      return { status: 200, json: await answering(o.groupId, () => service.alter(o, body)) };
    })
    .add('DELETE', '/connectors/:name/offsets', async (req) => {
      const c = connectorOf(worker, req);
      requireStopped(c);
      const o = offsetsConfig(c);
      return { status: 200, json: await answering(o.groupId, () => service.reset(o)) };
    });
}
