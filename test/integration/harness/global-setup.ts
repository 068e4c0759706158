// vitest globalSetup of the integration project: makes sure a Kafka broker with share groups is
// reachable and hands its address to the tests. It never skips: no broker, no green run.
//
// In a test:  import { testBrokers } from './harness/kafka.js'   (or inject('kafkaBrokers'))
// The broker is left running afterwards (it is shared, and restarting costs seconds); CI stops it.
import type { TestProject } from 'vitest/node';
import { ensureBroker } from './broker.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** bootstrap address of the test broker, e.g. 127.0.0.1:9092 */
    kafkaBrokers: string;
    /** Kafka version whose jars are in kafkaClasspathFile */
    kafkaVersion: string;
    /** file with the java -cp value for Kafka's broker + tools jars (Java peers, CLI tools) */
    kafkaClasspathFile: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const started = Date.now();
  let info;
  try {
    info = await ensureBroker();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    console.error(`\n[integration] FAILED to get a Kafka broker: ${reason}\n`);
    throw err;
  }
  project.provide('kafkaBrokers', info.brokers);
  project.provide('kafkaVersion', info.version);
  project.provide('kafkaClasspathFile', info.classpathFile);
  // for code that reads the environment rather than inject() (e.g. child processes)
  process.env.SHARESINK_TEST_BROKERS = info.brokers;
  process.env.SHARESINK_KAFKA_CLASSPATH_FILE = info.classpathFile;
  console.error(
    `[integration] Kafka ${info.version} at ${info.brokers} (${info.origin}, ${Date.now() - started} ms)`,
  );
  // an idle broker still uses CPU (three of them kept 10–16 % of a 2-core machine busy): say that it
  // stays, and how to stop it before measuring anything
  return () => {
    if (info.origin === 'external') return;
    const port = info.brokers.split(':').pop();
    const stop = port === '9092' ? 'npm run kafka:stop' : `KAFKA_PORT=${port} npm run kafka:stop`;
    const securePort = process.env.KAFKA_SECURE_PORT ?? '9392';
    console.error(
      `[integration] the broker at ${info.brokers} stays up for the next run; stop it with ${stop}` +
        ` (the secured one, if a secured-* test started it: KAFKA_SECURE=1 KAFKA_PORT=${securePort} bash scripts/kafka/stop.sh)`,
    );
  };
}
