/**
 * A ClassicTaskRunner against the test broker for the classic-mode tests, its puts on a pool running
 * the recording fixture (it appends `value\tdeliveryCount` per record to `sink.file`), with what each
 * test varies passed through.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  ClassicTaskRunner,
  type ClassicTaskRunnerOptions,
} from '../../../src/actors/task/classic/classic-task-runner.js';
import { convertersFromProps } from '../../../src/connect/converters/registry.js';
import { PutPool } from '../../../src/pool/put-pool.js';
import { testBrokers } from './kafka.js';

export const RECORDING = new URL('../../fixtures/connectors/recording.ts', import.meta.url);

export const STRINGS = convertersFromProps({
  'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
  'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
});

export interface ClassicRunnerRun {
  readonly runner: ClassicTaskRunner;
  readonly pool: PutPool;
  /** Where the recording fixture writes; `/dev/null` when no `dir` was given. */
  readonly sinkFile: string;
  /** What the runner reported through `onFailure`. */
  readonly failures: Error[];
}

export interface ClassicRunnerSpec {
  readonly name: string;
  readonly topic: string;
  readonly group: string;
  readonly logger: Logger;
  /** Directory for `<name>.txt`, the recording fixture's output; none: `/dev/null`. */
  readonly dir?: string;
  readonly threads?: number;
  readonly module?: URL;
  /** Task props besides `sink.file`. */
  readonly props?: Record<string, string>;
  readonly converters?: typeof STRINGS;
  /** Runner options that replace the defaults (consumer settings, errors, grace, client id…). */
  readonly options?: Partial<ClassicTaskRunnerOptions>;
}

export function classicRunner(s: ClassicRunnerSpec): ClassicRunnerRun {
  const sinkFile = s.dir === undefined ? '/dev/null' : path.join(s.dir, `${s.name}.txt`);
  const pool = new PutPool({
    connectorModule: s.module ?? RECORDING,
    threads: s.threads ?? 1,
    logger: s.logger,
  });
  const failures: Error[] = [];
  const runner = new ClassicTaskRunner({
    connector: s.name,
    taskId: 0,
    topics: [s.topic],
    groupId: s.group,
    brokers: testBrokers().split(','),
    pool,
    poolTask: {
      id: `${s.name}-0`,
      props: { 'sink.file': sinkFile, ...s.props },
      ...(s.converters === undefined ? {} : { converters: s.converters }),
    },
    logger: s.logger,
    onFailure: (e) => failures.push(e),
    ...s.options,
  });
  return { runner, pool, sinkFile, failures };
}

/** The recorded values, as numbers, in the order written; [] before the file exists. */
export function readValues(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => Number(l.split('\t')[0]));
  } catch {
    return [];
  }
}
