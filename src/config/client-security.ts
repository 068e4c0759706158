/**
 * The security of every Kafka client a worker opens, from Connect's keys at three levels, later ones
 * winning key by key:
 *
 * 1. the worker's top-level `security.protocol`, `sasl.*`, `ssl.*` (Connect gives these to the worker's
 *    own clients; sharesink's worker has no clients of its own beyond admin calls, so they are the base
 *    for all of them, and a Connect file that repeats them under `consumer.` / `producer.` works too);
 * 2. the worker's `consumer.*`, `producer.*`, `admin.*`;
 * 3. a connector's `consumer.override.*`, `producer.override.*`, `admin.override.*`.
 */
import { overlaySecurityProps, parseKafkaSecurity, type KafkaSecurity } from '../kafka/security/index.js';

export type ClientKind = 'consumer' | 'producer' | 'admin';
export const CLIENT_KINDS: readonly ClientKind[] = ['consumer', 'producer', 'admin'];

/** The compiled security of each kind of client. */
export type ClientSecurities = Readonly<Record<ClientKind, KafkaSecurity>>;

export interface ClientSecurityCheck {
  readonly security: ClientSecurities | undefined;
  readonly problems: string[];
  readonly warnings: string[];
}

type Layers = Array<{ readonly props: Readonly<Record<string, string>>; readonly prefix: string }>;

/**
 * Parses each kind's settings; kinds whose settings are the same are parsed once (and their files read
 * once), so a problem in a top-level key is reported once, not three times.
 */
function compile(layersOf: (kind: ClientKind) => Layers, reuse?: ClientSecurities): ClientSecurityCheck {
  const problems = new Set<string>();
  const warnings = new Set<string>();
  const byShape = new Map<string, KafkaSecurity | undefined>();
  const out: Partial<Record<ClientKind, KafkaSecurity>> = {};
  for (const kind of CLIENT_KINDS) {
    const layers = layersOf(kind);
    const settings = overlaySecurityProps(layers);
    // nothing of this kind's own: the worker's compiled value stands (no second read of its files)
    const own = layers.length > 0 && reuse !== undefined ? overlaySecurityProps(layers.slice(-1)) : settings;
    if (reuse !== undefined && own.size === 0) {
      out[kind] = reuse[kind];
      continue;
    }
    const shape = JSON.stringify([...settings]);
    if (!byShape.has(shape)) {
      const check = parseKafkaSecurity(settings);
      for (const p of check.problems) problems.add(p);
      for (const w of check.warnings) warnings.add(w);
      byShape.set(shape, check.security);
    }
    const security = byShape.get(shape);
    if (security !== undefined) out[kind] = security;
  }
  const complete = CLIENT_KINDS.every((k) => out[k] !== undefined);
  return {
    security: problems.size === 0 && complete ? (out as ClientSecurities) : undefined,
    problems: [...problems],
    warnings: [...warnings],
  };
}

/** The worker's clients: top-level keys overlaid by `consumer.*` / `producer.*` / `admin.*`. */
export function workerClientSecurity(props: Readonly<Record<string, string>>): ClientSecurityCheck {
  return compile((kind) => [
    { props, prefix: '' },
    { props, prefix: `${kind}.` },
  ]);
}

/** A connector's clients: the worker's, overlaid by `consumer.override.*` / `producer.override.*` / `admin.override.*`. */
export function connectorClientSecurity(
  worker: {
    readonly raw: Readonly<Record<string, string>>;
    readonly security?: ClientSecurities | undefined;
  },
  props: Readonly<Record<string, string>>,
): ClientSecurityCheck {
  return compile(
    (kind) => [
      { props: worker.raw, prefix: '' },
      { props: worker.raw, prefix: `${kind}.` },
      { props, prefix: `${kind}.override.` },
    ],
    worker.security,
  );
}
