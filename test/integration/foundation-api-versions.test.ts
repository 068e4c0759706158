// Foundation: the broker advertises the share-group RPCs at the versions sharesink speaks, and
// accepts the group configs the share-group tests rely on.
import { describe, expect, it } from 'vitest';
import {
  apiVersions,
  ApiKey,
  kafkaVersion,
  runJavaToolOk,
  setGroupConfig,
  testBrokers,
  Tools,
  uniqueGroup,
} from './harness/kafka.js';

function minor(version: string): number {
  const [major = 0, min = 0] = version.split('.').map(Number);
  return major * 100 + min;
}

describe('foundation: broker protocol support', () => {
  it('advertises ShareGroupHeartbeat v1, ShareFetch v1-2 and ShareAcknowledge v1-2', async () => {
    const apis = await apiVersions(testBrokers());
    const range = (key: number): string => {
      const r = apis.get(key);
      return r ? `${r.minVersion}-${r.maxVersion}` : 'absent';
    };
    console.log(
      `[foundation] Kafka ${kafkaVersion()} ApiVersions: 76=${range(76)} 77=${range(77)} 78=${range(78)} 79=${range(79)}`,
    );
    const supports = (key: number, from: number, to: number): void => {
      const r = apis.get(key);
      expect(r, `api ${key} advertised`).toBeDefined();
      expect(r!.minVersion, `api ${key} min`).toBeLessThanOrEqual(from);
      expect(r!.maxVersion, `api ${key} max`).toBeGreaterThanOrEqual(to);
    };
    supports(ApiKey.ShareGroupHeartbeat, 1, 1);
    supports(ApiKey.ShareGroupDescribe, 1, 1);
    supports(ApiKey.ShareFetch, 1, 2);
    supports(ApiKey.ShareAcknowledge, 1, 2);
  });

  it('sets share group configs through IncrementalAlterConfigs (GROUP resource) and validates them', async () => {
    const group = uniqueGroup('foundation-config');
    await setGroupConfig(group, {
      'share.auto.offset.reset': 'earliest',
      // the broker's group.share.min.record.lock.duration.ms is 1000 so tests can use short locks
      'share.record.lock.duration.ms': '1000',
    });
    await expect(setGroupConfig(group, { 'share.record.lock.duration.ms': '999' })).rejects.toThrow(
      /Value must be at least 1000/,
    );

    const described = await runJavaToolOk(Tools.ConfigCommand, [
      '--bootstrap-server',
      testBrokers(),
      '--describe',
      '--entity-type',
      'groups',
      '--entity-name',
      group,
    ]);
    expect(described.stdout).toContain('share.auto.offset.reset=earliest');
    expect(described.stdout).toContain('share.record.lock.duration.ms=1000');
  });

  it('knows the renew and dead-letter group configs exactly when the version has them (4.4+)', async () => {
    const group = uniqueGroup('foundation-dlq');
    const attempt = setGroupConfig(group, {
      'share.renew.acknowledge.enable': 'true',
      'errors.deadletterqueue.topic.name': `dlq.${group}`,
    });
    if (minor(kafkaVersion()) >= 404) await attempt;
    else await expect(attempt).rejects.toThrow(/Unknown group config name/);
  });
});
