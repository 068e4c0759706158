/**
 * ELK in a worker thread. A layout takes ELK hundreds of milliseconds of CPU (seconds on a busy
 * machine, plus loading its 1.5 MB script), and in the worker's own thread that would stall lock
 * renewals, heartbeats and puts for as long; in a thread of its own it stalls nothing. The thread
 * lives for one page's layouts and is closed after them, so an idle worker holds no copy of ELK.
 */
import { Worker } from 'node:worker_threads';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { resolveOptional } from '../../optional-package.js';

export interface Layouter {
  layout(graph: ElkNode): Promise<ElkNode>;
  close(): Promise<void>;
}

// plain CommonJS, evaluated as the thread's script, so it needs no TypeScript loader under tsx or vitest
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ELK = require(workerData.elkPath);
const elk = new ELK();
parentPort.on('message', ({ id, graph }) => {
  elk.layout(graph).then(
    (result) => parentPort.postMessage({ id, result }),
    (err) => parentPort.postMessage({ id, error: String(err && err.stack || err) }),
  );
});
`;

type Reply = { id: number; result: ElkNode } | { id: number; error: string };

export function openElkThread(): Layouter {
  // the bundled build: ELK and its own in-thread "worker" in one file, nothing fetched
  // elkjs is an optional package (ADR 0016): a MissingPackageError names it when it is not installed
  const elkPath = resolveOptional(
    'elkjs',
    'elkjs/lib/elk.bundled.js',
    'the live view of the machines (GET /machines)',
  );
  const thread = new Worker(THREAD_SOURCE, { eval: true, workerData: { elkPath } });
  const pending = new Map<number, { resolve: (g: ElkNode) => void; reject: (e: Error) => void }>();
  let next = 0;
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  thread.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    pending.delete(reply.id);
    if (p === undefined) return;
    if ('error' in reply) p.reject(new Error(`ELK layout failed: ${reply.error}`));
    else p.resolve(reply.result);
  });
  thread.on('error', failAll);
  thread.on('exit', (code) => failAll(new Error(`ELK thread exited (${code})`)));
  return {
    layout(graph) {
      return new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        thread.postMessage({ id, graph });
      });
    },
    async close() {
      await thread.terminate();
    },
  };
}
