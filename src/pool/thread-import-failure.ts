/**
 * Why the pool threads cannot import a connector module the main thread imported (the start loads it
 * there first). The thread's error repeats the module (`Cannot import connector module X: Cannot find
 * module 'X' imported from …`); said once here. A module not found, or a file type Node cannot run,
 * in the threads only most often means the main thread runs under a loader the threads do not get
 * (`tsx service.ts` registers it for the main thread only): the message says the two ways out.
 */
const WRAPPED = /^Cannot import connector module (\S+): ([\s\S]*)$/;
const NOT_FOUND = /^Cannot find module '([^']+)' imported from (\S+)/;
const UNKNOWN_EXTENSION = /ERR_UNKNOWN_FILE_EXTENSION|Unknown file extension/;

export function threadImportFailure(message: string): string {
  const wrapped = WRAPPED.exec(message);
  if (wrapped === null) return `the put pool's worker threads cannot load the connector module: ${message}`;
  const [, module, reason] = wrapped as unknown as [string, string, string];
  const notFound = NOT_FOUND.exec(reason);
  const why = notFound === null ? reason : `not found (imported from ${notFound[2]})`;
  const head = `the put pool's worker threads cannot import the connector module ${module}, which the main thread imported: ${why}`;
  if (notFound === null && !UNKNOWN_EXTENSION.test(reason)) return head;
  return (
    `${head}. The main thread likely runs under a loader such as tsx or ts-node, which the pool threads ` +
    'do not get (neither `tsx service.ts` nor `node --import tsx` passes it on): compile the connector ' +
    'to JavaScript, or set put.placement=event-loop to run its puts on the main thread'
  );
}
