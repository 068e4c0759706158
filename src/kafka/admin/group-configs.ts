/**
 * Share-group configs (KIP-932's group-level settings such as `share.auto.offset.reset`) through the
 * config APIs on resource type GROUP: the admin side of a cluster, apart from its connections and
 * metadata (cluster.ts), which only lends a connection to any broker.
 */
import type { BrokerConnection } from '../connection.js';
import { KafkaError } from '../errors/kafka-errors.js';
import { DescribeConfigs } from '../protocol/messages/describe-configs.js';
import {
  ConfigOperation,
  ConfigResourceType,
  IncrementalAlterConfigs,
} from '../protocol/messages/incremental-alter-configs.js';

/**
 * Sets (string) or deletes (null) share-group configs, e.g. `{ 'share.auto.offset.reset': 'earliest' }`,
 * with IncrementalAlterConfigs on resource type GROUP.
 */
export async function alterGroupConfigs(
  anyConnection: () => Promise<BrokerConnection>,
  groupId: string,
  configs: Readonly<Record<string, string | null>>,
): Promise<void> {
  const conn = await anyConnection();
  const res = await conn.call(IncrementalAlterConfigs, {
    resources: [
      {
        resourceType: ConfigResourceType.GROUP,
        resourceName: groupId,
        configs: Object.entries(configs).map(([name, value]) => ({
          name,
          configOperation: value === null ? ConfigOperation.DELETE : ConfigOperation.SET,
          value,
        })),
      },
    ],
    validateOnly: false,
  });
  for (const r of res.responses) throwIfFailed('IncrementalAlterConfigs', groupId, r);
}

/** Reads share-group configs (all of them, or just `keys`), with DescribeConfigs on resource type GROUP. */
export async function describeGroupConfigs(
  anyConnection: () => Promise<BrokerConnection>,
  groupId: string,
  keys?: readonly string[],
): Promise<Map<string, string | null>> {
  const conn = await anyConnection();
  const res = await conn.call(DescribeConfigs, {
    resources: [
      {
        resourceType: ConfigResourceType.GROUP,
        resourceName: groupId,
        configurationKeys: keys ? [...keys] : null,
      },
    ],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  const out = new Map<string, string | null>();
  for (const r of res.results) {
    throwIfFailed('DescribeConfigs', groupId, r);
    for (const c of r.configs) out.set(c.name, c.value);
  }
  return out;
}

/** A resource's error in a config API's answer, as a KafkaError naming the group. */
function throwIfFailed(
  api: string,
  groupId: string,
  r: { readonly errorCode: number; readonly errorMessage: string | null },
): void {
  if (r.errorCode !== 0)
    throw new KafkaError(r.errorCode, { api, subject: `group ${groupId}`, brokerMessage: r.errorMessage });
}
