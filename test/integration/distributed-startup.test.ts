// `sharesink distributed` refusing to start: bad keys (every problem at once, exit 2) and internal
// topics that would break the cluster (not compacted, a config topic with two partitions; exit 1).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterSpec, workerFile } from './harness/distributed-workers.js';
import { startCli } from './harness/cli.js';
import { createTopic, deleteTopics } from './harness/kafka.js';

const spec = clusterSpec('dist-start');

afterAll(async () => {
  await deleteTopics([spec.configTopic, spec.statusTopic]).catch(() => undefined);
});

// two independent processes: run side by side
describe.concurrent('sharesink distributed: start-up refusals', () => {
  it('lists every missing or bad distributed key at once (exit 2)', async () => {
    const file = path.join(spec.dir, 'bad.properties');
    writeFileSync(file, 'bootstrap.servers=127.0.0.1:9092\nstatus.storage.partitions=0\n');
    const run = startCli(['distributed', file]);
    expect(await run.exited).toBe(2);
    for (const key of [
      'group.id',
      'config.storage.topic',
      'status.storage.topic',
      'status.storage.partitions',
      'listeners',
    ])
      expect(run.stderr()).toContain(`${key}:`);
  });

  it('refuses a config topic with two partitions and topics that are not compacted (exit 1)', async () => {
    await createTopic(spec.configTopic, { partitions: 2 });
    await createTopic(spec.statusTopic, { partitions: 1 });
    const run = startCli(['distributed', workerFile(spec, 'w')]);
    expect(await run.exited).toBe(1);
    const err = run.stderr();
    expect(err).toContain(`topic ${spec.configTopic} has 2 partitions`);
    expect(err).toContain(`topic ${spec.configTopic} has cleanup.policy=delete`);
    expect(err).toContain(`topic ${spec.statusTopic} has cleanup.policy=delete`);
  });
});
