// Under tsx the main thread imports a connector written in TypeScript and the pool threads cannot: the
// start failed with the module named twice in one message and no way out. Now: once, with the way out.
import { describe, expect, it } from 'vitest';
import { threadImportFailure } from '../../../src/pool/thread-import-failure.js';

const NOT_FOUND =
  "Cannot import connector module file:///app/audit-sink.js: Cannot find module '/app/audit-sink.js' imported from /app/node_modules/sharesink/dist/pool/import-module.js";

describe('threadImportFailure', () => {
  it('names a module the threads cannot find once, and says the two ways out', () => {
    const message = threadImportFailure(NOT_FOUND);
    expect(message.match(/audit-sink\.js/g)).toHaveLength(1);
    expect(message).toBe(
      "the put pool's worker threads cannot import the connector module file:///app/audit-sink.js, which the main thread imported: not found (imported from /app/node_modules/sharesink/dist/pool/import-module.js). The main thread likely runs under a loader such as tsx or ts-node, which the pool threads do not get (neither `tsx service.ts` nor `node --import tsx` passes it on): compile the connector to JavaScript, or set put.placement=event-loop to run its puts on the main thread",
    );
  });

  it('gives the same hint for a file type Node cannot run without a loader', () => {
    expect(
      threadImportFailure(
        'Cannot import connector module file:///app/sink.ts: Unknown file extension ".ts" for /app/sink.ts',
      ),
    ).toContain('put.placement=event-loop');
  });

  it('passes any other reason on as the thread said it, without the hint', () => {
    const message = threadImportFailure(
      'Cannot import connector module file:///app/sink.js: the database driver needs a license key',
    );
    expect(message).toBe(
      "the put pool's worker threads cannot import the connector module file:///app/sink.js, which the main thread imported: the database driver needs a license key",
    );
  });
});
