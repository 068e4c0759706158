// Run as a child process (see pool-start.test.ts): `await pool.started()` is all this process has
// pending, over the fixture connector named by argv[2]; it says how the start ended, then how the
// process did. A process that ends mid-start prints only its exit (13: an unsettled top-level await).
import { pino } from 'pino';
import { isSharesinkError } from '../../../src/errors.js';
import { PutPool } from '../../../src/pool/put-pool.js';

const name = process.argv[2] ?? 'slow-import';
process.on('exit', (code) => process.stdout.write(`exit ${process.exitCode ?? code}\n`));
const pool = new PutPool({
  connectorModule: new URL(`../../fixtures/connectors/${name}.ts`, import.meta.url),
  threads: 2,
  logger: pino({ level: 'silent' }),
});
try {
  await pool.started();
  process.stdout.write('started\n');
} catch (err) {
  process.stdout.write(`start rejected: ${isSharesinkError(err) ? err.code : String(err)}\n`);
} finally {
  await pool.close();
}
