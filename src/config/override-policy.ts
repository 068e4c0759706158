/**
 * Connect's connector client config override policy (KIP-458, KIP-1188): what a connector file may
 * set for its own Kafka clients. The worker's `connector.client.config.override.policy` decides for
 * the `consumer.override.*`, `producer.override.*` and `admin.override.*` keys, as in Connect, and for
 * sharesink's `share.group.*` keys, which configure the share group on the broker and so are the same
 * kind of power over shared infrastructure.
 *
 * Names are compared without their prefix, as Connect's policies see them:
 * `consumer.override.max.poll.records` is `max.poll.records`, `share.group.share.record.lock.duration.ms`
 * is `share.record.lock.duration.ms`.
 */
import type { ConfigDef } from '../connect/config-def.js';
import type { Validator } from '../connect/config-validators.js';
import { SHARE_GROUP_PREFIX } from './share-def.js';

export const OVERRIDE_POLICY_KEY = 'connector.client.config.override.policy';
export const OVERRIDE_ALLOWLIST_KEY = 'connector.client.config.override.allowlist';

export const OVERRIDE_POLICIES = ['All', 'None', 'Principal', 'Allowlist'] as const;
export type OverridePolicyName = (typeof OVERRIDE_POLICIES)[number];

export interface OverridePolicy {
  readonly name: OverridePolicyName;
  /** `connector.client.config.override.allowlist`: the names `Allowlist` lets through. */
  readonly allowlist: readonly string[];
}

/** Connect's default since 3.0 (KIP-722), and sharesink's: see docs/security.md for why. */
export const DEFAULT_OVERRIDE_POLICY: OverridePolicy = { name: 'All', allowlist: [] };

/** What Connect's `Principal` policy lets a connector set: its identity, nothing else. */
export const PRINCIPAL_KEYS: readonly string[] = ['sasl.jaas.config', 'sasl.mechanism', 'security.protocol'];

/** The connector-file prefixes the policy governs, each with the kind of setting behind it. */
const GOVERNED: readonly { prefix: string; what: string; workerKey?: string }[] = [
  { prefix: 'consumer.override.', what: 'consumer', workerKey: 'consumer.' },
  { prefix: 'producer.override.', what: 'producer', workerKey: 'producer.' },
  { prefix: 'admin.override.', what: 'admin client', workerKey: 'admin.' },
  { prefix: SHARE_GROUP_PREFIX, what: 'share-group' },
];

const CLASS_PACKAGE = 'org.apache.kafka.connect.connector.policy.';
const CLASS_SUFFIX = 'ConnectorClientConfigOverridePolicy';

/**
 * The policy a written value names: Connect's aliases (`All`, `None`, `Principal`, `Allowlist`, any
 * case) or the class names they stand for (`org.apache.kafka.connect.connector.policy.NoneConnectorClientConfigOverridePolicy`).
 */
export function parseOverridePolicy(text: string): OverridePolicyName | undefined {
  let name = text.trim();
  if (name.startsWith(CLASS_PACKAGE)) name = name.slice(CLASS_PACKAGE.length);
  if (name.endsWith(CLASS_SUFFIX) && name.length > CLASS_SUFFIX.length)
    name = name.slice(0, -CLASS_SUFFIX.length);
  return OVERRIDE_POLICIES.find((p) => p.toLowerCase() === name.toLowerCase());
}

function policyValidator(): Validator<string | null> {
  return {
    check: (v) =>
      v === null || parseOverridePolicy(v) !== undefined
        ? undefined
        : 'is not a policy sharesink has; custom ConnectorClientConfigOverridePolicy classes cannot be loaded in Node',
    describe: () =>
      `one of ${OVERRIDE_POLICIES.join(', ')} (any case), or Connect's class name for one of them`,
  };
}

/** As Connect's allowlist (KIP-1161's anyNonDuplicateValues): a name listed twice is a mistake worth naming. */
function distinctNames(): Validator<readonly string[] | null> {
  return {
    check: (v) => {
      const names = (v ?? []).map((s) => s.trim());
      const twice = [...new Set(names.filter((n, i) => n !== '' && names.indexOf(n) !== i))];
      return twice.length === 0 ? undefined : `lists ${twice.join(', ')} more than once`;
    },
    describe: () => 'a comma-separated list of client or group config names, each once',
  };
}

/** Declares the two worker keys (in the `worker` group, beside the settings they guard). */
export function defineOverridePolicy<T extends ConfigDef<Record<string, unknown>>>(def: T): T {
  def.define({
    name: OVERRIDE_POLICY_KEY,
    type: 'string',
    default: DEFAULT_OVERRIDE_POLICY.name,
    validator: policyValidator(),
    importance: 'medium',
    group: 'worker',
    documentation:
      'What connector files may set for their own Kafka clients and share group: `consumer.override.*`, `producer.override.*`, `admin.override.*` (as in Connect) and `share.group.*`. `All` (default, as Connect 3.0-4.x): anything. `None`: nothing. `Principal`: only `sasl.jaas.config`, `sasl.mechanism`, `security.protocol`. `Allowlist` (KIP-1188): only the names in `connector.client.config.override.allowlist`. A connector that sets more is refused at start and by `validate`, every such key listed. `All` keeps `consumer.override.group.protocol=share` working; with another policy, allow `group.protocol` or set `consumer.group.protocol` here. See docs/security.md.',
  });
  def.define({
    name: OVERRIDE_ALLOWLIST_KEY,
    type: 'list',
    default: [],
    validator: distinctNames(),
    importance: 'medium',
    group: 'worker',
    documentation:
      'With `connector.client.config.override.policy=Allowlist`: the settings connector files may override, named without their prefix, e.g. `group.protocol,group.id,max.poll.records,share.record.lock.duration.ms` (`consumer.override.group.protocol` is `group.protocol`; `share.group.share.record.lock.duration.ms` is `share.record.lock.duration.ms`). Empty (default): none. A name applies to every kind of client, as in Connect.',
  });
  return def;
}

/** The compiled policy from parsed worker values, with problems (a non-empty allowlist the policy ignores). */
export function compileOverridePolicy(read: (key: string) => unknown): {
  policy: OverridePolicy;
  warnings: string[];
} {
  const text = read(OVERRIDE_POLICY_KEY);
  const name =
    (typeof text === 'string' ? parseOverridePolicy(text) : undefined) ?? DEFAULT_OVERRIDE_POLICY.name;
  const listed = read(OVERRIDE_ALLOWLIST_KEY);
  const allowlist = Array.isArray(listed) ? listed.map((s) => String(s).trim()).filter((s) => s !== '') : [];
  const warnings: string[] = [];
  if (name !== 'Allowlist' && allowlist.length > 0)
    warnings.push(
      `${OVERRIDE_ALLOWLIST_KEY}: ignored, ${OVERRIDE_POLICY_KEY} is ${name}; set ${OVERRIDE_POLICY_KEY}=Allowlist to use it`,
    );
  return { policy: { name, allowlist }, warnings };
}

function allowed(policy: OverridePolicy, name: string): boolean {
  switch (policy.name) {
    case 'All':
      return true;
    case 'None':
      return false;
    case 'Principal':
      return PRINCIPAL_KEYS.includes(name);
    case 'Allowlist':
      return policy.allowlist.includes(name);
  }
}

/** How to get what the refused key wanted without breaking the policy, or by changing it. */
function fixFor(policy: OverridePolicy, key: string, name: string, workerKey: string | undefined): string {
  const ways = [`remove ${key} from the connector file`];
  if (name === 'group.protocol' && key.startsWith('consumer.'))
    ways.push('set consumer.group.protocol in the worker file (the default for every connector)');
  else if (workerKey !== undefined)
    ways.push(`set ${workerKey}${name} in the worker file for every connector`);
  const listed = [...policy.allowlist, name].join(',');
  ways.push(
    policy.name === 'Allowlist'
      ? `add ${name} to the worker's ${OVERRIDE_ALLOWLIST_KEY} (${OVERRIDE_ALLOWLIST_KEY}=${listed})`
      : `allow it in the worker file: ${OVERRIDE_POLICY_KEY}=Allowlist with ${OVERRIDE_ALLOWLIST_KEY}=${name}, or ${OVERRIDE_POLICY_KEY}=All`,
  );
  return ways.join('; or ');
}

/**
 * One problem per connector key the policy refuses, as `key: why; fix`, so that `start` lists every
 * one and the validate endpoint files each under its key.
 */
export function overridePolicyProblems(
  policy: OverridePolicy | undefined,
  props: Readonly<Record<string, string>>,
): string[] {
  const p = policy ?? DEFAULT_OVERRIDE_POLICY;
  if (p.name === 'All') return [];
  const problems: string[] = [];
  for (const key of Object.keys(props).sort()) {
    const governed = GOVERNED.find((g) => key.startsWith(g.prefix) && key.length > g.prefix.length);
    if (governed === undefined) continue;
    const name = key.slice(governed.prefix.length);
    if (allowed(p, name)) continue;
    const scope =
      p.name === 'Principal'
        ? ` (Principal allows only ${PRINCIPAL_KEYS.join(', ')})`
        : p.name === 'Allowlist'
          ? ` (the allowlist is ${p.allowlist.length === 0 ? 'empty' : p.allowlist.join(',')})`
          : '';
    problems.push(
      `${key}: the worker's ${OVERRIDE_POLICY_KEY}=${p.name} does not allow connectors to override the ${governed.what} setting ${name}${scope}; ${fixFor(p, key, name, governed.workerKey)}`,
    );
  }
  return problems;
}
