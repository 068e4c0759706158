/**
 * The piscina worker: hosts connector task instances and runs puts. Kept tiny on purpose: it imports
 * the connector contract, the converters and the wire format, never the runtime, and it never logs;
 * everything the main thread should know travels back in the result.
 */
import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import type {
  AbortRequest,
  ControlReply,
  PutRequest,
  PutResult,
  StopRequest,
  WorkerData,
} from './protocol.js';
import { errorInfo, TaskHost } from './task-host.js';

const { connectorModule, controlChannel } = workerData as WorkerData;
const host = new TaskHost(connectorModule);
const requests = new BroadcastChannel(`${controlChannel}:request`);
const replies = new BroadcastChannel(`${controlChannel}:reply`);
// the channels must not keep a terminated pool's threads alive
requests.unref();
replies.unref();

const reply = (message: ControlReply): void => replies.postMessage(message);

requests.onmessage = (event: unknown): void => {
  const message = (event as { data: StopRequest | AbortRequest }).data;
  if (message.op === 'abort') {
    host.abort(message.putId, message.reason);
    return;
  }
  if (message.op !== 'stop') return;
  host.stop(message.taskId).then(
    (hadInstance) => reply({ op: 'stopped', requestId: message.requestId, threadId, hadInstance }),
    (error: unknown) =>
      reply({
        op: 'stopped',
        requestId: message.requestId,
        threadId,
        hadInstance: true,
        error: errorInfo(error),
      }),
  );
};
reply({ op: 'ready', threadId });

export default function put(request: PutRequest): Promise<PutResult> {
  return host.put(request);
}
