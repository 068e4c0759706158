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
import { connectorLoader, errorInfo, TaskHost } from './task-host.js';

const { connectorModule, controlChannel } = workerData as WorkerData;
const load = connectorLoader(connectorModule);
const host = new TaskHost(load);
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
// The connector module is imported while the thread boots, and 'ready' says whether it could be: a
// module this thread cannot load (one the main thread can) then fails the pool's start with its
// reason, instead of every task at its first put. The puts reuse this load. Not awaited before
// piscina's own ready: a put that arrives meanwhile waits for the same load.
load().then(
  () => reply({ op: 'ready', threadId }),
  (error: unknown) => reply({ op: 'ready', threadId, error: errorInfo(error) }),
);

export default function put(request: PutRequest): Promise<PutResult> {
  return host.put(request);
}
